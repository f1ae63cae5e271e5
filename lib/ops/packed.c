/* Ops on packed sequences (the characters of the words of a batch, end to end), forward and
 * backward in that order: the pieces of a character-level CNN word encoder (Santos & Zadrozny
 * 2014; Ma & Hovy 2016: character embeddings -> 1-D convolution within each word -> max over
 * the word's characters).
 *
 * segment_windows: y[c, j·D + d] = x[c - h + j, d] when row c - h + j lies in c's own
 * sequence, else 0 (h = width / 2, j = 0 .. width - 1). Backward gathers: for input row r,
 * dx[r, d] += Σ_j dy[r + h - j, j·D + d] over the rows r + h - j of r's sequence (r lies in the
 * window of c exactly when c lies in the same sequence and |c - r| <= h), so each thread writes
 * its own rows of dx and the sum order is fixed: no atomics, the same bits for any thread count.
 *
 * segment_max: y[s, f] = max of x[r, f] over the rows r of sequence s; the first maximal row
 * wins ties (as torch.max) and a NaN wins over numbers (so it propagates, as in PyTorch).
 * Backward adds dy[s, f] into dx[argmax[s, f], f]; sequences own disjoint rows of dx, so the
 * loop over sequences is threaded without races. */
#include "lib/ops/ops.h"
#include "lib/ops/op_util.h"

#include <limits.h>
#include <string.h>

typedef struct {
    qkv_packed seg; /* arena copy */
    int width;
} windows_saved;

typedef struct {
    int32_t *argmax; /* [n_seg, F]: the row of x holding each maximum (all backward needs) */
    int n_seg;
} max_saved;

/* Checks x (a matrix with at least one row) and the sequences covering its rows (non-empty ones
 * when !allow_empty); returns their arena copy, or {0, NULL} after failing the tape. */
static qkv_packed check_segments(qkv_tape *tp, const char *op, const qkv_tensor *x, qkv_packed seg,
                                   bool allow_empty)
{
    char sx[64];
    if (!x) {
        qkv_tape_fail(tp, "%s: the input is NULL", op);
        return (qkv_packed){0, NULL};
    }
    if (x->rank != 2 || x->size == 0) {
        qkv_tape_fail(tp, "%s: the input must be a matrix [C, D] with at least one row, got %s", op,
                      qkv_shape_str(x, sx, sizeof sx));
        return (qkv_packed){0, NULL};
    }
    return qkv_tape_packed(tp, op, seg, x, !allow_empty);
}

/* ---- segment_windows ---------------------------------------------------------------------- */

static void windows_backward(qkv_tape *tp, qkv_node *node);

qkv_tensor *qkv_packed_windows(qkv_tape *tp, qkv_tensor *x, qkv_packed segments, int width)
{
    QKV_PROFILE_SCOPE("segment_windows", QKV_PROF_FWD);
    if (tp->failed)
        return NULL;
    const char *op = "segment_windows";
    if (width < 1 || width % 2 == 0)
        return qkv_tape_fail(tp, "%s: width %d must be odd and >= 1 (a window centred on its row)", op, width);
    const qkv_packed seg = check_segments(tp, op, x, segments, true);
    if (!seg.offsets)
        return NULL;
    const int rows = x->shape[0], d = x->shape[1], h = width / 2;
    if ((long long)width * d > INT_MAX)
        return qkv_tape_fail(tp, "%s: width %d times %d columns is too many columns", op, width, d);
    const int yc = width * d;
    qkv_tensor *y = qkv_tape_tensor2(tp, rows, yc);
    if (!y)
        return NULL;
    const qkv_real *px = x->data;
    qkv_real *py = y->data;
    QKV_FOR_ROWS(int, g, seg.n, y->size >= QKV_PARALLEL_MIN, {
        const int lo = seg.offsets[g], hi = seg.offsets[g + 1];
        for (int c = lo; c < hi; c++) {
            qkv_real *yr = py + (size_t)c * yc;
            for (int j = 0; j < width; j++) {
                const int src = c - h + j;
                if (src >= lo && src < hi)
                    memcpy(yr + (size_t)j * d, px + (size_t)src * d, (size_t)d * sizeof *py);
                else
                    memset(yr + (size_t)j * d, 0, (size_t)d * sizeof *py);
            }
        }
    });
    qkv_tensor *inputs[1] = {x};
    qkv_node *node = qkv_tape_record(tp, op, windows_backward, y, 1, inputs);
    if (node) {
        windows_saved *s = qkv_tape_alloc(tp, sizeof *s);
        if (!s)
            return NULL;
        s->seg = seg;
        s->width = width;
        node->saved = s;
    }
    return y;
}

static void windows_backward(qkv_tape *tp, qkv_node *node)
{
    const windows_saved *s = node->saved;
    qkv_tensor *x = node->in[0], *y = node->out;
    qkv_real *dx = qkv_grad(tp, x);
    if (!dx)
        return;
    const int d = x->shape[1], width = s->width, h = width / 2, yc = width * d;
    const int32_t *off = s->seg.offsets;
    const qkv_real *dy = y->grad;
    QKV_FOR_ROWS(int, g, s->seg.n, y->size >= QKV_PARALLEL_MIN, {
        const int lo = off[g], hi = off[g + 1];
        for (int r = lo; r < hi; r++) {
            qkv_real *dxr = dx + (size_t)r * d;
            for (int j = 0; j < width; j++) {
                const int c = r + h - j; /* the output row whose window holds r at slot j */
                if (c < lo || c >= hi)
                    continue;
                const qkv_real *src = dy + (size_t)c * yc + (size_t)j * d;
                _Pragma("omp simd")
                for (int k = 0; k < d; k++)
                    dxr[k] += src[k];
            }
        }
    });
}

/* ---- segment_max -------------------------------------------------------------------------- */

static void max_backward(qkv_tape *tp, qkv_node *node);

qkv_tensor *qkv_packed_max(qkv_tape *tp, qkv_tensor *x, qkv_packed segments)
{
    QKV_PROFILE_SCOPE("segment_max", QKV_PROF_FWD);
    if (tp->failed)
        return NULL;
    const char *op = "segment_max";
    const qkv_packed seg = check_segments(tp, op, x, segments, false);
    if (!seg.offsets)
        return NULL;
    const int f = x->shape[1], n_seg = seg.n;
    qkv_tensor *y = qkv_tape_tensor2(tp, n_seg, f);
    int32_t *am = qkv_tape_alloc(tp, (size_t)n_seg * (size_t)f * sizeof *am);
    if (!y || !am)
        return NULL;
    const qkv_real *px = x->data;
    qkv_real *py = y->data;
    QKV_FOR_ROWS(int, g, n_seg, x->size >= QKV_PARALLEL_MIN, {
        const int lo = seg.offsets[g], hi = seg.offsets[g + 1];
        qkv_real *yr = py + (size_t)g * f;
        int32_t *amr = am + (size_t)g * f;
        memcpy(yr, px + (size_t)lo * f, (size_t)f * sizeof *yr);
        for (int k = 0; k < f; k++)
            amr[k] = lo;
        for (int r = lo + 1; r < hi; r++) {
            const qkv_real *xr = px + (size_t)r * f;
            _Pragma("omp simd")
            for (int k = 0; k < f; k++) {
                const qkv_real v = xr[k], m = yr[k];
                /* strictly greater: the first maximum stays; a NaN replaces a number */
                const bool take = v > m || (v != v && m == m);
                yr[k] = take ? v : m;
                amr[k] = take ? r : amr[k];
            }
        }
    });
    qkv_tensor *inputs[1] = {x};
    qkv_node *node = qkv_tape_record(tp, op, max_backward, y, 1, inputs);
    if (node) {
        max_saved *s = qkv_tape_alloc(tp, sizeof *s);
        if (!s)
            return NULL;
        s->argmax = am;
        s->n_seg = n_seg;
        node->saved = s;
    }
    return y;
}

static void max_backward(qkv_tape *tp, qkv_node *node)
{
    const max_saved *s = node->saved;
    qkv_tensor *x = node->in[0], *y = node->out;
    qkv_real *dx = qkv_grad(tp, x);
    if (!dx)
        return;
    const int f = x->shape[1];
    const qkv_real *dy = y->grad;
    const int32_t *am = s->argmax;
    QKV_FOR_ROWS(int, g, s->n_seg, x->size >= QKV_PARALLEL_MIN, {
        const qkv_real *dyr = dy + (size_t)g * f;
        const int32_t *amr = am + (size_t)g * f;
        for (int k = 0; k < f; k++)
            dx[(size_t)amr[k] * f + k] += dyr[k];
    });
}
