/* The packed batch type (lib/packed.h): qkv_tape_packed accepts what packs the rows of x
 * (empty segments only when allowed) and returns an arena copy the caller's array no longer
 * touches; it rejects each kind of bad batch with its message; and attention, positions and
 * the segment ops, which all check through it, report one bad batch in one wording. */
#include "optest.h"

#include "lib/ops/attention.h"

static void test_copy(void **state)
{
    (void)state;
    ot_env e;
    ot_init(&e, 1);
    qkv_tensor *x = ot_param2(&e, "x", 5, 2);
    int32_t off[] = {0, 2, 2, 5};
    qkv_packed s = qkv_tape_packed(&e.tp, "op", (qkv_packed){3, off}, x, false);
    assert_false(e.tp.failed);
    assert_int_equal(s.n, 3);
    assert_non_null(s.offsets);
    assert_ptr_not_equal(s.offsets, off);
    off[1] = 4; /* the caller may reuse its array at once */
    assert_int_equal(s.offsets[0], 0);
    assert_int_equal(s.offsets[1], 2);
    assert_int_equal(s.offsets[2], 2);
    assert_int_equal(s.offsets[3], 5);
    assert_int_equal(qkv_packed_rows(s), 5);
    assert_int_equal(qkv_packed_len(s, 1), 0);
    assert_int_equal(qkv_packed_len(s, 2), 3);
    /* no segments over no rows */
    qkv_tensor *none = qkv_tape_tensor2(&e.tp, 0, 2);
    s = qkv_tape_packed(&e.tp, "op", (qkv_packed){0, (int32_t[]){0}}, none, true);
    assert_false(e.tp.failed);
    assert_int_equal(s.n, 0);
    assert_int_equal(qkv_packed_rows(s), 0);
    assert_int_equal(qkv_packed_rows((qkv_packed){2, NULL}), 0);
    ot_free(&e);
}

static void expect_rejected(ot_env *e, qkv_packed s, const qkv_tensor *x, bool nonempty, const char *part)
{
    qkv_packed r = qkv_tape_packed(&e->tp, "op", s, x, nonempty);
    assert_true(e->tp.failed);
    assert_null(r.offsets);
    assert_int_equal(r.n, 0);
    if (strncmp(e->tp.err.msg, "op: ", 4) != 0 || !strstr(e->tp.err.msg, part))
        fail_msg("message \"%s\" does not start with \"op: \" or lacks \"%s\"", e->tp.err.msg, part);
    qkv_tape_reset(&e->tp);
}

static void test_errors(void **state)
{
    (void)state;
    ot_env e;
    ot_init(&e, 1);
    qkv_tensor *x = ot_param2(&e, "x", 5, 2);
    expect_rejected(&e, (qkv_packed){2, NULL}, x, false, "offsets of the packed batch are NULL");
    expect_rejected(&e, (qkv_packed){-1, (int32_t[]){0}}, x, false, "-1 segments, a negative count");
    expect_rejected(&e, (qkv_packed){2, (int32_t[]){1, 2, 5}}, x, false,
                    "2 segments with offsets[0] = 1 and offsets[2] = 5; they must be 0 and the number of rows of "
                    "the input [5, 2] (5)");
    expect_rejected(&e, (qkv_packed){2, (int32_t[]){0, 2, 4}}, x, false, "offsets[2] = 4");
    expect_rejected(&e, (qkv_packed){0, (int32_t[]){0}}, x, false, "0 segments");
    expect_rejected(&e, (qkv_packed){3, (int32_t[]){0, 3, 2, 5}}, x, false,
                    "offsets decrease at segment 1 (offsets[1] = 3 > offsets[2] = 2)");
    expect_rejected(&e, (qkv_packed){3, (int32_t[]){0, 2, 2, 5}}, x, true,
                    "segment 1 is empty (offsets[1] = offsets[2] = 2)");
    /* a failed tape stays failed: nothing is checked or copied */
    qkv_tape_fail(&e.tp, "earlier");
    qkv_packed r = qkv_tape_packed(&e.tp, "op", (qkv_packed){2, (int32_t[]){0, 2, 5}}, x, false);
    assert_null(r.offsets);
    assert_string_equal(e.tp.err.msg, "earlier");
    ot_free(&e);
}

/* The message after "<op>: " of the op's failure on a bad batch. */
static void after_op(const qkv_tape *tp, const char *op, char *out, size_t len)
{
    size_t n = strlen(op);
    assert_true(tp->failed);
    if (strncmp(tp->err.msg, op, n) != 0 || strncmp(tp->err.msg + n, ": ", 2) != 0)
        fail_msg("message \"%s\" does not start with \"%s: \"", tp->err.msg, op);
    snprintf(out, len, "%s", tp->err.msg + n + 2);
}

static void test_one_wording(void **state)
{
    (void)state;
    ot_env e;
    ot_init(&e, 1);
    qkv_tensor *x = ot_param2(&e, "x", 5, 4);
    qkv_tensor *w[3] = {ot_param2(&e, "w_q", 4, 4), ot_param2(&e, "w_k", 4, 4), ot_param2(&e, "w_v", 4, 4)};
    qkv_attention_opts opts = {.n_heads = 2};
    const int32_t *bad[] = {(int32_t[]){0, 3, 2, 5}, (int32_t[]){0, 2, 2, 4}, NULL};
    for (int k = 0; k < 3; k++) {
        qkv_packed s = {3, bad[k]};
        char att[512], pos[512], win[512];
        const qkv_attention_proj proj = {.w_q = w[0], .w_k = w[1], .w_v = w[2]};
        assert_null(qkv_attention(&e.tp, x, s, &proj, NULL, 0, &opts, NULL));
        after_op(&e.tp, "attention", att, sizeof att);
        qkv_tape_reset(&e.tp);
        assert_null(qkv_add_positions(&e.tp, x, s, 1, NULL, false));
        after_op(&e.tp, "positional", pos, sizeof pos);
        qkv_tape_reset(&e.tp);
        assert_null(qkv_packed_windows(&e.tp, x, s, 3));
        after_op(&e.tp, "segment_windows", win, sizeof win);
        qkv_tape_reset(&e.tp);
        assert_string_equal(att, pos);
        assert_string_equal(att, win);
    }
    ot_free(&e);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_copy),
        cmocka_unit_test(test_errors),
        cmocka_unit_test(test_one_wording),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
