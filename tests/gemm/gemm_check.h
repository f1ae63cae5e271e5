/* Shared by the float-product tests of tests/gemm: random inputs, a product's description, and
 * its check against a double-precision reference computed on the inputs as the backend sees
 * them (the floats themselves, or rounded to bf16). */
#ifndef QKV_TESTS_GEMM_CHECK_H
#define QKV_TESTS_GEMM_CHECK_H

#include <float.h>

#include "lib/blas.h"
#include "lib/rng.h"

/* An input element as the product computes with it. */
typedef double (*gemm_input)(float x);

static inline double gemm_exact(float x) { return x; }

static inline float *random_floats(qkv_rng *rng, size_t n)
{
    float *m = malloc((n ? n : 1) * sizeof *m);
    assert_non_null(m);
    for (size_t i = 0; i < n; i++)
        m[i] = (float)(2 * qkv_rng_uniform(rng) - 1);
    return m;
}

/* C [m, n] (row stride ldc) = alpha · op(A) op(B) + beta · C. */
typedef struct {
    bool ta, tb;
    int m, n, k, lda, ldb, ldc;
    float alpha, beta;
} product;

/* Floats stored for op(X) = X (rows x cols) or X^T, with row stride ld >= its columns. */
static inline size_t stored(bool trans, int rows, int cols, int ld)
{
    return (size_t)(trans ? cols : rows) * (size_t)ld;
}

static inline double at(const float *x, gemm_input in, bool trans, int ld, int i, int j)
{
    return in(trans ? x[(size_t)j * ld + i] : x[(size_t)i * ld + j]);
}

/* The number of wrong elements of C after p: each must be within (K + 2) · 2^-23 · (|alpha| sum
 * |a b| + |beta c|) + FLT_MIN of the double reference (the rounding of a float sum of K terms),
 * and the padding of C's rows (ldc > N) untouched. Prints the first wrong one; thread-safe. */
static inline int check_result(const product *p, gemm_input in, const float *a, const float *b, const float *c0,
                               const float *c)
{
    int wrong = 0;
    for (int i = 0; i < p->m; i++) {
        for (int j = 0; j < p->n; j++) {
            double ref = 0, mag = 0;
            for (int t = 0; t < p->k; t++) {
                double ab = at(a, in, p->ta, p->lda, i, t) * at(b, in, p->tb, p->ldb, t, j);
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
            if (!(fabs(got - ref) <= tol) && wrong++ == 0)
                print_error("%s %c%c %dx%dx%d: C[%d,%d] = %.9g, reference %.9g (tolerance %.3g)\n",
                            qkv_gemm_bf16_on ? "bf16" : qkv_gemm_backend_name(), p->ta ? 'T' : 'N',
                            p->tb ? 'T' : 'N', p->m, p->n, p->k, i, j, got, ref, tol);
        }
        for (int j = p->n; j < p->ldc; j++)
            wrong += memcmp(&c[(size_t)i * p->ldc + j], &c0[(size_t)i * p->ldc + j], sizeof(float)) != 0;
    }
    return wrong;
}

/* Runs p through qkv_gemm on random inputs (C NaN when beta is 0: written, never read);
 * returns the number of wrong elements. */
static inline int run_product(const product *p, gemm_input in, qkv_rng *rng)
{
    float *a = random_floats(rng, stored(p->ta, p->m, p->k, p->lda));
    float *b = random_floats(rng, stored(p->tb, p->k, p->n, p->ldb));
    size_t cn = (size_t)p->m * p->ldc;
    float *c = random_floats(rng, cn), *c0 = malloc((cn ? cn : 1) * sizeof *c0);
    assert_non_null(c0);
    if (p->beta == 0)
        for (size_t i = 0; i < cn; i++)
            c[i] = NAN;
    memcpy(c0, c, cn * sizeof *c);
    qkv_gemm(p->ta, p->tb, p->m, p->n, p->k, p->alpha, a, p->lda, b, p->ldb, p->beta, c, p->ldc);
    int wrong = check_result(p, in, a, b, c0, c);
    free(a);
    free(b);
    free(c);
    free(c0);
    return wrong;
}

#endif
