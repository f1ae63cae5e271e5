/* The network: logits shape, a whole-model double-precision gradcheck on a packed batch (learned
 * and sinusoidal positions, full and windowed attention, dropout on the heads' input), the head
 * dropout on training tapes only, the learned table's max_len error, an evaluation pass's logits
 * and memory. */
#define QKV_TESTUTIL_AUTOGRAD
#include "testutil.h"

#include <string.h>

#include "lib/ops/ops.h"
#include "models/network.h"

enum { T = 7, B = 3 };
static const int32_t OFFSETS[B + 1] = {0, 1, 4, 7};
static const int32_t WORDS[T] = {1, 2, 3, 0, 4, 1, 2};
static const int32_t SUFFIX[T] = {0, 1, 2, 1, 2, 0, 1};
static const int32_t TAGS[T] = {0, 1, 2, -1, 1, 0, 3};

typedef struct {
    qkv_network m;
    qkv_network_input in;
    const int32_t *features[2];
} fixture;

static qkv_network_config config(qkv_pos_kind pos, int window, int max_len)
{
    qkv_network_config cfg;
    memset(&cfg, 0, sizeof cfg);
    cfg.n_features = 2;
    cfg.feature_names[0] = "word";
    cfg.feature_names[1] = "suffix1";
    cfg.vocab_sizes[0] = 5;
    cfg.vocab_sizes[1] = 3;
    cfg.n_tags = 4;
    cfg.n_layers = 2;
    cfg.encoder.d_model = 8;
    cfg.encoder.d_ff = 12;
    cfg.encoder.attn.n_heads = 2;
    cfg.encoder.attn.window = window;
    cfg.encoder.attn_bias = true;
    cfg.encoder.activation = QKV_FFN_GELU;
    cfg.encoder.norm_first = true;
    cfg.encoder.dropout = 0.2;
    cfg.head_dropout = 0.3;
    cfg.encoder.ln_eps = 1e-5;
    cfg.positional = pos;
    cfg.max_len = max_len;
    return cfg;
}

static void make_with(fixture *f, const qkv_network_config *cfg)
{
    memset(f, 0, sizeof *f);
    qkv_rng rng;
    qkv_rng_seed(&rng, 3);
    qkv_error err;
    if (qkv_network_init(&f->m, cfg, &rng, &err))
        fail_msg("%s", err.msg);
    /* Non-trivial layer norms and biases, so that their gradients are exercised. */
    for (int i = 0; i < f->m.params.n; i++)
        if (f->m.params.items[i]->t.rank == 1)
            qkv_init_normal(&f->m.params.items[i]->t, &rng, 0.5);
    f->features[0] = WORDS;
    f->features[1] = SUFFIX;
    f->in.sentences = (qkv_packed){B, OFFSETS};
    f->in.features = f->features;
}

static void make(fixture *f, qkv_pos_kind pos, int window, int max_len)
{
    qkv_network_config cfg = config(pos, window, max_len);
    make_with(f, &cfg);
}

static qkv_tensor *loss_fn(qkv_tape *tp, void *user)
{
    fixture *f = user;
    return qkv_cross_entropy(tp, qkv_network_logits(tp, &f->m, &f->in, -1, NULL), TAGS);
}

static void check_model(qkv_pos_kind pos, int window)
{
    fixture f;
    make(&f, pos, window, 8);
    qkv_tape tp;
    qkv_tape_init(&tp, 0);
    qkv_rng rng;
    qkv_rng_seed(&rng, 11);
    tp.rng = &rng;
    qkv_tensor *logits = qkv_network_logits(&tp, &f.m, &f.in, -1, NULL);
    assert_non_null(logits);
    assert_int_equal(logits->shape[0], T);
    assert_int_equal(logits->shape[1], 4);

    int n = f.m.params.n;
    qkv_tensor **ts = calloc((size_t)n, sizeof *ts);
    const char **names = calloc((size_t)n, sizeof *names);
    qkv_gradcheck_result *res = calloc((size_t)n, sizeof *res);
    for (int i = 0; i < n; i++) {
        ts[i] = &f.m.params.items[i]->t;
        names[i] = f.m.params.items[i]->name;
    }
    qkv_gradcheck_opts opts = QKV_GRADCHECK_DEFAULTS;
    qkv_error err = {0};
    int status = qkv_gradcheck(&tp, loss_fn, &f, n, ts, names, &opts, res, &err);
    if (status)
        fail_msg("%s", err.msg);
    for (int i = 0; i < n; i++)
        assert_true(res[i].checked > 0);
    free(ts);
    free(names);
    free(res);
    qkv_tape_free(&tp);
    qkv_network_free(&f.m);
}

static void test_gradcheck_learned_full(void **state)
{
    (void)state;
    check_model(QKV_POS_LEARNED, 0);
}

static void test_gradcheck_sinusoidal_window(void **state)
{
    (void)state;
    check_model(QKV_POS_SINUSOIDAL, 1);
}

static void test_parameter_names(void **state)
{
    (void)state;
    fixture f;
    make(&f, QKV_POS_LEARNED, 0, 8);
    const char *expected[] = {"embed.word", "embed.suffix1", "pos.table", "encoder.layers.1.attn.w_q",
                              "encoder.layers.0.ffn.w1", "final_ln.gain", "classifier.w", "classifier.b"};
    for (size_t i = 0; i < sizeof expected / sizeof *expected; i++)
        if (!qkv_params_find(&f.m.params, expected[i]))
            fail_msg("no parameter %s", expected[i]);
    assert_int_equal(qkv_params_find(&f.m.params, "classifier.w")->t.shape[0], 4);
    assert_int_equal(qkv_params_find(&f.m.params, "classifier.w")->t.shape[1], 8);
    qkv_network_free(&f.m);
}

static void test_sentence_longer_than_learned_table(void **state)
{
    (void)state;
    fixture f;
    make(&f, QKV_POS_LEARNED, 0, 2); /* the batch has sentences of 3 words */
    qkv_tape tp;
    qkv_tape_init(&tp, 0);
    tp.no_grad = true;
    assert_null(qkv_network_logits(&tp, &f.m, &f.in, -1, NULL));
    assert_true(tp.failed);
    if (!strstr(tp.err.msg, "3") || !strstr(tp.err.msg, "2"))
        fail_msg("the error should name the length 3 and max_len 2: %s", tp.err.msg);
    qkv_tape_free(&tp);
    qkv_network_free(&f.m);
}

/* Zeros in what the softmax head reads (qkv_network_head_input of qkv_network_hidden: a layer
 * norm's output with non-zero biases has none of its own). */
static int hidden_zeros(fixture *f, bool no_grad)
{
    qkv_tape tp;
    qkv_tape_init(&tp, 0);
    qkv_rng rng;
    qkv_rng_seed(&rng, 5);
    tp.rng = &rng;
    tp.no_grad = no_grad;
    qkv_tensor *h = qkv_network_head_input(&tp, &f->m, 0, qkv_network_hidden(&tp, &f->m, &f->in, -1, NULL),
                                           f->in.sentences, NULL);
    assert_non_null(h);
    assert_int_equal(h->shape[1], 8);
    int zeros = 0;
    for (size_t i = 0; i < h->size; i++)
        zeros += h->data[i] == 0;
    qkv_tape_free(&tp);
    return zeros;
}

/* Dropout nodes of tp whose input is the output of a layer norm reading gain (the final one). */
static int dropouts_of_layer_norm(const qkv_tape *tp, const qkv_tensor *gain)
{
    int n = 0;
    for (int k = 0; k < tp->n_nodes; k++)
        for (int j = 0; j < tp->n_nodes; j++)
            n += !strcmp(tp->nodes[k].op, "dropout") && tp->nodes[j].out == tp->nodes[k].in[0] &&
                 tp->nodes[j].n_in > 1 && tp->nodes[j].in[1] == gain;
    return n;
}

static void test_head_dropout(void **state)
{
    (void)state;
    fixture f;
    make(&f, QKV_POS_LEARNED, 0, 8);
    qkv_tape tp; /* qkv_network_logits, the single-head path, drops what its head reads once */
    qkv_tape_init(&tp, 0);
    qkv_rng rng;
    qkv_rng_seed(&rng, 5);
    tp.rng = &rng;
    assert_non_null(qkv_network_logits(&tp, &f.m, &f.in, -1, NULL));
    assert_int_equal(dropouts_of_layer_norm(&tp, f.m.final_gain), 1);
    qkv_tape_free(&tp);
    assert_int_equal(hidden_zeros(&f, true), 0);
    int dropped = hidden_zeros(&f, false); /* about 0.3 of 56 values */
    assert_true(dropped >= 5 && dropped <= 30);
    f.m.cfg.head_dropout = 0;
    assert_int_equal(hidden_zeros(&f, false), 0);
    qkv_network_free(&f.m);
}

/* The peak arena memory of an evaluation pass (no_grad) of a network of n_layers without dropout;
 * its logits into out [T, 4]. */
static size_t evaluation_peak(int n_layers, bool no_grad, qkv_real *out)
{
    qkv_network_config cfg = config(QKV_POS_LEARNED, 0, 8);
    cfg.n_layers = n_layers;
    cfg.encoder.dropout = 0;
    cfg.head_dropout = 0;
    fixture f;
    make_with(&f, &cfg);
    qkv_tape tp;
    qkv_tape_init(&tp, 0);
    tp.no_grad = no_grad;
    qkv_tensor *logits = qkv_network_logits(&tp, &f.m, &f.in, -1, NULL);
    assert_non_null(logits);
    memcpy(out, logits->data, (size_t)T * 4 * sizeof *out);
    if (no_grad) { /* a second pass on the same tape: the first pass's logits stay intact */
        qkv_tensor *again = qkv_network_logits(&tp, &f.m, &f.in, -1, NULL);
        assert_non_null(again);
        assert_memory_equal(again->data, out, (size_t)T * 4 * sizeof *out);
        assert_memory_equal(logits->data, out, (size_t)T * 4 * sizeof *out);
    }
    size_t peak = tp.arena.peak;
    qkv_tape_free(&tp);
    qkv_network_free(&f.m);
    return peak;
}

/* An evaluation pass keeps only each encoder layer's output (qkv_tape_keep_only): the logits of a
 * recording pass bit for bit, and memory that does not grow with the layers. */
static void test_evaluation_pass_keeps_one_layer(void **state)
{
    (void)state;
    qkv_real rec[T * 4], eval[T * 4], one[T * 4];
    size_t peak_rec = evaluation_peak(6, false, rec);
    size_t peak6 = evaluation_peak(6, true, eval), peak1 = evaluation_peak(1, true, one);
    assert_memory_equal(rec, eval, sizeof rec);
    assert_true(peak6 < peak_rec);
    if (peak6 > peak1 + peak1 / 4)
        fail_msg("6 layers took %zu bytes, 1 layer %zu: the layers' activations were kept", peak6, peak1);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_parameter_names),
        cmocka_unit_test(test_gradcheck_learned_full),
        cmocka_unit_test(test_gradcheck_sinusoidal_window),
        cmocka_unit_test(test_head_dropout),
        cmocka_unit_test(test_evaluation_pass_keeps_one_layer),
        cmocka_unit_test(test_sentence_longer_than_learned_table),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
