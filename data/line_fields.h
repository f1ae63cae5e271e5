/* Small helpers shared by the CoNLL-U scanners of data/ (segment.c, ud_eval.c): fields of a
 * TAB-separated line, unsigned numbers of an ID, growing arrays. */
#ifndef QKV_DATA_LINE_FIELDS_H
#define QKV_DATA_LINE_FIELDS_H

#include <stdbool.h>
#include <stddef.h>

/* Field k (0-based) of the TAB-separated line s[0..len): its start, and its length in *flen;
 * NULL when the line has fewer than k + 1 fields. */
const char *qkv_line_field(const char *s, size_t len, int k, size_t *flen);

/* The unsigned decimal of 1..9 digits at s[*i] (s of len bytes), *i moved past it; -1 when
 * there is no digit at s[*i]. */
long qkv_line_number(const char *s, size_t len, size_t *i);

/* Makes room for need elements of elem bytes in *p (room *cap, doubled as needed); false when
 * out of memory (*p and *cap unchanged). */
bool qkv_array_grow(void **p, size_t *cap, size_t need, size_t elem);

#endif
