/* FLOATER positions (lib/nn/floater.h) and the row concatenation they use (lib/ops/concat.h):
 * a constant field solved exactly, RK4 against a plain double-precision solver written here,
 * positions restarting per sentence with no length limit, and double-precision gradient checks
 * through the unrolled solver. */
#include "optest.h"

#include "lib/nn/floater.h"
#include "lib/nn/positional.h"
#include "lib/ops/concat.h"
#include "floater_reference.h"

static void make(ot_env *e, qkv_floater *f, int d)
{
    qkv_error err;
    if (qkv_floater_create(f, &e->ps, &e->rng, "pos", d, &err) != QKV_OK)
        fail_msg("%s", err.msg);
    for (int i = 0; i < e->ps.n; i++) /* nonzero everywhere, p0 included */
        qkv_init_normal(&e->ps.items[i]->t, &e->rng, 0.5);
}

/* h = b2 (w2 = 0): p(i) = p0 + i·Δt·b2, which RK4 solves exactly. */
static void test_constant_field(void **state)
{
    (void)state;
    ot_env e;
    ot_init(&e, 1);
    qkv_floater f;
    make(&e, &f, 3);
    memset(f.w2->data, 0, f.w2->size * sizeof(qkv_real));
    qkv_tensor *y = qkv_floater_positions(&e.tp, &f, 40);
    assert_non_null(y);
    assert_int_equal(y->shape[0], 40);
    assert_int_equal(y->shape[1], 3);
    for (int i = 0; i < 40; i++)
        for (int c = 0; c < 3; c++)
            tu_assert_close(y->data[i * 3 + c], f.p0->data[c] + i * QKV_FLOATER_DT * f.b2->data[c], 1e-12);
    ot_free(&e);
}

/* Classical RK4, one step of Δt per position, in plain double. */
static void test_rk4_matches_reference(void **state)
{
    (void)state;
    ot_env e;
    ot_init(&e, 2);
    qkv_floater f;
    make(&e, &f, 4);
    const int n = 12;
    qkv_tensor *y = qkv_floater_positions(&e.tp, &f, n);
    assert_non_null(y);
    double ref[12 * 4];
    floater_reference(&f, n, ref);
    for (int i = 0; i < n; i++)
        for (int c = 0; c < 4; c++)
            tu_assert_close(y->data[i * 4 + c], ref[i * 4 + c], 1e-12);
    ot_free(&e);
}

typedef struct {
    qkv_floater f;
    int n;
} pos_fixture;

static qkv_tensor *positions_fn(qkv_tape *tp, void *user)
{
    pos_fixture *pf = user;
    return qkv_floater_positions(tp, &pf->f, pf->n);
}

/* Through 10 unrolled RK4 steps (and a two-level concatenation) to every parameter. */
static void test_gradcheck(void **state)
{
    (void)state;
    ot_env e;
    ot_init(&e, 3);
    pos_fixture pf = {.n = 11};
    make(&e, &pf.f, 3);
    qkv_tensor *ts[6] = {pf.f.p0, pf.f.w1, pf.f.b1, pf.f.w_t, pf.f.w2, pf.f.b2};
    const char *names[6] = {"p0", "w1", "b1", "w_t", "w2", "b2"};
    tu_assert_gradcheck(&e.tp, positions_fn, &pf, 6, ts, names);
    ot_free(&e);
}

typedef struct {
    qkv_tensor *parts[16];
    int n;
} concat_fixture;

static qkv_tensor *concat_fn(qkv_tape *tp, void *user)
{
    concat_fixture *cf = user;
    return qkv_concat_rows_many(tp, cf->n, cf->parts);
}

static void test_concat_rows(void **state)
{
    (void)state;
    ot_env e;
    ot_init(&e, 4);
    concat_fixture cf = {.n = 16}; /* two levels of concat_rows nodes (tu_gradcheck takes <= 16 tensors) */
    for (int i = 0; i < 16; i++) {
        char name[8];
        snprintf(name, sizeof name, "p%d", i);
        cf.parts[i] = ot_param2(&e, name, 1 + i % 3, 2);
    }
    qkv_tensor *y = concat_fn(&e.tp, &cf);
    assert_non_null(y);
    int row = 0;
    for (int i = 0; i < 16; i++) {
        for (size_t k = 0; k < cf.parts[i]->size; k++)
            tu_assert_close(y->data[(size_t)row * 2 + k], cf.parts[i]->data[k], 0);
        row += 1 + i % 3;
    }
    assert_int_equal(y->shape[0], row);
    qkv_tape_reset(&e.tp);
    tu_assert_gradcheck(&e.tp, concat_fn, &cf, 16, cf.parts,
                        (const char *[]){"0", "1", "2", "3", "4", "5", "6", "7", "8", "9", "10", "11", "12", "13",
                                         "14", "15"});
    qkv_tape_reset(&e.tp);
    cf.parts[3] = ot_param2(&e, "c", 1, 3);
    cf.n = 5;
    assert_null(concat_fn(&e.tp, &cf));
    assert_non_null(strstr(e.tp.err.msg, "concat_rows: part 3 has 3 columns, part 0 has 2"));
    ot_free(&e);
}

/* As a positional encoding: positions restart per sentence; a sentence of 700 words needs no
 * table. */
static void test_positional_floater(void **state)
{
    (void)state;
    ot_env e;
    ot_init(&e, 5);
    qkv_positional pos;
    qkv_error err;
    assert_int_equal(qkv_positional_create(&pos, QKV_POS_FLOATER, 2, 0, false, &e.ps, &e.rng, "pos", &err), QKV_OK);
    assert_int_equal(e.ps.n, 6);
    assert_string_equal(e.ps.items[0]->name, "pos.p0");
    qkv_tensor *x = ot_param2(&e, "x", 703, 2);
    int32_t off[3] = {0, 3, 703};
    qkv_tensor *y = qkv_positional_apply(&e.tp, &pos, x, (qkv_packed){2, off});
    assert_non_null(y);
    qkv_tensor *pe = qkv_floater_positions(&e.tp, &pos.floater, 700);
    assert_non_null(pe);
    for (int t = 0; t < 703; t++) {
        int p = t < 3 ? t : t - 3;
        for (int c = 0; c < 2; c++)
            tu_assert_close(y->data[t * 2 + c], x->data[t * 2 + c] + pe->data[p * 2 + c], 1e-12);
    }
    ot_free(&e);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_constant_field),
        cmocka_unit_test(test_rk4_matches_reference),
        cmocka_unit_test(test_gradcheck),
        cmocka_unit_test(test_concat_rows),
        cmocka_unit_test(test_positional_floater),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
