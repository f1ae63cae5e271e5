/* embedding: rows picked by ids, gradient only into the rows used (repeated ids accumulate),
 * an id out of range is a tape error naming the id and V, and double-precision gradient
 * checks over several shapes. */
#include "optest.h"

typedef struct {
    qkv_tensor *table;
    const int32_t *ids;
    int n;
} fixture;

static qkv_tensor *embedding_fn(qkv_tape *tp, void *user)
{
    fixture *f = user;
    return qkv_embedding(tp, f->table, f->ids, f->n);
}

static void test_forward_values(void **state)
{
    (void)state;
    ot_env e;
    ot_init(&e, 1);
    /* table [4, 2]: row r = [10 r, 10 r + 1] */
    qkv_tensor *table = ot_values(&e, "table", 2, (int[]){4, 2}, (double[]){0, 1, 10, 11, 20, 21, 30, 31});
    const int32_t ids[] = {3, 0, 3, 1, 3};
    qkv_tensor *y = qkv_embedding(&e.tp, table, ids, 5);
    assert_non_null(y);
    assert_int_equal(y->rank, 2);
    assert_int_equal(y->shape[0], 5);
    assert_int_equal(y->shape[1], 2);
    for (int i = 0; i < 5; i++) {
        tu_assert_close(y->data[2 * i], 10 * ids[i], 0);
        tu_assert_close(y->data[2 * i + 1], 10 * ids[i] + 1, 0);
    }
    ot_free(&e);
}

/* dy row i = [i + 1, -(i + 1)]: row 3 gets rows 0, 2, 4 of dy, row 0 gets row 1, row 1 gets
 * row 3, row 2 (never used) stays exactly zero even though its gradient buffer exists. */
static void test_gradient_only_to_used_rows(void **state)
{
    (void)state;
    ot_env e;
    ot_init(&e, 1);
    qkv_tensor *table = ot_param2(&e, "table", 4, 2);
    int32_t ids[] = {3, 0, 3, 1, 3};
    qkv_tensor *y = qkv_embedding(&e.tp, table, ids, 5);
    assert_non_null(y);
    ids[0] = 2; /* the op kept its own copy of the ids */
    qkv_real dy[10];
    for (int i = 0; i < 5; i++) {
        dy[2 * i] = (qkv_real)(i + 1);
        dy[2 * i + 1] = (qkv_real)-(i + 1);
    }
    table->grad[4] = 0.125; /* pre-existing gradient of row 2: untouched, not zeroed */
    assert_int_equal(qkv_backward_from(&e.tp, y, dy), QKV_OK);
    const double want[8] = {2, -2, 4, -4, 0.125, 0, 1 + 3 + 5, -(1 + 3 + 5)};
    for (int i = 0; i < 8; i++)
        tu_assert_close(table->grad[i], want[i], 0);
    ot_free(&e);
}

static void test_errors(void **state)
{
    (void)state;
    ot_env e;
    ot_init(&e, 1);
    qkv_tensor *table = ot_param2(&e, "table", 5, 3);
    const int32_t too_big[] = {0, 4, 5}, negative[] = {-1};
    assert_null(qkv_embedding(&e.tp, table, too_big, 3));
    assert_true(e.tp.failed);
    assert_non_null(strstr(e.tp.err.msg, "id 5 at position 2"));
    assert_non_null(strstr(e.tp.err.msg, "V = 5"));
    qkv_tape_reset(&e.tp);
    assert_null(qkv_embedding(&e.tp, table, negative, 1));
    assert_non_null(strstr(e.tp.err.msg, "id -1"));
    qkv_tape_reset(&e.tp);
    assert_null(qkv_embedding(&e.tp, table, negative, 0));
    assert_true(e.tp.failed);
    qkv_tape_reset(&e.tp);
    qkv_tensor *vec = ot_param(&e, "vec", 1, (int[]){5});
    assert_null(qkv_embedding(&e.tp, vec, too_big, 1));
    assert_non_null(strstr(e.tp.err.msg, "[5]"));
    ot_free(&e);
}

static void check(int v, int d, int n, size_t samples)
{
    ot_env e;
    ot_init(&e, (uint64_t)(v * 100 + d * 10 + n));
    int32_t *ids = malloc((size_t)n * sizeof *ids);
    assert_non_null(ids);
    for (int i = 0; i < n; i++) /* every other id, with repeats, so some rows stay unused */
        ids[i] = (int32_t)((2 * (int)qkv_rng_below(&e.rng, (uint64_t)(v + 1) / 2)) % v);
    fixture f = {ot_param2(&e, "table", v, d), ids, n};
    const char *names[] = {"table"};
    if (samples)
        ot_assert_gradcheck_sampled(&e.tp, embedding_fn, &f, 1, &f.table, names, samples);
    else
        tu_assert_gradcheck(&e.tp, embedding_fn, &f, 1, &f.table, names);
    if (v > 2 && !samples) /* odd rows were never picked: their gradient is exactly zero */
        for (int r = 1; r < v; r += 2)
            for (int j = 0; j < d; j++)
                tu_assert_close(f.table->grad[(size_t)r * d + j], 0, 0);
    free(ids);
    ot_free(&e);
}

static void test_gradcheck(void **state)
{
    (void)state;
    check(1, 1, 1, 0);
    check(5, 3, 7, 0);
    check(7, 1, 3, 0);
    check(2, 6, 9, 0);
    check(11, 5, 1, 0);
    check(300, 130, 400, 16); /* threaded forward */
}

/* The gradient check catches a backward that is 1% off. */
static void test_gradcheck_catches_one_percent(void **state)
{
    (void)state;
    ot_env e;
    ot_init(&e, 3);
    fixture f = {ot_param2(&e, "table", 5, 3), (int32_t[]){4, 0, 4, 2}, 4};
    const char *names[] = {"table"};
    ot_assert_gradcheck_catches(&e.tp, "embedding", embedding_fn, &f, 1, &f.table, names);
    ot_free(&e);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_forward_values),
        cmocka_unit_test(test_gradient_only_to_used_rows),
        cmocka_unit_test(test_errors),
        cmocka_unit_test(test_gradcheck),
        cmocka_unit_test(test_gradcheck_catches_one_percent),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
