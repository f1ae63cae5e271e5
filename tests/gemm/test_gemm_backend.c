/* The float GEMM backends of lib/gemm/backend.h (linked against the float build: the lib tests
 * run in double, where every product is OpenBLAS's dgemm). For each backend this build has:
 * C = alpha · op(A) op(B) + beta · C against a double-precision reference, to float rounding,
 * for every transposition, row strides wider than the matrices, beta 0 (C not read, even NaN),
 * K = 0 and the shapes the shipped models multiply; the two backends against each other; a
 * product inside an OpenMP parallel region the same as outside; and the choice itself. */
#include "testutil.h"

#include <float.h>
#include <omp.h>

#include "lib/blas.h"
#include "lib/gemm/backend.h"
#include "lib/rng.h"

static float *random_floats(qkv_rng *rng, size_t n)
{
    float *m = malloc((n ? n : 1) * sizeof *m);
    assert_non_null(m);
    for (size_t i = 0; i < n; i++)
        m[i] = (float)(2 * qkv_rng_uniform(rng) - 1);
    return m;
}

typedef struct {
    bool ta, tb;
    int m, n, k, lda, ldb, ldc;
    float alpha, beta;
} product;

/* Stored rows and columns of op(X) = X (rows x cols) or X^T, with row stride ld >= columns. */
static size_t stored(bool trans, int rows, int cols, int ld)
{
    return (size_t)(trans ? cols : rows) * (size_t)ld;
}

static double at(const float *x, bool trans, int ld, int i, int j)
{
    return trans ? x[(size_t)j * ld + i] : x[(size_t)i * ld + j];
}

/* Runs p on the current backend and checks every element of C against the double reference:
 * |C - ref| <= K · 2^-23 · (|alpha| sum |a b| + |beta c|) + FLT_MIN, the rounding of a float
 * sum of K terms. Elements beyond N in a row of C (ldc > N) must be left alone. */
static void check_product(const product *p, qkv_rng *rng)
{
    float *a = random_floats(rng, stored(p->ta, p->m, p->k, p->lda));
    float *b = random_floats(rng, stored(p->tb, p->k, p->n, p->ldb));
    size_t cn = (size_t)p->m * p->ldc;
    float *c = random_floats(rng, cn), *c0 = malloc((cn ? cn : 1) * sizeof *c0);
    if (p->beta == 0)
        for (size_t i = 0; i < cn; i++)
            c[i] = NAN; /* beta 0: C is written, never read */
    memcpy(c0, c, cn * sizeof *c);
    qkv_gemm(p->ta, p->tb, p->m, p->n, p->k, p->alpha, a, p->lda, b, p->ldb, p->beta, c, p->ldc);
    for (int i = 0; i < p->m; i++) {
        for (int j = 0; j < p->n; j++) {
            double ref = 0, mag = 0;
            for (int t = 0; t < p->k; t++) {
                double ab = at(a, p->ta, p->lda, i, t) * at(b, p->tb, p->ldb, t, j);
                ref += ab;
                mag += fabs(ab);
            }
            ref *= p->alpha;
            mag *= fabs(p->alpha);
            if (p->beta != 0) {
                ref += (double)p->beta * c0[(size_t)i * p->ldc + j];
                mag += fabs((double)p->beta * c0[(size_t)i * p->ldc + j]);
            }
            double got = c[(size_t)i * p->ldc + j], tol = (p->k + 2) * mag * FLT_EPSILON + FLT_MIN;
            if (!(fabs(got - ref) <= tol))
                fail_msg("%s %c%c %dx%dx%d: C[%d,%d] = %.9g, reference %.9g (tolerance %.3g)",
                         qkv_gemm_backend_name(), p->ta ? 'T' : 'N', p->tb ? 'T' : 'N', p->m, p->n, p->k, i, j, got,
                         ref, tol);
        }
        for (int j = p->n; j < p->ldc; j++) /* the padding of a row is not C's */
            assert_memory_equal(&c[(size_t)i * p->ldc + j], &c0[(size_t)i * p->ldc + j], sizeof(float));
    }
    free(a);
    free(b);
    free(c);
    free(c0);
}

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
                    check_product(&p, &rng);
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
        check_product(&p, &rng);
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
            check_product(&fwd, &rng);
            check_product(&wgrad, &rng);
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
