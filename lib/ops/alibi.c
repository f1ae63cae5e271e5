/* ALiBi's head slopes. See lib/ops/alibi.h; the bias itself is added in lib/ops/attention.c. */
#include "lib/ops/alibi.h"

#include <math.h>

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
