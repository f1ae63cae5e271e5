/* The run config fills the library structs it embeds: every choice of an enum key stores the
 * library's enum value of that name (so a library enum reordered without its names, or a
 * schema row pointing at another enum, fails here), the fields other keys decide, and a dump
 * that parses back to the same struct. */
#include "testutil.h"

#include <string.h>

#include "api/run_config.h"

/* The key another key needs before it applies (a scoped key reads only some kinds). */
static const char *needed_by(const char *set)
{
    static const struct {
        const char *prefix, *needs;
    } scope[] = {
        {"model.cnn2d_", "model.encoder=cnn2d"},        /* keys of the cnn2d encoder */
        {"model.input=frames", "data.task=frames"},     /* which data.task frames needs */
        {"model.tree_decoder", "model.output=biaffine"}, /* keys of the biaffine head */
        {"data.frame_labels", "data.task=frames"},      /* keys of the frames task */
    };
    for (size_t i = 0; set && i < sizeof scope / sizeof scope[0]; i++)
        if (!strncmp(set, scope[i].prefix, strlen(scope[i].prefix)))
            return scope[i].needs;
    return NULL;
}

static void load_image(qkv_run_config *cfg, const char *set, bool image)
{
    /* DEPREL tags, which model.output=biaffine needs (a later --set data.tags wins) */
    const char *needs = needed_by(set);
    char *ov[] = {(char *)"data.source=synthetic", (char *)"data.train=train.conllu", (char *)"data.tags=deprel",
                  (char *)needs, (char *)set};
    if (!needs)
        ov[3] = ov[4];
    char *ov_image[] = {(char *)"data.train=train-images-idx3-ubyte.gz", (char *)"model.input=patches",
                        (char *)"model.output=class", (char *)"model.cls_token=true", (char *)set};
    qkv_error err = {0};
    if (image ? qkv_run_config_load(NULL, ov_image, 5, cfg, &err)
              : qkv_run_config_load(NULL, ov, (set ? 4 : 3) + (needs != NULL), cfg, &err))
        fail_msg("--set %s: %s", set ? set : "(none)", err.msg);
}

static void load(qkv_run_config *cfg, const char *set) { load_image(cfg, set, false); }

static void test_choices_are_the_library_values(void **state)
{
    (void)state;
    qkv_run_config c;
    const struct {
        const char *set;
        const void *field; /* in c */
        int value;
        bool image; /* with an image model (input patches, output class, a [CLS] token) */
    } cases[] = {
        {"model.activation=relu", &c.model.encoder.activation, QKV_FFN_RELU, false},
        {"model.activation=gelu", &c.model.encoder.activation, QKV_FFN_GELU, false},
        {"model.positional=none", &c.model.positional, QKV_POS_NONE, false},
        {"model.positional=sinusoidal", &c.model.positional, QKV_POS_SINUSOIDAL, false},
        {"model.positional=learned", &c.model.positional, QKV_POS_LEARNED, false},
        {"model.positional=rope", &c.model.positional, QKV_POS_ROPE, false},
        {"model.positional=alibi", &c.model.positional, QKV_POS_ALIBI, false},
        {"model.positional=floater", &c.model.positional, QKV_POS_FLOATER, false},
        {"model.positional=rel2d", &c.model.positional, QKV_POS_REL2D, false},
        {"model.positional=quadratic2d", &c.model.positional, QKV_POS_QUADRATIC2D, false},
        {"model.positional=rope2d", &c.model.positional, QKV_POS_ROPE2D, false},
        {"model.positional=sinusoidal2d", &c.model.positional, QKV_POS_SINUSOIDAL2D, true},
        {"model.positional=learned2d", &c.model.positional, QKV_POS_LEARNED2D, true},
        {"model.pos_overflow=error", &c.model.pos_overflow, QKV_POS_OVERFLOW_ERROR, false},
        {"model.pos_overflow=clamp", &c.model.pos_overflow, QKV_POS_OVERFLOW_CLAMP, false},
        {"model.attn_normalize=softmax", &c.model.encoder.attn.normalize, QKV_ATTN_SOFTMAX, false},
        {"model.attn_normalize=relu", &c.model.encoder.attn.normalize, QKV_ATTN_RELU, false},
        {"model.attn_kernel=stored", &c.model.encoder.attn.kernel, QKV_ATTN_KERNEL_STORED, false},
        {"model.attn_kernel=tiled", &c.model.encoder.attn.kernel, QKV_ATTN_KERNEL_TILED, false},
        {"model.attn_kernel=auto", &c.model.encoder.attn.kernel, QKV_ATTN_KERNEL_AUTO, false},
        {"model.encoder=transformer", &c.model.encoder_kind, QKV_ENCODER_TRANSFORMER, false},
        {"model.encoder=bilstm", &c.model.encoder_kind, QKV_ENCODER_BILSTM, false},
        {"model.encoder=cnn", &c.model.encoder_kind, QKV_ENCODER_CNN, false},
        {"model.encoder=cnn2d", &c.model.encoder_kind, QKV_ENCODER_CNN2D, false},
        {"model.cnn2d_pool=none", &c.model.cnn2d_pool, QKV_CNN2D_POOL_NONE, false},
        {"model.cnn2d_pool=max", &c.model.cnn2d_pool, QKV_CNN2D_POOL_MAX, false},
        {"model.cnn2d_pool=avg", &c.model.cnn2d_pool, QKV_CNN2D_POOL_AVG, false},
        {"model.output=softmax", &c.model.output, QKV_OUTPUT_SOFTMAX, false},
        {"model.output=crf", &c.model.output, QKV_OUTPUT_CRF, false},
        {"model.input=words", &c.model.input_kind, QKV_INPUT_WORDS, false},
        {"model.input=frames", &c.model.input_kind, QKV_INPUT_FRAMES, false},
        {"model.input=pixels", &c.model.input_kind, QKV_INPUT_PIXELS, true},
        {"model.input=patches", &c.model.input_kind, QKV_INPUT_PATCHES, true},
        {"model.input=conv_patches", &c.model.input_kind, QKV_INPUT_CONV_PATCHES, true},
        {"model.pool=mean", &c.model.pool, QKV_SEQ_POOL_MEAN, true},
        {"model.pool=cls", &c.model.pool, QKV_SEQ_POOL_CLS, true},
        {"model.output=class", &c.model.output, QKV_OUTPUT_CLASS, true},
        {"model.output=biaffine", &c.model.output, QKV_OUTPUT_BIAFFINE, false},
        {"model.tree_decoder=mst", &c.model.biaffine.decoder, QKV_TREE_MST, false},
        {"model.tree_decoder=eisner", &c.model.biaffine.decoder, QKV_TREE_EISNER, false},
        {"data.task=tag", &c.data.task, QKV_TASK_TAG, false},
        {"data.task=segment", &c.data.task, QKV_TASK_SEGMENT, false},
        {"data.task=frames", &c.data.task, QKV_TASK_FRAMES, false},
        {"data.task=images", &c.data.task, QKV_TASK_IMAGES, true},
        {"data.augment=none", &c.data.augment, QKV_AUGMENT_NONE, true},
        {"data.augment=crop_flip", &c.data.augment, QKV_AUGMENT_CROP_FLIP, true},
        {"data.frame_labels=phoneme", &c.data.frame_labels, QKV_FRAME_PHONEME, false},
        {"data.frame_labels=upos", &c.data.frame_labels, QKV_FRAME_UPOS, false},
        {"data.source=files", &c.data.source, QKV_SOURCE_FILES, false},
        {"data.source=synthetic", &c.data.source, QKV_SOURCE_SYNTHETIC, false},
        {"data.format=auto", &c.data.read.format, QKV_FORMAT_AUTO, false},
        {"data.format=conllu", &c.data.read.format, QKV_FORMAT_CONLLU, false},
        {"data.format=columns", &c.data.read.format, QKV_FORMAT_COLUMNS, false},
        {"optim.name=adamw", &c.optim.optimizer.kind, QKV_OPTIM_ADAMW, false},
        {"optim.name=adam", &c.optim.optimizer.kind, QKV_OPTIM_ADAM, false},
        {"optim.name=sgd", &c.optim.optimizer.kind, QKV_OPTIM_SGD, false},
        {"optim.decay=none", &c.optim.schedule.decay, QKV_LR_NONE, false},
        {"optim.decay=linear", &c.optim.schedule.decay, QKV_LR_LINEAR, false},
        {"optim.decay=cosine", &c.optim.schedule.decay, QKV_LR_COSINE, false},
        {"data.tag_scheme=none", &c.data.read.scheme, QKV_TAG_SCHEME_NONE, false},
        {"data.tag_scheme=bio", &c.data.read.scheme, QKV_TAG_SCHEME_BIO, false},
        {"data.tag_scheme=iob1", &c.data.read.scheme, QKV_TAG_SCHEME_IOB1, false},
        {"data.tag_scheme=bioes", &c.data.read.scheme, QKV_TAG_SCHEME_BIOES, false},
        {"train.select_by=auto", &c.train.select_by, QKV_SELECT_AUTO, false},
        {"train.select_by=accuracy", &c.train.select_by, QKV_SELECT_ACCURACY, false},
        {"train.select_by=span_f1", &c.train.select_by, QKV_SELECT_SPAN_F1, false},
        {"log.progress=auto", &c.log.progress, QKV_PROGRESS_AUTO, false},
        {"log.progress=on", &c.log.progress, QKV_PROGRESS_ON, false},
        {"log.progress=off", &c.log.progress, QKV_PROGRESS_OFF, false},
        {"train.gemm=auto", &c.train.gemm, QKV_GEMM_AUTO, false},
        {"train.gemm=openblas", &c.train.gemm, QKV_GEMM_OPENBLAS, false},
        {"train.gemm=onednn", &c.train.gemm, QKV_GEMM_ONEDNN, false},
        {"train.precision=f32", &c.train.precision, QKV_PRECISION_F32, false},
        {"train.precision=bf16", &c.train.precision, QKV_PRECISION_BF16, false},
    };
    int n_enum_keys = 0, n_choices = 0;
    for (int k = 0; k < QKV_RUN_SCHEMA_LEN; k++)
        if (QKV_RUN_SCHEMA[k].type == QKV_CFG_ENUM) {
            n_enum_keys++;
            for (int i = 0; QKV_RUN_SCHEMA[k].choices[i]; i++)
                n_choices++;
        }
    assert_int_equal(n_enum_keys, 23);
    assert_int_equal(n_choices, (int)(sizeof cases / sizeof cases[0])); /* every choice is a case */
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        load_image(&c, cases[i].set, cases[i].image);
        int got;
        memcpy(&got, cases[i].field, sizeof got); /* every one of these enums is int-sized */
        if (got != cases[i].value)
            fail_msg("--set %s stored %d, the library's value of that name is %d", cases[i].set, got, cases[i].value);
    }
    /* data.tags, a list: its first column is the tags' column, the rest follow in order. */
    for (int col = 0; col < QKV_TAG_FIELD_COUNT; col++) {
        char set[64];
        snprintf(set, sizeof set, "data.tags=%s", QKV_TAG_FIELD_NAMES[col]);
        load(&c, set);
        assert_int_equal(c.data.read.tag_field, col);
        assert_int_equal(c.heads.n, 1);
    }
    load(&c, "data.tags=[lemma, upos,feats]");
    assert_int_equal(c.heads.n, 3);
    assert_int_equal(c.data.read.tag_field, QKV_TAG_LEMMA);
    assert_int_equal(c.data.read.columns[1], QKV_TAG_UPOS);
    assert_int_equal(c.data.features.columns[2], QKV_TAG_FEATS);
    assert_string_equal(QKV_TAG_FIELD_NAMES[QKV_TAG_XPOS], "xpos");
    /* The library's own names agree with the config's words. */
    assert_string_equal(QKV_OPTIM_KIND_NAMES[QKV_OPTIM_SGD], "sgd");
    assert_string_equal(QKV_LR_DECAY_NAMES[QKV_LR_NONE], "none");
    load(&c, "model.norm_first=false");
    assert_false(c.model.encoder.norm_first);
    load(&c, "model.norm_first=true");
    assert_true(c.model.encoder.norm_first);
}

static void test_fields_other_keys_decide(void **state)
{
    (void)state;
    qkv_run_config c;
    load(&c, "data.feature_min_count=3");
    assert_int_equal(c.data.features.affix_min_count, 3);
    assert_int_equal(c.data.features.shape_min_count, 3);
    assert_int_equal(c.data.features.word, 1);
    assert_int_equal(c.data.features.chars, 0);
    load(&c, "model.char_dim=8");
    assert_int_equal(c.data.features.chars, 1);
    assert_int_equal(c.model.chars.char_dim, 8);
    /* an image input whose config says data.task tag (the default: configs and checkpoints from
       before the images task was named) is read as images */
    load_image(&c, "model.pool=mean", true);
    assert_int_equal(c.data.task, QKV_TASK_IMAGES);
    load_image(&c, "data.task=tag", true);
    assert_int_equal(c.data.task, QKV_TASK_IMAGES);
}

static void test_dump_parses_back_to_the_same_struct(void **state)
{
    (void)state;
    qkv_run_config a, b;
    char *ov[] = {"data.source=synthetic", "model.char_dim=8", "optim.name=sgd", "optim.warmup_steps=2147483647",
                  "model.norm_first=false", "data.lowercase=false", "log.progress=off"};
    qkv_error err = {0};
    assert_int_equal(qkv_run_config_load(NULL, ov, 7, &a, &err), QKV_OK);
    assert_true(a.optim.schedule.warmup_steps == 2147483647L);
    char *text = NULL;
    assert_int_equal(qkv_config_dump(QKV_RUN_SCHEMA, QKV_RUN_SCHEMA_LEN, &a, &text, &err), QKV_OK);
    memset(&b, 0xa5, sizeof b);
    assert_int_equal(qkv_run_config_parse(text, "dump", &b, &err), QKV_OK);
    /* Field by field (the bytes of every key's field, the text of strings, and the fields other
     * keys decide): padding between fields is not a value, and struct copies leave it undefined. */
    for (int k = 0; k < QKV_RUN_SCHEMA_LEN; k++) {
        const qkv_cfg_key *key = &QKV_RUN_SCHEMA[k];
        const char *fa = (const char *)&a + key->offset, *fb = (const char *)&b + key->offset;
        if (key->type == QKV_CFG_STRING || key->type == QKV_CFG_PATH) {
            assert_string_equal(fa, fb);
            continue;
        }
        size_t size = key->size ? key->size
                      : key->type == QKV_CFG_REAL ? sizeof(double)
                      : key->type == QKV_CFG_BOOL ? sizeof(bool) : sizeof(int);
        if (memcmp(fa, fb, size))
            fail_msg("%s.%s differs after a dump and a parse", key->section, key->name);
    }
    assert_int_equal(a.data.features.word, b.data.features.word);
    assert_int_equal(a.data.features.chars, b.data.features.chars);
    assert_int_equal(a.data.features.shape_min_count, b.data.features.shape_min_count);
    free(text);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_choices_are_the_library_values),
        cmocka_unit_test(test_fields_other_keys_decide),
        cmocka_unit_test(test_dump_parses_back_to_the_same_struct),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
