/* Line fields, numbers and growing arrays (line_fields.h). */
#include "data/line_fields.h"

#include <stdlib.h>
#include <string.h>

const char *qkv_line_field(const char *s, size_t len, int k, size_t *flen)
{
    const char *end = s + len;
    for (int i = 0; i < k; i++) {
        const char *tab = memchr(s, '\t', (size_t)(end - s));
        if (!tab)
            return NULL;
        s = tab + 1;
    }
    const char *tab = memchr(s, '\t', (size_t)(end - s));
    *flen = (size_t)((tab ? tab : end) - s);
    return s;
}

size_t qkv_line_cr(const char *s, size_t len)
{
    const char *cr = memchr(s, '\r', len);
    return cr ? (size_t)(cr - s) + 1 : 0;
}

long qkv_line_number(const char *s, size_t len, size_t *i)
{
    long v = 0;
    size_t start = *i;
    while (*i < len && s[*i] >= '0' && s[*i] <= '9' && *i - start < 9)
        v = v * 10 + (s[(*i)++] - '0');
    return *i > start ? v : -1;
}

bool qkv_array_grow(void **p, size_t *cap, size_t need, size_t elem)
{
    if (need <= *cap && *p)
        return true;
    size_t n = *cap > 64 ? *cap : 64;
    while (n < need)
        n *= 2;
    void *q = realloc(*p, n * elem);
    if (!q)
        return false;
    *p = q;
    *cap = n;
    return true;
}
