/* 2-D convolution and 2-D pooling over images of a packed batch, forward then backward. See
 * lib/ops/ops.h (lib/ops/conv2d.c section).
 *
 * Layout. Image b is rows · cols consecutive rows of x (lib/grid.h, row-major, no prefix
 * tokens), one token per pixel or cell, channels the columns. The convolution is im2col + one
 * GEMM: cols [n·R'·C', in·k·k], cols[o, c·k·k + ky·k + kx] = x at (oy·s − p + ky, ox·s − p + kx)
 * of the same image, 0 outside it; y = cols · w^T (w viewed as [out, in·k·k], PyTorch's
 * [out, in, ky, kx] order). Backward: dw += dy^T cols, db += Σ dy, dcols = dy · w, then each
 * entry of dcols added back to the pixel it was read from (one thread per image). */
#include "lib/blas.h"
#include "lib/gemm_rows.h"
#include "lib/ops/ops.h"
#include "lib/ops/op_util.h"

#include <limits.h>
#include <string.h>

const char *const QKV_POOL_NAMES[] = {"max", "avg", NULL};
_Static_assert(sizeof QKV_POOL_NAMES / sizeof QKV_POOL_NAMES[0] == QKV_POOL_COUNT + 1, "one name per qkv_pool");

qkv_grid qkv_conv2d_grid(qkv_grid in, int k, int stride, int padding)
{
    if (k < 1 || stride < 1 || padding < 0 || in.rows + 2 * padding < k || in.cols + 2 * padding < k)
        return (qkv_grid){0};
    return (qkv_grid){(in.rows + 2 * padding - k) / stride + 1, (in.cols + 2 * padding - k) / stride + 1, 0};
}

/* Checks x [n·rows·cols, channels] against the grid and the window; the output grid, or rows 0
 * after failing the tape. */
static qkv_grid check_images(qkv_tape *tp, const char *op, const qkv_tensor *x, int n, qkv_grid g, int k, int stride,
                             int padding)
{
    char sx[64];
    if (!qkv_grid_is_2d(g) || g.n_prefix != 0)
        return qkv_tape_fail(tp, "%s: needs a 2-D grid without prefix tokens, got %d x %d (+%d)", op, g.rows, g.cols,
                             g.n_prefix), (qkv_grid){0};
    if (x->rank != 2 || n < 0 || (long long)x->shape[0] != (long long)n * g.rows * g.cols)
        return qkv_tape_fail(tp, "%s: x is %s, expected [%d images · %d x %d, channels]", op,
                             qkv_shape_str(x, sx, sizeof sx), n, g.rows, g.cols), (qkv_grid){0};
    if (k < 1 || stride < 1 || padding < 0 || padding >= k)
        return qkv_tape_fail(tp, "%s: kernel %d, stride %d, padding %d (need k >= 1, stride >= 1, 0 <= padding < k)",
                             op, k, stride, padding), (qkv_grid){0};
    qkv_grid out = qkv_conv2d_grid(g, k, stride, padding);
    if (!qkv_grid_is_2d(out))
        return qkv_tape_fail(tp, "%s: kernel %d is larger than the padded %d x %d grid", op, k, g.rows + 2 * padding,
                             g.cols + 2 * padding), (qkv_grid){0};
    return out;
}

typedef struct {
    int n, k, stride, padding;
    qkv_grid in, out;
    qkv_real *cols; /* conv2d: [n·R'·C', in·k·k]; pooling: NULL */
    int32_t *argmax; /* max pooling: [n·R'·C', channels], the input row of each maximum */
    qkv_pool mode;
} conv2d_saved;

/* The input row read by tap (ky, kx) of output cell o (within image b), or −1 for padding. */
static inline long tap_row(const conv2d_saved *s, int b, int o, int ky, int kx)
{
    int oy = o / s->out.cols, ox = o % s->out.cols;
    int y = oy * s->stride - s->padding + ky, x = ox * s->stride - s->padding + kx;
    if (y < 0 || y >= s->in.rows || x < 0 || x >= s->in.cols)
        return -1;
    return ((long)b * s->in.rows + y) * s->in.cols + x;
}

static void im2col(const conv2d_saved *s, const qkv_real *x, int in, qkv_real *cols)
{
    int kk = s->k * s->k, cells = s->out.rows * s->out.cols;
#pragma omp parallel for if ((size_t)s->n * cells * in * kk >= QKV_PARALLEL_MIN)
    for (int b = 0; b < s->n; b++)
        for (int o = 0; o < cells; o++) {
            qkv_real *cr = cols + ((size_t)b * cells + o) * in * kk;
            for (int ky = 0; ky < s->k; ky++)
                for (int kx = 0; kx < s->k; kx++) {
                    long r = tap_row(s, b, o, ky, kx);
                    for (int c = 0; c < in; c++)
                        cr[(size_t)c * kk + ky * s->k + kx] = r < 0 ? 0 : x[(size_t)r * in + c];
                }
        }
}

static void conv2d_backward(qkv_tape *tp, qkv_node *node);

qkv_tensor *qkv_conv2d(qkv_tape *tp, qkv_tensor *x, qkv_tensor *w, qkv_tensor *b, int n, qkv_grid grid, int stride,
                       int padding, qkv_grid *out_grid)
{
    QKV_PROFILE_SCOPE("conv2d", QKV_PROF_FWD);
    if (tp->failed)
        return NULL;
    char sx[64], sw[64];
    if (!x || !w || w->rank != 4 || w->shape[2] != w->shape[3] || x->rank != 2 || w->shape[1] != x->shape[1])
        return qkv_tape_fail(tp, "conv2d: x %s does not match w %s (x is [n·rows·cols, in], w [out, in, k, k])",
                             x ? qkv_shape_str(x, sx, sizeof sx) : "none", w ? qkv_shape_str(w, sw, sizeof sw) : "none");
    const int in = w->shape[1], out = w->shape[0], k = w->shape[2];
    qkv_grid og = check_images(tp, "conv2d", x, n, grid, k, stride, padding);
    if (!qkv_grid_is_2d(og))
        return NULL;
    if (b && b->size != (size_t)out)
        return qkv_tape_fail(tp, "conv2d: bias has %zu elements, w has %d output channels", b->size, out);
    if ((long long)in * k * k > INT_MAX / 2)
        return qkv_tape_fail(tp, "conv2d: %d channels times %d x %d taps is too many columns", in, k, k);
    const int rows = n * og.rows * og.cols, ck = in * k * k;
    qkv_tensor *y = qkv_tape_tensor2(tp, rows, out);
    conv2d_saved *s = qkv_tape_alloc(tp, sizeof *s);
    qkv_real *cols = qkv_tape_alloc(tp, ((size_t)rows * ck + 1) * sizeof *cols);
    if (!y || !s || !cols)
        return NULL;
    *s = (conv2d_saved){.n = n, .k = k, .stride = stride, .padding = padding, .in = grid, .out = og, .cols = cols};
    im2col(s, x->data, in, cols);
    for (int t = 0; b && t < rows; t++)
        memcpy(y->data + (size_t)t * out, b->data, (size_t)out * sizeof *y->data);
    if (rows > 0)
        qkv_gemm_par(qkv_parallel_threads((double)rows * ck * out), false, true, rows, out, ck, 1, cols, ck, w->data,
                     ck, b ? 1 : 0, y->data, out);
    qkv_node *node = qkv_tape_record(tp, "conv2d", conv2d_backward, y, 3, (qkv_tensor *[]){x, w, b});
    if (node)
        node->saved = s;
    if (out_grid)
        *out_grid = og;
    return y;
}

static void conv2d_backward(qkv_tape *tp, qkv_node *node)
{
    const conv2d_saved *s = node->saved;
    qkv_tensor *x = node->in[0], *w = node->in[1], *b = node->in[2], *y = node->out;
    const int rows = y->shape[0], in = x->shape[1], out = w->shape[0], kk = s->k * s->k, ck = in * kk;
    const int cells = s->out.rows * s->out.cols;
    const qkv_real *dy = y->grad;
    qkv_real *dx = qkv_grad(tp, x), *dw = qkv_grad(tp, w), *db = qkv_grad(tp, b);
    const int nth = qkv_parallel_threads((double)rows * ck * out);
    if (dw && rows > 0) /* dw [out, in·k·k] += dy^T [out, rows] · cols [rows, in·k·k] */
        qkv_gemm_par(nth, true, false, out, ck, rows, 1, dy, out, s->cols, ck, 1, dw, ck);
    for (int t = 0; db && t < rows; t++)
        for (int o = 0; o < out; o++)
            db[o] += dy[(size_t)t * out + o];
    qkv_real *dcols = dx && rows > 0 ? qkv_tape_alloc(tp, (size_t)rows * ck * sizeof *dcols) : NULL;
    if (!dcols)
        return;
    qkv_gemm_par(nth, false, false, rows, ck, out, 1, dy, out, w->data, ck, 0, dcols, ck);
#pragma omp parallel for if ((size_t)rows * ck >= QKV_PARALLEL_MIN)
    for (int im = 0; im < s->n; im++) /* the pixels of image im are written by this thread only */
        for (int o = 0; o < cells; o++) {
            const qkv_real *dc = dcols + ((size_t)im * cells + o) * ck;
            for (int ky = 0; ky < s->k; ky++)
                for (int kx = 0; kx < s->k; kx++) {
                    long r = tap_row(s, im, o, ky, kx);
                    for (int c = 0; r >= 0 && c < in; c++)
                        dx[(size_t)r * in + c] += dc[(size_t)c * kk + ky * s->k + kx];
                }
        }
}

static void pool2d_backward(qkv_tape *tp, qkv_node *node);

/* Output cell o of image b, channel c: the maximum (its row in *arg) or the mean of its
 * window's pixels (padding taps skipped: the mean is over the pixels inside the image). */
static qkv_real pool_cell(const conv2d_saved *s, const qkv_real *x, int C, int b, int o, int c, int32_t *arg)
{
    qkv_real best = 0, sum = 0;
    int count = 0;
    for (int ky = 0; ky < s->k; ky++)
        for (int kx = 0; kx < s->k; kx++) {
            long r = tap_row(s, b, o, ky, kx);
            if (r < 0)
                continue;
            qkv_real v = x[(size_t)r * C + c];
            sum += v;
            count++;
            if (count == 1 || v > best)
                best = v, *arg = (int32_t)r;
        }
    return s->mode == QKV_POOL_MAX ? best : sum / (qkv_real)count;
}

qkv_tensor *qkv_pool2d(qkv_tape *tp, qkv_tensor *x, int n, qkv_grid grid, int k, int stride, int padding,
                       qkv_pool mode, qkv_grid *out_grid)
{
    QKV_PROFILE_SCOPE("pool2d", QKV_PROF_FWD);
    if (tp->failed)
        return NULL;
    if ((unsigned)mode >= QKV_POOL_COUNT)
        return qkv_tape_fail(tp, "pool2d: unknown mode %d", (int)mode);
    qkv_grid og = check_images(tp, "pool2d", x, n, grid, k, stride, padding);
    if (!qkv_grid_is_2d(og))
        return NULL;
    const int C = x->shape[1], cells = og.rows * og.cols, rows = n * cells;
    qkv_tensor *y = qkv_tape_tensor2(tp, rows, C);
    conv2d_saved *s = qkv_tape_alloc(tp, sizeof *s);
    int32_t *arg = qkv_tape_alloc(tp, ((size_t)rows * C + 1) * sizeof *arg);
    if (!y || !s || !arg)
        return NULL;
    *s = (conv2d_saved){.n = n, .k = k, .stride = stride, .padding = padding, .in = grid, .out = og, .argmax = arg,
                        .mode = mode};
#pragma omp parallel for if ((size_t)rows * C * k * k >= QKV_PARALLEL_MIN)
    for (int b = 0; b < n; b++)
        for (int o = 0; o < cells; o++)
            for (int c = 0; c < C; c++) {
                size_t at = ((size_t)b * cells + o) * C + c;
                y->data[at] = pool_cell(s, x->data, C, b, o, c, &arg[at]);
            }
    qkv_node *node = qkv_tape_record(tp, "pool2d", pool2d_backward, y, 1, (qkv_tensor *[]){x});
    if (node)
        node->saved = s;
    if (out_grid)
        *out_grid = og;
    return y;
}

/* Max: dy to the row of the maximum; avg: dy / count to every pixel of the window. */
static void pool2d_backward(qkv_tape *tp, qkv_node *node)
{
    const conv2d_saved *s = node->saved;
    qkv_tensor *x = node->in[0], *y = node->out;
    qkv_real *dx = qkv_grad(tp, x);
    if (!dx)
        return;
    const int C = x->shape[1], cells = s->out.rows * s->out.cols;
#pragma omp parallel for if ((size_t)y->size * s->k * s->k >= QKV_PARALLEL_MIN)
    for (int b = 0; b < s->n; b++) /* the pixels of image b are written by this thread only */
        for (int o = 0; o < cells; o++)
            for (int c = 0; c < C; c++) {
                size_t at = ((size_t)b * cells + o) * C + c;
                qkv_real g = y->grad[at];
                if (s->mode == QKV_POOL_MAX) {
                    dx[(size_t)s->argmax[at] * C + c] += g;
                    continue;
                }
                int count = 0;
                for (int t = 0; t < s->k * s->k; t++)
                    count += tap_row(s, b, o, t / s->k, t % s->k) >= 0;
                for (int t = 0; t < s->k * s->k; t++) {
                    long r = tap_row(s, b, o, t / s->k, t % s->k);
                    if (r >= 0)
                        dx[(size_t)r * C + c] += g / (qkv_real)count;
                }
            }
}
