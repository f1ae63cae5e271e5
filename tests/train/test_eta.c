/* The time left of a run (train/eta.h): at the pace of the steps this process trained, to the
 * step the run stops at. */
#include "testutil.h"

#include "train/eta.h"

static void test_fresh_run_counts_to_the_schedule_end(void **state)
{
    (void)state;
    /* 10 steps in 20 s: 2 s a step, 90 steps left */
    assert_float_equal(qkv_eta_seconds(20, 0, 10, 100, 0), 180, 1e-9);
    assert_float_equal(qkv_eta_seconds(20, 0, 100, 100, 0), 0, 0);
}

static void test_steps_before_a_resume_took_no_time(void **state)
{
    (void)state;
    /* resumed at step 50; 10 steps in 20 s since: 2 s a step for the 40 left (not 60 steps in 20 s) */
    assert_float_equal(qkv_eta_seconds(20, 50, 60, 100, 0), 80, 1e-9);
}

static void test_stop_at_step_ends_the_run_earlier(void **state)
{
    (void)state;
    /* --stop-at-step 30: 20 steps left at 2 s, not the schedule's 90 */
    assert_float_equal(qkv_eta_seconds(20, 0, 10, 100, 30), 40, 1e-9);
    /* a stop after the schedule's end changes nothing */
    assert_float_equal(qkv_eta_seconds(20, 0, 10, 100, 500), 180, 1e-9);
    /* resumed and stopped: both */
    assert_float_equal(qkv_eta_seconds(10, 40, 45, 100, 60), 30, 1e-9);
    assert_float_equal(qkv_eta_seconds(10, 40, 60, 100, 60), 0, 0);
}

static void test_no_step_yet_is_no_estimate(void **state)
{
    (void)state;
    assert_float_equal(qkv_eta_seconds(5, 50, 50, 100, 0), 0, 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_fresh_run_counts_to_the_schedule_end),
        cmocka_unit_test(test_steps_before_a_resume_took_no_time),
        cmocka_unit_test(test_stop_at_step_ends_the_run_earlier),
        cmocka_unit_test(test_no_step_yet_is_no_estimate),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
