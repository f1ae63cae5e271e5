/* The parser's tag inputs (models/network.h: qkv_network_add_tag_input, qkv_network_head_input):
 * head 0 reads the encoder output beside softmax(logits of a tagging head) · tag_embed.<tag set>,
 * checked against those values computed here; the gradient of the heads' loss, and of the
 * parser's loss alone (which reaches the tagging heads through their softmax), checked in double
 * precision; each tagging head's logits computed once for the parser's input and its own loss;
 * a model without the key is unchanged; model.head_dropout reaches the tagging heads and not the
 * parser (gradients checked with it too); the errors of a misplaced tag input. */
#define QKV_TESTUTIL_AUTOGRAD
#include "testutil.h"

#include <math.h>
#include <string.h>

#include "lib/ops/ops.h"
#include "models/network.h"

enum { T = 7, B = 3, NT = 4, D = 6, N_UPOS = 3, N_XPOS = 5, DT = 2 };
static const int32_t OFFSETS[B + 1] = {0, 1, 4, 7};
static const int32_t WORDS[T] = {1, 2, 3, 0, 4, 1, 2};
static const int32_t TAGS[T] = {1, 0, 1, 2, -1, 3, 0};
static const int32_t UPOS[T] = {0, 2, 1, 1, 0, -1, 2};
static const int32_t XPOS[T] = {4, 2, 1, 3, 0, 1, -1};
static const int32_t HEADS[T] = {0, 2, 0, 2, -1, 0, 2};

typedef struct {
    qkv_network m;
    qkv_network_input in;
    const int32_t *features[1];
} fixture;

static qkv_network_config config(int n_tag_inputs)
{
    qkv_network_config cfg;
    memset(&cfg, 0, sizeof cfg);
    cfg.n_features = 1;
    cfg.feature_names[0] = "word";
    cfg.vocab_sizes[0] = 5;
    cfg.n_tags = NT;
    cfg.n_layers = 1;
    cfg.encoder.d_model = D;
    cfg.encoder.d_ff = 8;
    cfg.encoder.attn.n_heads = 2;
    cfg.encoder.activation = QKV_FFN_GELU;
    cfg.encoder.ln_eps = 1e-5;
    cfg.positional = QKV_POS_SINUSOIDAL;
    cfg.output = QKV_OUTPUT_BIAFFINE;
    cfg.biaffine = (qkv_biaffine_opts){.arc_dim = 5, .label_dim = 3};
    cfg.n_tag_inputs = n_tag_inputs;
    cfg.tag_input_dim = DT;
    return cfg;
}

static void add_head(qkv_network *m, qkv_output_kind kind, const char *col, int n_tags, qkv_rng *rng)
{
    char prefix[16];
    snprintf(prefix, sizeof prefix, "%s.", col);
    qkv_head_spec spec = {.kind = kind, .prefix = prefix, .tagset = col, .n_tags = n_tags, .loss_weight = 0.5};
    qkv_error err;
    if (qkv_network_add_head(m, &spec, rng, &err))
        fail_msg("%s", err.msg);
}

/* A parser reading the tags of its heads upos and xpos (both tag inputs when n_tag_inputs is 2,
 * upos alone when 1); the biaffine weights and biases drawn from N(0, 0.5²) (they start at 0). */
static void make(fixture *f, int n_tag_inputs, uint64_t seed)
{
    memset(f, 0, sizeof *f);
    qkv_network_config cfg = config(n_tag_inputs);
    qkv_rng rng;
    qkv_rng_seed(&rng, seed);
    qkv_error err;
    if (qkv_network_init(&f->m, &cfg, &rng, &err))
        fail_msg("%s", err.msg);
    add_head(&f->m, QKV_OUTPUT_SOFTMAX, "upos", N_UPOS, &rng);
    add_head(&f->m, QKV_OUTPUT_SOFTMAX, "xpos", N_XPOS, &rng);
    for (int k = 0; k < n_tag_inputs; k++)
        if (qkv_network_add_tag_input(&f->m, 1 + k, &rng, &err))
            fail_msg("%s", err.msg);
    for (int i = 0; i < f->m.params.n; i++) {
        const char *name = f->m.params.items[i]->name;
        if (f->m.params.items[i]->t.rank == 1 || !strncmp(name, "arc.", 4) || !strncmp(name, "rel.", 4))
            qkv_init_normal(&f->m.params.items[i]->t, &rng, 0.5);
    }
    f->features[0] = WORDS;
    f->in = (qkv_network_input){.sentences = {B, OFFSETS}, .features = f->features};
}

/* The parameters, their shapes, and x' = [hidden, softmax(upos logits) E_upos, softmax(xpos
 * logits) E_xpos] against the sums computed here; the other heads read hidden itself. */
static void test_parser_input_values(void **state)
{
    (void)state;
    fixture f;
    make(&f, 2, 3);
    const qkv_param *eu = qkv_params_find(&f.m.params, "tag_embed.upos"), *ex = qkv_params_find(&f.m.params, "tag_embed.xpos");
    assert_non_null(eu);
    assert_non_null(ex);
    assert_true(eu->no_weight_decay && ex->no_weight_decay);
    assert_int_equal(eu->t.shape[0], N_UPOS);
    assert_int_equal(eu->t.shape[1], DT);
    assert_int_equal(ex->t.shape[0], N_XPOS);
    assert_int_equal(qkv_params_find(&f.m.params, "arc_mlp.dep.w")->t.shape[1], D + 2 * DT);
    assert_int_equal(qkv_params_find(&f.m.params, "upos.classifier.w")->t.shape[1], D);
    qkv_tape tp;
    assert_int_equal(qkv_tape_init(&tp, 0), 0);
    tp.no_grad = true;
    qkv_tensor *hidden = qkv_network_hidden(&tp, &f.m, &f.in, -1, NULL);
    qkv_tensor *x = qkv_network_head_input(&tp, &f.m, 0, hidden, f.in.sentences, NULL);
    assert_non_null(x);
    assert_int_equal(x->shape[0], T);
    assert_int_equal(x->shape[1], D + 2 * DT);
    assert_ptr_equal(qkv_network_head_input(&tp, &f.m, 1, hidden, f.in.sentences, NULL), hidden);
    const qkv_param *e[2] = {eu, ex};
    for (int k = 0; k < 2; k++) {
        const qkv_head *h = qkv_network_head(&f.m, 1 + k);
        qkv_tensor *lg = qkv_head_logits(&tp, h, hidden, f.in.sentences);
        for (int t = 0; t < T; t++) {
            double p[N_XPOS], sum = 0;
            for (int c = 0; c < h->n_tags; c++)
                sum += p[c] = exp(lg->data[t * h->n_tags + c]);
            for (int j = 0; j < DT; j++) {
                double want = 0;
                for (int c = 0; c < h->n_tags; c++)
                    want += p[c] / sum * e[k]->t.data[c * DT + j];
                tu_assert_close(x->data[t * (D + 2 * DT) + D + k * DT + j], want, 1e-12);
            }
            for (int j = 0; j < D; j++)
                tu_assert_close(x->data[t * (D + 2 * DT) + j], hidden->data[t * D + j], 0);
        }
    }
    qkv_tape_free(&tp);
    qkv_network_free(&f.m);
}

static qkv_tensor *heads_loss(qkv_tape *tp, void *user)
{
    fixture *f = user;
    const int32_t *tags[3] = {TAGS, UPOS, XPOS};
    return qkv_network_heads_loss(tp, &f->m, qkv_network_hidden(tp, &f->m, &f->in, -1, NULL), f->in.sentences, tags,
                                 HEADS, 0.1, NULL);
}

static qkv_tensor *parser_loss(qkv_tape *tp, void *user)
{
    fixture *f = user;
    return qkv_network_gold_loss(tp, &f->m, qkv_network_logits(tp, &f->m, &f->in, -1, NULL), f->in.sentences,
                                 &(qkv_gold){.tags = TAGS, .arcs = HEADS});
}

/* The gradient of fn checked in double precision for every parameter of f's model whose name
 * has one of the strings of only (NULL: every parameter). */
static void gradcheck(fixture *f, qkv_forward_fn fn, const char *const *only)
{
    qkv_tape tp;
    assert_int_equal(qkv_tape_init(&tp, 0), 0);
    qkv_rng rng; /* for model.head_dropout */
    qkv_rng_seed(&rng, 13);
    tp.rng = &rng;
    qkv_tensor *ts[64];
    const char *names[64];
    int n = 0;
    for (int i = 0; i < f->m.params.n && n < 64; i++) {
        bool take = !only;
        for (const char *const *p = only; p && *p; p++)
            take = take || strstr(f->m.params.items[i]->name, *p);
        if (take) {
            ts[n] = &f->m.params.items[i]->t;
            names[n++] = f->m.params.items[i]->name;
        }
    }
    tu_assert_gradcheck(&tp, fn, f, n, ts, names);
    qkv_tape_free(&tp);
}

/* Every parameter through the heads' loss; the parser's loss alone reaches the tagging heads'
 * classifiers and the tag vectors (its gradient there is not zero, and right). */
static void test_gradients(void **state)
{
    (void)state;
    fixture f;
    make(&f, 2, 5);
    gradcheck(&f, heads_loss, NULL);
    gradcheck(&f, parser_loss, (const char *const[]){"upos.", "xpos.", "tag_embed.", NULL});
    qkv_tape tp;
    assert_int_equal(qkv_tape_init(&tp, 0), 0);
    qkv_params_zero_grad(&f.m.params);
    qkv_backward(&tp, parser_loss(&tp, &f));
    const qkv_tensor *w = &qkv_params_find(&f.m.params, "upos.classifier.w")->t;
    double norm = 0;
    for (size_t i = 0; i < w->size; i++)
        norm += fabs(w->grad[i]);
    assert_true(norm > 0);
    qkv_tape_free(&tp);
    qkv_network_free(&f.m);
}

/* Dropout nodes of tp reading x. */
static int dropouts_of(const qkv_tape *tp, const qkv_tensor *x)
{
    int n = 0;
    for (int k = 0; k < tp->n_nodes; k++)
        n += !strcmp(tp->nodes[k].op, "dropout") && tp->nodes[k].in[0] == x;
    return n;
}

/* Values of x that are exactly 0. */
static int zeros(const qkv_tensor *x)
{
    int n = 0;
    for (size_t i = 0; i < x->size; i++)
        n += x->data[i] == 0;
    return n;
}

/* model.head_dropout on a training tape: the tagging heads read the encoder output with about
 * half its values dropped, the parser reads it whole (its first D columns beside the tag inputs,
 * or hidden itself without them); the gradients of the heads' loss hold with the masks. */
static void test_head_dropout(void **state)
{
    (void)state;
    for (int n_tag_inputs = 0; n_tag_inputs <= 2; n_tag_inputs += 2) {
        fixture f;
        make(&f, n_tag_inputs, 5);
        f.m.cfg.head_dropout = 0.5;
        qkv_tape tp;
        assert_int_equal(qkv_tape_init(&tp, 0), 0);
        qkv_rng rng;
        qkv_rng_seed(&rng, 7);
        tp.rng = &rng;
        qkv_tensor *hidden = qkv_network_hidden(&tp, &f.m, &f.in, -1, NULL);
        assert_non_null(hidden);
        assert_int_equal(zeros(hidden), 0);
        for (int i = 1; i <= 2; i++) {
            int dropped = zeros(qkv_network_head_input(&tp, &f.m, i, hidden, f.in.sentences, NULL));
            assert_true(dropped >= 8 && dropped <= 34); /* about half of 42 */
        }
        qkv_tensor *x = qkv_network_head_input(&tp, &f.m, 0, hidden, f.in.sentences, NULL);
        if (n_tag_inputs == 0)
            assert_ptr_equal(x, hidden);
        for (int t = 0; t < T; t++)
            for (int j = 0; j < D; j++)
                assert_true(x->data[t * x->shape[1] + j] == hidden->data[t * D + j]);
        /* The heads' loss drops hidden once for each tagging head (a tag input's logits, which
         * its own loss reuses, included) and never for the parser. */
        int before = dropouts_of(&tp, hidden);
        const int32_t *tags[3] = {TAGS, UPOS, XPOS};
        qkv_tensor *logits[3];
        assert_non_null(qkv_network_heads_loss(&tp, &f.m, hidden, f.in.sentences, tags, HEADS, 0, logits));
        assert_int_equal(dropouts_of(&tp, hidden) - before, 2);
        qkv_tensor *undropped = qkv_head_logits(&tp, qkv_network_head(&f.m, 1), hidden, f.in.sentences);
        assert_int_not_equal(memcmp(logits[1]->data, undropped->data, undropped->size * sizeof *undropped->data), 0);
        qkv_tape_free(&tp);
        if (n_tag_inputs)
            gradcheck(&f, heads_loss, NULL);
        qkv_network_free(&f.m);
    }
}

/* Nodes of tp that read the tensor w (a head's classifier: its product). */
static int nodes_reading(const qkv_tape *tp, const qkv_tensor *w)
{
    int n = 0;
    for (int k = 0; k < tp->n_nodes; k++)
        for (int j = 0; j < tp->nodes[k].n_in; j++)
            n += tp->nodes[k].in[j] == w;
    return n;
}

/* The heads' loss computes each tagging head's logits once: the parser's input and the head's
 * own loss read one product of its classifier, and qkv_network_head_input stores the logits it
 * computes and takes those given. The loss is, bit for bit, the sum of the heads' losses each
 * computed on its own (the tag inputs' logits made again for the parser). */
static void test_logits_computed_once(void **state)
{
    (void)state;
    fixture f;
    make(&f, 2, 5);
    qkv_tape tp;
    assert_int_equal(qkv_tape_init(&tp, 0), 0);
    const qkv_tensor *wu = &qkv_params_find(&f.m.params, "upos.classifier.w")->t;
    const qkv_tensor *wx = &qkv_params_find(&f.m.params, "xpos.classifier.w")->t;
    qkv_tensor *hidden = qkv_network_hidden(&tp, &f.m, &f.in, -1, NULL), *logits[3];
    const int32_t *tags[3] = {TAGS, UPOS, XPOS};
    qkv_tensor *loss = qkv_network_heads_loss(&tp, &f.m, hidden, f.in.sentences, tags, HEADS, 0.1, logits);
    assert_non_null(loss);
    assert_int_equal(nodes_reading(&tp, wu), 1);
    assert_int_equal(nodes_reading(&tp, wx), 1);

    qkv_tensor *lg[3] = {NULL};
    assert_non_null(qkv_network_head_input(&tp, &f.m, 0, hidden, f.in.sentences, lg));
    assert_int_equal(nodes_reading(&tp, wu), 2);
    assert_non_null(lg[1]);
    assert_non_null(lg[2]);
    assert_null(lg[0]);
    qkv_tensor *given = lg[1];
    assert_non_null(qkv_network_head_input(&tp, &f.m, 0, hidden, f.in.sentences, lg));
    assert_int_equal(nodes_reading(&tp, wu), 2);
    assert_ptr_equal(lg[1], given);

    qkv_tensor *sum = NULL;
    for (int i = 0; i < 3; i++) {
        const qkv_head *h = qkv_network_head(&f.m, i);
        qkv_tensor *x = qkv_network_head_input(&tp, &f.m, i, hidden, f.in.sentences, NULL);
        qkv_tensor *l = h->desc->loss(&tp, h, qkv_head_logits(&tp, h, x, f.in.sentences), f.in.sentences,
                                      &(qkv_gold){tags[i], HEADS, 0.1});
        l = h->loss_weight != 1.0 ? qkv_scale(&tp, l, h->loss_weight) : l;
        sum = sum ? qkv_add(&tp, sum, l) : l;
        assert_int_equal(memcmp(logits[i]->data, qkv_head_logits(&tp, h, x, f.in.sentences)->data,
                                logits[i]->size * sizeof *logits[i]->data), 0);
    }
    assert_true(sum->data[0] == loss->data[0]);
    qkv_tape_free(&tp);
    qkv_network_free(&f.m);
}

/* Without tag inputs nothing is added: the parser reads hidden, no tag_embed parameter. */
static void test_off_by_default(void **state)
{
    (void)state;
    fixture f;
    make(&f, 0, 3);
    assert_null(qkv_params_find(&f.m.params, "tag_embed.upos"));
    assert_int_equal(qkv_params_find(&f.m.params, "arc_mlp.dep.w")->t.shape[1], D);
    qkv_tape tp;
    assert_int_equal(qkv_tape_init(&tp, 0), 0);
    qkv_tensor *hidden = qkv_network_hidden(&tp, &f.m, &f.in, -1, NULL);
    assert_ptr_equal(qkv_network_head_input(&tp, &f.m, 0, hidden, f.in.sentences, NULL), hidden);
    qkv_tape_free(&tp);
    qkv_network_free(&f.m);
}

static void expect_add_error(qkv_network *m, int head, const char *what)
{
    qkv_error err = {0};
    assert_int_equal(qkv_network_add_tag_input(m, head, NULL, &err), QKV_ERR);
    if (!strstr(err.msg, what))
        fail_msg("'%s' does not say '%s'", err.msg, what);
}

/* A tag input of head 0, of a head out of range, of a CRF head, or one more than configured; a
 * model whose tag inputs were not all added; tag inputs of a model that is not a parser. */
static void test_errors(void **state)
{
    (void)state;
    fixture f;
    memset(&f, 0, sizeof f);
    qkv_network_config cfg = config(1);
    qkv_rng rng;
    qkv_rng_seed(&rng, 1);
    qkv_error err;
    if (qkv_network_init(&f.m, &cfg, &rng, &err))
        fail_msg("%s", err.msg);
    add_head(&f.m, QKV_OUTPUT_CRF, "upos", N_UPOS, &rng);
    add_head(&f.m, QKV_OUTPUT_SOFTMAX, "xpos", N_XPOS, &rng);
    expect_add_error(&f.m, 0, "expected a tagging head 1..2");
    expect_add_error(&f.m, 3, "expected a tagging head 1..2");
    expect_add_error(&f.m, 1, "head 1 ('upos'), a crf head: it must be a softmax head");
    f.features[0] = WORDS;
    f.in = (qkv_network_input){.sentences = {B, OFFSETS}, .features = f.features};
    qkv_tape tp;
    assert_int_equal(qkv_tape_init(&tp, 0), 0);
    assert_null(qkv_network_logits(&tp, &f.m, &f.in, -1, NULL));
    assert_non_null(strstr(tp.err.msg, "the parser reads 1 tag inputs, 0 added"));
    qkv_tape_free(&tp);
    assert_int_equal(qkv_network_add_tag_input(&f.m, 2, NULL, &err), QKV_OK);
    expect_add_error(&f.m, 2, "the parser reads 1 tag inputs, all added");
    qkv_network_free(&f.m);

    cfg.output = QKV_OUTPUT_SOFTMAX;
    assert_int_equal(qkv_network_init(&f.m, &cfg, &rng, &err), QKV_ERR);
    assert_non_null(strstr(err.msg, "tag inputs are a parser's (output biaffine), not the softmax head's"));
    cfg = config(0);
    cfg.output = QKV_OUTPUT_SOFTMAX;
    if (qkv_network_init(&f.m, &cfg, &rng, &err))
        fail_msg("%s", err.msg);
    add_head(&f.m, QKV_OUTPUT_SOFTMAX, "upos", N_UPOS, &rng);
    expect_add_error(&f.m, 1, "head 0 is not a parser");
    qkv_network_free(&f.m);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_parser_input_values),
        cmocka_unit_test(test_gradients),
        cmocka_unit_test(test_logits_computed_once),
        cmocka_unit_test(test_off_by_default),
        cmocka_unit_test(test_head_dropout),
        cmocka_unit_test(test_errors),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
