#include "lib/gradcheck.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* L = sum(out ⊙ R) for one forward call, with the rng restored first. */
static int eval_loss(qkv_tape *tp, qkv_forward_fn forward, void *user, const qkv_rng *rng0,
                     const double *r, size_t r_size, double *loss, qkv_error *err)
{
    qkv_tape_reset(tp);
    if (tp->rng)
        *tp->rng = *rng0;
    qkv_tensor *out = forward(tp, user);
    if (tp->failed || !out)
        return qkv_fail(err, "forward failed: %s", tp->err.msg);
    if (out->size != r_size)
        return qkv_fail(err, "forward output changed size (%zu, was %zu)", out->size, r_size);
    double s = 0;
    for (size_t i = 0; i < out->size; i++)
        s += (double)out->data[i] * r[i];
    *loss = s;
    return QKV_OK;
}

/* One run's state: the probe R (double, and as qkv_real for the backward seed), the analytic
 * gradients of every tensor, the rng as the caller left it. */
typedef struct check_run {
    qkv_tape *tp;
    qkv_forward_fn forward;
    void *user;
    qkv_rng rng0, sampler;
    double *r;
    size_t r_size;
    double **analytic;
} check_run;

/* The analytic pass: draws R, backpropagates dL/dout = R and keeps each tensor's gradient. */
static int analytic_pass(check_run *c, int n, qkv_tensor *const *tensors, qkv_error *err)
{
    qkv_tape *tp = c->tp;
    qkv_tape_reset(tp);
    if (tp->rng)
        *tp->rng = c->rng0;
    qkv_tensor *out = c->forward(tp, c->user);
    if (tp->failed || !out)
        return qkv_fail(err, "forward failed: %s", tp->err.msg);
    c->r_size = out->size;
    c->r = malloc(c->r_size * sizeof *c->r);
    qkv_real *r_real = qkv_tape_alloc(tp, c->r_size * sizeof *r_real);
    c->analytic = calloc((size_t)n, sizeof *c->analytic);
    if (!c->r || !r_real || !c->analytic)
        return qkv_fail(err, "gradcheck: out of memory");
    for (size_t i = 0; i < c->r_size; i++) {
        c->r[i] = 2.0 * qkv_rng_uniform(&c->sampler) - 1.0;
        r_real[i] = (qkv_real)c->r[i];
    }
    if (qkv_backward_from(tp, out, r_real) != QKV_OK)
        return qkv_fail(err, "backward failed: %s", tp->err.msg);
    for (int t = 0; t < n; t++) {
        c->analytic[t] = malloc(tensors[t]->size * sizeof(double));
        if (!c->analytic[t])
            return qkv_fail(err, "gradcheck: out of memory");
        for (size_t i = 0; i < tensors[t]->size; i++)
            c->analytic[t][i] = (double)tensors[t]->grad[i];
    }
    return QKV_OK;
}

/* Records element i's analytic gradient a against the central difference numeric in res. */
static void compare(qkv_gradcheck_result *res, const qkv_gradcheck_opts *opts, size_t i, double a, double numeric,
                    double *worst_excess)
{
    double abs_err = fabs(a - numeric);
    double rel_err = abs_err / fmax(fabs(numeric), 1e-12);
    double excess = abs_err - (opts->atol + opts->rtol * fabs(numeric));
    res->checked++;
    if (abs_err > res->max_abs_err)
        res->max_abs_err = abs_err;
    if (rel_err > res->max_rel_err)
        res->max_rel_err = rel_err;
    if (!(excess <= 0)) /* NaN fails too */
        res->failed++;
    if (excess > *worst_excess || isnan(excess)) {
        *worst_excess = isnan(excess) ? INFINITY : excess;
        res->worst = i;
        res->analytic = a;
        res->numeric = numeric;
    }
}

/* Numeric gradients of tensor t, element by element (all, or a sample of the candidates). */
static int numeric_pass(check_run *c, int t, qkv_tensor *x, const qkv_gradcheck_opts *opts, qkv_gradcheck_result *res,
                        qkv_error *err)
{
    double worst_excess = -INFINITY;
    const size_t *cand = opts->candidates ? opts->candidates[t] : NULL;
    size_t pool = cand ? opts->n_candidates[t] : x->size;
    bool sample = opts->max_samples && pool > opts->max_samples;
    size_t count = sample ? opts->max_samples : pool;
    for (size_t s = 0; s < count; s++) {
        size_t j = sample ? (size_t)qkv_rng_below(&c->sampler, pool) : s;
        size_t i = cand ? cand[j] : j;
        qkv_real orig = x->data[i];
        double plus, minus;
        x->data[i] = (qkv_real)(orig + opts->eps);
        int status = eval_loss(c->tp, c->forward, c->user, &c->rng0, c->r, c->r_size, &plus, err);
        x->data[i] = (qkv_real)(orig - opts->eps);
        if (status == QKV_OK)
            status = eval_loss(c->tp, c->forward, c->user, &c->rng0, c->r, c->r_size, &minus, err);
        x->data[i] = orig;
        if (status != QKV_OK)
            return status;
        compare(res, opts, i, c->analytic[t][i], (plus - minus) / (2.0 * opts->eps), &worst_excess);
    }
    return QKV_OK;
}

/* Leaves the tensors' gradients as the analytic pass computed them, and the tape and rng as
 * the caller had them. */
static void finish(check_run *c, int n, qkv_tensor *const *tensors)
{
    if (c->analytic)
        for (int t = 0; t < n; t++) {
            if (c->analytic[t])
                for (size_t i = 0; i < tensors[t]->size; i++)
                    tensors[t]->grad[i] = (qkv_real)c->analytic[t][i];
            free(c->analytic[t]);
        }
    free(c->analytic);
    free(c->r);
    qkv_tape_reset(c->tp);
    if (c->tp->rng)
        *c->tp->rng = c->rng0;
}

int qkv_gradcheck(qkv_tape *tp, qkv_forward_fn forward, void *user, int n, qkv_tensor *const *tensors,
                  const char *const *names, const qkv_gradcheck_opts *opts,
                  qkv_gradcheck_result *results, qkv_error *err)
{
    check_run c = {.tp = tp, .forward = forward, .user = user};
    if (tp->rng)
        c.rng0 = *tp->rng;
    qkv_rng_seed(&c.sampler, opts->seed);
    for (int t = 0; t < n; t++) {
        if (!tensors[t]->requires_grad || !tensors[t]->grad)
            return qkv_fail(err, "gradcheck: %s does not own a gradient (use a parameter)", names[t]);
        memset(tensors[t]->grad, 0, tensors[t]->size * sizeof(qkv_real));
    }
    int status = analytic_pass(&c, n, tensors, err);
    int first_failure = -1;
    for (int t = 0; t < n && status == QKV_OK; t++) {
        qkv_gradcheck_result *res = &results[t];
        memset(res, 0, sizeof *res);
        res->name = names[t];
        status = numeric_pass(&c, t, tensors[t], opts, res, err);
        if (status == QKV_OK && res->failed && first_failure < 0) {
            first_failure = t;
            qkv_fail(err, "gradcheck: %s element %zu: analytic %.10g, numeric %.10g (%zu of %zu elements fail)",
                     res->name, res->worst, res->analytic, res->numeric, res->failed, res->checked);
        }
    }
    if (status == QKV_OK && first_failure >= 0)
        status = 1;
    finish(&c, n, tensors);
    return status;
}
