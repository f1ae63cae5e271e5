/* Optimizers (SGD with momentum, Adam, AdamW), their saved state, and gradient clipping. */
#include "testutil.h"

#include <omp.h>

#include "lib/optim/optim.h"

/* The fixed problem of tests/lib/reference/optim_reference.py: w (weight decay applies) and b
 * (no_weight_decay), fixed gradients and a different learning rate at each of three steps,
 * weight decay 0.1, momentum 0.9, betas (0.9, 0.999), eps 1e-8. */
static const double w0[3] = {1.0, -2.0, 0.5}, b0[2] = {0.3, -0.7};
static const double grads[3][5] = {
    {0.5, -1.0, 0.25, 0.1, 0.0},
    {-0.3, 0.8, 0.0, -0.2, 0.05},
    {0.2, 0.1, -0.6, 0.4, -0.3},
};
static const double lrs[3] = {0.1, 0.05, 0.02};

/* The expected values below were printed by tests/lib/reference/optim_reference.py, which runs
 * torch.optim.SGD / Adam / AdamW (torch 1.13, float64) on the problem above and checks them
 * against the update formulas written out independently in plain Python (agreement 1e-15). */
/* sgd: w[0..2], b[0..1] after steps 1, 2, 3 */
static const double expected_sgd[3][5] = {
    {0.93999999999999995, -1.8799999999999999, 0.46999999999999997, 0.28999999999999998, -0.69999999999999996},
    {0.9232999999999999, -1.8565999999999998, 0.45415, 0.29549999999999998, -0.7024999999999999},
    {0.91144139999999985, -1.8464627999999998, 0.45953569999999999, 0.28947999999999996, -0.69739999999999991},
};
/* adam: w[0..2], b[0..1] after steps 1, 2, 3 */
static const double expected_adam[3][5] = {
    {0.9000000016666666, -1.9000000008333333, 0.40000000333333319, 0.20000000999999901, -0.69999999999999996},
    {0.88067649943840898, -1.8870042253401538, 0.36187146149726712, 0.21830518519424394, -0.73720683065729942},
    {0.86995761714941089, -1.8821538397366864, 0.36755921848982409, 0.20991207314344498, -0.72649461500696377},
};
/* adamw: w[0..2], b[0..1] after steps 1, 2, 3 */
static const double expected_adamw[3][5] = {
    {0.89000000199999996, -1.880000001, 0.39500000399999979, 0.20000000999999901, -0.69999999999999996},
    {0.87597510046088767, -1.867693748662028, 0.35952209316885791, 0.21830518519424394, -0.73720683065729942},
    {0.86727459662978723, -1.8640579039418042, 0.36661738596456983, 0.20991207314344498, -0.72649461500696377},
};

typedef struct {
    qkv_params ps;
    qkv_tensor *w, *b;
} problem;

/* w and b, each repeated `reps` times (reps > 1 makes tensors large enough for OpenMP). */
static void problem_init(problem *pb, int reps)
{
    qkv_error err;
    qkv_params_init(&pb->ps);
    pb->w = qkv_params_add(&pb->ps, &err, 1, (int[]){3 * reps}, "w");
    pb->b = qkv_params_add(&pb->ps, &err, 1, (int[]){2 * reps}, "b");
    assert_non_null(pb->w);
    assert_non_null(pb->b);
    qkv_params_find(&pb->ps, "b")->no_weight_decay = true;
    for (int r = 0; r < reps; r++) {
        for (int j = 0; j < 3; j++)
            pb->w->data[3 * r + j] = w0[j];
        for (int j = 0; j < 2; j++)
            pb->b->data[2 * r + j] = b0[j];
    }
}

static void set_grads(problem *pb, int step, int reps)
{
    for (int r = 0; r < reps; r++) {
        for (int j = 0; j < 3; j++)
            pb->w->grad[3 * r + j] = grads[step][j];
        for (int j = 0; j < 2; j++)
            pb->b->grad[2 * r + j] = grads[step][3 + j];
    }
}

static void check_values(const problem *pb, const double expected[5], int reps, double tol)
{
    for (int r = 0; r < reps; r++) {
        for (int j = 0; j < 3; j++)
            tu_assert_close(pb->w->data[3 * r + j], expected[j], tol);
        for (int j = 0; j < 2; j++)
            tu_assert_close(pb->b->data[2 * r + j], expected[3 + j], tol);
    }
}

static void run_three_steps(qkv_optim_kind kind, const double expected[3][5], int reps)
{
    problem pb;
    problem_init(&pb, reps);
    qkv_optim_config cfg = qkv_optim_defaults(kind);
    cfg.weight_decay = 0.1;
    cfg.momentum = 0.9;
    qkv_optimizer opt;
    qkv_error err;
    assert_int_equal(qkv_optim_init(&opt, &pb.ps, &cfg, &err), QKV_OK);
    for (int t = 0; t < 3; t++) {
        set_grads(&pb, t, reps);
        qkv_optim_step(&opt, lrs[t]);
        assert_int_equal(opt.step, t + 1);
        check_values(&pb, expected[t], reps, 1e-13);
    }
    qkv_optim_free(&opt);
    qkv_params_free(&pb.ps);
}

static void test_sgd_momentum_three_steps(void **state)
{
    (void)state;
    run_three_steps(QKV_OPTIM_SGD, expected_sgd, 1);
}

static void test_adam_three_steps(void **state)
{
    (void)state;
    run_three_steps(QKV_OPTIM_ADAM, expected_adam, 1);
}

static void test_adamw_three_steps(void **state)
{
    (void)state;
    run_three_steps(QKV_OPTIM_ADAMW, expected_adamw, 1);
}

/* 20000 copies of the problem: tensors of 60000 and 40000 elements take the OpenMP path and
 * must give every copy the same values as the small problem. */
static void test_large_tensors_parallel(void **state)
{
    (void)state;
    run_three_steps(QKV_OPTIM_SGD, expected_sgd, 20000);
    run_three_steps(QKV_OPTIM_ADAM, expected_adam, 20000);
    run_three_steps(QKV_OPTIM_ADAMW, expected_adamw, 20000);
}

/* Plain SGD, by hand: p <- p - lr (g + wd p); b has no decay. */
static void test_sgd_plain(void **state)
{
    (void)state;
    problem pb;
    problem_init(&pb, 1);
    qkv_optim_config cfg = qkv_optim_defaults(QKV_OPTIM_SGD);
    cfg.momentum = 0;
    cfg.weight_decay = 0.1;
    qkv_optimizer opt;
    qkv_error err;
    assert_int_equal(qkv_optim_init(&opt, &pb.ps, &cfg, &err), QKV_OK);
    assert_int_equal(qkv_optim_n_slots(&opt), 0);
    set_grads(&pb, 0, 1);
    qkv_optim_step(&opt, 0.1);
    /* w0 = 1 - 0.1 (0.5 + 0.1) = 0.94; w1 = -2 - 0.1 (-1 - 0.2) = -1.88; b0 = 0.3 - 0.01 = 0.29 */
    tu_assert_close(pb.w->data[0], 0.94, 1e-15);
    tu_assert_close(pb.w->data[1], -1.88, 1e-15);
    tu_assert_close(pb.b->data[0], 0.29, 1e-15);
    tu_assert_close(pb.b->data[1], -0.7, 0);
    qkv_optim_free(&opt);
    qkv_params_free(&pb.ps);
}

static void test_defaults_and_names(void **state)
{
    (void)state;
    qkv_optim_config c = qkv_optim_defaults(QKV_OPTIM_ADAM);
    tu_assert_close(c.lr, 1e-3, 0);
    tu_assert_close(c.beta1, 0.9, 0);
    tu_assert_close(c.beta2, 0.999, 0);
    tu_assert_close(c.eps, 1e-8, 0);
    tu_assert_close(c.weight_decay, 0, 0);
    c = qkv_optim_defaults(QKV_OPTIM_ADAMW);
    tu_assert_close(c.weight_decay, 0.01, 0);
    c = qkv_optim_defaults(QKV_OPTIM_SGD);
    tu_assert_close(c.momentum, 0.9, 0);
    assert_string_equal(QKV_OPTIM_KIND_NAMES[QKV_OPTIM_ADAMW], "adamw");
    assert_string_equal(QKV_OPTIM_KIND_NAMES[QKV_OPTIM_SGD], "sgd");
}

static void test_config_errors(void **state)
{
    (void)state;
    problem pb;
    problem_init(&pb, 1);
    qkv_optimizer opt;
    qkv_error err;
    struct {
        const char *field;
        qkv_optim_config cfg;
    } bad[6];
    for (int i = 0; i < 6; i++)
        bad[i].cfg = qkv_optim_defaults(QKV_OPTIM_ADAMW);
    bad[0].field = "beta1";
    bad[0].cfg.beta1 = 1.0;
    bad[1].field = "beta2";
    bad[1].cfg.beta2 = -0.1;
    bad[2].field = "eps";
    bad[2].cfg.eps = 0;
    bad[3].field = "lr";
    bad[3].cfg.lr = NAN;
    bad[4].field = "weight_decay";
    bad[4].cfg.weight_decay = -1;
    bad[5].field = "momentum";
    bad[5].cfg = qkv_optim_defaults(QKV_OPTIM_SGD);
    bad[5].cfg.momentum = 1.5;
    for (int i = 0; i < 6; i++) {
        assert_int_equal(qkv_optim_init(&opt, &pb.ps, &bad[i].cfg, &err), QKV_ERR);
        if (!strstr(err.msg, bad[i].field))
            fail_msg("error for %s does not name it: %s", bad[i].field, err.msg);
        qkv_optim_free(&opt);
    }
    qkv_params_free(&pb.ps);
}

/* Save the state after two steps (moments, step counter, parameters), restore it into a fresh
 * optimizer over a fresh parameter set, take step three in both: bit-identical. */
/* Slot k of the parameter called name, found through its parameter list (as a checkpoint restore
 * by name would); NULL if there is none. */
static qkv_real *slot_by_name(const qkv_optimizer *o, const char *name, int k)
{
    qkv_param *p = qkv_params_find(o->ps, name);
    for (int i = 0; p && i < o->n; i++)
        if (o->ps->items[i] == p)
            return qkv_optim_slot(o, i, k);
    return NULL;
}

static void check_resume(qkv_optim_kind kind)
{
    problem a, b;
    problem_init(&a, 1);
    problem_init(&b, 1);
    qkv_optim_config cfg = qkv_optim_defaults(kind);
    cfg.weight_decay = 0.1;
    qkv_optimizer oa, ob;
    qkv_error err;
    assert_int_equal(qkv_optim_init(&oa, &a.ps, &cfg, &err), QKV_OK);
    assert_int_equal(qkv_optim_init(&ob, &b.ps, &cfg, &err), QKV_OK);
    for (int t = 0; t < 2; t++) {
        set_grads(&a, t, 1);
        qkv_optim_step(&oa, lrs[t]);
    }
    /* restore by name, as a checkpoint would */
    int n_slots = qkv_optim_n_slots(&oa);
    assert_int_equal(n_slots, kind == QKV_OPTIM_SGD ? 1 : 2);
    for (int i = 0; i < a.ps.n; i++) {
        const char *name = a.ps.items[i]->name;
        size_t n = a.ps.items[i]->t.size;
        memcpy(qkv_params_find(&b.ps, name)->t.data, a.ps.items[i]->t.data, n * sizeof(qkv_real));
        for (int k = 0; k < n_slots; k++) {
            qkv_real *dst = slot_by_name(&ob, name, k);
            assert_non_null(dst);
            memcpy(dst, qkv_optim_slot(&oa, i, k), n * sizeof(qkv_real));
        }
    }
    ob.step = oa.step;
    set_grads(&a, 2, 1);
    set_grads(&b, 2, 1);
    qkv_optim_step(&oa, lrs[2]);
    qkv_optim_step(&ob, lrs[2]);
    assert_memory_equal(a.w->data, b.w->data, 3 * sizeof(qkv_real));
    assert_memory_equal(a.b->data, b.b->data, 2 * sizeof(qkv_real));
    for (int i = 0; i < a.ps.n; i++)
        for (int k = 0; k < n_slots; k++)
            assert_memory_equal(qkv_optim_slot(&oa, i, k), qkv_optim_slot(&ob, i, k),
                                a.ps.items[i]->t.size * sizeof(qkv_real));
    /* and the restored run still matches the reference */
    const double(*expected)[5] = kind == QKV_OPTIM_SGD    ? expected_sgd
                                 : kind == QKV_OPTIM_ADAM ? expected_adam
                                                          : expected_adamw;
    check_values(&b, expected[2], 1, 1e-13);
    qkv_optim_free(&oa);
    qkv_optim_free(&ob);
    qkv_params_free(&a.ps);
    qkv_params_free(&b.ps);
}

static void test_state_save_restore(void **state)
{
    (void)state;
    check_resume(QKV_OPTIM_SGD);
    check_resume(QKV_OPTIM_ADAM);
    check_resume(QKV_OPTIM_ADAMW);
}

static void test_state_access(void **state)
{
    (void)state;
    problem pb;
    problem_init(&pb, 1);
    qkv_optim_config cfg = qkv_optim_defaults(QKV_OPTIM_ADAM);
    qkv_optimizer opt;
    qkv_error err;
    assert_int_equal(qkv_optim_init(&opt, &pb.ps, &cfg, &err), QKV_OK);
    assert_string_equal(qkv_optim_slot_name(&opt, 0), "exp_avg");
    assert_string_equal(qkv_optim_slot_name(&opt, 1), "exp_avg_sq");
    assert_null(qkv_optim_slot_name(&opt, 2));
    assert_null(qkv_optim_slot(&opt, 2, 0));
    assert_null(slot_by_name(&opt, "nope", 0));
    set_grads(&pb, 0, 1);
    qkv_optim_step(&opt, 0.1);
    qkv_real *m = qkv_optim_slot(&opt, 0, 0), *v = qkv_optim_slot(&opt, 0, 1);
    assert_int_equal(pb.ps.items[0]->t.size, 3);
    assert_true(((uintptr_t)m & 63) == 0 && ((uintptr_t)v & 63) == 0);
    /* after one step (wd 0): m = 0.1 g, v = 0.001 g^2 */
    for (int j = 0; j < 3; j++) {
        tu_assert_close(m[j], 0.1 * grads[0][j], 1e-16);
        tu_assert_close(v[j], 0.001 * grads[0][j] * grads[0][j], 1e-18);
    }
    assert_ptr_equal(slot_by_name(&opt, "b", 1), qkv_optim_slot(&opt, 1, 1));
    qkv_optim_free(&opt);
    qkv_params_free(&pb.ps);
}

/* ---- clipping ---------------------------------------------------------------------------- */

static void test_clip_above_threshold(void **state)
{
    (void)state;
    problem pb;
    problem_init(&pb, 1);
    const double g[5] = {3, 0, 4, 0, -12}; /* norm sqrt(9 + 16 + 144) = 13 */
    for (int j = 0; j < 3; j++)
        pb.w->grad[j] = g[j];
    pb.b->grad[0] = g[3];
    pb.b->grad[1] = g[4];
    double norm = qkv_clip_grad_norm(&pb.ps, 6.5);
    tu_assert_close(norm, 13, 1e-15);
    double s = 6.5 / (13 + 1e-6);
    tu_assert_close(pb.w->grad[0], 3 * s, 1e-15);
    tu_assert_close(pb.w->grad[2], 4 * s, 1e-15);
    tu_assert_close(pb.b->grad[1], -12 * s, 1e-15);
    /* the clipped norm is just under max_norm */
    double after = qkv_clip_grad_norm(&pb.ps, 0);
    tu_assert_close(after, 6.5 * 13 / (13 + 1e-6), 1e-14);
    assert_true(after < 6.5);
    qkv_params_free(&pb.ps);
}

static void test_clip_below_threshold(void **state)
{
    (void)state;
    problem pb;
    problem_init(&pb, 1);
    set_grads(&pb, 2, 1);
    /* norm^2 = 0.04 + 0.01 + 0.36 + 0.16 + 0.09 = 0.66 */
    double norm = qkv_clip_grad_norm(&pb.ps, 1.0);
    tu_assert_close(norm, sqrt(0.66), 1e-15);
    for (int j = 0; j < 3; j++)
        tu_assert_close(pb.w->grad[j], grads[2][j], 0);
    /* max_norm 0 only measures; zero gradients give a zero norm */
    set_grads(&pb, 0, 1);
    qkv_clip_grad_norm(&pb.ps, 0);
    tu_assert_close(pb.w->grad[1], -1.0, 0);
    qkv_params_zero_grad(&pb.ps);
    tu_assert_close(qkv_clip_grad_norm(&pb.ps, 1.0), 0, 0);
    qkv_params_free(&pb.ps);
}

static void test_clip_non_finite(void **state)
{
    (void)state;
    problem pb;
    problem_init(&pb, 1);
    set_grads(&pb, 0, 1);
    pb.b->grad[1] = NAN;
    assert_true(isnan(qkv_clip_grad_norm(&pb.ps, 0.1)));
    tu_assert_close(pb.w->grad[0], 0.5, 0); /* not scaled */
    pb.b->grad[1] = INFINITY;
    assert_true(isinf(qkv_clip_grad_norm(&pb.ps, 0.1)));
    tu_assert_close(pb.w->grad[1], -1.0, 0);
    qkv_params_free(&pb.ps);
}

/* A large tensor: the norm matches a long double sum, and is bit-identical for 1 and 2 threads. */
static void test_clip_large_deterministic(void **state)
{
    (void)state;
    qkv_params ps;
    qkv_params_init(&ps);
    qkv_error err;
    const int n = 3 * 4096 * 256 + 1234; /* more than one batch of blocks, a partial last block */
    qkv_tensor *t = qkv_params_add(&ps, &err, 1, (int[]){n}, "big");
    long double ref = 0;
    for (int j = 0; j < n; j++) {
        t->grad[j] = sin(0.001 * j);
        ref += (long double)t->grad[j] * t->grad[j];
    }
    int threads = omp_get_max_threads();
    omp_set_num_threads(1);
    double one = qkv_clip_grad_norm(&ps, 0);
    omp_set_num_threads(2);
    double two = qkv_clip_grad_norm(&ps, 0);
    omp_set_num_threads(threads);
    assert_memory_equal(&one, &two, sizeof one);
    tu_assert_close(one, sqrtl(ref), 1e-12 * one);
    qkv_params_free(&ps);
}

/* ---- clipping folded into the update ------------------------------------------------------- */

/* qkv_optim_step_scaled(lr, s) on gradients g gives the parameters and state of
 * qkv_optim_step(lr) on gradients s·g, for every kind, and leaves .grad as it was. */
static void scaled_matches_prescaled(qkv_optim_kind kind, double momentum, int reps)
{
    const double s = 0.37;
    problem a, b;
    problem_init(&a, reps);
    problem_init(&b, reps);
    qkv_optim_config cfg = qkv_optim_defaults(kind);
    cfg.weight_decay = 0.1;
    cfg.momentum = momentum;
    qkv_optimizer oa, ob;
    qkv_error err;
    assert_int_equal(qkv_optim_init(&oa, &a.ps, &cfg, &err), QKV_OK);
    assert_int_equal(qkv_optim_init(&ob, &b.ps, &cfg, &err), QKV_OK);
    for (int t = 0; t < 3; t++) {
        set_grads(&a, t, reps);
        set_grads(&b, t, reps);
        for (int i = 0; i < a.ps.n; i++)
            for (size_t j = 0; j < a.ps.items[i]->t.size; j++)
                a.ps.items[i]->t.grad[j] *= s;
        qkv_optim_step(&oa, lrs[t]);
        qkv_optim_step_scaled(&ob, lrs[t], s);
        for (int i = 0; i < a.ps.n; i++)
            for (size_t j = 0; j < a.ps.items[i]->t.size; j++) {
                tu_assert_close(b.ps.items[i]->t.data[j], a.ps.items[i]->t.data[j], 1e-15);
                for (int k = 0; k < qkv_optim_n_slots(&oa); k++)
                    tu_assert_close(qkv_optim_slot(&ob, i, k)[j], qkv_optim_slot(&oa, i, k)[j], 1e-15);
            }
        tu_assert_close(b.w->grad[0], grads[t][0], 0); /* read scaled, not written */
        tu_assert_close(b.b->grad[1], grads[t][4], 0);
    }
    qkv_optim_free(&oa);
    qkv_optim_free(&ob);
    qkv_params_free(&a.ps);
    qkv_params_free(&b.ps);
}

static void test_step_scaled(void **state)
{
    (void)state;
    for (int reps = 1; reps <= 20000; reps *= 20000) { /* 20000: the OpenMP loops */
        scaled_matches_prescaled(QKV_OPTIM_ADAMW, 0, reps);
        scaled_matches_prescaled(QKV_OPTIM_ADAM, 0, reps);
        scaled_matches_prescaled(QKV_OPTIM_SGD, 0.9, reps);
        scaled_matches_prescaled(QKV_OPTIM_SGD, 0, reps);
    }
}

/* The factor is the one qkv_clip_grad_norm scales by, 1 where it scales nothing. */
static void test_clip_scale(void **state)
{
    (void)state;
    tu_assert_close(qkv_clip_scale(13, 6.5), 6.5 / (13 + 1e-6), 1e-16);
    tu_assert_close(qkv_clip_scale(0.5, 1), 1, 0);
    tu_assert_close(qkv_clip_scale(1, 1), 1, 0);
    tu_assert_close(qkv_clip_scale(13, 0), 1, 0);
    tu_assert_close(qkv_clip_scale(NAN, 1), 1, 0);
    tu_assert_close(qkv_clip_scale(INFINITY, 1), 1, 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_sgd_momentum_three_steps),
        cmocka_unit_test(test_adam_three_steps),
        cmocka_unit_test(test_adamw_three_steps),
        cmocka_unit_test(test_large_tensors_parallel),
        cmocka_unit_test(test_sgd_plain),
        cmocka_unit_test(test_defaults_and_names),
        cmocka_unit_test(test_config_errors),
        cmocka_unit_test(test_state_save_restore),
        cmocka_unit_test(test_state_access),
        cmocka_unit_test(test_clip_above_threshold),
        cmocka_unit_test(test_clip_below_threshold),
        cmocka_unit_test(test_clip_non_finite),
        cmocka_unit_test(test_clip_large_deterministic),
        cmocka_unit_test(test_step_scaled),
        cmocka_unit_test(test_clip_scale),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
