/* Optimizers over a parameter set: SGD with momentum, Adam and AdamW; clipping by the global
 * gradient norm.
 *
 * Update rules (g = gradient, p = parameter, t = step count after increment, lr = the rate
 * passed to qkv_optim_step):
 *
 *   SGD (torch.optim.SGD, dampening 0, no Nesterov):
 *       g <- g + wd·p                       (L2 decay, when wd > 0)
 *       buf <- mu·buf + g;  p <- p − lr·buf (momentum mu > 0; buf starts at 0)
 *       p <- p − lr·g                       (mu = 0: no state at all)
 *   Adam (Kingma & Ba 2015, Algorithm 1; torch.optim.Adam, amsgrad off):
 *       g <- g + wd·p                       (L2 decay added to the gradient, when wd > 0)
 *       m <- b1·m + (1−b1)·g
 *       v <- b2·v + (1−b2)·g²
 *       p <- p − (lr / (1−b1^t)) · m / (sqrt(v) / sqrt(1−b2^t) + eps)
 *   AdamW (Loshchilov & Hutter 2019, decoupled decay; torch.optim.AdamW):
 *       p <- p·(1 − lr·wd), then the Adam update above without the L2 term.
 *
 * Parameters with no_weight_decay set (biases, norms, tables) skip the decay term in all three.
 * The element loops run in qkv_real (like PyTorch for float parameters); coefficients are
 * computed in double. Large tensors are split over OpenMP threads; every element's update is
 * independent, so the result does not depend on the number of threads.
 *
 * One step counter is shared by all parameters (PyTorch keeps one per parameter; they agree
 * because every parameter is updated at every step here, a zero gradient included).
 *
 * Lazy (sparse) update of a matrix [V, D] (qkv_optim_set_rows; `optim.sparse_embeddings`):
 * only the rows of its row set are updated, each by exactly the formulas above with the
 * shared step t (so the bias corrections 1−b1^t, 1−b2^t count every step of the run, not the
 * steps that touched the row) and, for AdamW, the decay factor 1 − lr·wd applied to those rows
 * only. Rows outside the set keep their value, moments and momentum buffer unchanged: no
 * moment decay and no weight decay while untouched. This is TensorFlow Addons' LazyAdam
 * (tfa.optimizers.LazyAdam: "only updates moving-average accumulators for sparse variable
 * indices that appear in the current batch"; its step count is the optimizer's iterations)
 * combined with tfa's decoupled weight decay for sparse gradients (DecoupledWeightDecayExtension
 * decays only the rows at the gradient's indices), and PyTorch's torch.optim.SparseAdam (one
 * step count per parameter, incremented at every step the table gets a gradient, i.e. every
 * step; no weight decay). The one difference from both: epsilon is added as in the dense update
 * above, sqrt(v)/sqrt(1−b2^t) + eps (torch.optim.Adam's form), where SparseAdam and LazyAdam
 * use sqrt(v) + eps with the rate scaled by sqrt(1−b2^t); so a row touched at every step gets
 * exactly the dense update. The rows are split over threads; each row's update is
 * independent, so the result does not depend on the number of threads or on the order of the
 * set.
 *
 * State, for checkpoints: each parameter i (index in the qkv_params set, in the same order)
 * has qkv_optim_n_slots() buffers of ps->items[i]->t.size elements, named with PyTorch's state
 * keys ("momentum_buffer" for SGD; "exp_avg", "exp_avg_sq" for Adam and AdamW), plus the step
 * counter o->step. A checkpoint writes /optim/<param name>/<slot name> and the step; restoring
 * them (memcpy into qkv_optim_slot(), set o->step) makes the next step bit-identical to the one
 * the saved run would have taken. */
#ifndef QKV_OPTIM_H
#define QKV_OPTIM_H

#include "lib/error.h"
#include "lib/param.h"
#include "lib/row_set.h"
#include "lib/tensor.h"

typedef enum { QKV_OPTIM_ADAMW, QKV_OPTIM_ADAM, QKV_OPTIM_SGD, QKV_OPTIM_COUNT } qkv_optim_kind;
/* "adamw", "adam", "sgd" (index = value), then NULL. */
extern const char *const QKV_OPTIM_KIND_NAMES[];

typedef struct qkv_optim_config {
    qkv_optim_kind kind;
    double lr;            /* peak learning rate; the schedule (lib/optim/schedule.h) scales it */
    double momentum;      /* SGD only; 0 = plain SGD; in [0, 1) */
    double beta1, beta2;  /* Adam/AdamW moment decay rates, in [0, 1) */
    double eps;           /* Adam/AdamW denominator term, > 0 */
    double weight_decay;  /* >= 0; L2 for SGD and Adam, decoupled for AdamW */
} qkv_optim_config;

#define QKV_OPTIM_MAX_SLOTS 2

typedef struct qkv_optimizer {
    qkv_optim_config cfg;
    qkv_params *ps;       /* not owned; no parameter may be added after qkv_optim_init */
    int n;                /* number of parameters at init */
    int n_slots;          /* state buffers per parameter: 0, 1 (SGD momentum) or 2 (Adam) */
    long step;            /* updates done so far; the next qkv_optim_step uses t = step + 1 */
    qkv_real **slot[QKV_OPTIM_MAX_SLOTS]; /* slot[k][i]: buffer k of parameter i (64-byte aligned) */
    qkv_real *mem;        /* one block holding all buffers */
    const qkv_row_set **rows; /* rows[i]: lazy update of these rows of parameter i; NULL: dense */
} qkv_optimizer;

/* Defaults: SGD lr 0.01, momentum 0.9, wd 0; Adam lr 1e-3, betas (0.9, 0.999), eps 1e-8, wd 0
 * (as torch.optim.Adam); AdamW the same with wd 0.01 (as torch.optim.AdamW). */
qkv_optim_config qkv_optim_defaults(qkv_optim_kind kind);

/* Checks cfg (errors name the field and its value) and allocates zeroed state for every
 * parameter of ps; step = 0. Returns QKV_OK, or QKV_ERR with err set (bad config, out of
 * memory). o is safe to qkv_optim_free after a failure. */
int qkv_optim_init(qkv_optimizer *o, qkv_params *ps, const qkv_optim_config *cfg, qkv_error *err);

/* One update of every parameter from its .grad with learning rate lr (this step's value from
 * the schedule; cfg.lr when there is none). Increments o->step first. Does not zero the
 * gradients. Allocates nothing. */
void qkv_optim_step(qkv_optimizer *o, double lr);
/* The same update with every gradient read as grad_scale · .grad (the .grad buffers are not
 * changed): gradient clipping folded into the update's one pass over the gradients, with
 * grad_scale = qkv_clip_scale(norm, max_norm) and the norm from qkv_clip_grad_norm(ps, 0). The
 * result is that of scaling the gradients first, up to the rounding of grad_scale · g, which
 * is the same product in both. */
void qkv_optim_step_scaled(qkv_optimizer *o, double lr, double grad_scale);

/* From now on parameter i (a matrix [V, D]) is updated lazily: at each qkv_optim_step only the
 * rows in *rows at that moment (see the top of this file). rows is not owned and must stay
 * valid (its n_total must be V); NULL makes the update dense again. QKV_ERR with err set for a
 * bad i, a parameter that is not a matrix or a set of another height. */
int qkv_optim_set_rows(qkv_optimizer *o, int i, const qkv_row_set *rows, qkv_error *err);

void qkv_optim_free(qkv_optimizer *o);

/* ---- state access for checkpoints --------------------------------------------------- */

/* Number of state buffers per parameter (see the top of this file). */
int qkv_optim_n_slots(const qkv_optimizer *o);
/* PyTorch's name for slot k: "momentum_buffer", "exp_avg" or "exp_avg_sq"; NULL if out of range. */
const char *qkv_optim_slot_name(const qkv_optimizer *o, int k);
/* Slot k of parameter i: ps->items[i]->t.size elements; NULL if i or k is out of range. */
qkv_real *qkv_optim_slot(const qkv_optimizer *o, int i, int k);

/* ---- clipping ------------------------------------------------------------------------ */

/* Global L2 norm of all gradients of ps, computed in double: sqrt(sum over every element of
 * every .grad of g²). When max_norm > 0 and the norm exceeds it, every gradient is scaled by
 * max_norm / (norm + 1e-6), as torch.nn.utils.clip_grad_norm_. A NaN or infinite norm is
 * returned as is and nothing is scaled (the caller stops on it). max_norm <= 0 only measures.
 * Returns the norm before clipping. The sum runs in fixed blocks combined in a fixed order, so
 * the result is the same for any number of threads. */
double qkv_clip_grad_norm(qkv_params *ps, double max_norm);
/* The factor qkv_clip_grad_norm scales the gradients by for this norm: max_norm / (norm + 1e-6)
 * when max_norm > 0 and a finite norm exceeds it, else 1. */
double qkv_clip_scale(double norm, double max_norm);

#endif
