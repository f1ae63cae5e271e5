/* Cordonnier's quadratic encoding: the score bias, its gradient and its initialization. See
 * lib/ops/grid_bias.h. */
#include "lib/ops/grid_bias.h"

#include <stdio.h>

static int quadratic_n_learned(int clip)
{
    (void)clip;
    return 3;
}

static int quadratic_check(const qkv_score_bias *b, int n_heads, bool softmax, char *msg, size_t len)
{
    (void)softmax;
    char s1[64];
    if (qkv_grid_bias_check(b, msg, len))
        return 1;
    qkv_tensor *t = b->param;
    if (!t || t->rank != 2 || t->shape[0] != n_heads || t->shape[1] != 3)
        return snprintf(msg, len, "quadratic2d needs (centre y, centre x, width) [%d, 3], got %s", n_heads,
                        t ? qkv_shape_str(t, s1, sizeof s1) : "none"), 1;
    return 0;
}

static void quadratic_add(const qkv_score_bias *b, int h, int n_heads, int i, int a, int e, qkv_real *s)
{
    (void)n_heads;
    const qkv_real *v = b->param->data + (size_t)h * 3;
    qkv_real cy = v[0], cx = v[1], alpha = v[2];
    for (int j = a; j < e; j++) {
        int dy, dx;
        if (!qkv_grid_offset(b->grid, i, j, &dy, &dx))
            continue;
        qkv_real ey = (qkv_real)dy - cy, ex = (qkv_real)dx - cx;
        s[j - a] -= alpha * (ey * ey + ex * ex);
    }
}

/* b = −α((dy − Δy)² + (dx − Δx)²): ∂b/∂Δy = 2α(dy − Δy), ∂b/∂Δx = 2α(dx − Δx),
 * ∂b/∂α = −((dy − Δy)² + (dx − Δx)²). */
static void quadratic_backward(const qkv_score_bias *b, int h, int i, int a, int e, const qkv_real *ds,
                               qkv_real *g)
{
    const qkv_real *v = b->param->data + (size_t)h * 3;
    qkv_real cy = v[0], cx = v[1], alpha = v[2];
    for (int j = a; j < e; j++) {
        int dy, dx;
        if (!qkv_grid_offset(b->grid, i, j, &dy, &dx))
            continue;
        qkv_real ey = (qkv_real)dy - cy, ex = (qkv_real)dx - cx;
        g[0] += ds[j - a] * 2 * alpha * ey;
        g[1] += ds[j - a] * 2 * alpha * ex;
        g[2] -= ds[j - a] * (ey * ey + ex * ex);
    }
}

static void quadratic_init(qkv_tensor *param, int clip, qkv_rng *rng)
{
    (void)clip;
    for (int h = 0; h < param->shape[0]; h++) {
        qkv_real *v = param->data + (size_t)h * 3;
        v[0] = rng ? (qkv_real)(2 * qkv_rng_uniform(rng) - 1) : 0;
        v[1] = rng ? (qkv_real)(2 * qkv_rng_uniform(rng) - 1) : 0;
        v[2] = 1;
    }
}

const qkv_score_bias_kind qkv_quadratic_bias_kind = {
    .name = "quadratic2d",
    .check = quadratic_check,
    .add = quadratic_add,
    .backward = quadratic_backward,
    .n_learned = quadratic_n_learned,
    .param_name = "quadratic",
    .init = quadratic_init,
};
