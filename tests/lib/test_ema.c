/* Parameter moving average (lib/optim/ema.h): values after a few updates against the formula
 * computed here, the warm-up decay, swapping in and out, and bad decays. */
#include "testutil.h"

#include "lib/optim/ema.h"

static void test_updates_and_swap(void **state)
{
    (void)state;
    qkv_params ps;
    qkv_params_init(&ps);
    qkv_error err;
    qkv_tensor *a = qkv_params_add(&ps, &err, 1, (int[]){3}, "a");
    qkv_tensor *b = qkv_params_add(&ps, &err, 2, (int[]){2, 2}, "b");
    for (int i = 0; i < 3; i++)
        a->data[i] = i + 1;
    for (int i = 0; i < 4; i++)
        b->data[i] = -i;
    qkv_ema e;
    assert_int_equal(qkv_ema_init(&e, &ps, 0.5, &err), QKV_OK);
    assert_int_equal(e.size, 7);
    double ref[7] = {1, 2, 3, 0, -1, -2, -3};
    for (long step = 1; step <= 4; step++) {
        for (int i = 0; i < 3; i++)
            a->data[i] += 10;
        for (int i = 0; i < 4; i++)
            b->data[i] *= 2;
        /* d_t = min(0.5, (1 + t) / (10 + t)): 2/11, 3/12, 4/13, 5/14 — below 0.5 throughout */
        double d = (1.0 + step) / (10.0 + step);
        for (int i = 0; i < 7; i++) {
            double p = i < 3 ? a->data[i] : b->data[i - 3];
            ref[i] = d * ref[i] + (1 - d) * p;
        }
        qkv_ema_update(&e, &ps, step);
    }
    for (int i = 0; i < 7; i++)
        tu_assert_close(e.avg[i], ref[i], 1e-12);
    /* past the warm-up the decay is the configured one */
    double before = e.avg[0], p = a->data[0];
    qkv_ema_update(&e, &ps, 1000);
    tu_assert_close(e.avg[0], 0.5 * before + 0.5 * p, 1e-12);
    /* swap: params hold the average, the buffer the parameters; twice is the identity */
    double avg0 = e.avg[0], avg6 = e.avg[6], a0 = a->data[0], b3 = b->data[3];
    qkv_ema_swap(&e, &ps);
    assert_true(e.swapped);
    assert_true(a->data[0] == avg0 && b->data[3] == avg6 && e.avg[0] == a0 && e.avg[6] == b3);
    qkv_ema_swap(&e, &ps);
    assert_false(e.swapped);
    assert_true(a->data[0] == a0 && b->data[3] == b3);
    qkv_ema_free(&e);

    assert_int_equal(qkv_ema_init(&e, &ps, 1.0, &err), QKV_ERR);
    assert_non_null(strstr(err.msg, "decay 1 must be in (0, 1)"));
    assert_int_equal(qkv_ema_init(&e, &ps, 0.0, &err), QKV_ERR);
    qkv_params_free(&ps);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_updates_and_swap),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
