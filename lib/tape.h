/* The autograd tape: reverse-mode automatic differentiation.
 *
 * Every differentiable op (lib/ops/) takes a qkv_tape, allocates its output in the tape's
 * arena and, when recording and some input requires a gradient, appends a node: its inputs,
 * its output, values saved for backward, and a backward function. qkv_backward() walks the
 * nodes in reverse order; each backward function reads out->grad and ADDS into the gradients
 * of its inputs (qkv_grad() allocates a zeroed gradient on first use).
 *
 * Errors are sticky: an op given bad shapes calls qkv_tape_fail(), returns NULL, and every
 * later op on the same tape returns NULL at once, so a model checks tp->failed once at the
 * end of its forward pass instead of after every op.
 *
 * One step: qkv_tape_reset() -> forward -> qkv_backward() -> optimizer step. */
#ifndef QKV_TAPE_H
#define QKV_TAPE_H

#include <stdbool.h>
#include <stdint.h>

#include "lib/arena.h"
#include "lib/error.h"
#include "lib/profile.h"
#include "lib/rng.h"
#include "lib/tensor.h"

#define QKV_MAX_INPUTS 8

typedef struct qkv_tape qkv_tape;
typedef struct qkv_node qkv_node;
typedef void (*qkv_backward_fn)(qkv_tape *tp, qkv_node *node);

struct qkv_node {
    const char *op;                     /* op name, e.g. "linear" (gradcheck, faults, profile) */
    qkv_backward_fn backward;
    qkv_tensor *out;
    qkv_tensor *in[QKV_MAX_INPUTS];
    int n_in;
    void *saved;                        /* op-specific values kept for backward (arena) */
};

/* Counter-based dropout (optional, set by a trainer): masks are then a function of (key, the
 * op's site number, the row's or sentence's id, the column), not of tp->rng, so that a token's
 * mask is the same whichever batch, process or thread computes it (data-parallel training).
 * Rows of token-major activations [T, d] use row_ids [T]; attention blocks use sent_ids [B]
 * and the head. Each dropping op takes the next site number (reset it before each forward). */
typedef struct qkv_dropout_streams {
    uint64_t key;
    const uint64_t *row_ids; /* [n_rows] */
    const uint64_t *sent_ids; /* [n_sent] */
    int n_rows, n_sent;
    uint64_t site;
} qkv_dropout_streams;

struct qkv_tape {
    qkv_arena arena;
    qkv_node *nodes;
    int n_nodes, cap_nodes;
    bool no_grad;          /* evaluation: record nothing; dropout is the identity */
    bool failed;           /* an op failed; err says why */
    qkv_error err;
    qkv_rng *rng;          /* for dropout; may be NULL when no op draws random numbers */
    qkv_dropout_streams *streams; /* when not NULL, dropout draws from these instead of rng */
    const char *fault_op;  /* testing only: this op's backward is scaled by 1.01 */
};

/* Returns 0, or -1 when memory for `reserve_bytes` of arena cannot be had. */
int qkv_tape_init(qkv_tape *tp, size_t reserve_bytes);
void qkv_tape_free(qkv_tape *tp);
/* Forgets all nodes and activations of the previous step; clears the error. */
void qkv_tape_reset(qkv_tape *tp);

/* Evaluation passes: a stack of layers needs only the last layer's output, not the activations
 * of all. m = qkv_tape_mark(tp) before a layer; after it, y = qkv_tape_keep_only(tp, m, y)
 * forgets everything allocated since m but y, which moves down to m (a copy of its values), so
 * that the pass's memory is that of one layer and the next layer reuses the same pages. Only
 * when tp->no_grad (no node may point into the released memory) and tp has not failed; else it
 * returns y as it is. Pointers into the released memory other than y are invalid afterwards. */
qkv_arena_mark qkv_tape_mark(const qkv_tape *tp);
qkv_tensor *qkv_tape_keep_only(qkv_tape *tp, qkv_arena_mark m, const qkv_tensor *y);

/* Backward pass from a scalar (size 1) tensor: d loss / d loss = 1. Returns QKV_OK, or
 * QKV_ERR with tp->err set (non-scalar loss, a failed tape, out of memory). */
int qkv_backward(qkv_tape *tp, qkv_tensor *loss);
/* Backward pass with a given output gradient (same shape as out), e.g. R for sum(out ⊙ R). */
int qkv_backward_from(qkv_tape *tp, qkv_tensor *out, const qkv_real *out_grad);

/* ---- for op authors ---------------------------------------------------------------- */
/* An op's public function starts with QKV_PROFILE_SCOPE("name", QKV_PROF_FWD) (lib/profile.h),
 * name as its tape node's: the profile's forward row; qkv_backward times the backward row. */

/* Marks the tape failed with a message; returns NULL so that an op can `return` it. */
qkv_tensor *qkv_tape_fail(qkv_tape *tp, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* qkv_tape_fail about sentence (its index in the packed batch the op was given): tp->err.sentence. */
qkv_tensor *qkv_tape_fail_sentence(qkv_tape *tp, int sentence, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
/* A new tensor in the arena, contents undefined; NULL (tape failed) when out of memory. */
qkv_tensor *qkv_tape_tensor(qkv_tape *tp, int rank, const int *shape);
qkv_tensor *qkv_tape_tensor2(qkv_tape *tp, int rows, int cols);
/* Same shape as t. */
qkv_tensor *qkv_tape_like(qkv_tape *tp, const qkv_tensor *t);
/* Arena memory for saved values; NULL (tape failed) when out of memory. */
void *qkv_tape_alloc(qkv_tape *tp, size_t bytes);
/* Records a node when the tape is recording and any input requires a gradient; sets
 * out->requires_grad accordingly. Returns the node (to attach `saved`), or NULL when nothing
 * was recorded. */
qkv_node *qkv_tape_record(qkv_tape *tp, const char *op, qkv_backward_fn backward, qkv_tensor *out,
                          int n_in, qkv_tensor *const *in);
/* The gradient buffer of t, allocated and zeroed on first use; NULL when t does not require a
 * gradient (its backward contribution is then skipped). */
qkv_real *qkv_grad(qkv_tape *tp, qkv_tensor *t);

#endif
