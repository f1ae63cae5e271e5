/* qkv_sigmoidf and qkv_tanhf (lib/gate_math.h), the LSTM's vectorizable gate functions:
 * relative error against double precision on a dense grid and at random points, both sides of
 * tanh's switch at 0.625, the limits, symmetry, and NaN. */
#include "testutil.h"

#include <math.h>

#include "lib/gate_math.h"
#include "lib/rng.h"

/* The bound of these forms: qkv_expf_neg's 1.2e-7 and about one ulp (1.2e-7) for the division
 * and the sum (measured worst: 1.9e-7 for sigmoid at -8.18, 1.5e-7 for tanh at 0.64). */
#define GATE_REL_TOL 2.5e-7

static double sigmoid_error(float a)
{
    double want = 1.0 / (1.0 + exp(-(double)a));
    return fabs((double)qkv_sigmoidf(a) - want) / want;
}

static double tanh_error(float x)
{
    double want = tanh((double)x);
    return want == 0 ? fabs((double)qkv_tanhf(x)) : fabs((double)qkv_tanhf(x) - want) / fabs(want);
}

/* Worst error of f over n + 1 evenly spaced points of [lo, hi]; fails above GATE_REL_TOL. */
static void check_grid(const char *name, double (*f)(float), double lo, double hi, int n)
{
    double worst = 0, at = 0;
    for (int i = 0; i <= n; i++) {
        float x = (float)(lo + (hi - lo) * i / n);
        double e = f(x);
        if (e > worst)
            worst = e, at = x;
    }
    if (worst > GATE_REL_TOL)
        fail_msg("%s: max relative error %.3g at %.9g", name, worst, at);
}

static void test_sigmoid_grid(void **state)
{
    (void)state;
    check_grid("sigmoid", sigmoid_error, -86, 86, 1720000);
}

static void test_tanh_grid(void **state)
{
    (void)state;
    check_grid("tanh", tanh_error, -20, 20, 800000);
    check_grid("tanh near 0", tanh_error, -0.7, 0.7, 700000); /* both sides of 0.625 */
    check_grid("tanh tiny", tanh_error, -1e-5, 1e-5, 20000);
}

static void test_random(void **state)
{
    (void)state;
    qkv_rng rng;
    qkv_rng_seed(&rng, 11);
    for (int i = 0; i < 200000; i++) {
        float a = (float)(172.0 * qkv_rng_uniform(&rng) - 86.0), x = (float)(8.0 * qkv_rng_uniform(&rng) - 4.0);
        if (sigmoid_error(a) > GATE_REL_TOL)
            fail_msg("sigmoid: relative error %.3g at %.9g", sigmoid_error(a), (double)a);
        if (tanh_error(x) > GATE_REL_TOL)
            fail_msg("tanh: relative error %.3g at %.9g", tanh_error(x), (double)x);
    }
}

static void test_ends(void **state)
{
    (void)state;
    assert_true(qkv_sigmoidf(0.0f) == 0.5f);
    assert_true(qkv_sigmoidf(INFINITY) == 1.0f);
    assert_true(qkv_sigmoidf(-INFINITY) == 0.0f);
    assert_true(qkv_sigmoidf(100.0f) == 1.0f);
    assert_true(qkv_tanhf(0.0f) == 0.0f);
    assert_true(qkv_tanhf(INFINITY) == 1.0f);
    assert_true(qkv_tanhf(-INFINITY) == -1.0f);
    assert_true(qkv_tanhf(30.0f) == 1.0f);
    for (float x = 0.01f; x < 12.0f; x *= 1.37f) {
        assert_true(qkv_tanhf(-x) == -qkv_tanhf(x));
        assert_true(fabs((double)qkv_sigmoidf(x) + (double)qkv_sigmoidf(-x) - 1.0) < 1.2e-7);
    }
    assert_true(isnan(qkv_sigmoidf(NAN))); /* a diverged gate stays visible */
    assert_true(isnan(qkv_tanhf(NAN)));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_sigmoid_grid),
        cmocka_unit_test(test_tanh_grid),
        cmocka_unit_test(test_random),
        cmocka_unit_test(test_ends),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
