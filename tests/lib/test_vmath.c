/* The float row kernels of lib/vmath.h and the scalar erf under them (lib/erf.h), every kernel
 * the processor runs (portable; AVX-512F where present), against double precision:
 *  - qkv_erff: absolute error over [-10, 10] on a dense grid; NaN stays NaN.
 *  - qkv_expf_shift_sum: each element and the sum against exp in double, at every length up to
 *    five vectors and at 1,000 (the masked tails), the limits (-inf, below -87, NaN) in every
 *    lane, nothing written past the row.
 *  - qkv_softmaxf: each element against the softmax in double, the same bits as its own exp,
 *    sum and reciprocal, a -inf score, nothing written past the row.
 *  - qkv_gelu_erff and its derivative: each element against the erf form in double, with and
 *    without the bias, in place, the gradient added to du and db (each optional), nothing
 *    written past the row; then every 1e-4 over [-10, 10] (the erf under them), and NaN.
 *  - qkv_expf_shift_total and qkv_expf_shift_axpy (the chosen kernel over a stack buffer) at
 *    lengths around and over its chunk, x unchanged, nothing written past y.
 *  - The chosen kernel is AVX-512 where the processor has it.
 * The bounds come from the scalar functions' own: erf 4.3e-7 absolute (measured 4.21e-7), exp
 * 1.2e-7 relative, plus the float rounding of the few operations around them (about 6e-8
 * relative each). */
#include "testutil.h"

#include <math.h>

#include "lib/erf.h"
#include "lib/rng.h"
#include "lib/vmath.h"

#define ERF_ABS_TOL 4.3e-7 /* measured: 4.21e-7 at -3.62 */
#define EXP_REL_TOL 1.2e-7
#define ULP 6e-8 /* float rounding, relative */
#define GUARD 12345.0f

static void test_erff(void **state)
{
    (void)state;
    double worst = 0, worst_at = 0;
    for (int i = -1000000; i <= 1000000; i++) {
        float x = (float)i * 1e-5f;
        double e = fabs((double)qkv_erff(x) - erf((double)x));
        if (e > worst)
            worst = e, worst_at = x;
    }
    printf("# qkv_erff: max |error| %.3g at %.7g\n", worst, worst_at);
    if (worst > ERF_ABS_TOL)
        fail_msg("qkv_erff: max |error| %.3g at %.7g", worst, worst_at);
    assert_true(isnan(qkv_erff(NAN)));
    assert_true(qkv_erff(INFINITY) == qkv_erff(4.0f) && qkv_erff(-INFINITY) == -qkv_erff(4.0f));
}

/* The lengths checked: 0 .. 80 (every tail of up to five 16-lane vectors) and 1,000. */
static int length_at(int i) { return i <= 80 ? i : 1000; }
#define N_LENGTHS 82
#define MAX_N 1000

/* Kernel k's rows of exp(x - m): x - m uniform in [-100, 0] (some below -87) with one 0. */
static void check_shift_rows(qkv_vmath_kernel k)
{
    static float x[MAX_N + 1];
    static double want[MAX_N];
    const char *name = QKV_VMATH_KERNEL_NAMES[k];
    qkv_rng rng;
    qkv_rng_seed(&rng, 11);
    for (int li = 0; li < N_LENGTHS; li++) {
        int n = length_at(li);
        for (int rep = 0; rep < 20; rep++) {
            float m = (float)(20.0 * qkv_rng_uniform(&rng) - 10.0);
            for (int j = 0; j < n; j++)
                x[j] = m - (float)(100.0 * qkv_rng_uniform(&rng));
            if (n > 0)
                x[rep % n] = m;
            x[n] = GUARD;
            double want_sum = 0;
            for (int j = 0; j < n; j++) {
                float d = x[j] - m; /* the float difference, as the kernels take it */
                want[j] = d < -87.0f ? 0.0 : exp((double)d);
                want_sum += want[j];
            }
            float sum = qkv_expf_shift_sum_with(k, x, n, m);
            for (int j = 0; j < n; j++) {
                double err = want[j] == 0 ? fabs((double)x[j]) : fabs((double)x[j] - want[j]) / want[j];
                if (err > EXP_REL_TOL)
                    fail_msg("%s, n %d: exp element %d: %.9g, want %.9g", name, n, j, (double)x[j], want[j]);
            }
            /* n - 1 float additions of non-negative terms, each within its own bound */
            double sum_tol = EXP_REL_TOL + (n > 1 ? n - 1 : 0) * ULP;
            if (n == 0 ? sum != 0.0f : fabs((double)sum - want_sum) / want_sum > sum_tol)
                fail_msg("%s, n %d: sum %.9g, want %.9g", name, n, (double)sum, want_sum);
            if (x[n] != GUARD)
                fail_msg("%s, n %d: exp wrote past the row", name, n);
        }
    }
}

/* The limits in every lane of a row of 37 (two vectors of 16 and a tail of 5): -inf (a masked
 * score) and below -87 give 0, NaN stays NaN (and makes the sum NaN), the maximum gives 1. */
static void check_shift_limits(qkv_vmath_kernel k)
{
    enum { N = 37 };
    const float special[] = {-INFINITY, -87.5f, -1e30f, NAN, 0.0f};
    for (int pos = 0; pos < N; pos++)
        for (size_t s = 0; s < sizeof special / sizeof special[0]; s++) {
            float x[N];
            for (int j = 0; j < N; j++)
                x[j] = -1.0f;
            x[pos] = special[s];
            float sum = qkv_expf_shift_sum_with(k, x, N, 0.0f);
            bool ok = isnan(special[s]) ? isnan(x[pos]) && isnan(sum) : x[pos] == (special[s] == 0.0f ? 1.0f : 0.0f);
            if (!ok)
                fail_msg("%s: lane %d of %g gives %g", QKV_VMATH_KERNEL_NAMES[k], pos, (double)special[s], (double)x[pos]);
            int other = pos == 0 ? 1 : 0;
            if (fabs((double)x[other] - exp(-1.0)) > EXP_REL_TOL * exp(-1.0))
                fail_msg("%s: a neighbour of lane %d changed: %g", QKV_VMATH_KERNEL_NAMES[k], pos, (double)x[other]);
        }
}

static double gelu_double(double v) { return 0.5 * v * (1 + erf(v * M_SQRT1_2)); }

static double gelu_grad_double(double v)
{
    return 0.5 * (1 + erf(v * M_SQRT1_2)) + v * exp(-0.5 * v * v) / sqrt(2 * M_PI);
}

/* gelu(v) = v Φ(v): erf's error times |v| / 2, and a few roundings of the result. */
static double gelu_tol(double v, double want) { return 0.5 * fabs(v) * ERF_ABS_TOL + 4 * ULP * fabs(want) + 1e-37; }

/* gelu'(v) = Φ(v) + v φ(v): erf's error / 2, the exp's and a few roundings of v φ(v) and of
 * the sum. */
static double gelu_grad_tol(double v, double want)
{
    double vphi = fabs(v) * exp(-0.5 * v * v) / sqrt(2 * M_PI);
    return 0.5 * ERF_ABS_TOL + (EXP_REL_TOL + 4 * ULP) * vphi + 2 * ULP * fabs(want) + 1e-37;
}

/* Kernel k's GELU and its gradient on rows of every length, v = u + b in [-8, 8], then u
 * without the bias and y over u (in place); du and db start at 1 and gain d. */
static void check_gelu(qkv_vmath_kernel k)
{
    static float u[MAX_N + 1], b[MAX_N + 1], y[MAX_N + 1], dy[MAX_N + 1], du[MAX_N + 1], db[MAX_N + 1];
    const char *name = QKV_VMATH_KERNEL_NAMES[k];
    qkv_rng rng;
    qkv_rng_seed(&rng, 5);
    for (int li = 0; li < N_LENGTHS; li++) {
        int n = length_at(li);
        for (int with_bias = 0; with_bias < 2; with_bias++) {
            for (int j = 0; j < n; j++) {
                u[j] = (float)(12.0 * qkv_rng_uniform(&rng) - 6.0);
                b[j] = with_bias ? (float)(4.0 * qkv_rng_uniform(&rng) - 2.0) : 0.0f;
                dy[j] = (float)(2.0 * qkv_rng_uniform(&rng) - 1.0);
                du[j] = db[j] = 1.0f;
            }
            u[n] = b[n] = dy[n] = y[n] = du[n] = db[n] = GUARD;
            const float *pb = with_bias ? b : NULL;
            qkv_gelu_erff_with(k, u, pb, y, n);
            qkv_gelu_erff_grad_with(k, u, pb, dy, du, with_bias ? db : NULL, n);
            for (int j = 0; j < n; j++) {
                double v = (double)(with_bias ? u[j] + b[j] : u[j]); /* the float sum, as the kernels take it */
                double want = gelu_double(v), g = gelu_grad_double(v), d = (double)dy[j] * g;
                if (fabs((double)y[j] - want) > gelu_tol(v, want))
                    fail_msg("%s, n %d: gelu(%.9g) = %.9g, want %.9g", name, n, v, (double)y[j], want);
                /* du = 1 + d: the tolerance of d, and the rounding of the addition */
                double tol = fabs((double)dy[j]) * gelu_grad_tol(v, g) + ULP * fabs(1 + d);
                if (fabs((double)du[j] - (1 + d)) > tol)
                    fail_msg("%s, n %d: du at %.9g: %.9g, want %.9g", name, n, v, (double)du[j], 1 + d);
                if (with_bias && fabs((double)db[j] - (1 + d)) > tol)
                    fail_msg("%s, n %d: db at %.9g: %.9g, want %.9g", name, n, v, (double)db[j], 1 + d);
                if (!with_bias && db[j] != 1.0f)
                    fail_msg("%s, n %d: db changed without a db", name, n);
            }
            if (y[n] != GUARD || du[n] != GUARD || db[n] != GUARD)
                fail_msg("%s, n %d: gelu wrote past the row", name, n);
            /* in place: y over u gives what y gave */
            for (int j = 0; j < n; j++)
                db[j] = y[j];
            qkv_gelu_erff_with(k, u, pb, u, n);
            for (int j = 0; j < n; j++)
                if (u[j] != db[j])
                    fail_msg("%s, n %d: gelu in place differs at %d", name, n, j);
        }
    }
    /* with the bias, each of du and db alone (a frozen u or b) */
    float u3[3] = {0.5f, -1.0f, 2.0f}, b3[3] = {0.25f, 0.5f, -3.0f}, d3[3] = {1, 1, 1};
    for (int which = 0; which < 2; which++) {
        float g3[3] = {0, 0, 0};
        qkv_gelu_erff_grad_with(k, u3, b3, d3, which == 0 ? g3 : NULL, which == 1 ? g3 : NULL, 3);
        for (int j = 0; j < 3; j++) {
            double v = (double)(u3[j] + b3[j]), gw = gelu_grad_double(v);
            if (fabs((double)g3[j] - gw) > gelu_grad_tol(v, gw))
                fail_msg("%s: %s alone at %g: %.9g, want %.9g", name, which ? "db" : "du", v, (double)g3[j], gw);
        }
    }
}

/* Kernel k on every 1e-4 of [-10, 10] (and 0), by rows of 1,000: the erf and exp under GELU
 * against double precision; NaN in any lane gives NaN (gelu and gelu'). */
static void check_gelu_grid(qkv_vmath_kernel k)
{
    static float v[MAX_N], y[MAX_N], dy[MAX_N], g[MAX_N];
    const char *name = QKV_VMATH_KERNEL_NAMES[k];
    for (int start = -100000; start <= 100000; start += MAX_N) {
        int n = start + MAX_N - 1 <= 100000 ? MAX_N : 100000 - start + 1;
        for (int j = 0; j < n; j++)
            v[j] = (float)(start + j) * 1e-4f, dy[j] = 1.0f, g[j] = 0.0f;
        qkv_gelu_erff_with(k, v, NULL, y, n);
        qkv_gelu_erff_grad_with(k, v, NULL, dy, g, NULL, n);
        for (int j = 0; j < n; j++) {
            double want = gelu_double(v[j]), gw = gelu_grad_double(v[j]);
            if (fabs((double)y[j] - want) > gelu_tol(v[j], want))
                fail_msg("%s: gelu(%.9g) = %.9g, want %.9g", name, (double)v[j], (double)y[j], want);
            if (fabs((double)g[j] - gw) > gelu_grad_tol(v[j], gw))
                fail_msg("%s: gelu'(%.9g) = %.9g, want %.9g", name, (double)v[j], (double)g[j], gw);
        }
    }
    for (int pos = 0; pos < 37; pos++) {
        for (int j = 0; j < 37; j++)
            v[j] = 0.5f, dy[j] = 1.0f, g[j] = 0.0f;
        v[pos] = NAN;
        qkv_gelu_erff_with(k, v, NULL, y, 37);
        qkv_gelu_erff_grad_with(k, v, NULL, dy, g, NULL, 37);
        if (!isnan(y[pos]) || !isnan(g[pos]) || isnan(y[pos == 0 ? 1 : 0]))
            fail_msg("%s: NaN in lane %d gives gelu %g, gelu' %g", name, pos, (double)y[pos], (double)g[pos]);
    }
}

/* Kernel k's softmax rows (lengths 1 .. 80 and 1,000; scores in [-30, 30], a row with -inf, a
 * row of one value): each element against the softmax in double, bit for bit the same as the
 * kernel's own exp and sum (qkv_expf_shift_sum_with at the row's maximum) times the reciprocal,
 * nothing written past the row. */
static void check_softmax(qkv_vmath_kernel k)
{
    static float x[MAX_N + 1], y[MAX_N], orig[MAX_N];
    const char *name = QKV_VMATH_KERNEL_NAMES[k];
    qkv_rng rng;
    qkv_rng_seed(&rng, 13);
    for (int li = 1; li < N_LENGTHS; li++) {
        int n = length_at(li);
        for (int rep = 0; rep < 10; rep++) {
            for (int j = 0; j < n; j++)
                x[j] = rep == 9 ? 2.5f : (float)(60.0 * qkv_rng_uniform(&rng) - 30.0);
            if (rep == 8 && n > 1)
                x[n / 2] = -INFINITY;
            x[n] = GUARD;
            memcpy(orig, x, (size_t)n * sizeof *x);
            float m = x[0];
            for (int j = 0; j < n; j++)
                m = x[j] > m ? x[j] : m;
            memcpy(y, x, (size_t)n * sizeof *y);
            float inv = 1.0f / qkv_expf_shift_sum_with(k, y, n, m);
            for (int j = 0; j < n; j++)
                y[j] *= inv;
            qkv_softmaxf_with(k, x, n);
            if (memcmp(x, y, (size_t)n * sizeof *x))
                fail_msg("%s, n %d: softmax differs from its exp, sum and reciprocal", name, n);
            double want_sum = 0;
            for (int j = 0; j < n; j++)
                want_sum += exp((double)(orig[j] - m));
            /* exp's bound on each term and the sum's, n - 1 additions, the reciprocal, the product */
            double tol = 2 * EXP_REL_TOL + (n + 2) * ULP;
            for (int j = 0; j < n; j++) {
                double want = exp((double)(orig[j] - m)) / want_sum;
                if (fabs((double)x[j] - want) > tol * want + 1e-37)
                    fail_msg("%s, n %d: softmax element %d: %.9g, want %.9g", name, n, j, (double)x[j], want);
            }
            if (x[n] != GUARD)
                fail_msg("%s, n %d: softmax wrote past the row", name, n);
        }
    }
}

static void test_kernels(void **state)
{
    (void)state;
    assert_true(qkv_vmath_available(QKV_VMATH_PORTABLE));
    for (int k = 0; k < QKV_VMATH_KERNEL_COUNT; k++) {
        if (!qkv_vmath_available((qkv_vmath_kernel)k)) {
            printf("# the %s kernels: not on this processor, not tested\n", QKV_VMATH_KERNEL_NAMES[k]);
            continue;
        }
        check_shift_rows((qkv_vmath_kernel)k);
        check_shift_limits((qkv_vmath_kernel)k);
        check_softmax((qkv_vmath_kernel)k);
        check_gelu((qkv_vmath_kernel)k);
        check_gelu_grid((qkv_vmath_kernel)k);
    }
}

/* qkv_expf_shift_total and qkv_expf_shift_axpy, which run the chosen kernel over chunks of a
 * stack buffer: at lengths around the chunk's 256 and over several chunks, against double
 * precision; x is left as it is, nothing is written past y. */
static void test_shift_total_axpy(void **state)
{
    (void)state;
    enum { MAX = 3000 };
    static const int lengths[] = {0, 1, 17, 255, 256, 257, 511, 512, 513, 1000, MAX};
    static float x[MAX], x0[MAX], y[MAX + 1];
    static double y0[MAX];
    qkv_rng rng;
    qkv_rng_seed(&rng, 12);
    for (size_t li = 0; li < sizeof lengths / sizeof lengths[0]; li++) {
        const int n = lengths[li];
        const float m = 3.5f, a = -0.75f;
        for (int j = 0; j < n; j++) {
            x[j] = x0[j] = m - (float)(30.0 * qkv_rng_uniform(&rng));
            y[j] = (float)(2.0 * qkv_rng_uniform(&rng) - 1.0);
            y0[j] = y[j];
        }
        y[n] = GUARD;
        double want = 0;
        for (int j = 0; j < n; j++)
            want += exp((double)(x[j] - m));
        double total = qkv_expf_shift_total(x, n, m);
        /* within each chunk n - 1 float additions; the chunks' sums added in double */
        double tol = EXP_REL_TOL + (n < 256 ? n : 256) * ULP;
        if (n == 0 ? total != 0 : fabs(total - want) / want > tol)
            fail_msg("n %d: total %.9g, want %.9g", n, total, want);
        assert_memory_equal(x, x0, (size_t)n * sizeof *x);
        qkv_expf_shift_axpy(x, n, m, a, y);
        for (int j = 0; j < n; j++) {
            double e = fabs((double)a) * exp((double)(x[j] - m)), w = y0[j] + (double)a * exp((double)(x[j] - m));
            if (fabs((double)y[j] - w) > e * (EXP_REL_TOL + 2 * ULP) + fabs(w) * ULP)
                fail_msg("n %d: axpy element %d: %.9g, want %.9g", n, j, (double)y[j], w);
        }
        assert_memory_equal(x, x0, (size_t)n * sizeof *x);
        if (y[n] != GUARD)
            fail_msg("n %d: axpy wrote past the row", n);
    }
}

/* The functions without _with run AVX-512 where the processor has it, else the portable
 * loops: the same bits as that kernel. */
static void test_chosen(void **state)
{
    (void)state;
    qkv_vmath_kernel k = qkv_vmath_chosen();
    assert_int_equal(k, qkv_vmath_available(QKV_VMATH_AVX512) ? QKV_VMATH_AVX512 : QKV_VMATH_PORTABLE);
    printf("# chosen: %s\n", QKV_VMATH_KERNEL_NAMES[k]);
    float a[50], b[50], ya[50], yb[50];
    for (int j = 0; j < 50; j++)
        a[j] = b[j] = (float)j * -0.37f;
    assert_true(qkv_expf_shift_sum(a, 50, 0.5f) == qkv_expf_shift_sum_with(k, b, 50, 0.5f));
    assert_memory_equal(a, b, sizeof a);
    qkv_gelu_erff(a, NULL, ya, 50);
    qkv_gelu_erff_with(k, a, NULL, yb, 50);
    assert_memory_equal(ya, yb, sizeof ya);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_erff),
        cmocka_unit_test(test_kernels),
        cmocka_unit_test(test_chosen),
        cmocka_unit_test(test_shift_total_axpy),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
