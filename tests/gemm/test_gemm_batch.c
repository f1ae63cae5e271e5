/* Batched products (lib/gemm/batch.h) in the float build, on every float backend this build has: each matrix of the batch against a double-precision reference, to float rounding,
 * for every transposition, alpha 1 and not, the attention's shapes and odd ones; C written
 * without being read (NaN before); count 0 touches nothing; the same values on one thread and
 * two; and a batch past the table of primitives (the loop) agreeing with one in it. */
#include "testutil.h"

#include <math.h>
#include <omp.h>

#include "gemm/gemm_check.h"
#include "lib/gemm/backend.h"
#include "lib/gemm/batch.h"

/* Runs one batch of count products on random inputs; returns the wrong elements. out: C. */
static int run_batch(int count, bool ta, bool tb, int m, int n, int k, float alpha, qkv_rng *rng, float *out)
{
    size_t sa = (size_t)m * k, sb = (size_t)k * n, sc = (size_t)m * n;
    float *a = random_floats(rng, count * sa), *b = random_floats(rng, count * sb);
    float *c = malloc((count * sc + 1) * sizeof *c), *c0 = malloc((sc + 1) * sizeof *c0);
    for (size_t i = 0; i < count * sc; i++)
        c[i] = NAN;
    qkv_gemm_batch(count, ta, tb, m, n, k, alpha, a, b, c);
    int wrong = 0;
    product p = {.ta = ta, .tb = tb, .m = m, .n = n, .k = k, .lda = ta ? m : k, .ldb = tb ? k : n, .ldc = n,
                 .alpha = alpha, .beta = 0};
    for (size_t i = 0; i < sc; i++)
        c0[i] = NAN;
    for (int i = 0; i < count; i++)
        wrong += check_result(&p, gemm_exact, a + i * sa, b + i * sb, c0, c + i * sc);
    if (out)
        memcpy(out, c, count * sc * sizeof *c);
    free(a);
    free(b);
    free(c);
    free(c0);
    return wrong;
}

static void each_setting(void (*check)(void))
{
    qkv_error err;
    for (int be = QKV_GEMM_OPENBLAS; be <= QKV_GEMM_ONEDNN; be++) {
        if (be == QKV_GEMM_ONEDNN && !qkv_gemm_have_onednn())
            continue;
        if (qkv_gemm_set_backend((qkv_gemm_backend)be, &err))
            fail_msg("%s", err.msg);
        check();
    }
    assert_int_equal(qkv_gemm_set_backend(QKV_GEMM_AUTO, &err), QKV_OK);
}

static void values(void)
{
    static const int shapes[][4] = {{256, 50, 50, 16}, {256, 50, 16, 50}, {3, 1, 1, 1}, {7, 5, 9, 3}, {2, 33, 17, 70}};
    qkv_rng rng;
    qkv_rng_seed(&rng, 3);
    int plans = qkv_gemm_batch_plans();
    for (size_t s = 0; s < sizeof shapes / sizeof *shapes; s++)
        for (int t = 0; t < 4; t++)
            for (int al = 0; al < 2; al++)
                assert_int_equal(run_batch(shapes[s][0], t & 1, t & 2, shapes[s][1], shapes[s][2], shapes[s][3],
                                           al ? 0.25f : 1.0f, &rng, NULL),
                                 0);
    if (qkv_gemm_onednn) /* oneDNN's primitives ran the batches, not the loop */
        assert_true(qkv_gemm_batch_plans() > plans);
    else
        assert_int_equal(qkv_gemm_batch_plans(), plans);
}

static void test_values_every_backend(void **state)
{
    (void)state;
    each_setting(values);
}

/* count 0, m 0 or n 0: nothing written. */
static void test_empty(void **state)
{
    (void)state;
    float a[4] = {1, 2, 3, 4}, b[4] = {1, 2, 3, 4}, c[4] = {9, 9, 9, 9};
    qkv_gemm_batch(0, false, false, 2, 2, 2, 1, a, b, c);
    qkv_gemm_batch(1, false, false, 0, 2, 2, 1, a, b, c);
    qkv_gemm_batch(1, false, false, 2, 0, 2, 1, a, b, c);
    for (int i = 0; i < 4; i++)
        assert_true(c[i] == 9);
}

static void threads(void)
{
    enum { COUNT = 64, M = 20, N = 20 };
    float *one = malloc(COUNT * M * N * sizeof *one), *two = malloc(COUNT * M * N * sizeof *two);
    qkv_rng rng;
    qkv_rng_seed(&rng, 5);
    omp_set_num_threads(1);
    assert_int_equal(run_batch(COUNT, false, true, M, N, 8, 0.5f, &rng, one), 0);
    qkv_rng_seed(&rng, 5);
    omp_set_num_threads(2);
    assert_int_equal(run_batch(COUNT, false, true, M, N, 8, 0.5f, &rng, two), 0);
    assert_memory_equal(one, two, COUNT * M * N * sizeof *one);
    free(one);
    free(two);
}

/* Each matrix is one thread's: the same bits whatever the number of threads. */
static void test_same_bits_on_one_or_two_threads(void **state)
{
    (void)state;
    int saved = omp_get_max_threads();
    each_setting(threads);
    omp_set_num_threads(saved);
}

/* More shapes than the table holds: the ones past it run as a loop, still right. */
static void test_past_the_table(void **state)
{
    (void)state;
    qkv_rng rng;
    qkv_rng_seed(&rng, 9);
    for (int i = 0; i < QKV_GEMM_BATCH_PLANS + 4; i++)
        assert_int_equal(run_batch(2 + i % 3, i & 1, false, 3 + i / 3, 4, 5, 1, &rng, NULL), 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_values_every_backend),
        cmocka_unit_test(test_empty),
        cmocka_unit_test(test_same_bits_on_one_or_two_threads),
        cmocka_unit_test(test_past_the_table),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
