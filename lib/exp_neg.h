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
 * qkv_exp_neg is it in the float build and exp itself in the double build (gradient checks). */
#ifndef QKV_EXP_NEG_H
#define QKV_EXP_NEG_H

#include <stdint.h>

#include "lib/tensor.h"

static inline float qkv_expf_neg(float a)
{
    float c = a < -87.0f ? -87.0f : (a == a ? a : 0.0f); /* NaN: computed as 0, returned as NaN */
    float n = (float)(int32_t)(c * 1.44269504088896341f - 0.5f); /* round(c / ln 2), c <= 0 */
    float r = c - n * 0.693359375f + n * 2.12194440e-4f;
    float p = 1.9875691500e-4f;
    p = p * r + 1.3981999507e-3f;
    p = p * r + 8.3334519073e-3f;
    p = p * r + 4.1665795894e-2f;
    p = p * r + 1.6666665459e-1f;
    p = p * r + 5.0000001201e-1f;
    p = p * r * r + r + 1.0f;
    union {
        int32_t i;
        float f;
    } scale = {((int32_t)n + 127) * (1 << 23)};
    float y = a < -87.0f ? 0.0f : p * scale.f;
    return a == a ? y : a;
}

/* exp(a), a <= 0, of qkv_real: qkv_expf_neg in the float build, exp in the double build. */
#if QKV_REAL_IS_DOUBLE
#define qkv_exp_neg exp
#else
#define qkv_exp_neg qkv_expf_neg
#endif

#endif
