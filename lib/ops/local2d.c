/* 2-D local attention as a constant score bias (−∞ outside the window). See
 * lib/ops/grid_bias.h. */
#include "lib/ops/grid_bias.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>

static int local2d_check(const qkv_score_bias *b, int n_heads, bool softmax, char *msg, size_t len)
{
    (void)n_heads;
    if (qkv_grid_bias_check(b, msg, len))
        return 1;
    if (b->clip < 0)
        return snprintf(msg, len, "2-D window %d is negative", b->clip), 1;
    if (!softmax)
        return snprintf(msg, len, "a 2-D window needs softmax normalization"), 1;
    return 0;
}

static void local2d_add(const qkv_score_bias *b, int h, int n_heads, int i, int a, int e, qkv_real *s)
{
    (void)h, (void)n_heads;
    for (int j = a; j < e; j++) {
        int dy, dx;
        if (qkv_grid_offset(b->grid, i, j, &dy, &dx) && (abs(dy) > b->clip || abs(dx) > b->clip))
            s[j - a] = -(qkv_real)INFINITY;
    }
}

/* A constant bias: no backward (a masked key has P = 0, so its score gradient is 0). */
const qkv_score_bias_kind qkv_local2d_kind = {
    .name = "local2d",
    .check = local2d_check,
    .add = local2d_add,
};
