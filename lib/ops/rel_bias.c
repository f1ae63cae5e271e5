/* Relative position biases: the score bias and its gradient. See lib/ops/rel_bias.h. */
#include "lib/ops/rel_bias.h"

#include <stdio.h>

static inline int rel_index(int d, int R) { return (d < -R ? -R : d > R ? R : d) + R; }

static int rel_check(const qkv_score_bias *b, int n_heads, bool softmax, char *msg, size_t len)
{
    (void)softmax;
    char s1[64];
    int R = b->clip;
    qkv_tensor *t = b->param;
    if (R < 0)
        return snprintf(msg, len, "rel_clip %d is negative", R), 1;
    if (R > 0 && (!t || t->rank != 2 || t->shape[0] != n_heads || t->shape[1] != 2 * R + 1))
        return snprintf(msg, len, "rel_clip %d needs rel_bias [%d, %d], got %s", R, n_heads, 2 * R + 1,
                        t ? qkv_shape_str(t, s1, sizeof s1) : "none"), 1;
    if (R == 0 && t)
        return snprintf(msg, len, "rel_bias given but rel_clip is 0"), 1;
    return 0;
}

static void rel_add(const qkv_score_bias *b, int h, int n_heads, int i, int a, int e, qkv_real *s)
{
    (void)n_heads;
    int R = b->clip;
    const qkv_real *rb = b->param->data + (size_t)h * (2 * R + 1);
    for (int j = a; j < e; j++)
        s[j - a] += rb[rel_index(j - i, R)];
}

/* The bias entered the scores unscaled: d rel_bias[h][k] = the sum of dS at offset k. */
static void rel_backward(const qkv_score_bias *b, int h, int i, int a, int e, const qkv_real *ds, qkv_real *g)
{
    (void)h;
    for (int j = a; j < e; j++)
        g[rel_index(j - i, b->clip)] += ds[j - a];
}

const qkv_score_bias_kind qkv_rel_bias_kind = {
    .name = "relative", .check = rel_check, .add = rel_add, .backward = rel_backward};

qkv_score_bias qkv_rel_bias(qkv_tensor *rel_bias, int clip)
{
    return (qkv_score_bias){.kind = &qkv_rel_bias_kind, .param = rel_bias, .clip = clip};
}
