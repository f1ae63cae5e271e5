/* The lazy (sparse) optimizer update (lib/optim/optim.h qkv_optim_set_rows) and row sets
 * (lib/row_set.h). Reference values: tests/lib/reference/lazy_optim_reference.py (plain Python
 * formulas, checked there against torch.optim.SparseAdam and torch.optim.AdamW). */
#include "testutil.h"

#include <omp.h>
#include <string.h>

#include "lib/optim/optim.h"
#include "lib/row_set.h"

static const double p0[8] = {0.5, -1.0, 0.25, 2.0, -0.75, 0.1, 1.5, -0.3};
static const int n_touched[3] = {2, 1, 2};
static const int32_t touched[3][2] = {{1, 3}, {3, 0}, {0, 1}};
static const double grad_rows[3][2][2] = {
    {{0.2, -0.4}, {0.6, 0.1}},
    {{-0.3, 0.5}, {0, 0}},
    {{0.05, 0.7}, {-0.2, 0.0}},
};
static const double lrs[3] = {0.1, 0.05, 0.02};

/* lazy adamw: the table's 8 values after steps 1, 2, 3 */
static const double expected_lazy_adamw[3][8] = {
    {0.5, -1, 0.14750000499999977, 2.0799999974999999, -0.75, 0.10000000000000001, 1.3850000016666666, -0.39699999000000097},
    {0.5, -1, 0.14750000499999977, 2.0799999974999999, -0.75, 0.10000000000000001, 1.3647581499560992, -0.43806730195960797},
    {0.48622373243564587, -1.0107762716719977, 0.1481086497302195, 2.0873443954340005, -0.75, 0.10000000000000001, 1.3647581499560992, -0.43806730195960797},
};
/* lazy adam: the table's 8 values after steps 1, 2, 3 */
static const double expected_lazy_adam[3][8] = {
    {0.5, -1, 0.15000000444444428, 2.0999999950000001, -0.75, 0.10000000000000001, 1.4000000013333334, -0.39999998571428774},
    {0.5, -1, 0.15000000444444428, 2.0999999950000001, -0.75, 0.10000000000000001, 1.3750016005750578, -0.44182156610947682},
    {0.48722373022383819, -1.0127762716193356, 0.14923220842302753, 2.0986779973657321, -0.75, 0.10000000000000001, 1.3750016005750578, -0.44182156610947682},
};
/* lazy sgd: the table's 8 values after steps 1, 2, 3 */
static const double expected_lazy_sgd[3][8] = {
    {0.5, -1, 0.22750000000000001, 2.02, -0.75, 0.10000000000000001, 1.425, -0.307},
    {0.5, -1, 0.22750000000000001, 2.02, -0.75, 0.10000000000000001, 1.399125, -0.33361499999999999},
    {0.498, -1.012, 0.226995, 2.0195599999999998, -0.75, 0.10000000000000001, 1.399125, -0.33361499999999999},
};

/* Three lazy steps on the 4 x 2 table (weight decay 0.1, so the decay of touched rows only is
 * checked too); untouched rows must keep value and state bit for bit. */
static void run_lazy(qkv_optim_kind kind, const double expected[3][8])
{
    qkv_params ps;
    qkv_params_init(&ps);
    qkv_error err;
    qkv_tensor *w = qkv_params_add(&ps, &err, 2, (int[]){4, 2}, "table");
    assert_non_null(w);
    for (int j = 0; j < 8; j++)
        w->data[j] = p0[j];
    qkv_optim_config cfg = qkv_optim_defaults(kind);
    cfg.weight_decay = 0.1;
    cfg.momentum = 0.9;
    qkv_optimizer opt;
    qkv_row_set rows;
    assert_int_equal(qkv_optim_init(&opt, &ps, &cfg, &err), QKV_OK);
    assert_int_equal(qkv_row_set_init(&rows, 4, &err), QKV_OK);
    assert_int_equal(qkv_optim_set_rows(&opt, 0, &rows, &err), QKV_OK);
    for (int t = 0; t < 3; t++) {
        qkv_real before[8], state_before[QKV_OPTIM_MAX_SLOTS][8];
        memcpy(before, w->data, sizeof before);
        for (int k = 0; k < opt.n_slots; k++)
            memcpy(state_before[k], qkv_optim_slot(&opt, 0, k), sizeof state_before[k]);
        qkv_row_set_add(&rows, touched[t], n_touched[t]);
        for (int r = 0; r < n_touched[t]; r++)
            for (int j = 0; j < 2; j++)
                w->grad[touched[t][r] * 2 + j] = grad_rows[t][r][j];
        qkv_optim_step(&opt, lrs[t]);
        for (int j = 0; j < 8; j++)
            tu_assert_close(w->data[j], expected[t][j], 1e-13);
        for (int row = 0; row < 4; row++) {
            if (rows.mark[row])
                continue;
            assert_memory_equal(w->data + 2 * row, before + 2 * row, 2 * sizeof(qkv_real));
            for (int k = 0; k < opt.n_slots; k++)
                assert_memory_equal(qkv_optim_slot(&opt, 0, k) + 2 * row, state_before[k] + 2 * row,
                                    2 * sizeof(qkv_real));
        }
        qkv_row_set_zero(&rows, w->grad, 2);
        qkv_row_set_clear(&rows);
        for (int j = 0; j < 8; j++)
            assert_true(w->grad[j] == 0);
    }
    assert_int_equal(opt.step, 3);
    qkv_row_set_free(&rows);
    qkv_optim_free(&opt);
    qkv_params_free(&ps);
}

static void test_lazy_adamw(void **state)
{
    (void)state;
    run_lazy(QKV_OPTIM_ADAMW, expected_lazy_adamw);
}

static void test_lazy_adam(void **state)
{
    (void)state;
    run_lazy(QKV_OPTIM_ADAM, expected_lazy_adam);
}

static void test_lazy_sgd(void **state)
{
    (void)state;
    run_lazy(QKV_OPTIM_SGD, expected_lazy_sgd);
}

/* Every row touched at every step: the lazy update is the dense one, bit for bit. */
static void test_all_rows_equals_dense(void **state)
{
    (void)state;
    enum { V = 300, D = 8 };
    qkv_params ps[2];
    qkv_optimizer opt[2];
    qkv_row_set rows;
    qkv_error err;
    qkv_tensor *w[2];
    qkv_optim_config cfg = qkv_optim_defaults(QKV_OPTIM_ADAMW);
    assert_int_equal(qkv_row_set_init(&rows, V, &err), QKV_OK);
    for (int s = 0; s < 2; s++) {
        qkv_params_init(&ps[s]);
        w[s] = qkv_params_add(&ps[s], &err, 2, (int[]){V, D}, "table");
        for (int j = 0; j < V * D; j++)
            w[s]->data[j] = 0.01 * (j % 97) - 0.4;
        assert_int_equal(qkv_optim_init(&opt[s], &ps[s], &cfg, &err), QKV_OK);
    }
    assert_int_equal(qkv_optim_set_rows(&opt[1], 0, &rows, &err), QKV_OK);
    int32_t all[V];
    for (int r = 0; r < V; r++)
        all[r] = V - 1 - r;
    for (int t = 1; t <= 4; t++) {
        qkv_row_set_add(&rows, all, V);
        for (int s = 0; s < 2; s++) {
            for (int j = 0; j < V * D; j++)
                w[s]->grad[j] = 0.001 * ((j * 7 + t) % 31) - 0.015;
            qkv_optim_step(&opt[s], 1e-2 / t);
        }
        qkv_row_set_clear(&rows);
        assert_memory_equal(w[0]->data, w[1]->data, V * D * sizeof(qkv_real));
    }
    for (int s = 0; s < 2; s++) {
        qkv_optim_free(&opt[s]);
        qkv_params_free(&ps[s]);
    }
    qkv_row_set_free(&rows);
}

/* A table large enough for the threaded row loop: 1 and 2 threads give the same bits. */
static void test_lazy_threads_agree(void **state)
{
    (void)state;
    enum { V = 4000, D = 64, N = 1500 };
    static qkv_real out[2][V * D];
    int32_t ids[N];
    for (int i = 0; i < N; i++)
        ids[i] = (int32_t)((i * 2654435761u) % V);
    for (int s = 0; s < 2; s++) {
        omp_set_num_threads(s + 1);
        qkv_params ps;
        qkv_optimizer opt;
        qkv_row_set rows;
        qkv_error err;
        qkv_params_init(&ps);
        qkv_tensor *w = qkv_params_add(&ps, &err, 2, (int[]){V, D}, "table");
        for (int j = 0; j < V * D; j++)
            w->data[j] = 0.001 * (j % 1013);
        qkv_optim_config cfg = qkv_optim_defaults(QKV_OPTIM_ADAMW);
        assert_int_equal(qkv_optim_init(&opt, &ps, &cfg, &err), QKV_OK);
        assert_int_equal(qkv_row_set_init(&rows, V, &err), QKV_OK);
        assert_int_equal(qkv_optim_set_rows(&opt, 0, &rows, &err), QKV_OK);
        for (int t = 0; t < 3; t++) {
            qkv_row_set_add(&rows, ids + t * 300, N - t * 300);
            assert_true((size_t)rows.n * D >= 32768); /* the threaded path */
            for (int r = 0; r < rows.n; r++)
                for (int j = 0; j < D; j++)
                    w->grad[(size_t)rows.rows[r] * D + j] = 0.01 * ((r + j + t) % 17) - 0.08;
            qkv_optim_step(&opt, 1e-3);
            qkv_row_set_zero(&rows, w->grad, D);
            qkv_row_set_clear(&rows);
        }
        memcpy(out[s], w->data, sizeof out[s]);
        qkv_row_set_free(&rows);
        qkv_optim_free(&opt);
        qkv_params_free(&ps);
    }
    omp_set_num_threads(2);
    assert_memory_equal(out[0], out[1], sizeof out[0]);
}

static void test_row_set(void **state)
{
    (void)state;
    qkv_row_set s;
    qkv_error err;
    assert_int_equal(qkv_row_set_init(&s, 0, &err), QKV_ERR);
    assert_non_null(strstr(err.msg, "0 rows"));
    qkv_row_set_free(&s);
    assert_int_equal(qkv_row_set_init(&s, 5, &err), QKV_OK);
    qkv_row_set_add(&s, (int32_t[]){3, 1, 3, 3, 4, 1}, 6);
    assert_int_equal(s.n, 3);
    assert_int_equal(s.rows[0], 3);
    assert_int_equal(s.rows[1], 1);
    assert_int_equal(s.rows[2], 4);
    qkv_real x[10];
    for (int j = 0; j < 10; j++)
        x[j] = 1;
    qkv_row_set_zero(&s, x, 2);
    const qkv_real want[10] = {1, 1, 0, 0, 1, 1, 0, 0, 0, 0};
    assert_memory_equal(x, want, sizeof x);
    qkv_row_set_clear(&s);
    assert_int_equal(s.n, 0);
    for (int r = 0; r < 5; r++)
        assert_int_equal(s.mark[r], 0);
    qkv_row_set_add(&s, (int32_t[]){0}, 1);
    assert_int_equal(s.n, 1);
    qkv_row_set_free(&s);
}

static void test_set_rows_errors(void **state)
{
    (void)state;
    qkv_params ps;
    qkv_params_init(&ps);
    qkv_error err;
    assert_non_null(qkv_params_add(&ps, &err, 2, (int[]){4, 2}, "table"));
    assert_non_null(qkv_params_add(&ps, &err, 1, (int[]){4}, "bias"));
    qkv_optim_config cfg = qkv_optim_defaults(QKV_OPTIM_ADAMW);
    qkv_optimizer opt;
    qkv_row_set rows;
    assert_int_equal(qkv_optim_init(&opt, &ps, &cfg, &err), QKV_OK);
    assert_int_equal(qkv_row_set_init(&rows, 4, &err), QKV_OK);
    assert_int_equal(qkv_optim_set_rows(&opt, 2, &rows, &err), QKV_ERR);
    assert_int_equal(qkv_optim_set_rows(&opt, 1, &rows, &err), QKV_ERR);
    assert_non_null(strstr(err.msg, "bias"));
    qkv_row_set_free(&rows);
    assert_int_equal(qkv_row_set_init(&rows, 5, &err), QKV_OK);
    assert_int_equal(qkv_optim_set_rows(&opt, 0, &rows, &err), QKV_ERR);
    assert_int_equal(qkv_optim_set_rows(&opt, 0, NULL, &err), QKV_OK);
    qkv_row_set_free(&rows);
    qkv_optim_free(&opt);
    qkv_params_free(&ps);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_lazy_adamw),
        cmocka_unit_test(test_lazy_adam),
        cmocka_unit_test(test_lazy_sgd),
        cmocka_unit_test(test_all_rows_equals_dense),
        cmocka_unit_test(test_lazy_threads_agree),
        cmocka_unit_test(test_row_set),
        cmocka_unit_test(test_set_rows_errors),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
