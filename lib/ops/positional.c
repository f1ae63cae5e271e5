/* Positions added to a packed batch, forward and backward. See lib/ops/ops.h. */
#include "lib/ops/ops.h"

#include <limits.h>

typedef struct {
    qkv_packed sentences; /* arena copy */
    int last_row;           /* the highest row of pe used (its last row when clamping) */
    qkv_real scale;
} pos_saved;

/* The row of pe for position p: p itself, or the last row when clamping past the table. */
static inline int table_row(int p, int last_row) { return p < last_row ? p : last_row; }

static void add_positions_backward(qkv_tape *tp, qkv_node *node);

qkv_tensor *qkv_add_positions(qkv_tape *tp, qkv_tensor *x, qkv_packed sentences, qkv_real scale,
                              qkv_tensor *pe, bool clamp)
{
    QKV_PROFILE_SCOPE("positional", QKV_PROF_FWD);
    if (tp->failed)
        return NULL;
    char sx[64], sp[64];
    if (x->rank != 2 || (pe && (pe->rank != 2 || pe->shape[1] != x->shape[1] || pe->shape[0] < 1)))
        return qkv_tape_fail(tp, "positional: x is %s and the position table %s, expected [T, D] and [rows >= 1, D]",
                             qkv_shape_str(x, sx, sizeof sx), pe ? qkv_shape_str(pe, sp, sizeof sp) : "absent");
    int D = x->shape[1];
    qkv_packed sent = qkv_tape_packed(tp, "positional", sentences, x, false);
    if (!sent.offsets)
        return NULL;
    const int32_t *off = sent.offsets;
    for (int b = 0; b < sent.n; b++) {
        int n = off[b + 1] - off[b];
        if (pe && n > pe->shape[0] && !clamp)
            return qkv_tape_fail(tp, "positional: sentence %d has %d tokens, longer than max_len %d of the "
                                 "learned position table", b, n, pe->shape[0]);
    }
    qkv_tensor *y = qkv_tape_like(tp, x);
    if (!y)
        return NULL;
    int last_row = pe && clamp ? pe->shape[0] - 1 : INT_MAX;
    for (size_t k = 0; k < x->size; k++)
        y->data[k] = scale * x->data[k];
    if (pe)
        for (int b = 0; b < sent.n; b++)
            for (int t = off[b]; t < off[b + 1]; t++) {
                qkv_real *row = y->data + (size_t)t * D;
                const qkv_real *e = pe->data + (size_t)table_row(t - off[b], last_row) * D;
                for (int c = 0; c < D; c++)
                    row[c] += e[c];
            }
    qkv_tensor *inputs[2] = {x, pe};
    qkv_node *node = qkv_tape_record(tp, "positional", add_positions_backward, y, 2, inputs);
    if (node) {
        pos_saved *s = qkv_tape_alloc(tp, sizeof *s);
        if (!s)
            return NULL;
        s->sentences = sent;
        s->scale = scale;
        s->last_row = last_row;
        node->saved = s;
    }
    return y;
}

static void add_positions_backward(qkv_tape *tp, qkv_node *node)
{
    const pos_saved *s = node->saved;
    qkv_tensor *x = node->in[0], *pe = node->in[1], *y = node->out;
    int D = qkv_cols(x);
    const int32_t *off = s->sentences.offsets;
    qkv_real *dx = qkv_grad(tp, x), *dpe = qkv_grad(tp, pe);
    if (dx)
        for (size_t k = 0; k < x->size; k++)
            dx[k] += s->scale * y->grad[k];
    if (dpe) /* each row of the table gets the gradients of the tokens that used it */
        for (int b = 0; b < s->sentences.n; b++)
            for (int t = off[b]; t < off[b + 1]; t++) {
                qkv_real *row = dpe + (size_t)table_row(t - off[b], s->last_row) * D;
                const qkv_real *g = y->grad + (size_t)t * D;
                for (int c = 0; c < D; c++)
                    row[c] += g[c];
            }
}
