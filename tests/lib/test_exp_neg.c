/* qkv_expf_neg (lib/exp_neg.h), the float exp of non-positive arguments behind attention's
 * softmax and GELU's gradient: relative error against double exp over [-87, 0] on a dense grid
 * and at random points, exact at 0, 0 for arguments below -87 and for -inf (a masked score), NaN
 * for NaN. */
#include "testutil.h"

#include <math.h>

#include "lib/exp_neg.h"
#include "lib/rng.h"

/* float's own expf is within one ulp (6e-8 relative); the polynomial's bound is 1.2e-7. */
#define EXP_NEG_REL_TOL 1.2e-7

static double rel_error(float a)
{
    double want = exp((double)a);
    return fabs((double)qkv_expf_neg(a) - want) / want;
}

static void test_grid(void **state)
{
    (void)state;
    double worst = 0;
    float worst_at = 0;
    for (int i = 0; i <= 870000; i++) {
        float a = -(float)i * 1e-4f;
        double e = rel_error(a);
        if (e > worst)
            worst = e, worst_at = a;
    }
    if (worst > EXP_NEG_REL_TOL)
        fail_msg("max relative error %.3g at %.7g", worst, (double)worst_at);
}

static void test_random(void **state)
{
    (void)state;
    qkv_rng rng;
    qkv_rng_seed(&rng, 7);
    for (int i = 0; i < 200000; i++) {
        float a = (float)(-87.0 * qkv_rng_uniform(&rng));
        double e = rel_error(a);
        if (e > EXP_NEG_REL_TOL)
            fail_msg("relative error %.3g at %.9g", e, (double)a);
    }
}

static void test_ends(void **state)
{
    (void)state;
    assert_true(qkv_expf_neg(0.0f) == 1.0f);
    assert_true(qkv_expf_neg(-87.5f) == 0.0f);
    assert_true(qkv_expf_neg(-1e30f) == 0.0f);
    assert_true(qkv_expf_neg(-INFINITY) == 0.0f);
    assert_true(isnan(qkv_expf_neg(NAN))); /* a diverged score stays visible */
    /* rounding can leave a max-shifted score a little above 0 */
    assert_true(fabs((double)qkv_expf_neg(1e-6f) - exp(1e-6)) < 2e-7);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_grid),
        cmocka_unit_test(test_random),
        cmocka_unit_test(test_ends),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
