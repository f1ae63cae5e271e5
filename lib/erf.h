/* qkv_erff: erf(x) in float, branch-free, in a form the compiler vectorizes: GELU's Φ(x)
 * (lib/ops/activation.c) spends its time here.
 * The rational minimax approximation x·P(x²)/Q(x²) on [-4, 4] (erf(±4) rounds to ±1 in float),
 * the one Eigen and XLA use for float erf; arguments are clamped to [-4, 4] first (NaN stays NaN
 * through the arithmetic). Measured max |error| 4.21e-7 against double erf over [-10, 10]
 * (tests/lib/test_vmath.c). With -fno-trapping-math on the including file GCC turns the
 * clamps into selects and vectorizes `omp simd` loops over it. Rows of it, 16 lanes at a time
 * where the processor has AVX-512: lib/vmath.h. */
#ifndef QKV_ERF_H
#define QKV_ERF_H

/* The constants, shared with the 16-lane form (lib/vmath.c). */
#define QKV_ERFF_CLAMP 4.0f
#define QKV_ERFF_P0 (-2.72614225801306e-10f)
#define QKV_ERFF_P1 2.77068142495902e-08f
#define QKV_ERFF_P2 (-2.10102402082508e-06f)
#define QKV_ERFF_P3 (-5.69250639462346e-05f)
#define QKV_ERFF_P4 (-7.34990630326855e-04f)
#define QKV_ERFF_P5 (-2.95459980854025e-03f)
#define QKV_ERFF_P6 (-1.60960333262415e-02f)
#define QKV_ERFF_Q0 (-1.45660718464996e-05f)
#define QKV_ERFF_Q1 (-2.13374055278905e-04f)
#define QKV_ERFF_Q2 (-1.68282697438203e-03f)
#define QKV_ERFF_Q3 (-7.37332916720468e-03f)
#define QKV_ERFF_Q4 (-1.42647390514189e-02f)

static inline float qkv_erff(float x)
{
    float z = x > QKV_ERFF_CLAMP ? QKV_ERFF_CLAMP : x;
    z = z < -QKV_ERFF_CLAMP ? -QKV_ERFF_CLAMP : z;
    float z2 = z * z;
    float p = QKV_ERFF_P0;
    p = p * z2 + QKV_ERFF_P1;
    p = p * z2 + QKV_ERFF_P2;
    p = p * z2 + QKV_ERFF_P3;
    p = p * z2 + QKV_ERFF_P4;
    p = p * z2 + QKV_ERFF_P5;
    p = p * z2 + QKV_ERFF_P6;
    float q = QKV_ERFF_Q0;
    q = q * z2 + QKV_ERFF_Q1;
    q = q * z2 + QKV_ERFF_Q2;
    q = q * z2 + QKV_ERFF_Q3;
    q = q * z2 + QKV_ERFF_Q4;
    return z * p / q;
}

#endif
