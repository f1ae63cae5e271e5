/* 2-D relative position biases: the score bias and its gradient. See lib/ops/grid_bias.h. */
#include "lib/ops/grid_bias.h"

#include <stdio.h>

int qkv_grid_bias_check(const qkv_score_bias *b, char *msg, size_t len)
{
    if (!qkv_grid_is_2d(b->grid) || b->grid.n_prefix < 0)
        return snprintf(msg, len, "%s needs a 2-D grid of tokens, got rows %d, cols %d, n_prefix %d", b->kind->name,
                        b->grid.rows, b->grid.cols, b->grid.n_prefix), 1;
    return 0;
}

static int rel2d_n_learned(int clip) { return (2 * clip + 1) * (2 * clip + 1) + 1; }

static inline int clip_to(int d, int R) { return d < -R ? -R : d > R ? R : d; }

/* The column of param for the pair (i, j). */
static inline int rel2d_index(qkv_grid g, int R, int i, int j)
{
    int dy, dx;
    if (!qkv_grid_offset(g, i, j, &dy, &dx))
        return (2 * R + 1) * (2 * R + 1);
    return (clip_to(dy, R) + R) * (2 * R + 1) + clip_to(dx, R) + R;
}

static int rel2d_check(const qkv_score_bias *b, int n_heads, bool softmax, char *msg, size_t len)
{
    (void)softmax;
    char s1[64];
    int R = b->clip;
    if (qkv_grid_bias_check(b, msg, len))
        return 1;
    if (R < 1)
        return snprintf(msg, len, "rel2d clip %d must be >= 1", R), 1;
    qkv_tensor *t = b->param;
    if (!t || t->rank != 2 || t->shape[0] != n_heads || t->shape[1] != rel2d_n_learned(R))
        return snprintf(msg, len, "rel2d clip %d needs a bias [%d, %d], got %s", R, n_heads, rel2d_n_learned(R),
                        t ? qkv_shape_str(t, s1, sizeof s1) : "none"), 1;
    return 0;
}

static void rel2d_add(const qkv_score_bias *b, int h, int n_heads, int i, int a, int e, qkv_real *s)
{
    (void)n_heads;
    const qkv_real *w = b->param->data + (size_t)h * rel2d_n_learned(b->clip);
    for (int j = a; j < e; j++)
        s[j - a] += w[rel2d_index(b->grid, b->clip, i, j)];
}

static void rel2d_backward(const qkv_score_bias *b, int h, int i, int a, int e, const qkv_real *ds, qkv_real *g)
{
    (void)h;
    for (int j = a; j < e; j++)
        g[rel2d_index(b->grid, b->clip, i, j)] += ds[j - a];
}

const qkv_score_bias_kind qkv_rel2d_bias_kind = {
    .name = "rel2d",
    .check = rel2d_check,
    .add = rel2d_add,
    .backward = rel2d_backward,
    .n_learned = rel2d_n_learned,
    .param_name = "rel2d_bias",
};
