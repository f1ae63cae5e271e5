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

int qkv_gradcheck(qkv_tape *tp, qkv_forward_fn forward, void *user, int n, qkv_tensor *const *tensors,
                  const char *const *names, const qkv_gradcheck_opts *opts,
                  qkv_gradcheck_result *results, qkv_error *err)
{
    qkv_rng rng0 = {{0}}, sampler;
    if (tp->rng)
        rng0 = *tp->rng;
    qkv_rng_seed(&sampler, opts->seed);
    for (int t = 0; t < n; t++) {
        if (!tensors[t]->requires_grad || !tensors[t]->grad)
            return qkv_fail(err, "gradcheck: %s does not own a gradient (use a parameter)", names[t]);
        memset(tensors[t]->grad, 0, tensors[t]->size * sizeof(qkv_real));
    }

    /* Analytic gradients. */
    qkv_tape_reset(tp);
    if (tp->rng)
        *tp->rng = rng0;
    qkv_tensor *out = forward(tp, user);
    if (tp->failed || !out)
        return qkv_fail(err, "forward failed: %s", tp->err.msg);
    size_t r_size = out->size;
    double *r = malloc(r_size * sizeof *r);
    qkv_real *r_real = qkv_tape_alloc(tp, r_size * sizeof *r_real);
    double **analytic = calloc((size_t)n, sizeof *analytic);
    int status = QKV_OK;
    if (!r || !r_real || !analytic) {
        status = qkv_fail(err, "gradcheck: out of memory");
        goto done;
    }
    for (size_t i = 0; i < r_size; i++) {
        r[i] = 2.0 * qkv_rng_uniform(&sampler) - 1.0;
        r_real[i] = (qkv_real)r[i];
    }
    if (qkv_backward_from(tp, out, r_real) != QKV_OK) {
        status = qkv_fail(err, "backward failed: %s", tp->err.msg);
        goto done;
    }
    for (int t = 0; t < n; t++) {
        analytic[t] = malloc(tensors[t]->size * sizeof(double));
        if (!analytic[t]) {
            status = qkv_fail(err, "gradcheck: out of memory");
            goto done;
        }
        for (size_t i = 0; i < tensors[t]->size; i++)
            analytic[t][i] = (double)tensors[t]->grad[i];
    }

    /* Numeric gradients, element by element. */
    int first_failure = -1;
    for (int t = 0; t < n && status == QKV_OK; t++) {
        qkv_tensor *x = tensors[t];
        qkv_gradcheck_result *res = &results[t];
        memset(res, 0, sizeof *res);
        res->name = names[t];
        double worst_excess = -INFINITY;
        const size_t *cand = opts->candidates ? opts->candidates[t] : NULL;
        size_t pool = cand ? opts->n_candidates[t] : x->size;
        bool sample = opts->max_samples && pool > opts->max_samples;
        size_t count = sample ? opts->max_samples : pool;
        for (size_t s = 0; s < count; s++) {
            size_t j = sample ? (size_t)qkv_rng_below(&sampler, pool) : s;
            size_t i = cand ? cand[j] : j;
            qkv_real orig = x->data[i];
            double plus, minus;
            x->data[i] = (qkv_real)(orig + opts->eps);
            status = eval_loss(tp, forward, user, &rng0, r, r_size, &plus, err);
            x->data[i] = (qkv_real)(orig - opts->eps);
            if (status == QKV_OK)
                status = eval_loss(tp, forward, user, &rng0, r, r_size, &minus, err);
            x->data[i] = orig;
            if (status != QKV_OK)
                break;
            double numeric = (plus - minus) / (2.0 * opts->eps);
            double a = analytic[t][i];
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
            if (excess > worst_excess || isnan(excess)) {
                worst_excess = isnan(excess) ? INFINITY : excess;
                res->worst = i;
                res->analytic = a;
                res->numeric = numeric;
            }
        }
        if (res->failed && first_failure < 0) {
            first_failure = t;
            qkv_fail(err, "gradcheck: %s element %zu: analytic %.10g, numeric %.10g (%zu of %zu elements fail)",
                     res->name, res->worst, res->analytic, res->numeric, res->failed, res->checked);
        }
    }
    if (status == QKV_OK && first_failure >= 0)
        status = 1;

done:
    /* Leave the tensors' gradients as the analytic pass computed them. */
    if (analytic)
        for (int t = 0; t < n; t++)
            if (analytic[t])
                for (size_t i = 0; i < tensors[t]->size; i++)
                    tensors[t]->grad[i] = (qkv_real)analytic[t][i];
    if (analytic)
        for (int t = 0; t < n; t++)
            free(analytic[t]);
    free(analytic);
    free(r);
    qkv_tape_reset(tp);
    if (tp->rng)
        *tp->rng = rng0;
    return status;
}
