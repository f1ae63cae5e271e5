/* Learning-rate schedule: warmup, constant, linear and cosine decay at their key steps. */
#include "testutil.h"

#include "lib/optim/schedule.h"

/* lr 1e-3, min_lr 1e-4, 100 warmup steps, decay done at step 1100 (1000 decay steps). */
static qkv_lr_schedule sched(qkv_lr_decay d)
{
    return (qkv_lr_schedule){.decay = d, .lr = 1e-3, .min_lr = 1e-4, .warmup_steps = 100, .total_steps = 1100};
}

static void test_warmup(void **state)
{
    (void)state;
    for (int d = 0; d < 3; d++) {
        qkv_lr_schedule s = sched((qkv_lr_decay)d);
        tu_assert_close(qkv_lr_at(&s, 0), 0, 0);
        tu_assert_close(qkv_lr_at(&s, 1), 1e-5, 1e-20);   /* lr · 1/100 */
        tu_assert_close(qkv_lr_at(&s, 50), 5e-4, 1e-19);
        tu_assert_close(qkv_lr_at(&s, 99), 9.9e-4, 1e-19);
        tu_assert_close(qkv_lr_at(&s, 100), 1e-3, 0);     /* end of warmup: the peak */
    }
}

static void test_constant(void **state)
{
    (void)state;
    qkv_lr_schedule s = sched(QKV_LR_NONE);
    tu_assert_close(qkv_lr_at(&s, 101), 1e-3, 0);
    tu_assert_close(qkv_lr_at(&s, 1100), 1e-3, 0);
    tu_assert_close(qkv_lr_at(&s, 1000000), 1e-3, 0);
    s.warmup_steps = 0;
    tu_assert_close(qkv_lr_at(&s, 1), 1e-3, 0);
}

static void test_linear_decay(void **state)
{
    (void)state;
    qkv_lr_schedule s = sched(QKV_LR_LINEAR);
    /* p = (t - 100) / 1000; lr_t = 1e-4 + 9e-4 (1 - p) */
    tu_assert_close(qkv_lr_at(&s, 101), 1e-4 + 9e-4 * 0.999, 1e-18);
    tu_assert_close(qkv_lr_at(&s, 350), 7.75e-4, 1e-18);   /* p = 0.25 */
    tu_assert_close(qkv_lr_at(&s, 600), 5.5e-4, 1e-18);    /* p = 0.5 */
    tu_assert_close(qkv_lr_at(&s, 1099), 1.009e-4, 1e-18); /* p = 0.999 */
    tu_assert_close(qkv_lr_at(&s, 1100), 1e-4, 0);         /* the end: min_lr */
    tu_assert_close(qkv_lr_at(&s, 5000), 1e-4, 0);         /* beyond the end: held */
}

static void test_cosine_decay(void **state)
{
    (void)state;
    qkv_lr_schedule s = sched(QKV_LR_COSINE);
    /* 1e-4 + 9e-4 (1 + cos(pi p)) / 2; the literals agree (to 5e-18) with torch 1.13's
     * CosineAnnealingLR(T_max=1000, eta_min=1e-4) at its epochs 250, 500 and 999. */
    tu_assert_close(qkv_lr_at(&s, 350), 0.0008681980515339464, 1e-18);  /* p = 0.25 */
    tu_assert_close(qkv_lr_at(&s, 600), 0.00055, 1e-18);                /* p = 0.5 */
    tu_assert_close(qkv_lr_at(&s, 1099), 0.00010000222065916382, 1e-18); /* p = 0.999 */
    tu_assert_close(qkv_lr_at(&s, 1100), 1e-4, 0);
    tu_assert_close(qkv_lr_at(&s, 1000000), 1e-4, 0);
}

/* After warmup the rate never rises, and it stays in [min_lr, lr]. */
static void test_monotone_after_warmup(void **state)
{
    (void)state;
    for (int d = 0; d < 3; d++) {
        qkv_lr_schedule s = sched((qkv_lr_decay)d);
        double prev = qkv_lr_at(&s, 100);
        for (long t = 101; t <= 1200; t++) {
            double lr = qkv_lr_at(&s, t);
            assert_true(lr <= prev);
            assert_true(lr >= 1e-4 && lr <= 1e-3);
            prev = lr;
        }
    }
}

static void test_no_warmup(void **state)
{
    (void)state;
    qkv_lr_schedule s = sched(QKV_LR_LINEAR);
    s.warmup_steps = 0;
    s.total_steps = 10;
    s.min_lr = 0;
    tu_assert_close(qkv_lr_at(&s, 0), 1e-3, 0);
    tu_assert_close(qkv_lr_at(&s, 1), 9e-4, 1e-18);
    tu_assert_close(qkv_lr_at(&s, 5), 5e-4, 1e-18);
    tu_assert_close(qkv_lr_at(&s, 10), 0, 0);
}

static void test_check_and_names(void **state)
{
    (void)state;
    qkv_error err;
    qkv_lr_schedule s = sched(QKV_LR_COSINE);
    assert_int_equal(qkv_lr_schedule_check(&s, &err), QKV_OK);
    s.total_steps = 100;
    assert_int_equal(qkv_lr_schedule_check(&s, &err), QKV_ERR);
    assert_non_null(strstr(err.msg, "total_steps = 100"));
    s = sched(QKV_LR_LINEAR);
    s.min_lr = 2e-3;
    assert_int_equal(qkv_lr_schedule_check(&s, &err), QKV_ERR);
    assert_non_null(strstr(err.msg, "min_lr"));
    s = sched(QKV_LR_NONE);
    s.warmup_steps = -1;
    assert_int_equal(qkv_lr_schedule_check(&s, &err), QKV_ERR);
    assert_non_null(strstr(err.msg, "warmup_steps"));
    s = sched(QKV_LR_NONE);
    s.lr = 0;
    assert_int_equal(qkv_lr_schedule_check(&s, &err), QKV_ERR);
    assert_non_null(strstr(err.msg, "lr = 0"));
    s.total_steps = 0; /* unused with no decay */
    s.lr = 1;
    assert_int_equal(qkv_lr_schedule_check(&s, &err), QKV_OK);
    assert_string_equal(QKV_LR_DECAY_NAMES[QKV_LR_COSINE], "cosine");
    assert_string_equal(QKV_LR_DECAY_NAMES[QKV_LR_LINEAR], "linear");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_warmup),
        cmocka_unit_test(test_constant),
        cmocka_unit_test(test_linear_decay),
        cmocka_unit_test(test_cosine_decay),
        cmocka_unit_test(test_monotone_after_warmup),
        cmocka_unit_test(test_no_warmup),
        cmocka_unit_test(test_check_and_names),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
