/* Row kernels of the float build's transcendental loops: the softmax's exp(x - m) and its sum,
 * GELU (erf form) and its derivative. Each has two kernels of the same formulas: the portable
 * loop over qkv_expf_neg (lib/exp_neg.h) and qkv_erff (lib/erf.h), which GCC vectorizes with the
 * baseline x86-64 instructions (4 lanes), and one of 16 lanes in AVX-512F intrinsics (FMAs,
 * vscalefps for 2^n, masked tails), chosen at run time by what the processor has. The two give
 * the same values to within the scalar functions' error bounds (they round differently).
 * Built once, in float, for both element types (lib/vmath.c); the double build (gradient
 * checks) calls libm itself. */
#ifndef QKV_VMATH_H
#define QKV_VMATH_H

#include <stdbool.h>

#include "lib/tensor.h"

/* The erf form's constants (Hendrycks & Gimpel 2016): 1/√2 and 1/√(2π). */
#define QKV_GELU_SQRT1_2 0.70710678118654752440
#define QKV_GELU_INV_SQRT_2PI 0.39894228040143267794

/* x[j] = exp(x[j] - m) for j < n, in place, every x[j] - m <= 0 (m at least the row's maximum,
 * as a softmax shifts it); returns the sum of the new x. Each element within qkv_expf_neg's
 * bound of 1.2e-7 relative, with its limits: 0 below -87 and for -inf, NaN kept. */
float qkv_expf_shift_sum(float *x, int n, float m);

/* The softmax of x[0 .. n), n >= 1, in place: m = max_j x[j] (a NaN other than x[0] is passed
 * over), x[j] = exp(x[j] - m) as qkv_expf_shift_sum, then x[j] times 1 / Σ. */
void qkv_softmaxf(float *x, int n);

/* y[j] = gelu(u[j] + b[j]) = v Φ(v), v = u[j] + b[j], Φ(v) = (1 + erf(v / √2)) / 2, for j < n;
 * b may be NULL (v = u[j]); y may be u. Within 2.2e-7 |v| + 2.4e-7 |gelu(v)| of the exact value
 * (erf's 4.3e-7 halved, times |v|, and the float roundings); NaN gives NaN. */
void qkv_gelu_erff(const float *u, const float *b, float *y, int n);

/* d = dy[j] gelu'(v), v = u[j] + b[j] (b may be NULL), gelu'(v) = Φ(v) + v φ(v),
 * φ(v) = exp(-v² / 2) / √(2π); then du[j] += d and db[j] += d, each when not NULL. gelu'(v)
 * within 2.2e-7 + 3.6e-7 |v φ(v)| + 1.2e-7 |gelu'(v)| of the exact value (erf's error halved,
 * exp's and the roundings); NaN gives NaN. */
void qkv_gelu_erff_grad(const float *u, const float *b, const float *dy, float *du, float *db, int n);

/* Σ_j exp(x[j] - m) for j < n, every x[j] - m <= 0 (m at least the row's maximum), x left as
 * it is: a softmax's denominator. qkv_expf_shift_sum over chunks of a stack buffer, the chunks'
 * sums added in double; each term within qkv_expf_neg's bound. */
double qkv_expf_shift_total(const float *x, int n, float m);

/* y[j] += a exp(x[j] - m) for j < n, every x[j] - m <= 0: a softmax's gradient row (a the
 * upstream gradient over the denominator). Each exp within qkv_expf_neg's bound. */
void qkv_expf_shift_axpy(const float *x, int n, float m, float a, float *y);

/* The kernels, to test and measure each: the portable loops (every processor) and AVX-512F. */
typedef enum { QKV_VMATH_PORTABLE, QKV_VMATH_AVX512, QKV_VMATH_KERNEL_COUNT } qkv_vmath_kernel;
extern const char *const QKV_VMATH_KERNEL_NAMES[];
bool qkv_vmath_available(qkv_vmath_kernel k);
/* The kernel the functions above call: the fastest available. */
qkv_vmath_kernel qkv_vmath_chosen(void);
/* The functions above with kernel k, which must be available. */
float qkv_expf_shift_sum_with(qkv_vmath_kernel k, float *x, int n, float m);
void qkv_softmaxf_with(qkv_vmath_kernel k, float *x, int n);
void qkv_gelu_erff_with(qkv_vmath_kernel k, const float *u, const float *b, float *y, int n);
void qkv_gelu_erff_grad_with(qkv_vmath_kernel k, const float *u, const float *b, const float *dy, float *du,
                             float *db, int n);

/* The softmax's rows of qkv_real: the float functions above in the float build, exp in the
 * double build (qkv_softmax_row: qkv_softmaxf's formula). */
#if QKV_REAL_IS_DOUBLE
#include <math.h>
static inline double qkv_exp_shift_sum(double *x, int n, double m)
{
    double sum = 0;
    for (int j = 0; j < n; j++) {
        x[j] = exp(x[j] - m);
        sum += x[j];
    }
    return sum;
}
static inline double qkv_exp_shift_total(const double *x, int n, double m)
{
    double sum = 0;
    for (int j = 0; j < n; j++)
        sum += exp(x[j] - m);
    return sum;
}
static inline void qkv_exp_shift_axpy(const double *x, int n, double m, double a, double *y)
{
    for (int j = 0; j < n; j++)
        y[j] += a * exp(x[j] - m);
}
static inline void qkv_softmax_row(double *x, int n)
{
    double m = x[0];
    for (int j = 1; j < n; j++)
        m = x[j] > m ? x[j] : m;
    double inv = 1 / qkv_exp_shift_sum(x, n, m);
    for (int j = 0; j < n; j++)
        x[j] *= inv;
}
#else
#define qkv_softmax_row qkv_softmaxf
#define qkv_exp_shift_sum qkv_expf_shift_sum
#define qkv_exp_shift_total qkv_expf_shift_total
#define qkv_exp_shift_axpy qkv_expf_shift_axpy
#endif

#endif
