/* Rotary position embedding: the rotation, its tape op, and the op's backward. See
 * lib/ops/rope.h. */
#include "lib/ops/rope.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

void qkv_rope_angles(int d_head, double base, double *theta)
{
    for (int i = 0; i < d_head / 2; i++)
        theta[i] = pow(base, -2.0 * i / d_head);
}

void qkv_rope_rotate(qkv_real *m, int ld, int d_model, int n_heads, qkv_packed sentences, double base,
                     bool inverse)
{
    int dh = d_model / n_heads, half = dh / 2;
    double theta[half > 0 ? half : 1];
    qkv_real cs[half > 0 ? half : 1], sn[half > 0 ? half : 1];
    qkv_rope_angles(dh, base, theta);
    double sign = inverse ? -1.0 : 1.0;
    for (int b = 0; b < sentences.n; b++)
        for (int t = sentences.offsets[b]; t < sentences.offsets[b + 1]; t++) {
            double p = t - sentences.offsets[b];
            for (int i = 0; i < half; i++) {
                cs[i] = (qkv_real)cos(p * theta[i]);
                sn[i] = (qkv_real)(sign * sin(p * theta[i]));
            }
            qkv_real *row = m + (size_t)t * ld;
            for (int h = 0; h < n_heads; h++) {
                qkv_real *x = row + (size_t)h * dh;
                for (int i = 0; i < half; i++) {
                    qkv_real a = x[2 * i], c = x[2 * i + 1];
                    x[2 * i] = a * cs[i] - c * sn[i];
                    x[2 * i + 1] = a * sn[i] + c * cs[i];
                }
            }
        }
}

void qkv_rope_rotate_2d(qkv_real *m, int ld, int d_model, int n_heads, qkv_packed sentences, qkv_grid grid,
                        double base, bool inverse)
{
    int dh = d_model / n_heads, half = dh / 2, quarter = dh / 4;
    double theta[quarter > 0 ? quarter : 1];
    qkv_real cs[half > 0 ? half : 1], sn[half > 0 ? half : 1];
    qkv_rope_angles(half, base, theta);
    double sign = inverse ? -1.0 : 1.0;
    for (int b = 0; b < sentences.n; b++)
        for (int t = sentences.offsets[b] + grid.n_prefix; t < sentences.offsets[b + 1]; t++) {
            int p = t - sentences.offsets[b];
            double row = qkv_grid_row(grid, p), col = qkv_grid_col(grid, p);
            for (int i = 0; i < half; i++) { /* pairs 0 .. dh/4 − 1 by the row, the others by the column */
                double angle = i < quarter ? row * theta[i] : col * theta[i - quarter];
                cs[i] = (qkv_real)cos(angle);
                sn[i] = (qkv_real)(sign * sin(angle));
            }
            qkv_real *r = m + (size_t)t * ld;
            for (int h = 0; h < n_heads; h++) {
                qkv_real *x = r + (size_t)h * dh;
                for (int i = 0; i < half; i++) {
                    qkv_real a = x[2 * i], c = x[2 * i + 1];
                    x[2 * i] = a * cs[i] - c * sn[i];
                    x[2 * i + 1] = a * sn[i] + c * cs[i];
                }
            }
        }
}

typedef struct {
    qkv_packed sentences; /* arena copy */
    int n_heads;
    double base;
} rope_saved;

static void rope_backward(qkv_tape *tp, qkv_node *node);

qkv_tensor *qkv_rope(qkv_tape *tp, qkv_tensor *x, qkv_packed sentences, int n_heads, double base)
{
    QKV_PROFILE_SCOPE("rope", QKV_PROF_FWD);
    if (tp->failed)
        return NULL;
    char sx[64];
    if (x->rank != 2)
        return qkv_tape_fail(tp, "rope: x must be [T, d_model], got %s", qkv_shape_str(x, sx, sizeof sx));
    int D = x->shape[1];
    if (n_heads < 1 || D % n_heads != 0)
        return qkv_tape_fail(tp, "rope: n_heads %d does not divide d_model %d", n_heads, D);
    if ((D / n_heads) % 2 != 0)
        return qkv_tape_fail(tp, "rope: d_head %d is odd (rotary embedding rotates pairs of columns)", D / n_heads);
    if (!(base > 0) || !isfinite(base))
        return qkv_tape_fail(tp, "rope: base %g must be positive and finite", base);
    qkv_packed sent = qkv_tape_packed(tp, "rope", sentences, x, false);
    if (!sent.offsets)
        return NULL;
    qkv_tensor *y = qkv_tape_like(tp, x);
    if (!y)
        return NULL;
    memcpy(y->data, x->data, x->size * sizeof(qkv_real));
    qkv_rope_rotate(y->data, D, D, n_heads, sent, base, false);
    qkv_node *node = qkv_tape_record(tp, "rope", rope_backward, y, 1, (qkv_tensor *[]){x});
    if (node) {
        rope_saved *s = qkv_tape_alloc(tp, sizeof *s);
        if (!s)
            return NULL;
        *s = (rope_saved){sent, n_heads, base};
        node->saved = s;
    }
    return y;
}

static void rope_backward(qkv_tape *tp, qkv_node *node)
{
    const rope_saved *s = node->saved;
    qkv_tensor *x = node->in[0], *y = node->out;
    qkv_real *dx = qkv_grad(tp, x);
    int D = qkv_cols(x);
    qkv_real *g = dx ? qkv_tape_alloc(tp, y->size * sizeof(qkv_real) + 1) : NULL;
    if (!g)
        return;
    memcpy(g, y->grad, y->size * sizeof(qkv_real));
    qkv_rope_rotate(g, D, D, s->n_heads, s->sentences, s->base, true);
    for (size_t k = 0; k < x->size; k++)
        dx[k] += g[k];
}
