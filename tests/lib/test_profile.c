/* lib/profile: counts, exclusive nesting (rows add up to the span), QKV_PROF_WHOLE regions,
 * nothing recorded when off, and the op and tape hooks (forward and backward rows). Time comes
 * from a fake clock the test advances, so every number is exact. */
#include "testutil.h"

#include "lib/ops/ops.h"
#include "lib/param.h"
#include "lib/profile.h"

static double fake_now;
static double fake_clock(void) { return fake_now; }

static const qkv_profile_row *find(const qkv_profile_row *rows, int n, const char *name, qkv_profile_kind kind)
{
    for (int i = 0; i < n; i++)
        if (!strcmp(rows[i].name, name) && rows[i].kind == kind)
            return &rows[i];
    fail_msg("no row %s (kind %d)", name, (int)kind);
    return NULL;
}

static int setup(void **state)
{
    (void)state;
    fake_now = 100;
    qkv_profile_set_clock(fake_clock);
    return 0;
}

static int teardown(void **state)
{
    (void)state;
    qkv_profile_stop();
    qkv_profile_set_clock(NULL);
    return 0;
}

/* outer (3 s own) holds inner twice (2 s each); 1 s outside any region: exclusive times
 * 3, 4 and 1, calls 1, 2 and 1, sorted largest first, summing to the 8 s span. */
static void test_exclusive_nesting(void **state)
{
    (void)state;
    qkv_profile_start();
    fake_now += 1;
    int outer = qkv_profile_begin("outer", QKV_PROF_PHASE);
    fake_now += 1;
    for (int k = 0; k < 2; k++) {
        int inner = qkv_profile_begin("inner", QKV_PROF_FWD);
        fake_now += 2;
        qkv_profile_end(inner);
        fake_now += 1;
    }
    qkv_profile_end(outer);
    qkv_profile_stop();
    assert_true(!qkv_profile_on);
    qkv_profile_row rows[QKV_PROFILE_MAX_ROWS + 1];
    int n = qkv_profile_rows(rows, QKV_PROFILE_MAX_ROWS + 1);
    assert_int_equal(n, 3);
    assert_string_equal(rows[0].name, "inner");
    assert_string_equal(rows[1].name, "outer");
    assert_string_equal(rows[2].name, "other");
    assert_true(rows[0].seconds == 4 && rows[0].calls == 2 && rows[0].kind == QKV_PROF_FWD);
    assert_true(rows[1].seconds == 3 && rows[1].calls == 1);
    assert_true(rows[2].seconds == 1 && rows[2].kind == QKV_PROF_OTHER);
    assert_true(qkv_profile_span() == 8);
    fake_now += 5; /* stopped: nothing moves */
    assert_true(qkv_profile_span() == 8);
}

/* A forward and a backward of the same name are two rows; a name given by a different
 * pointer with the same text is the same row. */
static void test_rows_by_name_and_kind(void **state)
{
    (void)state;
    char name[16];
    snprintf(name, sizeof name, "%s", "linear");
    qkv_profile_start();
    int a = qkv_profile_begin("linear", QKV_PROF_FWD);
    fake_now += 1;
    qkv_profile_end(a);
    a = qkv_profile_begin(name, QKV_PROF_FWD);
    fake_now += 1;
    qkv_profile_end(a);
    a = qkv_profile_begin("linear", QKV_PROF_BWD);
    fake_now += 5;
    qkv_profile_end(a);
    qkv_profile_stop();
    qkv_profile_row rows[QKV_PROFILE_MAX_ROWS + 1];
    int n = qkv_profile_rows(rows, QKV_PROFILE_MAX_ROWS + 1);
    assert_int_equal(n, 3);
    assert_true(find(rows, n, "linear", QKV_PROF_FWD)->calls == 2);
    assert_true(find(rows, n, "linear", QKV_PROF_FWD)->seconds == 2);
    assert_true(find(rows, n, "linear", QKV_PROF_BWD)->seconds == 5);
    assert_true(find(rows, n, "other", QKV_PROF_OTHER)->seconds == 0);
}

/* A WHOLE region keeps the time of what runs inside it; the regions inside are not counted. An
 * end of an outer region closes inner ones left open. */
static void test_whole_region(void **state)
{
    (void)state;
    qkv_profile_start();
    int ev = qkv_profile_begin("dev evaluation", QKV_PROF_WHOLE);
    int op = qkv_profile_begin("linear", QKV_PROF_FWD);
    assert_int_equal(op, -1);
    fake_now += 3;
    qkv_profile_end(op);
    qkv_profile_end(ev);
    int ph = qkv_profile_begin("data", QKV_PROF_PHASE);
    qkv_profile_begin("left open", QKV_PROF_FWD);
    fake_now += 2;
    qkv_profile_end(ph);
    fake_now += 1;
    qkv_profile_stop();
    qkv_profile_row rows[QKV_PROFILE_MAX_ROWS + 1];
    int n = qkv_profile_rows(rows, QKV_PROFILE_MAX_ROWS + 1);
    assert_int_equal(n, 4);
    assert_true(find(rows, n, "dev evaluation", QKV_PROF_WHOLE)->seconds == 3);
    assert_true(find(rows, n, "left open", QKV_PROF_FWD)->seconds == 2);
    assert_true(find(rows, n, "data", QKV_PROF_PHASE)->seconds == 0);
    assert_true(find(rows, n, "other", QKV_PROF_OTHER)->seconds == 1);
}

/* Off: begin returns -1 and nothing is counted. */
static void test_off_records_nothing(void **state)
{
    (void)state;
    qkv_profile_start();
    qkv_profile_stop();
    assert_int_equal(qkv_profile_begin("linear", QKV_PROF_FWD), -1);
    fake_now += 1;
    qkv_profile_row rows[QKV_PROFILE_MAX_ROWS + 1];
    int n = qkv_profile_rows(rows, QKV_PROFILE_MAX_ROWS + 1);
    assert_int_equal(n, 1);
    assert_string_equal(rows[0].name, "other");
}

/* The hooks: ops count their forward calls, qkv_backward each node's backward, under the
 * tape node's name. */
static void test_op_and_tape_hooks(void **state)
{
    (void)state;
    qkv_params ps;
    qkv_params_init(&ps);
    qkv_error err;
    qkv_tensor *w = qkv_params_add(&ps, &err, 2, (int[]){3, 4}, "w");
    assert_non_null(w);
    qkv_tensor x = {0};
    qkv_real xd[8] = {1, 2, 3, 4, 5, 6, 7, 8};
    x.rank = 2, x.shape[0] = 2, x.shape[1] = 4, x.size = 8, x.data = xd;
    qkv_tape tp;
    assert_int_equal(qkv_tape_init(&tp, 0), 0);
    qkv_profile_start();
    qkv_tensor *y = qkv_linear(&tp, &x, w, NULL);
    qkv_tensor *z = qkv_gelu(&tp, y, QKV_GELU_ERF);
    qkv_tensor *loss = qkv_sum(&tp, z);
    assert_int_equal(qkv_backward(&tp, loss), QKV_OK);
    qkv_profile_stop();
    qkv_profile_row rows[QKV_PROFILE_MAX_ROWS + 1];
    int n = qkv_profile_rows(rows, QKV_PROFILE_MAX_ROWS + 1);
    assert_int_equal(n, 7);
    const char *names[] = {"linear", "gelu", "sum"};
    for (int i = 0; i < 3; i++) {
        assert_true(find(rows, n, names[i], QKV_PROF_FWD)->calls == 1);
        assert_true(find(rows, n, names[i], QKV_PROF_BWD)->calls == 1);
    }
    qkv_tape_free(&tp);
    qkv_params_free(&ps);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_exclusive_nesting, setup, teardown),
        cmocka_unit_test_setup_teardown(test_rows_by_name_and_kind, setup, teardown),
        cmocka_unit_test_setup_teardown(test_whole_region, setup, teardown),
        cmocka_unit_test_setup_teardown(test_off_records_nothing, setup, teardown),
        cmocka_unit_test_setup_teardown(test_op_and_tape_hooks, setup, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
