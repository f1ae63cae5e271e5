/* ALiBi's head slopes and its score bias. See lib/ops/alibi.h. */
#include "lib/ops/alibi.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>

double qkv_alibi_slope(int h, int n_heads)
{
    int c = 1; /* the largest power of two <= n_heads */
    while (c * 2 <= n_heads)
        c *= 2;
    if (h < c)
        return pow(2.0, -8.0 * (h + 1) / c);
    int k = h - c + 1;
    return pow(2.0, -8.0 * (2 * k - 1) / (2.0 * c));
}

static int alibi_check(const qkv_score_bias *b, int n_heads, bool softmax, char *msg, size_t len)
{
    (void)b, (void)n_heads;
    return softmax ? 0 : (snprintf(msg, len, "alibi needs softmax normalization"), 1);
}

static void alibi_add(const qkv_score_bias *b, int h, int n_heads, int i, int a, int e, qkv_real *s)
{
    (void)b;
    qkv_real m = (qkv_real)qkv_alibi_slope(h, n_heads);
    for (int j = a; j < e; j++)
        s[j - a] -= m * (qkv_real)abs(j - i);
}

/* A constant bias: no backward. */
const qkv_score_bias_kind qkv_alibi_kind = {.name = "alibi", .check = alibi_check, .add = alibi_add};
