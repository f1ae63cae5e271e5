/* qkv_expf_neg: exp(a) for a <= 0, in a form the compiler vectorizes. The softmax of attention's
 * max-shifted scores (every argument <= 0) and the Gaussian density of GELU's gradient spend
 * their time in exp.
 *
 * The float build: a = n ln 2 + r, |r| <= ln 2 / 2, with ln 2 split in two parts (Cody & Waite),
 * e^r by its degree-7 polynomial (Cephes expf coefficients), 2^n put into the exponent bits.
 * Below -87 (e^a < 1.7e-38, subnormal territory, and -inf from a masked score) it returns 0;
 * a NaN argument (a diverged model's score) comes back as NaN.
 * Measured max relative error 8.3e-8 on [-87, 0] against double exp (tests/lib/test_exp_neg.c).
 * Branch-free: with -fno-trapping-math on the including file, GCC turns the clamps into
 * selects and vectorizes `omp simd` loops over it (lib/CMakeLists.txt).
 * The double build (gradient checks) calls exp itself. Rows of it, 16 lanes at a time where the
 * processor has AVX-512: lib/vmath.h. */
#ifndef QKV_EXP_NEG_H
#define QKV_EXP_NEG_H

#include <stdint.h>

#include "lib/tensor.h"

/* The constants of qkv_expf_neg, shared with its 16-lane form (lib/vmath.c). */
#define QKV_EXPF_LO (-87.0f)                  /* below: 0 */
#define QKV_EXPF_LOG2E 1.44269504088896341f   /* 1 / ln 2 */
#define QKV_EXPF_LN2_HI 0.693359375f          /* ln 2 = HI - LO, HI exact in 10 bits */
#define QKV_EXPF_LN2_LO 2.12194440e-4f
#define QKV_EXPF_P0 1.9875691500e-4f          /* e^r ~ 1 + r + r^2 P(r) */
#define QKV_EXPF_P1 1.3981999507e-3f
#define QKV_EXPF_P2 8.3334519073e-3f
#define QKV_EXPF_P3 4.1665795894e-2f
#define QKV_EXPF_P4 1.6666665459e-1f
#define QKV_EXPF_P5 5.0000001201e-1f

static inline float qkv_expf_neg(float a)
{
    float c = a < QKV_EXPF_LO ? QKV_EXPF_LO : (a == a ? a : 0.0f); /* NaN: computed as 0, returned as NaN */
    float n = (float)(int32_t)(c * QKV_EXPF_LOG2E - 0.5f);         /* round(c / ln 2), c <= 0 */
    float r = c - n * QKV_EXPF_LN2_HI + n * QKV_EXPF_LN2_LO;
    float p = QKV_EXPF_P0;
    p = p * r + QKV_EXPF_P1;
    p = p * r + QKV_EXPF_P2;
    p = p * r + QKV_EXPF_P3;
    p = p * r + QKV_EXPF_P4;
    p = p * r + QKV_EXPF_P5;
    p = p * r * r + r + 1.0f;
    union {
        int32_t i;
        float f;
    } scale = {((int32_t)n + 127) * (1 << 23)};
    float y = a < QKV_EXPF_LO ? 0.0f : p * scale.f;
    return a == a ? y : a;
}

#endif
