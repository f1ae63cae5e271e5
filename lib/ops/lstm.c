/* LSTM recurrence over a packed batch of sentences, forward and backward (Hochreiter &
 * Schmidhuber 1997, with the forget gate of Gers et al. 2000), gates as PyTorch's nn.LSTM:
 *     a = gx[t] + b_hh + h[t-1] w_hh^T              [4h]: blocks i, f, g, o in that order
 *     i = σ(a_i), f = σ(a_f), g = tanh(a_g), o = σ(a_o)
 *     c[t] = f ⊙ c[t-1] + i ⊙ g,   h[t] = o ⊙ tanh(c[t]),   h[-1] = c[-1] = 0 per sentence.
 * gx = x w_ih^T + b_ih is the input projection, computed by the caller as one GEMM over all
 * tokens (qkv_linear). The reverse direction runs each sentence from its last word to its first.
 *
 * Time steps: the sentences are ranked by length (longest first, ties by index), so at step t
 * the still-running sentences are ranks 0 .. n_t-1 and their states are the first n_t rows of
 * the [B, h] state matrices; one step is one GEMM [n_t, h] x [h, 4h]. No state crosses from one
 * sentence to another, and an empty sentence never runs.
 *
 * Saved for backward, per direction: the gate activations (i, f, g, o) [T, 4h] and the cells
 * c [T, h]; h is the op's output. Backward runs the steps in reverse with dh, dc carried per
 * rank:
 *     dh = dy[t] + dh_next,   dc = dc_next + dh ⊙ o ⊙ (1 - tanh²c)
 *     da_i = dc g i(1-i),  da_f = dc c[t-1] f(1-f),  da_g = dc i (1-g²),  da_o = dh tanh(c) o(1-o)
 *     dc_next = dc ⊙ f,   dh_next = da w_hh,   dw_hh += da^T h[t-1],   db_hh += da,  dgx[t] += da.
 * σ and tanh are lib/gate_math.h's vectorizable forms (float) or libm's (the double build).
 * With two directions, more than one OpenMP thread and enough work, each direction runs on its
 * own thread (forward, and backward unless both directions share a gradient), its step
 * products on that thread. */
#include "lib/blas.h"
#include "lib/gate_math.h"
#include "lib/gemm_rows.h"
#include "lib/ops/ops.h"
#include "lib/ops/op_util.h"
#include "lib/parallel.h"

#include <stdlib.h>
#include <string.h>

typedef struct {
    qkv_packed seg;  /* arena copy */
    int32_t *order;    /* [B] sentence of each rank, longest first */
    int h, dirs;
    qkv_real *act[2];  /* [T, 4h] gate activations per direction */
    qkv_real *cell[2]; /* [T, h] */
} lstm_saved;

static void lstm_backward(qkv_tape *tp, qkv_node *node);

/* Token row of the sentence s at step t. */
static inline int step_row(const int32_t *off, int s, int t, bool reverse)
{
    return reverse ? off[s + 1] - 1 - t : off[s] + t;
}

static int cmp_i64(const void *a, const void *b)
{
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    return (x > y) - (x < y);
}

/* The sentences ranked by length, longest first, ties by index (arena): keys (-length, index)
 * are unique, so qsort's order is fully determined. */
static int32_t *rank_by_length(qkv_tape *tp, qkv_packed seg)
{
    size_t n = (size_t)(seg.n > 0 ? seg.n : 1);
    int32_t *order = qkv_tape_alloc(tp, n * sizeof *order);
    int64_t *key = qkv_tape_alloc(tp, n * sizeof *key);
    if (!order || !key)
        return NULL;
    for (int s = 0; s < seg.n; s++)
        key[s] = (int64_t)(INT32_MAX - qkv_packed_len(seg, s)) * ((int64_t)1 << 32) + s;
    qsort(key, (size_t)seg.n, sizeof *key, cmp_i64);
    for (int s = 0; s < seg.n; s++)
        order[s] = (int32_t)(key[s] & 0xffffffff);
    return order;
}

/* Checks one direction's tensors: gx [T, 4h], w_hh [4h, h], b_hh [4h] or NULL. */
static bool check_direction(qkv_tape *tp, const char *dir, const qkv_tensor *gx, const qkv_tensor *w,
                            const qkv_tensor *b, int rows, int h)
{
    char sg[64], sw[64];
    if (!gx || !w)
        return qkv_tape_fail(tp, "lstm: %s: gx and w_hh are required", dir), false;
    if (w->rank != 2 || w->shape[0] != 4 * w->shape[1] || w->shape[1] != h)
        return qkv_tape_fail(tp, "lstm: %s: w_hh %s must be [4h, h] with h = %d", dir, qkv_shape_str(w, sw, sizeof sw),
                             h),
               false;
    if (gx->rank != 2 || gx->shape[0] != rows || gx->shape[1] != 4 * h)
        return qkv_tape_fail(tp, "lstm: %s: gx %s must be [%d, %d] (tokens, 4h)", dir, qkv_shape_str(gx, sg, sizeof sg),
                             rows, 4 * h),
               false;
    if (b && b->size != (size_t)(4 * h))
        return qkv_tape_fail(tp, "lstm: %s: b_hh has %zu elements, expected 4h = %d", dir, b->size, 4 * h), false;
    return true;
}

/* Threads for the recurrences: one a direction when there are two and one direction's step
 * products (rows · 4h · h multiply-adds) are worth a thread (lib/parallel.h), else 1: the
 * directions one after the other. */
static int direction_threads(int dirs, int rows, int h)
{
    return dirs > 1 ? qkv_parallel_threads((double)rows * 4 * h * h) : 1;
}

/* One direction's forward; writes columns col0 .. col0+h-1 of y [T, ydim]. */
static void forward_direction(const qkv_packed seg, const int32_t *order, int h, const qkv_real *gx,
                              const qkv_real *w_hh, const qkv_real *b_hh, bool reverse, qkv_real *act, qkv_real *cell,
                              qkv_real *y, int ydim, int col0, qkv_real *hs, qkv_real *cs, qkv_real *gates)
{
    const int g4 = 4 * h, B = seg.n;
    const int32_t *off = seg.offsets;
    int maxlen = B > 0 ? qkv_packed_len(seg, order[0]) : 0, n = B;
    /* c[-1] = 0: the vectorized step at t = 0 loads cs before its select drops the value. The
     * select is not f·c[-1]: a NaN forget gate at t = 0 would make that NaN, the select keeps
     * it out of c[0] (the forget gate has no say at the first step). */
    memset(cs, 0, (size_t)(B > 0 ? B : 1) * h * sizeof *cs);
    for (int t = 0; t < maxlen; t++) {
        while (n > 0 && qkv_packed_len(seg, order[n - 1]) <= t)
            n--;
        for (int j = 0; j < n; j++) {
            const qkv_real *gr = gx + (size_t)step_row(off, order[j], t, reverse) * g4;
            qkv_real *a = gates + (size_t)j * g4;
            for (int k = 0; k < g4; k++)
                a[k] = gr[k] + (b_hh ? b_hh[k] : 0);
        }
        if (t > 0) /* gates [n, 4h] += h[t-1] [n, h] · w_hh^T */
            qkv_gemm(false, true, n, g4, h, 1, hs, h, w_hh, h, 1, gates, g4);
        for (int j = 0; j < n; j++) {
            const int row = step_row(off, order[j], t, reverse);
            qkv_real *a = gates + (size_t)j * g4, *ar = act + (size_t)row * g4;
            qkv_real *hj = hs + (size_t)j * h, *cj = cs + (size_t)j * h;
            qkv_real *yr = y + (size_t)row * ydim + col0, *cr = cell + (size_t)row * h;
#pragma omp simd
            for (int k = 0; k < h; k++) {
                qkv_real i = qkv_sigmoid(a[k]), f = qkv_sigmoid(a[h + k]), g = qkv_tanh(a[2 * h + k]),
                         o = qkv_sigmoid(a[3 * h + k]);
                qkv_real c = (t > 0 ? f * cj[k] : 0) + i * g;
                qkv_real hv = o * qkv_tanh(c);
                ar[k] = i, ar[h + k] = f, ar[2 * h + k] = g, ar[3 * h + k] = o;
                cr[k] = c, cj[k] = c, hj[k] = hv, yr[k] = hv;
            }
        }
    }
}

qkv_tensor *qkv_lstm(qkv_tape *tp, qkv_tensor *gx, qkv_tensor *w_hh, qkv_tensor *b_hh, qkv_tensor *gx_rev,
                     qkv_tensor *w_hh_rev, qkv_tensor *b_hh_rev, qkv_packed sentences)
{
    QKV_PROFILE_SCOPE("lstm", QKV_PROF_FWD);
    if (tp->failed)
        return NULL;
    if (!gx || !w_hh)
        return qkv_tape_fail(tp, "lstm: gx and w_hh are required");
    if (w_hh->rank != 2)
        return qkv_tape_fail(tp, "lstm: w_hh must be a matrix [4h, h]");
    const int h = w_hh->shape[1], dirs = gx_rev ? 2 : 1;
    if (h < 1)
        return qkv_tape_fail(tp, "lstm: hidden size %d must be positive", h);
    if (gx->rank != 2)
        return qkv_tape_fail(tp, "lstm: gx must be a matrix [T, 4h]");
    const qkv_packed seg = qkv_tape_packed(tp, "lstm", sentences, gx, false);
    if (!seg.offsets)
        return NULL;
    const int rows = gx->shape[0];
    if (!check_direction(tp, "forward", gx, w_hh, b_hh, rows, h) ||
        (gx_rev && !check_direction(tp, "reverse", gx_rev, w_hh_rev, b_hh_rev, rows, h)))
        return NULL;
    if (!gx_rev && (w_hh_rev || b_hh_rev))
        return qkv_tape_fail(tp, "lstm: reverse weights given without a reverse input projection");
    const int ydim = dirs * h, B = seg.n;
    qkv_tensor *y = qkv_tape_tensor2(tp, rows, ydim);
    lstm_saved *s = qkv_tape_alloc(tp, sizeof *s);
    int32_t *order = rank_by_length(tp, seg);
    size_t bn = (size_t)(B > 0 ? B : 1);
    /* per direction: the states h, c [B, h] and the step's gates [B, 4h] */
    qkv_real *hs = qkv_tape_alloc(tp, dirs * bn * h * sizeof *hs), *cs = qkv_tape_alloc(tp, dirs * bn * h * sizeof *cs);
    qkv_real *gates = qkv_tape_alloc(tp, dirs * bn * 4 * h * sizeof *gates);
    if (!y || !s || !order || !hs || !cs || !gates)
        return NULL;
    *s = (lstm_saved){.seg = seg, .order = order, .h = h, .dirs = dirs};
    qkv_tensor *gxs[2] = {gx, gx_rev}, *ws[2] = {w_hh, w_hh_rev}, *bs[2] = {b_hh, b_hh_rev};
    for (int d = 0; d < dirs; d++) {
        s->act[d] = qkv_tape_alloc(tp, (size_t)(rows > 0 ? rows : 1) * 4 * h * sizeof(qkv_real));
        s->cell[d] = qkv_tape_alloc(tp, (size_t)(rows > 0 ? rows : 1) * h * sizeof(qkv_real));
        if (!s->act[d] || !s->cell[d])
            return NULL;
    }
    /* The two directions are independent: one thread each (their products then run on that
     * thread, OpenBLAS on one), instead of both threads on every small step product in turn. */
    int blas = qkv_blas_single();
    QKV_FOR_THREADS(direction_threads(dirs, rows, h), static, int, d, dirs, {
        size_t o = (size_t)d * bn * h;
        forward_direction(seg, order, h, gxs[d]->data, ws[d]->data, bs[d] ? bs[d]->data : NULL, d == 1, s->act[d],
                          s->cell[d], y->data, ydim, d * h, hs + o, cs + o, gates + 4 * o);
    });
    qkv_blas_restore(blas);
    qkv_tensor *inputs[6] = {gx, w_hh, b_hh, gx_rev, w_hh_rev, b_hh_rev};
    qkv_node *node = qkv_tape_record(tp, "lstm", lstm_backward, y, 6, inputs);
    if (node)
        node->saved = s;
    return y;
}

/* One direction's backward. dgx, dw, db may be NULL (no gradient wanted). */
static void backward_direction(const lstm_saved *s, int d, const qkv_real *w_hh, const qkv_real *y,
                               const qkv_real *dy, int ydim, qkv_real *dgx, qkv_real *dw, qkv_real *db, qkv_real *dh,
                               qkv_real *dc, qkv_real *da, qkv_real *hprev)
{
    const int h = s->h, g4 = 4 * h, B = s->seg.n, col0 = d * h;
    const bool reverse = d == 1;
    const int32_t *off = s->seg.offsets, *order = s->order;
    const qkv_real *act = s->act[d], *cell = s->cell[d];
    int maxlen = B > 0 ? qkv_packed_len(s->seg, order[0]) : 0;
    memset(dh, 0, (size_t)(B > 0 ? B : 1) * h * sizeof *dh);
    memset(dc, 0, (size_t)(B > 0 ? B : 1) * h * sizeof *dc);
    int n = 0; /* ranks running at step t: sentences longer than t */
    while (n < B && qkv_packed_len(s->seg, order[n]) > maxlen - 1)
        n++;
    for (int t = maxlen - 1; t >= 0; t--) {
        while (n < B && qkv_packed_len(s->seg, order[n]) > t)
            n++; /* these start here (their last step): dh, dc rows still zero */
        for (int j = 0; j < n; j++) {
            const int row = step_row(off, order[j], t, reverse), prev = reverse ? row + 1 : row - 1;
            const qkv_real *ar = act + (size_t)row * g4, *cr = cell + (size_t)row * h;
            const qkv_real *dyr = dy + (size_t)row * ydim + col0;
            qkv_real *dhj = dh + (size_t)j * h, *dcj = dc + (size_t)j * h, *a = da + (size_t)j * g4;
            /* c[t-1]; at t = 0 it is 0, read from the step's own (valid) row and not used */
            const qkv_real *cpr = cell + (size_t)(t > 0 ? prev : row) * h;
#pragma omp simd
            for (int k = 0; k < h; k++) {
                qkv_real i = ar[k], f = ar[h + k], g = ar[2 * h + k], o = ar[3 * h + k];
                qkv_real tc = qkv_tanh(cr[k]), cp = t > 0 ? cpr[k] : 0;
                qkv_real dhv = dyr[k] + dhj[k];
                qkv_real dcv = dcj[k] + dhv * o * (1 - tc * tc);
                a[k] = dcv * g * i * (1 - i);
                a[h + k] = t > 0 ? dcv * cp * f * (1 - f) : 0; /* no c[t-1]: f has no say */
                a[2 * h + k] = dcv * i * (1 - g * g);
                a[3 * h + k] = dhv * tc * o * (1 - o);
                dcj[k] = dcv * f;
            }
            if (dgx) {
                qkv_real *gr = dgx + (size_t)row * g4;
                for (int k = 0; k < g4; k++)
                    gr[k] += a[k];
            }
            if (db)
                for (int k = 0; k < g4; k++)
                    db[k] += a[k];
            if (t > 0)
                memcpy(hprev + (size_t)j * h, y + (size_t)prev * ydim + col0, (size_t)h * sizeof *hprev);
        }
        if (t == 0)
            break;
        if (dw) /* dw_hh [4h, h] += da^T [4h, n] · h[t-1] [n, h] */
            qkv_gemm(true, false, g4, h, n, 1, da, g4, hprev, h, 1, dw, h);
        /* dh [n, h] = da [n, 4h] · w_hh [4h, h] */
        qkv_gemm(false, false, n, h, g4, 1, da, g4, w_hh, h, 0, dh, h);
    }
}

static void lstm_backward(qkv_tape *tp, qkv_node *node)
{
    const lstm_saved *s = node->saved;
    const qkv_tensor *y = node->out;
    const int h = s->h, B = s->seg.n;
    size_t bn = (size_t)(B > 0 ? B : 1);
    const size_t per = (size_t)s->dirs * bn * h; /* per direction: dh, dc, h[t-1] [B, h], da [B, 4h] */
    qkv_real *dh = qkv_tape_alloc(tp, per * sizeof *dh), *dc = qkv_tape_alloc(tp, per * sizeof *dc);
    qkv_real *da = qkv_tape_alloc(tp, 4 * per * sizeof *da), *hprev = qkv_tape_alloc(tp, per * sizeof *hprev);
    qkv_real *dgx[2] = {0}, *dw[2] = {0}, *db[2] = {0};
    if (!dh || !dc || !da || !hprev)
        return;
    for (int d = 0; d < s->dirs; d++) { /* gradient buffers come from the tape's arena: not in threads */
        dgx[d] = qkv_grad(tp, node->in[3 * d]);
        dw[d] = qkv_grad(tp, node->in[3 * d + 1]);
        db[d] = qkv_grad(tp, node->in[3 * d + 2]);
    }
    /* One thread a direction, as in the forward, when their gradients are apart: a caller may
     * pass one tensor for both directions (tied weights), whose gradient then sums both. */
    bool apart = (!dgx[0] || dgx[0] != dgx[1]) && (!dw[0] || dw[0] != dw[1]) && (!db[0] || db[0] != db[1]);
    int blas = qkv_blas_single();
    QKV_FOR_THREADS(apart ? direction_threads(s->dirs, y->shape[0], h) : 1, static, int, d, s->dirs, {
        size_t o = (size_t)d * bn * h;
        backward_direction(s, d, node->in[3 * d + 1]->data, y->data, y->grad, s->dirs * h, dgx[d], dw[d], db[d],
                           dh + o, dc + o, da + 4 * o, hprev + o);
    });
    qkv_blas_restore(blas);
}
