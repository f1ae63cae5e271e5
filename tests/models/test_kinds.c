/* The kind tables of models/kinds.h: every input, encoder and head kind creates, runs forward
 * with the shapes it promises and names its parameters uniquely under its declared prefixes
 * (two heads of a kind side by side under different prefixes included); every kind's name is
 * its table's name; a model with a second head adds that head's weighted loss, its gradient
 * checked in double precision, also beside a parser head (trained with its gold heads). */
#define QKV_TESTUTIL_AUTOGRAD
#include "testutil.h"

#include <string.h>

#include "lib/ops/ops.h"
#include "models/network.h"

enum { T = 7, B = 3, NT = 4, D = 6, D_INPUT = 3 };
static const int32_t OFFSETS[B + 1] = {0, 1, 4, 7};
static const int32_t WORDS[T] = {1, 2, 3, 0, 4, 1, 2};
static const int32_t SUFFIX[T] = {0, 1, 2, 1, 2, 0, 1};
static const int32_t TAGS[T] = {1, 0, 1, 2, -1, 3, 0};
static const int32_t TAGS2[T] = {0, 2, 1, 1, 0, -1, 2};
/* gold heads for heads whose targets are arcs (0 = ROOT, k = word k of the sentence) */
static const int32_t HEADS[T] = {0, 2, 0, 2, -1, 0, 2};
static const char *const NAMES[NT] = {"O", "B-X", "I-X", "B-Y"};
/* one character per word, each framed by two markers: 3 characters a word */
static const int32_t WORD_OFFSETS[T + 1] = {0, 3, 6, 9, 12, 15, 18, 21};
static const int32_t CHARS[21] = {1, 3, 2, 1, 4, 2, 1, 5, 2, 1, 3, 2, 1, 6, 2, 1, 4, 2, 1, 5, 2};
/* image inputs: one sequence of T tokens, a [CLS] token and a 2 x 3 grid, 4 values a token */
enum { DI = 4 };
static const int32_t IMAGE_OFFSETS[2] = {0, T};
static const qkv_grid IMAGE_GRID = {2, 3, 1};
static float IMAGE_DENSE[T * DI];

static qkv_network_config config(void)
{
    qkv_network_config cfg;
    memset(&cfg, 0, sizeof cfg);
    cfg.n_features = 2;
    cfg.feature_names[0] = "word";
    cfg.feature_names[1] = "suffix1";
    cfg.vocab_sizes[0] = 5;
    cfg.vocab_sizes[1] = 3;
    cfg.n_tags = NT;
    cfg.n_layers = 2;
    cfg.encoder.d_model = D;
    cfg.encoder.d_ff = 8;
    cfg.encoder.attn.n_heads = 2;
    cfg.encoder.activation = QKV_FFN_GELU;
    cfg.encoder.norm_first = true;
    cfg.encoder.ln_eps = 1e-5;
    cfg.positional = QKV_POS_SINUSOIDAL;
    cfg.chars = (qkv_char_cnn_config){.n_chars = 7, .char_dim = 3, .char_filters = 4, .char_width = 3};
    cfg.cnn_kernel = 3;
    cfg.d_input = D_INPUT;
    cfg.tag_names = NAMES;
    return cfg;
}

static const float DENSE[T * D_INPUT] /* dense token vectors (the frames input) */ = {0.5f, -1, 2, 0, 1, 0.25f, -0.5f, 3, 1, 2, -2, 0, 1, 1, 1, 0.1f, -0.3f, 0.7f, 4, 0, -1};

static qkv_network_input batch(const int32_t **features)
{
    features[0] = WORDS;
    features[1] = SUFFIX;
    return (qkv_network_input){.sentences = {B, OFFSETS}, .features = features, .words = {T, WORD_OFFSETS},
                              .chars = CHARS, .dense = DENSE};
}

/* Parameters from..ps->n: at least one, names unique in ps, each after prefix beginning with
 * one of prefixes. */
static void assert_names(const qkv_params *ps, int from, const char *prefix, const char *const *prefixes)
{
    assert_true(ps->n > from);
    for (int i = from; i < ps->n; i++) {
        const char *name = ps->items[i]->name;
        if (strncmp(name, prefix, strlen(prefix)) != 0)
            fail_msg("%s does not start with the head prefix '%s'", name, prefix);
        bool declared = false;
        for (const char *const *p = prefixes; *p; p++)
            declared = declared || strncmp(name + strlen(prefix), *p, strlen(*p)) == 0;
        if (!declared)
            fail_msg("%s is not under a prefix its kind declares", name);
        for (int j = 0; j < i; j++)
            if (!strcmp(ps->items[j]->name, name))
                fail_msg("%s named twice", name);
    }
}

static void assert_shape(const qkv_tensor *t, int rows, int cols)
{
    assert_non_null(t);
    assert_int_equal(t->rank, 2);
    assert_int_equal(t->shape[0], rows);
    assert_int_equal(t->shape[1], cols);
}

static void test_input_kinds(void **state)
{
    (void)state;
    for (int k = 0; k < QKV_INPUT_KIND_COUNT; k++) {
        const qkv_input_desc *desc = QKV_INPUT_DESCS[k];
        assert_string_equal(desc->name, QKV_INPUT_KIND_NAMES[k]);
        qkv_network_config cfg = config();
        const int32_t *features[2];
        qkv_network_input b = batch(features);
        if (desc->patch) { /* an image input reads dense vectors of a grid's tokens */
            cfg.grid = IMAGE_GRID;
            cfg.d_input = DI;
            cfg.patch_size = 2; /* conv_patches: patches of 2 x 2 pixels of one channel, a stem */
            cfg.stem_layers = 1;
            cfg.stem_channels = 2;
            for (int i = 0; i < T * DI; i++)
                IMAGE_DENSE[i] = (float)(i % 5) - 2;
            b.sentences = (qkv_packed){1, IMAGE_OFFSETS};
            b.dense = IMAGE_DENSE;
        }
        qkv_params ps;
        qkv_params_init(&ps);
        qkv_rng rng;
        qkv_rng_seed(&rng, 1);
        qkv_error err;
        qkv_input in = {.desc = desc};
        if (desc->create(&in, &ps, &rng, &cfg, &err))
            fail_msg("%s: %s", desc->name, err.msg);
        assert_names(&ps, 0, "", desc->param_prefixes);
        qkv_tape tp;
        assert_int_equal(qkv_tape_init(&tp, 0), 0);
        assert_shape(desc->forward(&tp, &in, &b), T, D);
        for (int i = 0; i < desc->n_tables(&in); i++) { /* every table is a parameter */
            const int32_t *ids;
            int n_ids;
            assert_non_null(qkv_params_of(&ps, desc->table_rows(&in, &b, i, &ids, &n_ids)));
            assert_true(n_ids > 0);
        }
        qkv_tape_free(&tp);
        desc->free(&in);
        qkv_params_free(&ps);
    }
}

static void test_encoder_kinds(void **state)
{
    (void)state;
    for (int k = 0; k < QKV_ENCODER_KIND_COUNT; k++) {
        const qkv_encoder_desc *desc = QKV_ENCODER_DESCS[k];
        assert_string_equal(desc->name, QKV_ENCODER_KIND_NAMES[k]);
        qkv_network_config cfg = config();
        cfg.encoder_kind = (qkv_encoder_kind)k;
        int rows = T;
        qkv_packed sentences = {B, OFFSETS};
        static const int32_t images[3] = {0, 6, 12}; /* two images of 3 x 2 */
        if (k == QKV_ENCODER_CNN2D) {
            cfg.grid = (qkv_grid){.rows = 3, .cols = 2};
            cfg.cnn2d_pool = QKV_CNN2D_POOL_MAX;
            rows = 12;
            sentences = (qkv_packed){2, images};
        }
        qkv_params ps, xs;
        qkv_params_init(&ps);
        qkv_params_init(&xs);
        qkv_rng rng;
        qkv_rng_seed(&rng, 2);
        qkv_error err;
        qkv_encoder e = {.desc = desc, .d_out = desc->d_out(&cfg)};
        assert_int_equal(e.d_out, qkv_network_d_out(&cfg));
        if (desc->create(&e, &ps, &rng, &cfg, &err))
            fail_msg("%s: %s", desc->name, err.msg);
        assert_names(&ps, 0, "", desc->param_prefixes);
        qkv_tensor *x = tu_param(&xs, &rng, "x", 2, (int[]){rows, D});
        qkv_tape tp;
        assert_int_equal(qkv_tape_init(&tp, 0), 0);
        assert_shape(desc->forward(&tp, &e, x, sentences, -1, NULL), rows, e.d_out);
        if (desc->attention_block) /* one block per layer */
            assert_true(desc->attention_block(&e, cfg.n_layers - 1) && !desc->attention_block(&e, cfg.n_layers));
        qkv_tape_free(&tp);
        desc->free(&e);
        qkv_params_free(&ps);
        qkv_params_free(&xs);
    }
}

/* A head whose targets are arcs: logits are its input, the loss (arcs plus labels, both means over
 * the 6 words with a gold head and tag) is what predict sums over 6, predictions are trees. */
static void check_arc_head(qkv_tape *tp, const qkv_head *h, qkv_tensor *x, qkv_packed sentences)
{
    qkv_error err;
    qkv_tensor *lg = h->desc->logits(tp, h, x);
    assert_ptr_equal(lg, x);
    qkv_tensor *loss = h->desc->loss(tp, h, lg, sentences, &(qkv_gold){.tags = TAGS, .arcs = HEADS});
    assert_non_null(loss);
    int32_t pred[T], heads[T];
    double sum = -1;
    assert_int_equal(h->desc->predict(tp, h, lg, sentences, &(qkv_gold){.tags = TAGS, .arcs = HEADS},
                                      &(qkv_prediction){pred, heads, &sum, NULL}, &err),
                     QKV_OK);
    tu_assert_close(sum, 6 * loss->data[0], 1e-9);
    for (int s = 0; s < B; s++)
        assert_true(qkv_tree_is_valid(heads + OFFSETS[s], OFFSETS[s + 1] - OFFSETS[s], 0));
    for (int t = 0; t < T; t++)
        assert_true(pred[t] >= 0 && pred[t] < NT);
}

/* Two heads of kind k over one input: distinct names; logits [T, n_tags]; the loss is the
 * mean over the gold-tagged tokens of what predict sums; predictions are tags (trees for a head
 * whose targets are arcs). */
static void test_head_kinds(void **state)
{
    (void)state;
    static const char *const prefixes[2] = {"", "aux."};
    for (int k = 0; k < QKV_OUTPUT_COUNT; k++) {
        assert_string_equal(QKV_HEAD_DESCS[k]->name, QKV_OUTPUT_NAMES[k]);
        /* scored by the accuracy of its tags; a head whose targets are arcs by UAS and LAS too */
        assert_true(QKV_HEAD_DESCS[k]->scores & QKV_SCORE_ACCURACY);
        assert_int_equal((QKV_HEAD_DESCS[k]->scores & QKV_SCORE_ATTACHMENT) != 0, QKV_HEAD_DESCS[k]->arcs);
        qkv_params ps, xs;
        qkv_params_init(&ps);
        qkv_params_init(&xs);
        qkv_rng rng;
        qkv_rng_seed(&rng, 3);
        qkv_error err;
        qkv_head h[2];
        for (int i = 0; i < 2; i++) {
            int from = ps.n;
            qkv_head_spec spec = {.kind = (qkv_output_kind)k, .prefix = prefixes[i], .n_tags = NT, .tag_names = NAMES,
                                  .crf_constrained = i == 1, .biaffine = {.arc_dim = 5, .label_dim = 3}};
            if (qkv_head_create(&h[i], &ps, &rng, D, &spec, &err))
                fail_msg("%s: %s", QKV_OUTPUT_NAMES[k], err.msg);
            assert_names(&ps, from, prefixes[i], h[i].desc->param_prefixes);
            assert_true(h[i].loss_weight == 1.0);
        }
        qkv_tensor *x = tu_param(&xs, &rng, "x", 2, (int[]){T, D});
        qkv_packed sentences = {B, OFFSETS};
        qkv_tape tp;
        assert_int_equal(qkv_tape_init(&tp, 0), 0);
        for (int i = 0; i < 2; i++) {
            if (qkv_head_has_arcs(&h[i])) {
                check_arc_head(&tp, &h[i], x, sentences);
                continue;
            }
            qkv_tensor *lg = qkv_head_logits(&tp, &h[i], x, sentences);
            assert_shape(lg, T, NT);
            qkv_tensor *loss = h[i].desc->loss(&tp, &h[i], lg, sentences, &(qkv_gold){.tags = TAGS, .arcs = NULL});
            assert_non_null(loss);
            int32_t pred[T];
            double sum = -1;
            uint8_t flags[B];
            assert_int_equal(h[i].desc->predict(&tp, &h[i], lg, sentences, &(qkv_gold){.tags = TAGS, .arcs = NULL},
                                                &(qkv_prediction){pred, NULL, &sum, NULL}, &err),
                             QKV_OK);
            tu_assert_close(sum, 6 * loss->data[0], 1e-9);
            memset(flags, 9, sizeof flags);
            assert_int_equal(h[i].desc->predict(&tp, &h[i], lg, sentences, &(qkv_gold){.tags = TAGS, .arcs = NULL},
                                                &(qkv_prediction){pred, NULL, &sum, flags}, &err),
                             QKV_OK);
            tu_assert_close(sum, 6 * loss->data[0], 1e-9);
            for (int b = 0; b < B; b++)
                assert_int_equal(flags[b], 0);
            for (int t = 0; t < T; t++)
                assert_true(pred[t] >= 0 && pred[t] < NT);
            /* each head's per-token probabilities: rows of NT summing to 1 */
            double probs[T * NT];
            assert_int_equal(h[i].desc->probs(&h[i], lg, sentences, probs, NULL, &err), QKV_OK);
            for (int t = 0; t < T; t++) {
                double total = 0;
                for (int k = 0; k < NT; k++)
                    total += probs[t * NT + k];
                tu_assert_close(total, 1.0, 1e-9);
            }
        }
        qkv_tape_free(&tp);
        for (int i = 0; i < 2; i++)
            qkv_head_free(&h[i]);
        qkv_params_free(&ps);
        qkv_params_free(&xs);
    }
}

typedef struct {
    qkv_network m;
    qkv_network_input in;
    const int32_t *features[2];
} fixture;

/* A model of cfg (seeded rng) with a second head spec, then the parameters that would start at
 * zero or be too plain to check (rank 1, or a name with one of the strings of noisy) drawn from
 * N(0, 0.5²); f->in the batch. */
static void make_two_heads(fixture *f, const qkv_network_config *cfg, uint64_t seed, const qkv_head_spec *spec,
                           const char *const *noisy)
{
    memset(f, 0, sizeof *f);
    qkv_rng rng;
    qkv_rng_seed(&rng, seed);
    qkv_error err;
    if (qkv_network_init(&f->m, cfg, &rng, &err))
        fail_msg("%s", err.msg);
    if (qkv_network_add_head(&f->m, spec, &rng, &err))
        fail_msg("%s", err.msg);
    for (int i = 0; i < f->m.params.n; i++) {
        bool draw = f->m.params.items[i]->t.rank == 1;
        for (const char *const *p = noisy; *p; p++)
            draw = draw || strstr(f->m.params.items[i]->name, *p);
        if (draw)
            qkv_init_normal(&f->m.params.items[i]->t, &rng, 0.5);
    }
    f->in = batch(f->features);
}

/* The gradient of loss (of f) checked in double precision for every parameter of f's model;
 * frees the model. */
static void gradcheck_model(fixture *f, qkv_tensor *(*loss)(qkv_tape *, void *))
{
    qkv_tape tp;
    assert_int_equal(qkv_tape_init(&tp, 0), 0);
    int n = f->m.params.n;
    qkv_tensor **ts = calloc((size_t)n, sizeof *ts);
    const char **names = calloc((size_t)n, sizeof *names);
    for (int i = 0; i < n; i++) {
        ts[i] = &f->m.params.items[i]->t;
        names[i] = f->m.params.items[i]->name;
    }
    tu_assert_gradcheck(&tp, loss, f, n, ts, names);
    free(ts);
    free(names);
    qkv_tape_free(&tp);
    qkv_network_free(&f->m);
}

static qkv_tensor *heads_loss(qkv_tape *tp, void *user)
{
    fixture *f = user;
    const int32_t *tags[2] = {TAGS, TAGS2};
    return qkv_network_heads_loss(tp, &f->m, qkv_network_hidden(tp, &f->m, &f->in, -1, NULL), f->in.sentences, tags, NULL,
                                 0, NULL);
}

/* The sum of head 0's loss and 0.5 · head 1's, which names its parameters xpos.*; the
 * gradient of that sum reaches every parameter of both heads and of the shared encoder. */
static void test_two_heads(void **state)
{
    (void)state;
    fixture f;
    qkv_network_config cfg = config();
    cfg.output = QKV_OUTPUT_SOFTMAX;
    cfg.chars.char_dim = 0;
    qkv_head_spec spec = {.kind = QKV_OUTPUT_CRF, .prefix = "xpos.", .tagset = "xpos", .n_tags = 3,
                          .loss_weight = 0.5};
    make_two_heads(&f, &cfg, 4, &spec, (const char *const[]){"crf.", NULL}); /* non-zero CRF scores */
    assert_int_equal(qkv_network_n_outputs(&f.m), 2);
    assert_non_null(qkv_params_find(&f.m.params, "classifier.w"));
    assert_non_null(qkv_params_find(&f.m.params, "xpos.classifier.w"));
    assert_non_null(qkv_params_find(&f.m.params, "xpos.crf.transitions"));
    assert_null(qkv_params_find(&f.m.params, "crf.transitions"));
    assert_true(qkv_params_find(&f.m.params, "xpos.classifier.b")->no_weight_decay);
    assert_string_equal(qkv_network_head(&f.m, 1)->tagset, "xpos");
    qkv_tape tp;
    assert_int_equal(qkv_tape_init(&tp, 0), 0);
    tp.no_grad = true;
    qkv_tensor *hidden = qkv_network_hidden(&tp, &f.m, &f.in, -1, NULL);
    const qkv_head *h1 = qkv_network_head(&f.m, 1);
    qkv_tensor *logits0 = qkv_network_logits(&tp, &f.m, &f.in, -1, NULL);
    double l0 = qkv_network_loss(&tp, &f.m, logits0, f.in.sentences, TAGS)->data[0];
    double l1 = h1->desc->loss(&tp, h1, qkv_head_logits(&tp, h1, hidden, f.in.sentences), f.in.sentences,
                               &(qkv_gold){.tags = TAGS2, .arcs = NULL})->data[0];
    tu_assert_close(heads_loss(&tp, &f)->data[0], l0 + 0.5 * l1, 1e-12);
    qkv_tape_free(&tp);
    gradcheck_model(&f, heads_loss);
}

/* One head of weight 1: the heads' loss is qkv_network_loss, bit for bit. */
static void test_one_head_loss_is_the_network_loss(void **state)
{
    (void)state;
    fixture f;
    memset(&f, 0, sizeof f);
    qkv_network_config cfg = config();
    cfg.output = QKV_OUTPUT_CRF;
    qkv_rng rng;
    qkv_rng_seed(&rng, 5);
    qkv_error err;
    if (qkv_network_init(&f.m, &cfg, &rng, &err))
        fail_msg("%s", err.msg);
    f.in = batch(f.features);
    qkv_tape tp;
    assert_int_equal(qkv_tape_init(&tp, 0), 0);
    tp.no_grad = true;
    const int32_t *tags[1] = {TAGS};
    qkv_tensor *a = qkv_network_heads_loss(&tp, &f.m, qkv_network_hidden(&tp, &f.m, &f.in, -1, NULL), f.in.sentences,
                                          tags, NULL, 0, NULL);
    qkv_tensor *b = qkv_network_loss(&tp, &f.m, qkv_network_logits(&tp, &f.m, &f.in, -1, NULL), f.in.sentences, TAGS);
    assert_memory_equal(a->data, b->data, sizeof(qkv_real));
    qkv_tape_free(&tp);
    qkv_network_free(&f.m);
}

static qkv_tensor *parser_heads_loss(qkv_tape *tp, void *user)
{
    fixture *f = user;
    const int32_t *tags[2] = {TAGS, TAGS2};
    return qkv_network_heads_loss(tp, &f->m, qkv_network_hidden(tp, &f->m, &f->in, -1, NULL), f->in.sentences, tags,
                                 HEADS, 0, NULL);
}

/* A parser (biaffine head 0) with a softmax head of weight 0.5 over one encoder, trained
 * together: the heads' loss is the parser's loss of the gold heads plus 0.5 times the tagging
 * head's, its gradient checked in double precision through both heads and the encoder; without
 * gold heads it is an error of the tape; each head predicts by its kind (trees, tags). */
static void test_parser_with_tagging_head(void **state)
{
    (void)state;
    fixture f;
    qkv_network_config cfg = config();
    cfg.output = QKV_OUTPUT_BIAFFINE;
    cfg.biaffine = (qkv_biaffine_opts){.arc_dim = 5, .label_dim = 3};
    cfg.chars.char_dim = 0;
    qkv_head_spec spec = {.kind = QKV_OUTPUT_SOFTMAX, .prefix = "upos.", .tagset = "upos", .n_tags = 3,
                          .loss_weight = 0.5};
    /* non-zero biaffine weights (they start at zero) and biases */
    make_two_heads(&f, &cfg, 6, &spec, (const char *const[]){"arc.", "rel.", NULL});
    qkv_error err;
    qkv_tape tp;
    assert_int_equal(qkv_tape_init(&tp, 0), 0);
    tp.no_grad = true;
    qkv_tensor *hidden = qkv_network_hidden(&tp, &f.m, &f.in, -1, NULL);
    const qkv_head *h1 = qkv_network_head(&f.m, 1);
    qkv_tensor *l1 = qkv_head_logits(&tp, h1, hidden, f.in.sentences);
    double parser = qkv_network_gold_loss(&tp, &f.m, qkv_network_logits(&tp, &f.m, &f.in, -1, NULL), f.in.sentences,
                                         &(qkv_gold){.tags = TAGS, .arcs = HEADS})->data[0];
    double tagger = h1->desc->loss(&tp, h1, l1, f.in.sentences, &(qkv_gold){.tags = TAGS2, .arcs = NULL})->data[0];
    tu_assert_close(parser_heads_loss(&tp, &f)->data[0], parser + 0.5 * tagger, 1e-12);
    const int32_t *tags[2] = {TAGS, TAGS2};
    assert_null(qkv_network_heads_loss(&tp, &f.m, hidden, f.in.sentences, tags, NULL, 0, NULL));
    assert_non_null(strstr(tp.err.msg, "no gold heads"));
    qkv_tape_free(&tp);

    assert_int_equal(qkv_tape_init(&tp, 0), 0);
    tp.no_grad = true;
    hidden = qkv_network_hidden(&tp, &f.m, &f.in, -1, NULL);
    int32_t pred[T], heads[T];
    double sum = 0;
    assert_int_equal(qkv_network_head_predict(&tp, &f.m, 0, qkv_head_logits(&tp, qkv_network_head(&f.m, 0), hidden,
                                                                           f.in.sentences),
                                             f.in.sentences, &(qkv_gold){.tags = TAGS, .arcs = HEADS},
                                             &(qkv_prediction){pred, heads, &sum, NULL}, &err),
                     QKV_OK);
    for (int s = 0; s < B; s++)
        assert_true(qkv_tree_is_valid(heads + OFFSETS[s], OFFSETS[s + 1] - OFFSETS[s], 0));
    assert_int_equal(qkv_network_head_predict(&tp, &f.m, 1, qkv_head_logits(&tp, h1, hidden, f.in.sentences),
                                             f.in.sentences, &(qkv_gold){.tags = TAGS2, .arcs = HEADS},
                                             &(qkv_prediction){pred, heads, &sum, NULL}, &err),
                     QKV_OK);
    for (int t = 0; t < T; t++)
        assert_true(heads[t] == -1 && pred[t] >= 0 && pred[t] < 3);
    qkv_tape_free(&tp);
    gradcheck_model(&f, parser_heads_loss);
}

/* A part that fails after the parts before it were made: the error is the part's, and the
 * model is released whole (the sanitizer build finds any state left behind). */
static void test_failing_part(void **state)
{
    (void)state;
    qkv_network_config encoder_fails = config(), head_fails = config();
    encoder_fails.encoder_kind = QKV_ENCODER_BILSTM;
    encoder_fails.encoder.d_model = 1; /* lstm_hidden 0 = d_model / 2 = 0 */
    head_fails.output = QKV_OUTPUT_CRF;
    head_fails.crf_constrained = true;
    head_fails.tag_names = NULL;
    const qkv_network_config *cfgs[2] = {&encoder_fails, &head_fails};
    const char *want[2] = {"too small to halve", "needs the tag names"};
    for (int i = 0; i < 2; i++) {
        qkv_network m;
        qkv_rng rng;
        qkv_rng_seed(&rng, 6);
        qkv_error err = {0};
        assert_int_equal(qkv_network_init(&m, cfgs[i], &rng, &err), QKV_ERR);
        if (!strstr(err.msg, want[i]))
            fail_msg("expected an error with '%s', got: %s", want[i], err.msg);
        assert_int_equal(m.params.n, 0);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_input_kinds),
        cmocka_unit_test(test_encoder_kinds),
        cmocka_unit_test(test_head_kinds),
        cmocka_unit_test(test_two_heads),
        cmocka_unit_test(test_one_head_loss_is_the_network_loss),
        cmocka_unit_test(test_parser_with_tagging_head),
        cmocka_unit_test(test_failing_part),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
