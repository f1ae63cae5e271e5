/* The CRF output layer: the BIO mask from tag names, qkv_network_loss (the CRF NLL per
 * gold-tagged word; a whole-model gradcheck including crf.*), qkv_network_predict (Viterbi;
 * constrained decoding never outputs an invalid BIO sequence, which unconstrained decoding does
 * with the same scores), and the softmax head's argmax and loss sum. */
#define QKV_TESTUTIL_AUTOGRAD
#include "testutil.h"

#include <string.h>

#include "lib/ops/ops.h"
#include "models/network.h"

enum { T = 7, B = 3, NT = 4 };
static const int32_t OFFSETS[B + 1] = {0, 1, 4, 7};
static const int32_t WORDS[T] = {1, 2, 3, 0, 4, 1, 2};
static const int32_t TAGS[T] = {1, 0, 1, 2, -1, 3, 0}; /* B-X | O B-X I-X | ? B-Y O */
static const char *const NAMES[NT] = {"O", "B-X", "I-X", "B-Y"};

typedef struct {
    qkv_network m;
    qkv_network_input in;
    const int32_t *features[1];
} fixture;

static void make(fixture *f, qkv_output_kind output, bool constrained)
{
    memset(f, 0, sizeof *f);
    qkv_network_config cfg;
    memset(&cfg, 0, sizeof cfg);
    cfg.n_features = 1;
    cfg.feature_names[0] = "word";
    cfg.vocab_sizes[0] = 5;
    cfg.n_tags = NT;
    cfg.n_layers = 1;
    cfg.encoder.d_model = 6;
    cfg.encoder.d_ff = 8;
    cfg.encoder.attn.n_heads = 2;
    cfg.encoder.activation = QKV_FFN_GELU;
    cfg.encoder.norm_first = true;
    cfg.encoder.ln_eps = 1e-5;
    cfg.positional = QKV_POS_SINUSOIDAL;
    cfg.output = output;
    cfg.crf_constrained = constrained;
    cfg.tag_names = NAMES;
    qkv_rng rng;
    qkv_rng_seed(&rng, 5);
    qkv_error err;
    if (qkv_network_init(&f->m, &cfg, &rng, &err))
        fail_msg("%s", err.msg);
    for (int i = 0; i < f->m.params.n; i++) /* non-zero CRF scores, biases and norms */
        if (f->m.params.items[i]->t.rank == 1 || strncmp(f->m.params.items[i]->name, "crf.", 4) == 0)
            qkv_init_normal(&f->m.params.items[i]->t, &rng, 0.5);
    f->features[0] = WORDS;
    f->in.sentences = (qkv_packed){B, OFFSETS};
    f->in.features = f->features;
}

static void test_bio_allowed(void **state)
{
    (void)state;
    bool trans[NT * NT], start[NT], end[NT];
    qkv_bio_allowed(NAMES, NT, trans, start, end);
    const bool want_start[NT] = {true, true, false, true}, want_end[NT] = {true, true, true, true};
    /* rows: from O, B-X, I-X, B-Y; columns: to O, B-X, I-X, B-Y */
    const bool want[NT * NT] = {true, true, false, true, true, true, true, true,
                                true, true, true, true, true, true, false, true};
    assert_memory_equal(start, want_start, sizeof start);
    assert_memory_equal(end, want_end, sizeof end);
    assert_memory_equal(trans, want, sizeof trans);
}

/* With E- and S- tags the BIOES rules hold as well, in the mask the CRF head hands to the
 * forward algorithm and Viterbi (its end scores included). */
static void test_bioes_allowed(void **state)
{
    (void)state;
    enum { N = 7 };
    static const char *const names[N] = {"O", "B-X", "I-X", "E-X", "S-X", "B-Y", "E-Y"};
    const bool want_start[N] = {1, 1, 0, 0, 1, 1, 0}, want_end[N] = {1, 0, 0, 1, 1, 0, 1};
    /* rows: from O, B-X, I-X, E-X, S-X, B-Y, E-Y; columns: to the same */
    const bool want[N * N] = {1, 1, 0, 0, 1, 1, 0, /* O */
                              0, 0, 1, 1, 0, 0, 0, /* B-X */
                              0, 0, 1, 1, 0, 0, 0, /* I-X */
                              1, 1, 0, 0, 1, 1, 0, /* E-X */
                              1, 1, 0, 0, 1, 1, 0, /* S-X */
                              0, 0, 0, 0, 0, 0, 1, /* B-Y */
                              1, 1, 0, 0, 1, 1, 0 /* E-Y */};
    qkv_params ps;
    qkv_params_init(&ps);
    qkv_crf_head h;
    qkv_error err;
    assert_int_equal(qkv_crf_head_create(&h, &ps, N, true, names, &err), QKV_OK);
    const qkv_crf_mask *m = qkv_crf_head_mask(&h);
    assert_non_null(m);
    assert_non_null(m->end);
    for (int j = 0; j < N; j++) {
        assert_int_equal(m->start[j], want_start[j]);
        assert_int_equal(m->end[j], want_end[j]);
    }
    for (int k = 0; k < N * N; k++)
        assert_int_equal(m->transitions[k], want[k]);
    qkv_crf_head_free(&h);
    qkv_params_free(&ps);
}

static qkv_tensor *loss_fn(qkv_tape *tp, void *user)
{
    fixture *f = user;
    qkv_tensor *logits = qkv_network_logits(tp, &f->m, &f->in, -1, NULL);
    return qkv_network_loss(tp, &f->m, logits, f->in.sentences, TAGS);
}

static void test_loss_and_gradcheck(void **state)
{
    (void)state;
    for (int constrained = 0; constrained < 2; constrained++) {
        fixture f;
        make(&f, QKV_OUTPUT_CRF, constrained);
        qkv_tape tp;
        assert_int_equal(qkv_tape_init(&tp, 0), 0);
        tp.no_grad = true;
        qkv_tensor *logits = qkv_network_logits(&tp, &f.m, &f.in, -1, NULL);
        qkv_tensor *loss = qkv_network_loss(&tp, &f.m, logits, f.in.sentences, TAGS);
        const qkv_crf_head *crf = qkv_network_crf(&f.m);
        qkv_tensor *nll = qkv_crf_nll(&tp, logits, crf->transitions, crf->start, crf->end, f.in.sentences,
                                      TAGS, qkv_crf_head_mask(crf));
        assert_true(loss && nll);
        tu_assert_close(loss->data[0], nll->data[0] / 6, 1e-14); /* 6 words with a gold tag */
        tp.no_grad = false;
        qkv_params *ps = qkv_network_params(&f.m);
        qkv_tensor *ts[64];
        const char *names[64];
        assert_true(ps->n <= 64);
        for (int i = 0; i < ps->n; i++) {
            ts[i] = &ps->items[i]->t;
            names[i] = ps->items[i]->name;
        }
        assert_string_equal(names[ps->n - 3], "crf.transitions");
        qkv_gradcheck_opts opts = QKV_GRADCHECK_DEFAULTS;
        qkv_gradcheck_result res[64]; /* more tensors than tu_assert_gradcheck holds */
        qkv_error err = {0};
        int status = qkv_gradcheck(&tp, loss_fn, &f, ps->n, ts, names, &opts, res, &err);
        if (status != 0)
            fail_msg("%s", err.msg);
        qkv_tape_free(&tp);
        qkv_network_free(&f.m);
    }
}

/* Scores that push towards I-X first and after O: Viterbi takes them unconstrained, never
 * constrained; both agree with qkv_crf_viterbi on the model's own scores. */
static void test_predict_constrained(void **state)
{
    (void)state;
    int invalid[2] = {0, 0};
    for (int constrained = 0; constrained < 2; constrained++) {
        fixture f;
        make(&f, QKV_OUTPUT_CRF, constrained);
        const qkv_crf_head *crf = qkv_network_crf(&f.m);
        crf->start->data[2] = 20;
        crf->transitions->data[0 * NT + 2] = 20; /* O -> I-X */
        crf->transitions->data[2 * NT + 0] = 20; /* I-X -> O */
        qkv_tape tp;
        assert_int_equal(qkv_tape_init(&tp, 0), 0);
        tp.no_grad = true;
        qkv_tensor *logits = qkv_network_logits(&tp, &f.m, &f.in, -1, NULL);
        int32_t pred[T], want[T];
        double loss_sum = -1;
        qkv_error err;
        assert_int_equal(qkv_network_predict(&tp, &f.m, logits, f.in.sentences, TAGS, pred, &loss_sum, &err), QKV_OK);
        assert_int_equal(qkv_crf_viterbi(logits, crf->transitions, crf->start, crf->end, f.in.sentences,
                                         qkv_crf_head_mask(crf), want, &err),
                         QKV_OK);
        assert_memory_equal(pred, want, sizeof pred);
        assert_true(loss_sum > 0);
        for (int b = 0; b < B; b++)
            for (int t = OFFSETS[b]; t < OFFSETS[b + 1]; t++)
                invalid[constrained] += pred[t] == 2 && (t == OFFSETS[b] || (pred[t - 1] != 1 && pred[t - 1] != 2));
        qkv_tape_free(&tp);
        qkv_network_free(&f.m);
    }
    assert_true(invalid[0] > 0);
    assert_int_equal(invalid[1], 0);
}

static void test_softmax_predict(void **state)
{
    (void)state;
    fixture f;
    make(&f, QKV_OUTPUT_SOFTMAX, false);
    assert_null(qkv_network_crf(&f.m));
    qkv_tape tp;
    assert_int_equal(qkv_tape_init(&tp, 0), 0);
    tp.no_grad = true;
    qkv_tensor *logits = qkv_network_logits(&tp, &f.m, &f.in, -1, NULL);
    qkv_tensor *loss = qkv_network_loss(&tp, &f.m, logits, f.in.sentences, TAGS);
    int32_t pred[T];
    double loss_sum = -1;
    qkv_error err;
    assert_int_equal(qkv_network_predict(&tp, &f.m, logits, f.in.sentences, TAGS, pred, &loss_sum, &err), QKV_OK);
    tu_assert_close(loss_sum, 6 * loss->data[0], 1e-12);
    for (int t = 0; t < T; t++)
        for (int k = 0; k < NT; k++)
            assert_true(logits->data[t * NT + k] <= logits->data[t * NT + pred[t]]);
    qkv_tape_free(&tp);
    qkv_network_free(&f.m);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_bio_allowed),
        cmocka_unit_test(test_bioes_allowed),
        cmocka_unit_test(test_loss_and_gradcheck),
        cmocka_unit_test(test_predict_constrained),
        cmocka_unit_test(test_softmax_predict),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
