/* The row kernels of lib/vmath.h: portable loops and AVX-512F intrinsics, the same formulas.
 * Built in qkv_base with -fopenmp-simd -fno-trapping-math (lib/CMakeLists.txt), so that the
 * portable loops vectorize; the AVX-512 functions carry their own target attribute and run only
 * where __builtin_cpu_supports says the processor has AVX-512F. */
#include "lib/vmath.h"

#include "lib/erf.h"
#include "lib/exp_neg.h"

#include <string.h>

#if defined(__x86_64__) && defined(__GNUC__)
#include <immintrin.h>
#define QKV_HAVE_AVX512_KERNELS 1
#else
#define QKV_HAVE_AVX512_KERNELS 0
#endif

const char *const QKV_VMATH_KERNEL_NAMES[] = {"portable", "avx512", NULL};

/* ---- portable ------------------------------------------------------------------------------ */

static inline float gelu_erff(float v)
{
    return 0.5f * v * (1.0f + qkv_erff(v * (float)QKV_GELU_SQRT1_2));
}

static inline float gelu_erff_grad(float v)
{
    float cdf = 0.5f * (1.0f + qkv_erff(v * (float)QKV_GELU_SQRT1_2));
    return cdf + v * (float)QKV_GELU_INV_SQRT_2PI * qkv_expf_neg(-0.5f * v * v);
}

static float shift_sum_portable(float *x, int n, float m)
{
    float sum = 0;
#pragma omp simd reduction(+ : sum)
    for (int j = 0; j < n; j++) {
        x[j] = qkv_expf_neg(x[j] - m);
        sum += x[j];
    }
    return sum;
}

static void softmax_portable(float *x, int n)
{
    float m = x[0];
#pragma omp simd reduction(max : m)
    for (int j = 1; j < n; j++)
        m = x[j] > m ? x[j] : m;
    float inv = 1.0f / shift_sum_portable(x, n, m);
#pragma omp simd
    for (int j = 0; j < n; j++)
        x[j] *= inv;
}

static void gelu_portable(const float *u, const float *b, float *y, int n)
{
    if (b) {
#pragma omp simd
        for (int j = 0; j < n; j++)
            y[j] = gelu_erff(u[j] + b[j]);
    } else {
#pragma omp simd
        for (int j = 0; j < n; j++)
            y[j] = gelu_erff(u[j]);
    }
}

static void gelu_grad_portable(const float *u, const float *b, const float *dy, float *du, float *db, int n)
{
    if (b && du && db) { /* bias_gelu's backward: the common case, one vectorized loop */
#pragma omp simd
        for (int j = 0; j < n; j++) {
            float d = dy[j] * gelu_erff_grad(u[j] + b[j]);
            du[j] += d;
            db[j] += d;
        }
        return;
    }
    if (!b && du && !db) { /* gelu's backward */
#pragma omp simd
        for (int j = 0; j < n; j++)
            du[j] += dy[j] * gelu_erff_grad(u[j]);
        return;
    }
    for (int j = 0; j < n; j++) {
        float d = dy[j] * gelu_erff_grad(b ? u[j] + b[j] : u[j]);
        if (du)
            du[j] += d;
        if (db)
            db[j] += d;
    }
}

/* ---- AVX-512F ------------------------------------------------------------------------------ */
#if QKV_HAVE_AVX512_KERNELS
#define AVX512 __attribute__((target("avx512f")))
#define K(c) _mm512_set1_ps(c)

/* qkv_expf_neg on 16 lanes: the same clamp, Cody-Waite split and polynomial. */
AVX512 static inline __m512 expf_neg16(__m512 a)
{
    __m512 c = _mm512_max_ps(a, K(QKV_EXPF_LO)); /* NaN lanes become -87 here */
    __m512 n = _mm512_roundscale_ps(_mm512_mul_ps(c, K(QKV_EXPF_LOG2E)), _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
    __m512 r = _mm512_fnmadd_ps(n, K(QKV_EXPF_LN2_HI), c);
    r = _mm512_fmadd_ps(n, K(QKV_EXPF_LN2_LO), r);
    __m512 p = K(QKV_EXPF_P0);
    p = _mm512_fmadd_ps(p, r, K(QKV_EXPF_P1));
    p = _mm512_fmadd_ps(p, r, K(QKV_EXPF_P2));
    p = _mm512_fmadd_ps(p, r, K(QKV_EXPF_P3));
    p = _mm512_fmadd_ps(p, r, K(QKV_EXPF_P4));
    p = _mm512_fmadd_ps(p, r, K(QKV_EXPF_P5));
    p = _mm512_fmadd_ps(_mm512_mul_ps(p, r), r, _mm512_add_ps(r, K(1.0f)));
    __m512 y = _mm512_scalef_ps(p, n);
    __mmask16 below = _mm512_cmp_ps_mask(a, K(QKV_EXPF_LO), _CMP_LT_OQ);
    __mmask16 nan = _mm512_cmp_ps_mask(a, a, _CMP_UNORD_Q);
    return _mm512_mask_mov_ps(_mm512_maskz_mov_ps((__mmask16)~below, y), nan, a);
}

/* qkv_erff on 16 lanes, but for NaN, which gives ±1 here: GELU's v Φ(v) keeps the NaN of v. */
AVX512 static inline __m512 erff16(__m512 x)
{
    __m512 z = _mm512_max_ps(_mm512_min_ps(x, K(QKV_ERFF_CLAMP)), K(-QKV_ERFF_CLAMP));
    __m512 z2 = _mm512_mul_ps(z, z);
    __m512 p = K(QKV_ERFF_P0);
    p = _mm512_fmadd_ps(p, z2, K(QKV_ERFF_P1));
    p = _mm512_fmadd_ps(p, z2, K(QKV_ERFF_P2));
    p = _mm512_fmadd_ps(p, z2, K(QKV_ERFF_P3));
    p = _mm512_fmadd_ps(p, z2, K(QKV_ERFF_P4));
    p = _mm512_fmadd_ps(p, z2, K(QKV_ERFF_P5));
    p = _mm512_fmadd_ps(p, z2, K(QKV_ERFF_P6));
    __m512 q = K(QKV_ERFF_Q0);
    q = _mm512_fmadd_ps(q, z2, K(QKV_ERFF_Q1));
    q = _mm512_fmadd_ps(q, z2, K(QKV_ERFF_Q2));
    q = _mm512_fmadd_ps(q, z2, K(QKV_ERFF_Q3));
    q = _mm512_fmadd_ps(q, z2, K(QKV_ERFF_Q4));
    return _mm512_div_ps(_mm512_mul_ps(z, p), q);
}

/* Φ(v) = (1 + erf(v / √2)) / 2 */
AVX512 static inline __m512 cdf16(__m512 v)
{
    __m512 e = erff16(_mm512_mul_ps(v, K((float)QKV_GELU_SQRT1_2)));
    return _mm512_mul_ps(K(0.5f), _mm512_add_ps(K(1.0f), e));
}

AVX512 static inline __m512 gelu_grad16(__m512 v)
{
    __m512 pdf = expf_neg16(_mm512_mul_ps(K(-0.5f), _mm512_mul_ps(v, v)));
    return _mm512_fmadd_ps(_mm512_mul_ps(v, K((float)QKV_GELU_INV_SQRT_2PI)), pdf, cdf16(v));
}

/* The first n - j of 16 lanes (n - j < 16), or all 16. */
static inline __mmask16 lanes(int j, int n)
{
    return n - j >= 16 ? (__mmask16)0xFFFF : (__mmask16)((1u << (n - j)) - 1);
}

AVX512 static float shift_sum_avx512(float *x, int n, float m)
{
    __m512 mv = _mm512_set1_ps(m), sum = _mm512_setzero_ps();
    for (int j = 0; j < n; j += 16) {
        __mmask16 k = lanes(j, n);
        __m512 v = expf_neg16(_mm512_sub_ps(_mm512_maskz_loadu_ps(k, x + j), mv));
        _mm512_mask_storeu_ps(x + j, k, v);
        sum = _mm512_mask_add_ps(sum, k, sum, v);
    }
    return _mm512_reduce_add_ps(sum);
}

/* The portable form's arithmetic: the maximum (a NaN compares false, as there), then the same
 * exp and sum as shift_sum_avx512, then one reciprocal times every element. */
AVX512 static void softmax_avx512(float *x, int n)
{
    __m512 mv = _mm512_set1_ps(x[0]);
    for (int j = 0; j < n; j += 16) {
        __mmask16 k = lanes(j, n);
        mv = _mm512_mask_max_ps(mv, k, _mm512_maskz_loadu_ps(k, x + j), mv);
    }
    __m512 inv = _mm512_set1_ps(1.0f / shift_sum_avx512(x, n, _mm512_reduce_max_ps(mv)));
    for (int j = 0; j < n; j += 16) {
        __mmask16 k = lanes(j, n);
        _mm512_mask_storeu_ps(x + j, k, _mm512_mul_ps(_mm512_maskz_loadu_ps(k, x + j), inv));
    }
}

AVX512 static void gelu_avx512(const float *u, const float *b, float *y, int n)
{
    for (int j = 0; j < n; j += 16) {
        __mmask16 k = lanes(j, n);
        __m512 v = _mm512_maskz_loadu_ps(k, u + j);
        if (b)
            v = _mm512_add_ps(v, _mm512_maskz_loadu_ps(k, b + j));
        _mm512_mask_storeu_ps(y + j, k, _mm512_mul_ps(v, cdf16(v)));
    }
}

AVX512 static void gelu_grad_avx512(const float *u, const float *b, const float *dy, float *du, float *db, int n)
{
    for (int j = 0; j < n; j += 16) {
        __mmask16 k = lanes(j, n);
        __m512 v = _mm512_maskz_loadu_ps(k, u + j);
        if (b)
            v = _mm512_add_ps(v, _mm512_maskz_loadu_ps(k, b + j));
        __m512 d = _mm512_mul_ps(_mm512_maskz_loadu_ps(k, dy + j), gelu_grad16(v));
        if (du)
            _mm512_mask_storeu_ps(du + j, k, _mm512_add_ps(_mm512_maskz_loadu_ps(k, du + j), d));
        if (db)
            _mm512_mask_storeu_ps(db + j, k, _mm512_add_ps(_mm512_maskz_loadu_ps(k, db + j), d));
    }
}
#endif

/* ---- choice -------------------------------------------------------------------------------- */

bool qkv_vmath_available(qkv_vmath_kernel k)
{
    if (k == QKV_VMATH_PORTABLE)
        return true;
#if QKV_HAVE_AVX512_KERNELS
    if (k == QKV_VMATH_AVX512)
        return __builtin_cpu_supports("avx512f");
#endif
    return false;
}

qkv_vmath_kernel qkv_vmath_chosen(void)
{
    return qkv_vmath_available(QKV_VMATH_AVX512) ? QKV_VMATH_AVX512 : QKV_VMATH_PORTABLE;
}

float qkv_expf_shift_sum_with(qkv_vmath_kernel k, float *x, int n, float m)
{
#if QKV_HAVE_AVX512_KERNELS
    if (k == QKV_VMATH_AVX512)
        return shift_sum_avx512(x, n, m);
#endif
    (void)k;
    return shift_sum_portable(x, n, m);
}

void qkv_softmaxf_with(qkv_vmath_kernel k, float *x, int n)
{
#if QKV_HAVE_AVX512_KERNELS
    if (k == QKV_VMATH_AVX512) {
        softmax_avx512(x, n);
        return;
    }
#endif
    (void)k;
    softmax_portable(x, n);
}

void qkv_gelu_erff_with(qkv_vmath_kernel k, const float *u, const float *b, float *y, int n)
{
#if QKV_HAVE_AVX512_KERNELS
    if (k == QKV_VMATH_AVX512) {
        gelu_avx512(u, b, y, n);
        return;
    }
#endif
    (void)k;
    gelu_portable(u, b, y, n);
}

void qkv_gelu_erff_grad_with(qkv_vmath_kernel k, const float *u, const float *b, const float *dy, float *du,
                             float *db, int n)
{
#if QKV_HAVE_AVX512_KERNELS
    if (k == QKV_VMATH_AVX512) {
        gelu_grad_avx512(u, b, dy, du, db, n);
        return;
    }
#endif
    (void)k;
    gelu_grad_portable(u, b, dy, du, db, n);
}

float qkv_expf_shift_sum(float *x, int n, float m)
{
    return qkv_expf_shift_sum_with(qkv_vmath_chosen(), x, n, m);
}

void qkv_softmaxf(float *x, int n)
{
    qkv_softmaxf_with(qkv_vmath_chosen(), x, n);
}

void qkv_gelu_erff(const float *u, const float *b, float *y, int n)
{
    qkv_gelu_erff_with(qkv_vmath_chosen(), u, b, y, n);
}

void qkv_gelu_erff_grad(const float *u, const float *b, const float *dy, float *du, float *db, int n)
{
    qkv_gelu_erff_grad_with(qkv_vmath_chosen(), u, b, dy, du, db, n);
}

/* The stack buffer of qkv_expf_shift_total and qkv_expf_shift_axpy: 1 KiB. */
enum { SHIFT_CHUNK = 256 };

double qkv_expf_shift_total(const float *x, int n, float m)
{
    const qkv_vmath_kernel k = qkv_vmath_chosen();
    float buf[SHIFT_CHUNK];
    double total = 0;
    for (int a = 0; a < n; a += SHIFT_CHUNK) {
        const int len = n - a < SHIFT_CHUNK ? n - a : SHIFT_CHUNK;
        memcpy(buf, x + a, (size_t)len * sizeof *buf);
        total += qkv_expf_shift_sum_with(k, buf, len, m);
    }
    return total;
}

void qkv_expf_shift_axpy(const float *x, int n, float m, float a, float *y)
{
    const qkv_vmath_kernel k = qkv_vmath_chosen();
    float buf[SHIFT_CHUNK];
    for (int c = 0; c < n; c += SHIFT_CHUNK) {
        const int len = n - c < SHIFT_CHUNK ? n - c : SHIFT_CHUNK;
        memcpy(buf, x + c, (size_t)len * sizeof *buf);
        qkv_expf_shift_sum_with(k, buf, len, m);
#pragma omp simd
        for (int j = 0; j < len; j++)
            y[c + j] += a * buf[j];
    }
}
