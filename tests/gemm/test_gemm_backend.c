/* The float GEMM backends of lib/gemm/backend.h (linked against the float build: the lib tests
 * run in double, where every product is OpenBLAS's dgemm). For each backend this build has:
 * C = alpha · op(A) op(B) + beta · C against a double-precision reference, to float rounding,
 * for every transposition, row strides wider than the matrices, beta 0 (C not read, even NaN),
 * K = 0 and the shapes the shipped models multiply; the two backends against each other; a
 * product inside an OpenMP parallel region the same as outside; and the choice itself. */
#include "testutil.h"

#include <omp.h>

#include "gemm/gemm_check.h"
#include "lib/gemm/backend.h"

/* The backends this build has. */
static int backends(qkv_gemm_backend *out)
{
    int n = 0;
    out[n++] = QKV_GEMM_OPENBLAS;
    if (qkv_gemm_have_onednn())
        out[n++] = QKV_GEMM_ONEDNN;
    return n;
}

static void use(qkv_gemm_backend b)
{
    qkv_error err;
    if (qkv_gemm_set_backend(b, &err))
        fail_msg("%s", err.msg);
    if (b != QKV_GEMM_AUTO)
        assert_string_equal(qkv_gemm_backend_name(), QKV_GEMM_BACKEND_NAMES[b]);
}

static void test_values_every_transposition(void **state)
{
    (void)state;
    qkv_gemm_backend bs[2];
    int nb = backends(bs);
    const int sizes[][3] = {{1, 1, 1}, {3, 5, 7}, {17, 9, 33}, {40, 64, 32}, {70, 3, 129}};
    for (int bi = 0; bi < nb; bi++) {
        use(bs[bi]);
        qkv_rng rng;
        qkv_rng_seed(&rng, 11);
        for (size_t s = 0; s < sizeof sizes / sizeof *sizes; s++)
            for (int tr = 0; tr < 4; tr++)
                for (int wide = 0; wide < 2; wide++) {
                    product p = {.ta = tr & 1, .tb = tr >> 1, .m = sizes[s][0], .n = sizes[s][1], .k = sizes[s][2],
                                 .alpha = wide ? -0.5f : 1.0f, .beta = wide ? 0.75f : 0.0f};
                    p.lda = (p.ta ? p.m : p.k) + 3 * wide;
                    p.ldb = (p.tb ? p.k : p.n) + 5 * wide;
                    p.ldc = p.n + 2 * wide;
                    assert_int_equal(run_product(&p, gemm_exact, &rng), 0);
                }
    }
    use(QKV_GEMM_AUTO);
}

/* K = 0 scales C by beta (alpha times an empty sum); M = 0 or N = 0 touches nothing. */
static void test_empty_sums(void **state)
{
    (void)state;
    qkv_gemm_backend bs[2];
    int nb = backends(bs);
    for (int bi = 0; bi < nb; bi++) {
        use(bs[bi]);
        qkv_rng rng;
        qkv_rng_seed(&rng, 5);
        product p = {.m = 4, .n = 6, .k = 0, .lda = 1, .ldb = 6, .ldc = 6, .alpha = 1, .beta = 0.5f};
        assert_int_equal(run_product(&p, gemm_exact, &rng), 0);
        float c[1] = {3.0f}, a[1] = {1.0f};
        qkv_gemm(false, false, 0, 1, 1, 1, a, 1, a, 1, 0, c, 1);
        qkv_gemm(false, false, 1, 0, 1, 1, a, 1, a, 1, 0, c, 1);
        assert_true(c[0] == 3.0f);
    }
    use(QKV_GEMM_AUTO);
}

/* The shapes of the shipped models' products (tokens x out x in, and the backward's
 * transposed forms), at 1,000 rows. */
static void test_model_shapes(void **state)
{
    (void)state;
    qkv_gemm_backend bs[2];
    int nb = backends(bs);
    const int shapes[][3] = {{1000, 512, 128}, {1000, 768, 192}, {1000, 192, 768}, {64, 64, 32}, {128, 128, 1000}};
    for (int bi = 0; bi < nb; bi++) {
        use(bs[bi]);
        qkv_rng rng;
        qkv_rng_seed(&rng, 3);
        for (size_t s = 0; s < sizeof shapes / sizeof *shapes; s++) {
            int m = shapes[s][0], n = shapes[s][1], k = shapes[s][2];
            product fwd = {.tb = true, .m = m, .n = n, .k = k, .lda = k, .ldb = k, .ldc = n, .alpha = 1};
            product wgrad = {.ta = true, .m = n, .n = k, .k = m, .lda = n, .ldb = k, .ldc = k, .alpha = 1, .beta = 1};
            assert_int_equal(run_product(&fwd, gemm_exact, &rng), 0);
            assert_int_equal(run_product(&wgrad, gemm_exact, &rng), 0);
        }
    }
    use(QKV_GEMM_AUTO);
}

/* The ops call products from inside their own OpenMP regions (lib/gemm_rows.c): there a
 * backend must compute the same values as outside, for every thread at once. */
static void test_inside_parallel_region(void **state)
{
    (void)state;
    qkv_gemm_backend bs[2];
    int nb = backends(bs);
    const int m = 96, n = 80, k = 72, threads = 2;
    qkv_rng rng;
    qkv_rng_seed(&rng, 9);
    float *a = random_floats(&rng, (size_t)m * k), *b = random_floats(&rng, (size_t)n * k);
    float *outside = calloc((size_t)m * n, sizeof *outside), *inside = calloc((size_t)threads * m * n, sizeof *inside);
    for (int bi = 0; bi < nb; bi++) {
        use(bs[bi]);
        qkv_gemm(false, true, m, n, k, 1, a, k, b, k, 0, outside, n);
#pragma omp parallel for num_threads(threads)
        for (int t = 0; t < threads; t++)
            qkv_gemm(false, true, m, n, k, 1, a, k, b, k, 0, inside + (size_t)t * m * n, n);
        for (int t = 0; t < threads; t++)
            for (int i = 0; i < m * n; i++)
                assert_true(fabsf(inside[(size_t)t * m * n + i] - outside[i]) <= 1e-5f * (1 + fabsf(outside[i])));
    }
    use(QKV_GEMM_AUTO);
    free(a);
    free(b);
    free(outside);
    free(inside);
}

/* auto is oneDNN when the build has it; onednn without it is an error naming the package. */
static void test_choice(void **state)
{
    (void)state;
    qkv_error err;
    assert_int_equal(qkv_gemm_set_backend(QKV_GEMM_AUTO, &err), QKV_OK);
    assert_string_equal(qkv_gemm_backend_name(), qkv_gemm_have_onednn() ? "onednn" : "openblas");
    assert_int_equal(qkv_gemm_set_backend(QKV_GEMM_OPENBLAS, &err), QKV_OK);
    assert_string_equal(qkv_gemm_backend_name(), "openblas");
    if (qkv_gemm_have_onednn()) {
        assert_int_equal(qkv_gemm_set_backend(QKV_GEMM_ONEDNN, &err), QKV_OK);
        assert_string_equal(qkv_gemm_backend_name(), "onednn");
    } else {
        assert_int_equal(qkv_gemm_set_backend(QKV_GEMM_ONEDNN, &err), QKV_ERR);
        assert_non_null(strstr(err.msg, "libdnnl-dev"));
        assert_string_equal(qkv_gemm_backend_name(), "openblas");
    }
    assert_int_equal(qkv_gemm_set_backend(QKV_GEMM_COUNT, &err), QKV_ERR);
    assert_int_equal(qkv_gemm_set_backend(QKV_GEMM_AUTO, &err), QKV_OK);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_values_every_transposition), cmocka_unit_test(test_empty_sums),
        cmocka_unit_test(test_model_shapes), cmocka_unit_test(test_inside_parallel_region),
        cmocka_unit_test(test_choice),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
