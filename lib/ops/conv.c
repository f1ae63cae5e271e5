/* 1-D convolution over the tokens of each sentence of a packed batch, forward and backward.
 * Channels are the columns of x (one token per row); w has PyTorch's Conv1d layout
 * [out, in, k], k odd, half = (k - 1) / 2:
 *     y[t, o] = b[o] + Σ_c Σ_j w[o, c, j] · x[t + (j - half)·dilation, c],
 * where a row outside t's own sentence counts as zero: the same as nn.Conv1d(in, out, k,
 * padding = half·dilation, dilation = dilation) run on each sentence alone, so nothing leaks
 * across packed sentences.
 *
 * Computed as im2col + one GEMM: cols [T, in·k], cols[t, c·k + j] = x[t + (j - half)·dilation, c]
 * (or 0), y = cols · w^T with w viewed as [out, in·k]. cols is saved for backward:
 *     dw += dy^T · cols,  db += Σ_t dy[t],  dcols = dy · w,
 *     dx[r, c] += Σ_j dcols[r - (j - half)·dilation, c·k + j] over the rows of r's sentence
 * (a gather: each row of dx is written by one thread, in a fixed order). */
#include "lib/gemm_rows.h"
#include "lib/ops/ops.h"
#include "lib/ops/op_util.h"

#include <limits.h>
#include <string.h>

typedef struct {
    qkv_packed seg; /* arena copy */
    qkv_real *cols;   /* [T, in·k] */
    int k, dilation;
} conv_saved;

static void conv1d_backward(qkv_tape *tp, qkv_node *node);

qkv_tensor *qkv_conv1d(qkv_tape *tp, qkv_tensor *x, qkv_tensor *w, qkv_tensor *b, qkv_packed sentences,
                       int dilation)
{
    QKV_PROFILE_SCOPE("conv1d", QKV_PROF_FWD);
    if (tp->failed)
        return NULL;
    char sx[64], sw[64];
    if (!x || !w)
        return qkv_tape_fail(tp, "conv1d: x and w are required");
    if (x->rank != 2 || w->rank != 3 || w->shape[1] != x->shape[1])
        return qkv_tape_fail(tp, "conv1d: x %s does not match w %s (x is [T, in], w is [out, in, k])",
                             qkv_shape_str(x, sx, sizeof sx), qkv_shape_str(w, sw, sizeof sw));
    const int rows = x->shape[0], in = w->shape[1], out = w->shape[0], k = w->shape[2];
    if (k < 1 || k % 2 == 0)
        return qkv_tape_fail(tp, "conv1d: kernel width %d must be odd and >= 1 (centred on each token)", k);
    if (dilation < 1)
        return qkv_tape_fail(tp, "conv1d: dilation %d must be >= 1", dilation);
    if (b && b->size != (size_t)out)
        return qkv_tape_fail(tp, "conv1d: bias has %zu elements, w has %d output channels", b->size, out);
    if ((long long)in * k > INT_MAX / 2)
        return qkv_tape_fail(tp, "conv1d: %d channels times width %d is too many columns", in, k);
    const qkv_packed seg = qkv_tape_packed(tp, "conv1d", sentences, x, false);
    if (!seg.offsets)
        return NULL;
    const int ck = in * k, half = (k - 1) / 2;
    qkv_tensor *y = qkv_tape_tensor2(tp, rows, out);
    conv_saved *s = qkv_tape_alloc(tp, sizeof *s);
    qkv_real *cols = qkv_tape_alloc(tp, (size_t)(rows > 0 ? rows : 1) * ck * sizeof *cols);
    if (!y || !s || !cols)
        return NULL;
    *s = (conv_saved){.seg = seg, .cols = cols, .k = k, .dilation = dilation};
    const qkv_real *px = x->data;
    QKV_FOR_ROWS(int, g, seg.n, (size_t)rows * ck >= QKV_PARALLEL_MIN, {
        const int lo = seg.offsets[g], hi = seg.offsets[g + 1];
        for (int t = lo; t < hi; t++) {
            qkv_real *cr = cols + (size_t)t * ck;
            for (int j = 0; j < k; j++) {
                const long src = t + (long)(j - half) * dilation;
                const bool inside = src >= lo && src < hi;
                const qkv_real *xr = px + (size_t)(inside ? src : 0) * in;
                for (int c = 0; c < in; c++)
                    cr[(size_t)c * k + j] = inside ? xr[c] : 0;
            }
        }
    });
    for (int t = 0; t < rows; t++)
        if (b)
            memcpy(y->data + (size_t)t * out, b->data, (size_t)out * sizeof *y->data);
    qkv_gemm_par(qkv_parallel_threads((double)rows * ck * out), false, true, rows, out, ck, 1, cols, ck, w->data, ck,
                 b ? 1 : 0, y->data, out);
    qkv_tensor *inputs[3] = {x, w, b};
    qkv_node *node = qkv_tape_record(tp, "conv1d", conv1d_backward, y, 3, inputs);
    if (node)
        node->saved = s;
    return y;
}

static void conv1d_backward(qkv_tape *tp, qkv_node *node)
{
    const conv_saved *s = node->saved;
    qkv_tensor *x = node->in[0], *w = node->in[1], *b = node->in[2], *y = node->out;
    const int rows = x->shape[0], in = x->shape[1], out = w->shape[0], k = s->k, ck = in * k;
    const int half = (k - 1) / 2, dil = s->dilation;
    const qkv_real *dy = y->grad;
    qkv_real *dx = qkv_grad(tp, x), *dw = qkv_grad(tp, w), *db = qkv_grad(tp, b);
    const int nth = qkv_parallel_threads((double)rows * ck * out);
    if (dw) /* dw [out, in·k] += dy^T [out, T] · cols [T, in·k] */
        qkv_gemm_par(nth, true, false, out, ck, rows, 1, dy, out, s->cols, ck, 1, dw, ck);
    if (db)
        for (int t = 0; t < rows; t++)
            for (int o = 0; o < out; o++)
                db[o] += dy[(size_t)t * out + o];
    if (!dx)
        return;
    qkv_real *dcols = qkv_tape_alloc(tp, (size_t)(rows > 0 ? rows : 1) * ck * sizeof *dcols);
    if (!dcols)
        return;
    /* dcols [T, in·k] = dy [T, out] · w [out, in·k] */
    qkv_gemm_par(nth, false, false, rows, ck, out, 1, dy, out, w->data, ck, 0, dcols, ck);
    QKV_FOR_ROWS(int, g, s->seg.n, (size_t)rows * ck >= QKV_PARALLEL_MIN, {
        const int lo = s->seg.offsets[g], hi = s->seg.offsets[g + 1];
        for (int r = lo; r < hi; r++) {
            qkv_real *dxr = dx + (size_t)r * in;
            for (int j = 0; j < k; j++) {
                const long t = r - (long)(j - half) * dil; /* the output row that read r at slot j */
                if (t < lo || t >= hi)
                    continue;
                const qkv_real *dc = dcols + (size_t)t * ck + j;
                for (int c = 0; c < in; c++)
                    dxr[c] += dc[(size_t)c * k];
            }
        }
    });
}
