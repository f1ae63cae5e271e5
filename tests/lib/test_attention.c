/* Multi-head self-attention: forward values against a plain dense implementation written
 * here from the formulas, double-precision gradient checks over heads, windows, causal, relu,
 * biases and dropout on packed batches, and the edge cases (a one-word sentence, an empty
 * batch, a window covering the sentence, large scores, batch mates). */
#define QKV_TESTUTIL_AUTOGRAD
#include "testutil.h"

#include <limits.h>
#include <omp.h>

#include "lib/nn/mha.h"
#include "lib/ops/ops.h"
#include "lib/parallel.h"
#include "mha_fixture.h"
typedef mha_fixture fixture;
#include "attention_checks.h"

static const int batches[4][5] = {{1, 1}, {2, 3, 7}, {4, 2, 5, 1, 4}, {3, 7, 6, 3}}; /* count, lengths */

/* qkv_attention_direct_max_width settings: BLAS tiles only; direct for bands of <= 5 keys (a
 * batch mixes both kernels); direct only. */
static const int kernels[3] = {0, 5, INT_MAX};

static void forward_matches_reference(void)
{
    int cfg = 0;
    for (int heads = 1; heads <= 4; heads *= 2)
        for (int window = 0; window <= 3; window += (window ? 2 : 1))
            for (int variant = 0; variant < 4; variant++, cfg++) {
                qkv_attention_opts opts = {.n_heads = heads, .window = window, .causal = variant & 1,
                                           .normalize = (variant & 2) ? QKV_ATTN_RELU : QKV_ATTN_SOFTMAX};
                if (cfg % 5 == 0)
                    opts.scale = 0.7;
                opts.rel_clip = cfg % 3; /* 0: none; 1 and 2: clipped in sentences of up to 7 */
                check_forward(100 + (uint64_t)cfg, batches[cfg % 4], &opts, cfg % 2);
            }
}

static void test_forward_matches_reference(void **state)
{
    (void)state;
    for (int k = 0; k < 3; k++) {
        qkv_attention_direct_max_width = kernels[k];
        forward_matches_reference();
    }
    qkv_attention_direct_max_width = 16;
}

static void gradcheck_all(void)
{
    int cfg = 0;
    for (int heads = 1; heads <= 4; heads *= 2)
        for (int window = 0; window <= 3; window += (window ? 2 : 1))
            for (int variant = 0; variant < 8; variant++, cfg++) {
                qkv_attention_opts opts = {.n_heads = heads, .window = window, .causal = variant & 1,
                                           .normalize = (variant & 2) ? QKV_ATTN_RELU : QKV_ATTN_SOFTMAX,
                                           .rel_clip = cfg % 3};
                check_gradients(200 + (uint64_t)cfg, 4, batches[cfg % 4], &opts, variant & 4, NULL);
            }
}

static void test_gradcheck(void **state)
{
    (void)state;
    for (int k = 0; k < 3; k++) {
        qkv_attention_direct_max_width = kernels[k];
        gradcheck_all();
    }
    qkv_attention_direct_max_width = 16;
}

/* The check can fail: a backward scaled by 1.01 is caught, in either node. */
static void test_gradcheck_catches_fault(void **state)
{
    (void)state;
    const char *ops[2] = {"attention", "attention_out"};
    for (int k = 0; k < 2; k++) {
        qkv_params ps;
        qkv_params_init(&ps);
        qkv_attention_opts opts = {.n_heads = 2, .window = 1, .rel_clip = 1};
        fixture f;
        mha_fixture_setup(&f, &ps, 400 + (uint64_t)k, 4, batches[2] + 1, batches[2][0], &opts, true);
        qkv_tape tp;
        qkv_tape_init(&tp, 0);
        tp.fault_op = ops[k];
        qkv_tensor *ts[] = {f.x, f.m.w_q, f.m.rel_bias};
        const char *names[] = {"x", "w_q", "rel_bias"};
        qkv_gradcheck_opts go = QKV_GRADCHECK_DEFAULTS;
        qkv_gradcheck_result res[3];
        qkv_error err;
        assert_int_equal(qkv_gradcheck(&tp, mha_fn, &f, 3, ts, names, &go, res, &err), 1);
        assert_int_equal(res[0].checked, f.x->size);
        if (k == 0) /* the relative biases' gradient comes from the attention node only */
            assert_true(res[2].failed > 0);
        qkv_tape_free(&tp);
        qkv_params_free(&ps);
    }
}

static void test_gradcheck_dropout(void **state)
{
    (void)state;
    qkv_rng rng;
    qkv_rng_seed(&rng, 5);
    for (int k = 0; k < 3; k++) {
        qkv_attention_direct_max_width = kernels[k];
        qkv_attention_opts opts = {.n_heads = 2, .dropout = 0.3};
        check_gradients(301, 4, batches[3], &opts, true, &rng);
        opts.window = 1;
        opts.normalize = QKV_ATTN_RELU;
        check_gradients(302, 4, batches[2], &opts, false, &rng);
    }
    qkv_attention_direct_max_width = 16;
}

/* Dropout: identity without grad; with grad some weights are dropped and the rest scaled. */
static void test_dropout(void **state)
{
    (void)state;
    qkv_attention_opts opts = {.n_heads = 2, .dropout = 0.5};
    const int bt[] = {1, 7};
    qkv_params ps;
    qkv_params_init(&ps);
    fixture f;
    mha_fixture_setup(&f, &ps, 9, 4, bt + 1, bt[0], &opts, true);
    qkv_rng rng;
    qkv_rng_seed(&rng, 1);
    qkv_tape tp;
    qkv_tape_init(&tp, 0);
    tp.rng = &rng;
    tp.no_grad = true;
    qkv_tensor *y = mha_fn(&tp, &f);
    double ref[28];
    reference(&f, ref);
    for (size_t i = 0; i < y->size; i++)
        tu_assert_close(y->data[i], ref[i], 1e-12);
    tp.no_grad = false;
    y = mha_fn(&tp, &f);
    double diff = 0;
    for (size_t i = 0; i < y->size; i++)
        diff += fabs(y->data[i] - ref[i]);
    assert_true(diff > 1e-3);
    qkv_tape_free(&tp);
    qkv_params_free(&ps);
}

static void test_one_word_sentence(void **state)
{
    (void)state;
    const int bt[] = {3, 1, 4, 1};
    qkv_attention_opts opts = {.n_heads = 2};
    qkv_params ps;
    qkv_params_init(&ps);
    fixture f;
    mha_fixture_setup(&f, &ps, 11, 4, bt + 1, bt[0], &opts, true);
    qkv_tape tp;
    qkv_tape_init(&tp, 0);
    qkv_tensor *y = mha_fn(&tp, &f);
    assert_non_null(y);
    for (int h = 0; h < 2; h++) {
        assert_true(qkv_attention_weight(&f.keep, 0, h, 0, 0) == 1.0);
        assert_true(qkv_attention_weight(&f.keep, 2, h, 0, 0) == 1.0);
        double row = 0;
        for (int j = 0; j < 4; j++)
            row += qkv_attention_weight(&f.keep, 1, h, 2, j);
        tu_assert_close(row, 1.0, 1e-12);
    }
    qkv_real *r = malloc(y->size * sizeof *r);
    for (size_t i = 0; i < y->size; i++)
        r[i] = 1;
    assert_int_equal(qkv_backward_from(&tp, y, r), QKV_OK);
    for (size_t i = 0; i < f.x->size; i++)
        assert_true(isfinite(f.x->grad[i]));
    free(r);
    qkv_tape_free(&tp);
    qkv_params_free(&ps);
    /* and its gradient is right */
    const int single[] = {1, 1};
    check_gradients(12, 4, single, &opts, true, NULL);
}

/* Kept weights of a band: zero outside |i - j| <= 1 and j <= i (exactly where
 * qkv_attention_sees says the key is not seen), rows summing to 1; equal to
 * the reference P recomputed from Q and K. An empty batch gives an empty output. */
static void test_kept_weights_band_and_empty_batch(void **state)
{
    (void)state;
    const int bt[] = {2, 5, 3};
    qkv_attention_opts opts = {.n_heads = 2, .window = 1, .causal = true};
    qkv_params ps;
    qkv_params_init(&ps);
    fixture f;
    mha_fixture_setup(&f, &ps, 17, 4, bt + 1, bt[0], &opts, false);
    qkv_tape tp;
    qkv_tape_init(&tp, 0);
    assert_non_null(mha_fn(&tp, &f));
    for (int b = 0; b < 2; b++)
        for (int h = 0; h < 2; h++)
            for (int i = 0; i < bt[b + 1]; i++) {
                double sum = 0;
                for (int j = 0; j < bt[b + 1]; j++) {
                    double p = qkv_attention_weight(&f.keep, b, h, i, j);
                    bool seen = !(j > i || i - j > 1);
                    assert_true(qkv_attention_sees(&f.keep, b, i, j) == seen);
                    if (!seen)
                        assert_true(p == 0.0);
                    else
                        assert_true(p > 0.0);
                    sum += p;
                }
                tu_assert_close(sum, 1.0, 1e-12);
            }
    /* row 2 of sentence 0, head 1: softmax over keys 1 and 2 of q_2 · k_j / sqrt(2) */
    int D = 4, dh = 2;
    double s[2];
    for (int j = 1; j <= 2; j++) {
        double qk = 0;
        for (int c = 0; c < dh; c++) {
            double q = 0, k = 0;
            for (int e = 0; e < D; e++) {
                q += f.x->data[2 * D + e] * f.m.w_q->data[(dh + c) * D + e];
                k += f.x->data[j * D + e] * f.m.w_k->data[(dh + c) * D + e];
            }
            qk += q * k;
        }
        s[j - 1] = qk / sqrt(2.0);
    }
    tu_assert_close(qkv_attention_weight(&f.keep, 0, 1, 2, 2), 1 / (1 + exp(s[0] - s[1])), 1e-12);
    /* no sentences at all */
    f.n_sentences = 0;
    f.x->shape[0] = 0;
    f.x->size = 0;
    qkv_tape_reset(&tp);
    qkv_tensor *y = mha_fn(&tp, &f);
    assert_non_null(y);
    assert_int_equal(y->size, 0);
    qkv_tape_free(&tp);
    qkv_params_free(&ps);
}

static void test_window_covering_sentence_equals_full(void **state)
{
    (void)state;
    const int bt[] = {3, 5, 2, 4};
    for (int causal = 0; causal < 2; causal++) {
        qkv_params ps;
        qkv_params_init(&ps);
        qkv_attention_opts opts = {.n_heads = 2, .causal = causal};
        fixture f;
        mha_fixture_setup(&f, &ps, 13, 4, bt + 1, bt[0], &opts, true);
        qkv_tape tp;
        qkv_tape_init(&tp, 0);
        qkv_tensor *full = mha_fn(&tp, &f);
        for (int window = 5; window <= 9; window += 4) {
            f.m.opts.window = window;
            qkv_tensor *y = mha_fn(&tp, &f);
            assert_non_null(y);
            assert_memory_equal(y->data, full->data, y->size * sizeof(qkv_real));
        }
        qkv_tape_free(&tp);
        qkv_params_free(&ps);
    }
}

static void test_large_scores_stay_finite(void **state)
{
    (void)state;
    const int bt[] = {2, 6, 3};
    qkv_attention_opts opts = {.n_heads = 2};
    qkv_params ps;
    qkv_params_init(&ps);
    fixture f;
    mha_fixture_setup(&f, &ps, 14, 4, bt + 1, bt[0], &opts, true);
    qkv_init_constant(f.m.w_q, 0); /* Q = K = 100 everywhere */
    qkv_init_constant(f.m.w_k, 0);
    qkv_init_constant(f.m.b_q, 100);
    qkv_init_constant(f.m.b_k, 100);
    qkv_tape tp;
    qkv_tape_init(&tp, 0);
    qkv_tensor *y = mha_fn(&tp, &f);
    assert_non_null(y);
    for (size_t i = 0; i < y->size; i++)
        assert_true(isfinite(y->data[i]));
    /* all scores equal: uniform weights */
    tu_assert_close(qkv_attention_weight(&f.keep, 0, 1, 2, 4), 1.0 / 6, 1e-12);
    qkv_real *r = malloc(y->size * sizeof *r);
    for (size_t i = 0; i < y->size; i++)
        r[i] = (qkv_real)(i % 3) - 1;
    assert_int_equal(qkv_backward_from(&tp, y, r), QKV_OK);
    qkv_tensor *ts[] = {f.x, f.m.w_q, f.m.w_k, f.m.b_q, f.m.b_k, f.m.w_v, f.m.w_o};
    for (int t = 0; t < 7; t++)
        for (size_t i = 0; i < ts[t]->size; i++)
            assert_true(isfinite(ts[t]->grad[i]));
    free(r);
    qkv_tape_free(&tp);
    qkv_params_free(&ps);
}

/* A sentence of `len` tokens alone, then third in a packed batch: the same output rows. */
static void check_independence(bool bitwise, int d_model, int len, const int *mates)
{
    qkv_attention_opts opts = {.n_heads = 4, .window = 2};
    const int alone[] = {1, len}, packed[] = {4, mates[0], mates[1], len, mates[2]};
    qkv_params ps;
    qkv_params_init(&ps);
    fixture f;
    mha_fixture_setup(&f, &ps, 15, d_model, alone + 1, alone[0], &opts, true);
    qkv_tape tp;
    qkv_tape_init(&tp, 0);
    qkv_tensor *y1 = mha_fn(&tp, &f);
    size_t rows = (size_t)len * d_model, at = (size_t)(mates[0] + mates[1]) * d_model;
    qkv_real *first = malloc(rows * sizeof *first);
    memcpy(first, y1->data, rows * sizeof *first);
    qkv_rng rng;
    qkv_rng_seed(&rng, 16);
    qkv_error err;
    int total = mates[0] + mates[1] + len + mates[2];
    qkv_tensor *xb = qkv_params_add(&ps, &err, 2, (int[]){total, d_model}, "x_batch");
    qkv_init_normal(xb, &rng, 1.0);
    memcpy(xb->data + at, f.x->data, rows * sizeof(qkv_real));
    f.x = xb;
    f.n_sentences = packed[0];
    for (int b = 0; b < packed[0]; b++)
        f.off[b + 1] = f.off[b] + packed[b + 1];
    qkv_tensor *y2 = mha_fn(&tp, &f);
    if (bitwise)
        assert_memory_equal(first, y2->data + at, rows * sizeof(qkv_real));
    else
        for (size_t i = 0; i < rows; i++)
            tu_assert_close(y2->data[at + i], first[i], 1e-6);
    free(first);
    qkv_tape_free(&tp);
    qkv_params_free(&ps);
}

static void test_independent_of_batch_mates(void **state)
{
    (void)state;
    int threads = omp_get_max_threads();
    const int small[] = {3, 7, 2}, large[] = {160, 190, 140}; /* large: enough work for threads */
    /* The large batch (d_model 32, window 2, and the sentence of 45) must take the threaded
     * path of the blocks: lib/ops/attention.c gives them qkv_parallel_threads of their products,
     * 2 · Σ n · min(n, 2·window + 1 + 32 query rows of a tile) · d_model multiply-adds. */
    double madds = 0;
    for (int k = 0; k < 4; k++) {
        int n = k < 3 ? large[k] : 45, kw = n < 5 + 32 ? n : 5 + 32;
        madds += 2.0 * n * kw * 32;
    }
    assert_true(madds >= QKV_PARALLEL_MIN_MADDS);
    omp_set_num_threads(1);
    check_independence(true, 8, 5, small);
    check_independence(true, 32, 45, large);
    omp_set_num_threads(threads > 1 ? threads : 2);
    check_independence(false, 8, 5, small);
    check_independence(false, 32, 45, large);
    omp_set_num_threads(threads);
}

static void test_n_heads_error(void **state)
{
    (void)state;
    qkv_params ps;
    qkv_params_init(&ps);
    qkv_rng rng;
    qkv_rng_seed(&rng, 1);
    qkv_error err;
    qkv_mha m;
    qkv_attention_opts opts = {.n_heads = 3};
    assert_int_equal(qkv_mha_create(&m, &ps, &rng, "enc.attn", 8, &opts, true, &err), QKV_ERR);
    assert_non_null(strstr(err.msg, "n_heads 3 does not divide d_model 8"));
    /* and the op itself */
    opts.n_heads = 2;
    assert_int_equal(qkv_mha_create(&m, &ps, &rng, "enc.attn", 8, &opts, true, &err), QKV_OK);
    assert_non_null(qkv_params_find(&ps, "enc.attn.w_q"));
    assert_non_null(qkv_params_find(&ps, "enc.attn.b_o"));
    qkv_tensor *x = tu_param(&ps, &rng, "x", 2, (int[]){3, 8});
    m.opts.n_heads = 5;
    qkv_tape tp;
    qkv_tape_init(&tp, 0);
    int32_t off[] = {0, 3};
    assert_null(qkv_mha_forward(&tp, &m, x, (qkv_packed){1, off}, NULL));
    assert_non_null(strstr(tp.err.msg, "n_heads 5 does not divide d_model 8"));
    qkv_tape_reset(&tp);
    m.opts.n_heads = 2;
    int32_t bad[] = {0, 2};
    assert_null(qkv_mha_forward(&tp, &m, x, (qkv_packed){1, bad}, NULL));
    assert_non_null(strstr(tp.err.msg, "offsets"));
    /* relative biases: the table must match rel_clip and n_heads, and come with rel_clip */
    qkv_tape_reset(&tp);
    m.opts.rel_clip = 2;
    assert_null(qkv_mha_forward(&tp, &m, x, (qkv_packed){1, off}, NULL));
    assert_non_null(strstr(tp.err.msg, "rel_clip 2 needs rel_bias [2, 5], got none"));
    qkv_tape_reset(&tp);
    m.rel_bias = tu_param(&ps, &rng, "rel", 2, (int[]){2, 3});
    assert_null(qkv_mha_forward(&tp, &m, x, (qkv_packed){1, off}, NULL));
    assert_non_null(strstr(tp.err.msg, "rel_clip 2 needs rel_bias [2, 5], got [2, 3]"));
    qkv_tape_reset(&tp);
    m.opts.rel_clip = 0;
    assert_null(qkv_mha_forward(&tp, &m, x, (qkv_packed){1, off}, NULL));
    assert_non_null(strstr(tp.err.msg, "rel_bias given but rel_clip is 0"));
    qkv_tape_free(&tp);
    qkv_params_free(&ps);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_forward_matches_reference),
        cmocka_unit_test(test_gradcheck),
        cmocka_unit_test(test_gradcheck_catches_fault),
        cmocka_unit_test(test_gradcheck_dropout),
        cmocka_unit_test(test_dropout),
        cmocka_unit_test(test_one_word_sentence),
        cmocka_unit_test(test_kept_weights_band_and_empty_batch),
        cmocka_unit_test(test_window_covering_sentence_equals_full),
        cmocka_unit_test(test_large_scores_stay_finite),
        cmocka_unit_test(test_independent_of_batch_mates),
        cmocka_unit_test(test_n_heads_error),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
