/* Byte strings in byte order, and the search of a sorted list of them (the segmenter's lexicon
 * chunks and abbreviations, data/seg_lexicon.h). */
#ifndef QKV_DATA_SORTED_STRINGS_H
#define QKV_DATA_SORTED_STRINGS_H

#include <stddef.h>
#include <string.h>

/* <0, 0, >0 as a[0..na) sorts before, with, after b[0..nb) in byte order (a prefix first). */
static inline int qkv_bytes_cmp(const char *a, size_t na, const char *b, size_t nb)
{
    int c = memcmp(a, b, na < nb ? na : nb);
    return c ? c : (na > nb) - (na < nb);
}

/* The index of bytes[0..len) in list[0..n) (NUL-terminated strings sorted by qkv_bytes_cmp),
 * or -1: a binary search. */
static inline long qkv_sorted_find(const char *const *list, size_t n, const char *bytes, size_t len)
{
    size_t lo = 0, hi = n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        int c = qkv_bytes_cmp(list[mid], strlen(list[mid]), bytes, len);
        if (c == 0)
            return (long)mid;
        if (c < 0)
            lo = mid + 1;
        else
            hi = mid;
    }
    return -1;
}

#endif
