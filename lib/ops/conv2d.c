/* 2-D convolution and 2-D pooling over images of a packed batch, forward then backward. See
 * lib/ops/ops.h (lib/ops/conv2d.c section).
 *
 * Layout. Image b is rows · cols consecutive rows of x (lib/grid.h, row-major, no prefix
 * tokens), one token per pixel or cell, channels the columns. The convolution is im2col + one
 * GEMM with the columns in tap-major order, so each tap copies one contiguous row of channels:
 * cols [n·R'·C', k·k·in], cols[o, (ky·k + kx)·in + c] = x at (oy·s − p + ky, ox·s − p + kx) of
 * the same image, 0 outside it; w [out, in, k, k] (PyTorch's order) is permuted to wt [out, k·k·in]
 * for each call; y = cols · wt^T. Backward: dwt = dy^T cols (permuted back and added to dw),
 * db += Σ dy, dcols = dy · wt, then each row of dcols added back to the pixel it was read from
 * (one thread per image). */
#include "lib/blas.h"
#include "lib/gemm_rows.h"
#include "lib/ops/ops.h"
#include "lib/ops/op_util.h"

#include <limits.h>
#include <stdbool.h>
#include <string.h>

/* The columns (floats) an evaluation chunk of images may hold: ~1 MiB, within a core's cache. */
#define QKV_CONV2D_CHUNK ((size_t)1 << 18)

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
    qkv_real *cols; /* conv2d: [n·R'·C', k·k·in] (tap-major); pooling: NULL */
    qkv_real *wt;   /* conv2d: w as [out, k·k·in]; pooling: NULL */
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

/* The columns of images b0 .. b1 − 1 into cols [(b1 − b0)·R'·C', k·k·in]. */
static void im2col(const conv2d_saved *s, const qkv_real *x, int in, int b0, int b1, qkv_real *cols)
{
    int kk = s->k * s->k, cells = s->out.rows * s->out.cols;
    for (int b = b0; b < b1; b++)
        for (int o = 0; o < cells; o++) {
            qkv_real *cr = cols + ((size_t)(b - b0) * cells + o) * in * kk;
            for (int t = 0; t < kk; t++, cr += in) {
                long r = tap_row(s, b, o, t / s->k, t % s->k);
                if (r < 0)
                    memset(cr, 0, (size_t)in * sizeof *cr);
                else
                    memcpy(cr, x + (size_t)r * in, (size_t)in * sizeof *cr);
            }
        }
}

/* Evaluation (nothing recorded, so no columns kept): y [n·R'·C', out] += the products of the
 * images in chunks of `per` images; thread t of nth takes chunks t, t + nth, ..., turning each
 * into columns in its own buffer (per images of columns) and multiplying them while they are
 * still in its cache. */
static void conv2d_chunks(const conv2d_saved *s, const qkv_real *x, int in, const qkv_real *wt, int out,
                          qkv_real *y, int per, int t, int nth, qkv_real *buf)
{
    const int cells = s->out.rows * s->out.cols, ck = in * s->k * s->k, chunks = (s->n + per - 1) / per;
    for (int c = t; c < chunks; c += nth) {
        int b0 = c * per, b1 = b0 + per < s->n ? b0 + per : s->n;
        im2col(s, x, in, b0, b1, buf);
        qkv_gemm(false, true, (b1 - b0) * cells, out, ck, 1, buf, ck, wt, ck, 1, y + (size_t)b0 * cells * out, out);
    }
}

/* w [out, in, k, k] <-> wt [out, k·k, in]: to_taps copies w into wt; otherwise wt is added into w. */
static void permute_taps(qkv_real *w, qkv_real *wt, int out, int in, int kk, bool to_taps)
{
    for (int o = 0; o < out; o++)
        for (int c = 0; c < in; c++)
            for (int t = 0; t < kk; t++) {
                qkv_real *a = &w[((size_t)o * in + c) * kk + t], *b = &wt[((size_t)o * kk + t) * in + c];
                if (to_taps)
                    *b = *a;
                else
                    *a += *b;
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
    qkv_real *wt = qkv_tape_alloc(tp, (size_t)out * ck * sizeof *wt);
    if (!y || !s || !wt)
        return NULL;
    *s = (conv2d_saved){.n = n, .k = k, .stride = stride, .padding = padding, .in = grid, .out = og, .wt = wt};
    permute_taps(w->data, wt, out, in, k * k, true);
    for (int t = 0; t < rows; t++)
        if (b)
            memcpy(y->data + (size_t)t * out, b->data, (size_t)out * sizeof *y->data);
        else
            memset(y->data + (size_t)t * out, 0, (size_t)out * sizeof *y->data);
    const int nth = qkv_parallel_threads((double)rows * ck * out), cells = og.rows * og.cols;
    if (tp->no_grad && rows > 0 && n >= nth) {
        /* images per chunk of columns: about a cache's worth, and at least one chunk a thread */
        int per = ck > 0 ? (int)(QKV_CONV2D_CHUNK / ((size_t)cells * ck)) : n, even = (n + nth - 1) / nth;
        per = per < 1 ? 1 : per > even ? even : per;
        qkv_real *bufs = qkv_tape_alloc(tp, (size_t)nth * per * cells * ck * sizeof *bufs);
        if (!bufs)
            return NULL;
        const size_t buf = (size_t)per * cells * ck;
        int blas = qkv_blas_single();
        if (nth > 1) {
#pragma omp parallel for num_threads(nth)
            for (int t = 0; t < nth; t++)
                conv2d_chunks(s, x->data, in, wt, out, y->data, per, t, nth, bufs + t * buf);
        } else {
            conv2d_chunks(s, x->data, in, wt, out, y->data, per, 0, 1, bufs);
        }
        qkv_blas_restore(blas);
    } else if (rows > 0) {
        if (!(s->cols = qkv_tape_alloc(tp, (size_t)rows * ck * sizeof *s->cols)))
            return NULL;
        if (nth > 1) {
#pragma omp parallel for num_threads(nth)
            for (int im = 0; im < n; im++)
                im2col(s, x->data, in, im, im + 1, s->cols + (size_t)im * cells * ck);
        } else {
            im2col(s, x->data, in, 0, n, s->cols);
        }
        qkv_gemm_par(nth, false, true, rows, out, ck, 1, s->cols, ck, wt, ck, 1, y->data, out);
    }
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
    qkv_real *dwt = dw && rows > 0 ? qkv_tape_alloc(tp, (size_t)out * ck * sizeof *dwt) : NULL;
    if (dwt) { /* dwt [out, k·k·in] = dy^T [out, rows] · cols [rows, k·k·in], added to dw in its order */
        qkv_gemm_par(nth, true, false, out, ck, rows, 1, dy, out, s->cols, ck, 0, dwt, ck);
        permute_taps(dw, dwt, out, in, kk, false);
    }
    for (int t = 0; db && t < rows; t++)
        for (int o = 0; o < out; o++)
            db[o] += dy[(size_t)t * out + o];
    qkv_real *dcols = dx && rows > 0 ? qkv_tape_alloc(tp, (size_t)rows * ck * sizeof *dcols) : NULL;
    if (!dcols)
        return;
    qkv_gemm_par(nth, false, false, rows, ck, out, 1, dy, out, s->wt, ck, 0, dcols, ck);
    /* the pixels of image im are written by this thread only */
    QKV_FOR_ROWS(int, im, s->n, (size_t)rows * ck >= QKV_PARALLEL_MIN, {
        for (int o = 0; o < cells; o++) {
            const qkv_real *dc = dcols + ((size_t)im * cells + o) * ck;
            for (int t = 0; t < kk; t++, dc += in) {
                long r = tap_row(s, im, o, t / s->k, t % s->k);
                qkv_real *dxr = r < 0 ? NULL : dx + (size_t)r * in;
                for (int c = 0; dxr && c < in; c++)
                    dxr[c] += dc[c];
            }
        }
    });
}

static void pool2d_backward(qkv_tape *tp, qkv_node *node);

/* Output cell o of image b, every channel, into y [C]: the maximum (with arg, its input row in
 * arg[c], the first maximum winning; evaluation passes no arg) or the mean of its window's
 * pixels (padding taps skipped: the mean is over the pixels inside the image). */
static void pool_cell(const conv2d_saved *s, const qkv_real *x, int C, int b, int o, qkv_real *y, int32_t *arg)
{
    int count = 0;
    for (int t = 0; t < s->k * s->k; t++) {
        long r = tap_row(s, b, o, t / s->k, t % s->k);
        if (r < 0)
            continue;
        const qkv_real *xr = x + (size_t)r * C;
        if (count++ == 0) {
            memcpy(y, xr, (size_t)C * sizeof *y);
            for (int c = 0; arg && c < C; c++)
                arg[c] = (int32_t)r;
        } else if (s->mode == QKV_POOL_AVG) {
            for (int c = 0; c < C; c++)
                y[c] += xr[c];
        } else if (!arg) {
            for (int c = 0; c < C; c++)
                y[c] = xr[c] > y[c] ? xr[c] : y[c];
        } else {
            for (int c = 0; c < C; c++)
                if (xr[c] > y[c])
                    y[c] = xr[c], arg[c] = (int32_t)r;
        }
    }
    for (int c = 0; s->mode == QKV_POOL_AVG && c < C; c++)
        y[c] /= (qkv_real)count;
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
    const bool keep_arg = !tp->no_grad && mode == QKV_POOL_MAX; /* max's backward reads each maximum's row */
    int32_t *arg = keep_arg ? qkv_tape_alloc(tp, ((size_t)rows * C + 1) * sizeof *arg) : NULL;
    if (!y || !s || (keep_arg && !arg))
        return NULL;
    *s = (conv2d_saved){.n = n, .k = k, .stride = stride, .padding = padding, .in = grid, .out = og, .argmax = arg,
                        .mode = mode};
    QKV_FOR_ROWS(int, b, n, (size_t)rows * C * k * k >= QKV_PARALLEL_MIN, {
        for (int o = 0; o < cells; o++) {
            size_t at = ((size_t)b * cells + o) * C;
            pool_cell(s, x->data, C, b, o, y->data + at, arg ? arg + at : NULL);
        }
    });
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
    const int C = x->shape[1], cells = s->out.rows * s->out.cols, kk = s->k * s->k;
    /* the pixels of image b are written by this thread only */
    QKV_FOR_ROWS(int, b, s->n, (size_t)y->size * kk >= QKV_PARALLEL_MIN, {
        for (int o = 0; o < cells; o++) {
            size_t at = ((size_t)b * cells + o) * C;
            const qkv_real *g = y->grad + at;
            if (s->mode == QKV_POOL_MAX) {
                for (int c = 0; c < C; c++)
                    dx[(size_t)s->argmax[at + c] * C + c] += g[c];
                continue;
            }
            int count = 0;
            for (int t = 0; t < kk; t++)
                count += tap_row(s, b, o, t / s->k, t % s->k) >= 0;
            for (int t = 0; t < kk; t++) {
                long r = tap_row(s, b, o, t / s->k, t % s->k);
                for (int c = 0; r >= 0 && c < C; c++)
                    dx[(size_t)r * C + c] += g[c] / (qkv_real)count;
            }
        }
    });
}
