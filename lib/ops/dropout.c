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

typedef struct {
    uint8_t *keep; /* [size]: 1 = kept */
    qkv_real scale;
} dropout_saved;

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
#pragma omp parallel for if (parallel : x->size >= QKV_PARALLEL_MIN)
    for (int t = 0; t < rows; t++) {
        uint64_t key = qkv_rng_key(site_key, st->row_ids[t]);
        uint8_t *k = keep + (size_t)t * cols;
        for (int j = 0; j < cols; j += 2) {
            uint64_t r = qkv_rng_at(key, (uint64_t)(j / 2));
            k[j] = (r & 0xffffffffu) >= threshold;
            if (j + 1 < cols)
                k[j + 1] = (r >> 32) >= threshold;
        }
    }
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
    if (!(p >= 0 && p < 1))
        return qkv_tape_fail(tp, "dropout: p = %g is outside [0, 1)", p);
    if (tp->no_grad || p == 0)
        return x;
    if (!tp->rng && !tp->streams)
        return qkv_tape_fail(tp, "dropout: p = %g needs random numbers but the tape has no rng (set tp->rng)", p);
    qkv_tensor *y = qkv_tape_like(tp, x);
    dropout_saved *s = qkv_tape_alloc(tp, sizeof *s);
    if (!y || !s)
        return NULL;
    size_t n = x->size;
    s->keep = qkv_tape_alloc(tp, n * sizeof *s->keep);
    if (!s->keep)
        return NULL;
    s->scale = (qkv_real)(1.0 / (1.0 - p));
    if (tp->streams) {
        if (!draw_stream_mask(tp, x, p, s->keep))
            return NULL;
    } else {
        draw_mask(tp->rng, p, s->keep, n);
    }
    const qkv_real *px = x->data, scale = s->scale;
    const uint8_t *keep = s->keep;
    qkv_real *py = y->data;
#pragma omp parallel for simd if (parallel : n >= QKV_PARALLEL_MIN)
    for (size_t i = 0; i < n; i++) {
        qkv_real v = px[i] * scale;
        py[i] = keep[i] ? v : 0;
    }
    qkv_tensor *inputs[1] = {x};
    qkv_node *node = qkv_tape_record(tp, "dropout", dropout_backward, y, 1, inputs);
    if (node)
        node->saved = s;
    return y;
}

static void dropout_backward(qkv_tape *tp, qkv_node *node)
{
    const dropout_saved *s = node->saved;
    qkv_tensor *x = node->in[0], *y = node->out;
    qkv_real *dx = qkv_grad(tp, x);
    if (!dx)
        return;
    const qkv_real *dy = y->grad, scale = s->scale;
    const uint8_t *keep = s->keep;
    size_t n = y->size;
#pragma omp parallel for simd if (parallel : n >= QKV_PARALLEL_MIN)
    for (size_t i = 0; i < n; i++) {
        qkv_real d = dy[i] * scale; /* unconditional: a select, not a branch */
        dx[i] += keep[i] ? d : 0;
    }
}
