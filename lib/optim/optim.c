/* SGD with momentum, Adam, AdamW and gradient clipping; the formulas are in lib/optim/optim.h. */
#include "lib/optim/optim.h"
#include "lib/parallel.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* State buffers start on 64-byte boundaries (one cache line, one AVX-512 vector). */
#define ALIGN_BYTES 64
#define ALIGN_ELEMS (ALIGN_BYTES / sizeof(qkv_real))

qkv_optim_config qkv_optim_defaults(qkv_optim_kind kind)
{
    qkv_optim_config c = {.kind = kind, .beta1 = 0.9, .beta2 = 0.999, .eps = 1e-8};
    switch (kind) {
    case QKV_OPTIM_SGD:
        c.lr = 0.01;
        c.momentum = 0.9;
        break;
    case QKV_OPTIM_ADAM:
        c.lr = 1e-3;
        break;
    case QKV_OPTIM_ADAMW:
        c.lr = 1e-3;
        c.weight_decay = 0.01;
        break;
    case QKV_OPTIM_COUNT:
        break;
    }
    return c;
}

const char *const QKV_OPTIM_KIND_NAMES[] = {"adamw", "adam", "sgd", NULL};
_Static_assert(sizeof QKV_OPTIM_KIND_NAMES / sizeof QKV_OPTIM_KIND_NAMES[0] == QKV_OPTIM_COUNT + 1,
               "one name per qkv_optim_kind");

static int check_config(const qkv_optim_config *c, qkv_error *err)
{
    if ((unsigned)c->kind >= QKV_OPTIM_COUNT)
        return qkv_fail(err, "optimizer kind %d is not sgd, adam or adamw", (int)c->kind);
    if (!(isfinite(c->lr) && c->lr >= 0))
        return qkv_fail(err, "optimizer lr = %g, must be finite and >= 0", c->lr);
    if (!(isfinite(c->weight_decay) && c->weight_decay >= 0))
        return qkv_fail(err, "optimizer weight_decay = %g, must be finite and >= 0", c->weight_decay);
    if (c->kind == QKV_OPTIM_SGD) {
        if (!(c->momentum >= 0 && c->momentum < 1))
            return qkv_fail(err, "optimizer momentum = %g, must be in [0, 1)", c->momentum);
        return QKV_OK;
    }
    if (!(c->beta1 >= 0 && c->beta1 < 1))
        return qkv_fail(err, "optimizer beta1 = %g, must be in [0, 1)", c->beta1);
    if (!(c->beta2 >= 0 && c->beta2 < 1))
        return qkv_fail(err, "optimizer beta2 = %g, must be in [0, 1)", c->beta2);
    if (!(isfinite(c->eps) && c->eps > 0))
        return qkv_fail(err, "optimizer eps = %g, must be finite and > 0", c->eps);
    return QKV_OK;
}

static size_t padded(size_t n) { return (n + ALIGN_ELEMS - 1) / ALIGN_ELEMS * ALIGN_ELEMS; }

int qkv_optim_init(qkv_optimizer *o, qkv_params *ps, const qkv_optim_config *cfg, qkv_error *err)
{
    memset(o, 0, sizeof *o);
    if (check_config(cfg, err) != QKV_OK)
        return QKV_ERR;
    o->cfg = *cfg;
    o->ps = ps;
    o->n = ps->n;
    o->n_slots = cfg->kind == QKV_OPTIM_SGD ? (cfg->momentum > 0 ? 1 : 0) : 2;
    if (o->n == 0)
        return QKV_OK;
    o->rows = calloc((size_t)o->n, sizeof *o->rows);
    if (!o->rows) {
        qkv_optim_free(o);
        return qkv_fail(err, "out of memory for the optimizer state");
    }
    if (o->n_slots == 0)
        return QKV_OK;
    size_t per_slot = 0;
    for (int i = 0; i < o->n; i++)
        per_slot += padded(ps->items[i]->t.size);
    size_t bytes = (size_t)o->n_slots * per_slot * sizeof(qkv_real);
    o->mem = aligned_alloc(ALIGN_BYTES, bytes);
    for (int k = 0; k < o->n_slots; k++)
        o->slot[k] = malloc((size_t)o->n * sizeof(qkv_real *));
    if (!o->mem || !o->slot[0] || (o->n_slots > 1 && !o->slot[1])) {
        qkv_optim_free(o);
        return qkv_fail(err, "out of memory for the optimizer state (%zu bytes)", bytes);
    }
    memset(o->mem, 0, bytes);
    qkv_real *at = o->mem;
    for (int k = 0; k < o->n_slots; k++)
        for (int i = 0; i < o->n; i++) {
            o->slot[k][i] = at;
            at += padded(ps->items[i]->t.size);
        }
    return QKV_OK;
}

void qkv_optim_free(qkv_optimizer *o)
{
    free(o->mem);
    for (int k = 0; k < QKV_OPTIM_MAX_SLOTS; k++)
        free(o->slot[k]);
    free(o->rows);
    memset(o, 0, sizeof *o);
}

/* ---- update loops ---------------------------------------------------------------------- */

/* Every loop reads the gradient as gs·g: gs is the clipping factor (1 when nothing is clipped),
 * so clipping costs no pass of its own over the gradients. */
static void sgd_plain(qkv_real *restrict p, const qkv_real *restrict g, size_t n, qkv_real lr, qkv_real wd,
                      qkv_real gs)
{
    QKV_FOR_ELEMENTS(j, n, p[j] -= lr * (g[j] * gs + wd * p[j]););
}

static void sgd_momentum(qkv_real *restrict p, const qkv_real *restrict g, qkv_real *restrict buf, size_t n,
                         qkv_real lr, qkv_real wd, qkv_real mu, qkv_real gs)
{
    QKV_FOR_ELEMENTS(j, n, {
        qkv_real b = mu * buf[j] + (g[j] * gs + wd * p[j]);
        buf[j] = b;
        p[j] -= lr * b;
    });
}

/* Adam with L2 term l2 (Adam) and multiplicative decay `keep` = 1 − lr·wd (AdamW); gs the
 * gradient's factor (all three kinds). */
typedef struct {
    qkv_real b1, one_minus_b1, b2, one_minus_b2, step_size, bc2_sqrt, eps, l2, keep, gs;
} adam_coef;

static void adam_update(qkv_real *restrict p, const qkv_real *restrict g, qkv_real *restrict m,
                        qkv_real *restrict v, size_t n, const adam_coef *c)
{
    /* local copies: the vectorizer keeps them in registers in both loop forms */
    const qkv_real b1 = c->b1, c1 = c->one_minus_b1, b2 = c->b2, c2 = c->one_minus_b2;
    const qkv_real step_size = c->step_size, bc2_sqrt = c->bc2_sqrt, eps = c->eps, l2 = c->l2,
                   keep = c->keep, gs = c->gs;
    QKV_FOR_ELEMENTS(j, n, {
        qkv_real gj = g[j] * gs + l2 * p[j];
        qkv_real mj = b1 * m[j] + c1 * gj;
        qkv_real vj = b2 * v[j] + c2 * gj * gj;
        m[j] = mj;
        v[j] = vj;
        qkv_real denom = qkv_rsqrt(vj) / bc2_sqrt + eps;
        p[j] = p[j] * keep - step_size * mj / denom;
    });
}

/* The update of elements [off, off + n) of parameter i. */
static void update_span(const qkv_optimizer *o, int i, size_t off, size_t n, qkv_real lr, const adam_coef *k)
{
    const qkv_param *pp = o->ps->items[i];
    qkv_real *p = pp->t.data + off;
    const qkv_real *g = pp->t.grad + off;
    if (o->cfg.kind != QKV_OPTIM_SGD)
        adam_update(p, g, o->slot[0][i] + off, o->slot[1][i] + off, n, k);
    else if (o->n_slots)
        sgd_momentum(p, g, o->slot[0][i] + off, n, lr, k->l2, (qkv_real)o->cfg.momentum, k->gs);
    else
        sgd_plain(p, g, n, lr, k->l2, k->gs);
}

/* Lazy update of parameter i: its rows in o->rows[i] only, split over threads when there is
 * enough work (rows are independent: the same result for any number of threads). */
static void update_rows(const qkv_optimizer *o, int i, qkv_real lr, const adam_coef *k)
{
    const qkv_row_set *rs = o->rows[i];
    size_t d = (size_t)o->ps->items[i]->t.shape[1];
    QKV_FOR_ROWS(int, r, rs->n, (size_t)rs->n * d >= QKV_PARALLEL_MIN,
                 update_span(o, i, (size_t)rs->rows[r] * d, d, lr, k););
}

int qkv_optim_set_rows(qkv_optimizer *o, int i, const qkv_row_set *rows, qkv_error *err)
{
    if (i < 0 || i >= o->n)
        return qkv_fail(err, "optimizer: parameter %d is outside 0..%d", i, o->n - 1);
    const qkv_param *pp = o->ps->items[i];
    if (rows && (pp->t.rank != 2 || rows->n_total != pp->t.shape[0]))
        return qkv_fail(err, "optimizer: lazy rows of %s: it must be a matrix of %d rows", pp->name,
                        rows->n_total);
    o->rows[i] = rows;
    return QKV_OK;
}

void qkv_optim_step(qkv_optimizer *o, double lr) { qkv_optim_step_scaled(o, lr, 1); }

void qkv_optim_step_scaled(qkv_optimizer *o, double lr, double grad_scale)
{
    const qkv_optim_config *c = &o->cfg;
    o->step++;
    adam_coef k = {.gs = (qkv_real)grad_scale};
    if (c->kind != QKV_OPTIM_SGD) {
        double t = (double)o->step;
        k.b1 = (qkv_real)c->beta1;
        k.one_minus_b1 = (qkv_real)(1 - c->beta1);
        k.b2 = (qkv_real)c->beta2;
        k.one_minus_b2 = (qkv_real)(1 - c->beta2);
        k.step_size = (qkv_real)(lr / (1 - pow(c->beta1, t)));
        k.bc2_sqrt = (qkv_real)sqrt(1 - pow(c->beta2, t));
        k.eps = (qkv_real)c->eps;
    }
    for (int i = 0; i < o->n; i++) {
        qkv_param *pp = o->ps->items[i];
        double wd = pp->no_weight_decay ? 0 : c->weight_decay;
        k.l2 = (qkv_real)(c->kind == QKV_OPTIM_ADAMW ? 0 : wd); /* SGD and Adam: an L2 term */
        k.keep = (qkv_real)(c->kind == QKV_OPTIM_ADAMW ? 1 - lr * wd : 1);
        if (o->rows[i])
            update_rows(o, i, (qkv_real)lr, &k);
        else
            update_span(o, i, 0, pp->t.size, (qkv_real)lr, &k);
    }
}

/* ---- state access ---------------------------------------------------------------------- */

int qkv_optim_n_slots(const qkv_optimizer *o) { return o->n_slots; }

const char *qkv_optim_slot_name(const qkv_optimizer *o, int k)
{
    if (k < 0 || k >= o->n_slots)
        return NULL;
    if (o->cfg.kind == QKV_OPTIM_SGD)
        return "momentum_buffer";
    return k == 0 ? "exp_avg" : "exp_avg_sq";
}

qkv_real *qkv_optim_slot(const qkv_optimizer *o, int i, int k)
{
    if (i < 0 || i >= o->n || k < 0 || k >= o->n_slots)
        return NULL;
    return o->slot[k][i];
}

/* ---- clipping -------------------------------------------------------------------------- */

/* The squared norm is summed over blocks of CLIP_BLOCK elements; up to CLIP_BATCH block sums
 * are computed in parallel into a stack array and then added in block order, so no thread
 * count changes the result and nothing is allocated. */
#define CLIP_BLOCK 4096
#define CLIP_BATCH 256

static double block_sum_squares(const qkv_real *g, size_t lo, size_t hi)
{
    double s = 0;
#pragma omp simd reduction(+ : s)
    for (size_t j = lo; j < hi; j++)
        s += (double)g[j] * (double)g[j];
    return s;
}

static double sum_squares(const qkv_real *g, size_t n)
{
    double total = 0, partial[CLIP_BATCH];
    size_t n_blocks = (n + CLIP_BLOCK - 1) / CLIP_BLOCK;
    for (size_t b0 = 0; b0 < n_blocks; b0 += CLIP_BATCH) {
        int nb = (int)(n_blocks - b0 < CLIP_BATCH ? n_blocks - b0 : CLIP_BATCH);
        QKV_FOR_ROWS(int, b, nb, n >= QKV_PARALLEL_MIN, {
            size_t lo = (b0 + (size_t)b) * CLIP_BLOCK;
            partial[b] = block_sum_squares(g, lo, lo + CLIP_BLOCK < n ? lo + CLIP_BLOCK : n);
        });
        for (int b = 0; b < nb; b++)
            total += partial[b];
    }
    return total;
}

static void scale(qkv_real *restrict g, size_t n, qkv_real s)
{
    QKV_FOR_ELEMENTS(j, n, g[j] *= s;);
}

double qkv_clip_scale(double norm, double max_norm)
{
    if (!isfinite(norm) || !(max_norm > 0) || norm <= max_norm)
        return 1;
    return max_norm / (norm + 1e-6);
}

double qkv_clip_grad_norm(qkv_params *ps, double max_norm)
{
    double sq = 0;
    for (int i = 0; i < ps->n; i++)
        sq += sum_squares(ps->items[i]->t.grad, ps->items[i]->t.size);
    double norm = sqrt(sq);
    if (qkv_clip_scale(norm, max_norm) == 1)
        return norm;
    qkv_real s = (qkv_real)qkv_clip_scale(norm, max_norm);
    for (int i = 0; i < ps->n; i++)
        scale(ps->items[i]->t.grad, ps->items[i]->t.size, s);
    return norm;
}
