/* FLOATER positions: the ODE's right-hand side and the unrolled RK4 solver, built from the
 * tape's ops. See lib/nn/floater.h. */
#include "lib/nn/floater.h"

#include <string.h>

#include "lib/ops/concat.h"
#include "lib/ops/ops.h"

int qkv_floater_create(qkv_floater *f, qkv_params *ps, qkv_rng *rng, const char *prefix, int d_model,
                       qkv_error *err)
{
    memset(f, 0, sizeof *f);
    if (d_model < 1)
        return qkv_fail(err, "%s: d_model %d must be positive", prefix, d_model);
    f->d_model = d_model;
    int H = QKV_FLOATER_HIDDEN;
    qkv_tensor **ts[6] = {&f->p0, &f->w1, &f->b1, &f->w_t, &f->w2, &f->b2};
    static const char *names[6] = {"p0", "w1", "b1", "w_t", "w2", "b2"};
    const int shapes[6][2] = {{1, d_model}, {H, d_model}, {H, 0}, {H, 0}, {d_model, H}, {d_model, 0}};
    for (int k = 0; k < 6; k++) {
        *ts[k] = qkv_params_add(ps, err, shapes[k][1] ? 2 : 1, shapes[k], "%s.%s", prefix, names[k]);
        if (!*ts[k])
            return QKV_ERR;
    }
    qkv_init_normal(f->p0, rng, 0.02);
    qkv_init_xavier_uniform(f->w1, rng);
    qkv_init_normal(f->w_t, rng, 1.0);
    qkv_init_xavier_uniform(f->w2, rng);
    return QKV_OK;
}

/* h(t, p) for p [1, d_model] -> [1, d_model]. */
static qkv_tensor *rhs(qkv_tape *tp, const qkv_floater *f, double t, qkv_tensor *p)
{
    qkv_tensor *z = qkv_linear(tp, p, f->w1, f->b1);
    if (t != 0)
        z = qkv_add_bias(tp, z, qkv_scale(tp, f->w_t, t));
    return qkv_linear(tp, qkv_gelu(tp, z, QKV_GELU_ERF), f->w2, f->b2);
}

/* p + s·k */
static qkv_tensor *axpy(qkv_tape *tp, qkv_tensor *p, double s, qkv_tensor *k)
{
    return qkv_add(tp, p, qkv_scale(tp, k, s));
}

qkv_tensor *qkv_floater_positions(qkv_tape *tp, const qkv_floater *f, int n)
{
    if (tp->failed)
        return NULL;
    if (n < 1)
        return qkv_tape_fail(tp, "floater: %d positions, need at least 1", n);
    qkv_tensor **rows = qkv_tape_alloc(tp, (size_t)n * sizeof *rows);
    if (!rows)
        return NULL;
    qkv_tensor *p = f->p0;
    const double dt = QKV_FLOATER_DT;
    rows[0] = p;
    for (int i = 1; i < n && p; i++) {
        double t = (i - 1) * dt;
        qkv_tensor *k1 = rhs(tp, f, t, p);
        qkv_tensor *k2 = rhs(tp, f, t + dt / 2, axpy(tp, p, dt / 2, k1));
        qkv_tensor *k3 = rhs(tp, f, t + dt / 2, axpy(tp, p, dt / 2, k2));
        qkv_tensor *k4 = rhs(tp, f, t + dt, axpy(tp, p, dt, k3));
        qkv_tensor *sum = qkv_add(tp, qkv_add(tp, k1, k4), qkv_scale(tp, qkv_add(tp, k2, k3), 2.0));
        p = axpy(tp, p, dt / 6, sum);
        rows[i] = p;
    }
    if (!p)
        return NULL;
    return qkv_concat_rows_many(tp, n, rows);
}
