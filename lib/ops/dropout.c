/* Inverted dropout, forward and backward (Srivastava et al. 2014, "Dropout: a simple way to
 * prevent neural networks from overfitting"; the inverted scaling is PyTorch's):
 *     y_i = m_i · x_i / (1 - p),   dx_i = m_i · dy_i / (1 - p),   m_i = 1 with probability 1 - p.
 * The mask comes from tp->rng: one 64-bit draw gives two elements, element 2k its low and
 * element 2k+1 its high 32 bits, kept when those bits are >= floor(p · 2^32). So a mask depends
 * only on the rng state and the element count, and restoring the rng replays it exactly.
 * With tp->streams (lib/tape.h) row t of x [T, d] draws the same way from the counter-based
 * sequence qkv_rng_at(qkv_rng_key(qkv_rng_key(key, site), row_ids[t]), 0, 1, ...). */
#include "lib/ops/ops.h"
#include "lib/ops/op_util.h"


/* keep[i] for i < n from the rng, as described at the top of the file. */
static void draw_mask(qkv_rng *rng, double p, uint8_t *keep, size_t n)
{
    const uint64_t threshold = (uint64_t)(p * 4294967296.0); /* < 2^32 since p < 1 */
    size_t i = 0;
    for (; i + 1 < n; i += 2) {
        uint64_t r = qkv_rng_next(rng);
        keep[i] = (r & 0xffffffffu) >= threshold;
        keep[i + 1] = (r >> 32) >= threshold;
    }
    if (i < n)
        keep[i] = (qkv_rng_next(rng) & 0xffffffffu) >= threshold;
}

/* The counter-based mask of x (rows = streams->n_rows); false after failing the tape. */
static bool draw_stream_mask(qkv_tape *tp, const qkv_tensor *x, double p, uint8_t *keep)
{
    qkv_dropout_streams *st = tp->streams;
    int rows = qkv_rows(x), cols = qkv_cols(x);
    if (rows != st->n_rows || !st->row_ids)
        return qkv_tape_fail(tp, "dropout: %d rows but the tape's dropout streams have %d row ids", rows,
                             st->n_rows), false;
    uint64_t site_key = qkv_rng_key(st->key, st->site++);
    const uint64_t threshold = (uint64_t)(p * 4294967296.0);
    QKV_FOR_ROWS(int, t, rows, x->size >= QKV_PARALLEL_MIN, {
        uint64_t key = qkv_rng_key(site_key, st->row_ids[t]);
        uint8_t *k = keep + (size_t)t * cols;
        for (int j = 0; j < cols; j += 2) {
            uint64_t r = qkv_rng_at(key, (uint64_t)(j / 2));
            k[j] = (r & 0xffffffffu) >= threshold;
            if (j + 1 < cols)
                k[j + 1] = (r >> 32) >= threshold;
        }
    });
    return true;
}

qkv_dropout_saved *qkv_dropout_draw(qkv_tape *tp, const qkv_tensor *x, double p)
{
    if (!tp->rng && !tp->streams)
        return qkv_tape_fail(tp, "dropout: p = %g needs random numbers but the tape has no rng (set tp->rng)", p),
               NULL;
    qkv_dropout_saved *s = qkv_tape_alloc(tp, sizeof *s);
    if (!s || !(s->keep = qkv_tape_alloc(tp, x->size * sizeof *s->keep)))
        return NULL;
    s->scale = (qkv_real)(1.0 / (1.0 - p));
    if (tp->streams) {
        if (!draw_stream_mask(tp, x, p, s->keep))
            return NULL;
    } else {
        draw_mask(tp->rng, p, s->keep, x->size);
    }
    return s;
}

bool qkv_dropout_p_ok(qkv_tape *tp, const char *op, double p)
{
    if (!(p >= 0 && p < 1))
        return qkv_tape_fail(tp, "%s: p = %g is outside [0, 1)", op, p), false;
    return true;
}

static void dropout_backward(qkv_tape *tp, qkv_node *node);

qkv_tensor *qkv_dropout(qkv_tape *tp, qkv_tensor *x, double p)
{
    QKV_PROFILE_SCOPE("dropout", QKV_PROF_FWD);
    if (tp->failed)
        return NULL;
    if (!x)
        return qkv_tape_fail(tp, "dropout: the input is NULL");
    if (!qkv_dropout_p_ok(tp, "dropout", p))
        return NULL;
    if (tp->no_grad || p == 0)
        return x;
    qkv_tensor *y = qkv_tape_like(tp, x);
    qkv_dropout_saved *s = y ? qkv_dropout_draw(tp, x, p) : NULL;
    if (!s)
        return NULL;
    size_t n = x->size;
    const qkv_real *px = x->data, scale = s->scale;
    const uint8_t *keep = s->keep;
    qkv_real *py = y->data;
    QKV_FOR_ELEMENTS(i, n, {
        qkv_real v = px[i] * scale;
        py[i] = keep[i] ? v : 0;
    });
    qkv_tensor *inputs[1] = {x};
    qkv_node *node = qkv_tape_record(tp, "dropout", dropout_backward, y, 1, inputs);
    if (node)
        node->saved = s;
    return y;
}

/* dx += m ⊙ dy / (1 - p) for the node's input 0 (x) and output y. */
static void masked_into(qkv_tape *tp, const qkv_node *node, qkv_tensor *x)
{
    const qkv_dropout_saved *s = node->saved;
    qkv_real *dx = qkv_grad(tp, x);
    if (!dx)
        return;
    const qkv_real *dy = node->out->grad, scale = s->scale;
    const uint8_t *keep = s->keep;
    size_t n = node->out->size;
    QKV_FOR_ELEMENTS(i, n, {
        qkv_real d = dy[i] * scale; /* unconditional: a select, not a branch */
        dx[i] += keep[i] ? d : 0;
    });
}

static void dropout_backward(qkv_tape *tp, qkv_node *node)
{
    masked_into(tp, node, node->in[0]);
}

/* ---- add_dropout: y = x + dropout(a), one pass ------------------------------------------- */

void qkv_add_dropout_backward(qkv_tape *tp, qkv_node *node)
{
    qkv_tensor *x = node->in[0], *y = node->out;
    qkv_real *dx = qkv_grad(tp, x);
    if (dx) {
        const qkv_real *dy = y->grad;
        size_t n = y->size;
        QKV_FOR_ELEMENTS(i, n, dx[i] += dy[i];);
    }
    masked_into(tp, node, node->in[1]);
}

qkv_tensor *qkv_add_dropout(qkv_tape *tp, qkv_tensor *x, qkv_tensor *a, double p)
{
    if (tp->failed || !qkv_dropout_p_ok(tp, "add_dropout", p))
        return NULL;
    if (tp->no_grad || p == 0)
        return qkv_add(tp, x, a);
    QKV_PROFILE_SCOPE("add_dropout", QKV_PROF_FWD);
    qkv_tensor *y = qkv_same_shape_output(tp, "add_dropout", x, a);
    qkv_dropout_saved *s = y ? qkv_dropout_draw(tp, a, p) : NULL;
    if (!s)
        return NULL;
    size_t n = x->size;
    const qkv_real *px = x->data, *pa = a->data, scale = s->scale;
    const uint8_t *keep = s->keep;
    qkv_real *py = y->data;
    QKV_FOR_ELEMENTS(i, n, {
        qkv_real v = pa[i] * scale;
        py[i] = px[i] + (keep[i] ? v : 0);
    });
    qkv_tensor *inputs[2] = {x, a};
    qkv_node *node = qkv_tape_record(tp, "add_dropout", qkv_add_dropout_backward, y, 2, inputs);
    if (node)
        node->saved = s;
    return y;
}
