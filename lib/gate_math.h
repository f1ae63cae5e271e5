/* qkv_sigmoid and qkv_tanh of qkv_real: the LSTM's gate nonlinearities, in a form the compiler
 * vectorizes. libm's tanhf and expf are calls the vectorizer cannot inline: through them an
 * LSTM step's element loop runs one gate at a time, a quarter of a BiLSTM parser's evaluation
 * (docs/results/2026-12-05-lstm-gates.md).
 *
 * The float build, both branch-free over qkv_expf_neg (lib/exp_neg.h), which takes only
 * non-positive arguments:
 *   σ(a) = 1 / (1 + e) for a >= 0, e / (1 + e) for a < 0, with e = exp(-|a|): no cancellation
 *   on either side, so the relative error stays that of exp and one division.
 *   tanh(x) = sign(x) (1 - e) / (1 + e), e = exp(-2|x|), for |x| >= 0.625, where 1 - e >= 0.71
 *   does not cancel; below 0.625 the odd polynomial x + x³ P(x²) of degree 11 (Cephes tanhf's
 *   coefficients), which keeps the relative error of small arguments.
 * Measured max relative error against double precision (tests/lib/test_gate_math.c): 1.9e-7 for
 * σ over [-86, 86] and 1.5e-7 for tanh over [-20, 20]; NaN gives NaN. With -fno-trapping-math
 * on the including file GCC turns the selects into blends.
 * The double build (gradient checks) uses exp and tanh themselves. */
#ifndef QKV_GATE_MATH_H
#define QKV_GATE_MATH_H

#include <math.h>

#include "lib/exp_neg.h"
#include "lib/tensor.h"

static inline float qkv_sigmoidf(float a)
{
    float m = a < 0 ? a : -a; /* -|a|; NaN stays NaN */
    float e = qkv_expf_neg(m);
    float s = 1.0f / (1.0f + e);
    return a < 0 ? e * s : s;
}

static inline float qkv_tanhf(float x)
{
    float ax = x < 0 ? -x : x;
    float z = x * x;
    float p = -5.70498872745e-3f;
    p = p * z + 2.06390887954e-2f;
    p = p * z - 5.37397155531e-2f;
    p = p * z + 1.33314422036e-1f;
    p = p * z - 3.33332819422e-1f;
    float small = x + x * z * p;
    float e = qkv_expf_neg(-2.0f * ax);
    float big = (1.0f - e) / (1.0f + e);
    big = x < 0 ? -big : big;
    return ax < 0.625f ? small : big;
}

#if QKV_REAL_IS_DOUBLE
static inline double qkv_sigmoid(double a) { return 1.0 / (1.0 + exp(-a)); }
#define qkv_tanh tanh
#else
#define qkv_sigmoid qkv_sigmoidf
#define qkv_tanh qkv_tanhf
#endif

#endif
