/* The row-stable product of lib/gemm_rows.h: the same rows of A give the same bits of C whatever
 * the number of rows M of the call and wherever in A they sit (one thread, double precision),
 * for shapes on both sides of OpenBLAS's small-matrix limit; and the values are A · B^T + beta · C
 * to rounding. */
#include "testutil.h"

#include <stdlib.h>
#include <string.h>

#include "lib/gemm_rows.h"
#include "lib/rng.h"

static qkv_real *random_matrix(qkv_rng *rng, int rows, int cols)
{
    qkv_real *m = malloc((size_t)rows * cols * sizeof *m);
    for (int i = 0; i < rows * cols; i++)
        m[i] = (qkv_real)(qkv_rng_uniform(rng) - 0.5);
    return m;
}

/* C rows of `block` (5 rows of A) placed at row `at` of a call of m rows. */
static void rows_at(int m, int at, int n, int k, const qkv_real *block, const qkv_real *b, qkv_rng *rng,
                    qkv_real *out)
{
    qkv_real *a = random_matrix(rng, m, k), *c = calloc((size_t)m * n, sizeof *c);
    qkv_real *scratch = malloc(QKV_GEMM_ROWS_SCRATCH(k, n) * sizeof *scratch);
    memcpy(a + (size_t)at * k, block, 5 * (size_t)k * sizeof *a);
    qkv_gemm_rows_nt(m, n, k, a, k, b, k, 0, c, n, scratch);
    memcpy(out, c + (size_t)at * n, 5 * (size_t)n * sizeof *out);
    free(a);
    free(c);
    free(scratch);
}

static void test_rows_independent_of_m_and_place(void **state)
{
    (void)state;
    int saved = qkv_blas_single();
    const int dims[] = {8, 24, 32, 64, 128};
    const int calls[][2] = {{5, 0}, {17, 3}, {45, 40}, {64, 7}, {300, 211}, {535, 160}, {2000, 1234}};
    for (size_t d = 0; d < sizeof dims / sizeof *dims; d++) {
        int n = dims[d], k = dims[d];
        qkv_rng rng;
        qkv_rng_seed(&rng, 7 + (uint64_t)d);
        qkv_real *b = random_matrix(&rng, n, k), *block = random_matrix(&rng, 5, k);
        qkv_real *first = malloc(5 * (size_t)n * sizeof *first), *other = malloc(5 * (size_t)n * sizeof *other);
        rows_at(5, 0, n, k, block, b, &rng, first);
        for (size_t c = 1; c < sizeof calls / sizeof *calls; c++) {
            rows_at(calls[c][0], calls[c][1], n, k, block, b, &rng, other);
            assert_memory_equal(first, other, 5 * (size_t)n * sizeof *first);
        }
        for (int i = 0; i < 5; i++)
            for (int j = 0; j < n; j++) {
                double dot = 0;
                for (int t = 0; t < k; t++)
                    dot += (double)block[i * k + t] * b[j * k + t];
                tu_assert_close(first[i * n + j], dot, 1e-12);
            }
        free(b);
        free(block);
        free(first);
        free(other);
    }
    qkv_blas_restore(saved);
}

static void test_beta_adds_c(void **state)
{
    (void)state;
    qkv_rng rng;
    qkv_rng_seed(&rng, 3);
    int m = 21, n = 8, k = 8;
    qkv_real *a = random_matrix(&rng, m, k), *b = random_matrix(&rng, n, k), *c = random_matrix(&rng, m, n);
    qkv_real *c0 = malloc((size_t)m * n * sizeof *c0), *scratch = malloc(QKV_GEMM_ROWS_SCRATCH(k, n) * sizeof *scratch);
    memcpy(c0, c, (size_t)m * n * sizeof *c0);
    qkv_gemm_rows_nt(m, n, k, a, k, b, k, 1, c, n, scratch);
    for (int i = 0; i < m; i++)
        for (int j = 0; j < n; j++) {
            double dot = c0[i * n + j];
            for (int t = 0; t < k; t++)
                dot += (double)a[i * k + t] * b[j * k + t];
            tu_assert_close(c[i * n + j], dot, 1e-12);
        }
    assert_true(qkv_gemm_rows_pad(n, k) * n * k >= QKV_GEMM_ROWS_MIN_MADDS);
    assert_int_equal(qkv_gemm_rows_pad(n, k) % QKV_GEMM_ROWS_CHUNK, 0);
    free(a);
    free(b);
    free(c);
    free(c0);
    free(scratch);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_rows_independent_of_m_and_place),
        cmocka_unit_test(test_beta_adds_c),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
