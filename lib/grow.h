/* Amortized growth of a malloc'd array, for appending one element or a run at a time. */
#ifndef QKV_GROW_H
#define QKV_GROW_H

#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>

/* Makes *p (an array of *cap elements of elem bytes, NULL when *cap is 0) hold at least need
 * elements, doubling its capacity (from 16); the new elements are unset. Returns false when out
 * of memory, with *p and *cap unchanged (the array still the caller's to free). */
static inline bool qkv_grow(void **p, int64_t *cap, int64_t need, size_t elem)
{
    if (need <= *cap)
        return true;
    int64_t c = *cap > 0 ? *cap : 16;
    while (c < need)
        c *= 2;
    void *q = realloc(*p, (size_t)c * elem);
    if (!q)
        return false;
    *p = q;
    *cap = c;
    return true;
}

#endif
