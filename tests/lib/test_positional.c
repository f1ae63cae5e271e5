/* Positional encodings: sinusoidal values (position 1, d_model 5, by hand), positions restarting
 * per sentence, the learned table's gradient, its max_len error and the clamp alternative, and a
 * gradient check that catches a backward 1% off. */
#include "optest.h"

#include "lib/nn/positional.h"

typedef struct {
    qkv_positional pos;
    qkv_tensor *x;
    int32_t off[8];
    int n_sentences;
} fixture;

static qkv_tensor *pos_fn(qkv_tape *tp, void *user)
{
    fixture *f = user;
    return qkv_positional_apply(tp, &f->pos, f->x, (qkv_packed){f->n_sentences, f->off});
}

static void test_sinusoidal_values(void **state)
{
    (void)state;
    qkv_real pe[5];
    qkv_sinusoidal(1, 5, pe); /* sin(1), cos(1), sin(1e-4^(2/5)), cos(1e-4^(2/5)), sin(1e-4^(4/5)) */
    const double expect[5] = {0.841471, 0.540302, 0.025116, 0.999685, 0.000631};
    for (int c = 0; c < 5; c++)
        tu_assert_close(pe[c], expect[c], 1e-6);
    qkv_sinusoidal(0, 5, pe);
    for (int c = 0; c < 5; c++)
        tu_assert_close(pe[c], c % 2, 0);
    qkv_real pe4[4];
    qkv_sinusoidal(2, 4, pe4); /* angles 2 and 2 / 100 */
    tu_assert_close(pe4[0], 0.909297427, 1e-9);
    tu_assert_close(pe4[1], -0.416146837, 1e-9);
    tu_assert_close(pe4[2], 0.019998667, 1e-9);
    tu_assert_close(pe4[3], 0.999800007, 1e-9);
}

static void setup(fixture *f, qkv_params *ps, qkv_pos_kind kind, int d_model, int max_len, bool scale,
                  const int *lens, int n_sentences, uint64_t seed)
{
    memset(f, 0, sizeof *f);
    qkv_rng rng;
    qkv_rng_seed(&rng, seed);
    qkv_error err;
    if (qkv_positional_create(&f->pos, kind, d_model, max_len, scale, ps, &rng, "pos", &err) != QKV_OK)
        fail_msg("%s", err.msg);
    if (f->pos.table)
        qkv_init_normal(f->pos.table, &rng, 1.0);
    f->n_sentences = n_sentences;
    for (int b = 0; b < n_sentences; b++)
        f->off[b + 1] = f->off[b] + lens[b];
    f->x = tu_param(ps, &rng, "x", 2, (int[]){f->off[n_sentences], d_model});
}

/* Every sentence starts at position 0: y - s·x equals PE(position in sentence). */
static void test_positions_restart_per_sentence(void **state)
{
    (void)state;
    const int lens[] = {3, 1, 5};
    for (int kind = QKV_POS_NONE; kind <= QKV_POS_LEARNED; kind++)
        for (int scale = 0; scale < 2; scale++) {
            qkv_params ps;
            qkv_params_init(&ps);
            fixture f;
            setup(&f, &ps, kind, 5, 6, scale, lens, 3, 3);
            qkv_tape tp;
            qkv_tape_init(&tp, 0);
            qkv_tensor *y = pos_fn(&tp, &f);
            assert_non_null(y);
            double s = scale ? sqrt(5.0) : 1.0;
            for (int b = 0; b < 3; b++)
                for (int t = f.off[b]; t < f.off[b + 1]; t++) {
                    qkv_real pe[5] = {0};
                    if (kind == QKV_POS_SINUSOIDAL)
                        qkv_sinusoidal(t - f.off[b], 5, pe);
                    for (int c = 0; c < 5; c++) {
                        double e = kind == QKV_POS_LEARNED ? f.pos.table->data[(t - f.off[b]) * 5 + c] : pe[c];
                        tu_assert_close(y->data[t * 5 + c], s * f.x->data[t * 5 + c] + e, 1e-12);
                    }
                }
            qkv_tape_free(&tp);
            qkv_params_free(&ps);
        }
}

static void test_gradcheck(void **state)
{
    (void)state;
    const int batches[3][5] = {{1, 1}, {2, 7, 3}, {4, 2, 5, 1, 4}};
    int cfg = 0;
    for (int kind = QKV_POS_NONE; kind <= QKV_POS_LEARNED; kind++)
        for (int scale = 0; scale < 2; scale++)
            for (int bi = 0; bi < 3; bi++, cfg++) {
                qkv_params ps;
                qkv_params_init(&ps);
                fixture f;
                setup(&f, &ps, kind, 3, 7, scale, batches[bi] + 1, batches[bi][0], 10 + (uint64_t)cfg);
                qkv_tape tp;
                qkv_tape_init(&tp, 0);
                qkv_tensor *ts[] = {f.x, f.pos.table};
                const char *names[] = {"x", "pos.table"};
                tu_assert_gradcheck(&tp, pos_fn, &f, kind == QKV_POS_LEARNED ? 2 : 1, ts, names);
                qkv_tape_free(&tp);
                qkv_params_free(&ps);
            }
}

static void test_too_long_for_table(void **state)
{
    (void)state;
    const int lens[] = {2, 9, 4};
    qkv_params ps;
    qkv_params_init(&ps);
    fixture f;
    setup(&f, &ps, QKV_POS_LEARNED, 4, 8, false, lens, 3, 1);
    assert_non_null(qkv_params_find(&ps, "pos.table"));
    qkv_tape tp;
    qkv_tape_init(&tp, 0);
    assert_null(pos_fn(&tp, &f));
    assert_true(tp.failed);
    assert_non_null(strstr(tp.err.msg, "sentence 1 has 9 tokens, longer than max_len 8"));
    /* a sentence of exactly max_len is fine */
    qkv_tape_reset(&tp);
    f.off[2] = f.off[1] + 8;
    f.n_sentences = 2;
    f.x->shape[0] = 10;
    f.x->size = 40;
    assert_non_null(pos_fn(&tp, &f));
    qkv_tape_free(&tp);
    qkv_params_free(&ps);
}

/* overflow clamp: positions past the table use its last row, in values and gradients. */
static void test_clamp_overflow(void **state)
{
    (void)state;
    const int lens[] = {2, 6, 3};
    qkv_params ps;
    qkv_params_init(&ps);
    fixture f;
    setup(&f, &ps, QKV_POS_LEARNED, 3, 3, false, lens, 3, 5);
    f.pos.overflow = QKV_POS_OVERFLOW_CLAMP;
    qkv_tape tp;
    qkv_tape_init(&tp, 0);
    qkv_tensor *y = pos_fn(&tp, &f);
    assert_non_null(y);
    const int expect_row[11] = {0, 1, 0, 1, 2, 2, 2, 2, 0, 1, 2};
    for (int t = 0; t < 11; t++)
        for (int c = 0; c < 3; c++)
            tu_assert_close(y->data[t * 3 + c], f.x->data[t * 3 + c] + f.pos.table->data[expect_row[t] * 3 + c],
                            1e-12);
    qkv_tensor *ts[] = {f.x, f.pos.table};
    const char *names[] = {"x", "pos.table"};
    tu_assert_gradcheck(&tp, pos_fn, &f, 2, ts, names);
    /* a table of one row: every position shares it */
    qkv_tape_free(&tp);
    qkv_params_free(&ps);
    qkv_params_init(&ps);
    const int one[] = {4};
    setup(&f, &ps, QKV_POS_LEARNED, 1, 1, true, one, 1, 6);
    f.pos.overflow = QKV_POS_OVERFLOW_CLAMP;
    qkv_tape_init(&tp, 0);
    y = pos_fn(&tp, &f);
    assert_non_null(y);
    for (int t = 0; t < 4; t++)
        tu_assert_close(y->data[t], f.x->data[t] + f.pos.table->data[0], 1e-12);
    ts[0] = f.x;
    ts[1] = f.pos.table;
    tu_assert_gradcheck(&tp, pos_fn, &f, 2, ts, names);
    qkv_tape_free(&tp);
    qkv_params_free(&ps);
}

/* The gradient check catches the "positional" node's backward scaled by 1.01, for every kind
 * (learned: in x's and the table's gradient, also with clamped positions). */
static void test_gradcheck_catches_one_percent(void **state)
{
    (void)state;
    const int lens[] = {2, 7, 3};
    for (int kind = QKV_POS_NONE; kind <= QKV_POS_LEARNED + 1; kind++) {
        bool clamp = kind > QKV_POS_LEARNED;
        qkv_params ps;
        qkv_params_init(&ps);
        fixture f;
        qkv_pos_kind k = clamp ? QKV_POS_LEARNED : (qkv_pos_kind)kind;
        setup(&f, &ps, k, 3, clamp ? 4 : 7, true, lens, 3, 20 + (uint64_t)kind);
        f.pos.overflow = clamp ? QKV_POS_OVERFLOW_CLAMP : QKV_POS_OVERFLOW_ERROR;
        qkv_tape tp;
        qkv_tape_init(&tp, 0);
        qkv_tensor *ts[] = {f.x, f.pos.table};
        const char *names[] = {"x", "pos.table"};
        ot_assert_gradcheck_catches(&tp, "positional", pos_fn, &f, f.pos.table ? 2 : 1, ts, names);
        qkv_tape_free(&tp);
        qkv_params_free(&ps);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_sinusoidal_values),
        cmocka_unit_test(test_positions_restart_per_sentence),
        cmocka_unit_test(test_gradcheck),
        cmocka_unit_test(test_too_long_for_table),
        cmocka_unit_test(test_clamp_overflow),
        cmocka_unit_test(test_gradcheck_catches_one_percent),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
