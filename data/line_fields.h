/* Small helpers shared by the CoNLL-U scanners of data/ (conllu.c, segment.c, ud_eval.c): fields
 * of a TAB-separated line, a CR inside a line, unsigned numbers of an ID, growing arrays. */
#ifndef QKV_DATA_LINE_FIELDS_H
#define QKV_DATA_LINE_FIELDS_H

#include <stdbool.h>
#include <stddef.h>

/* Field k (0-based) of the TAB-separated line s[0..len): its start, and its length in *flen;
 * NULL when the line has fewer than k + 1 fields. */
const char *qkv_line_field(const char *s, size_t len, int k, size_t *flen);

/* A CoNLL-U or column line ends at LF or CR LF only, and no field holds a CR (qkv_corpus_write
 * refuses one; Python's universal newlines end a line there): the 1-based byte of the first CR
 * of line s[0..len) (its line end taken off), 0 when there is none. The readers' message for it,
 * QKV_LINE_CR_MESSAGE, takes that byte. */
size_t qkv_line_cr(const char *s, size_t len);
#define QKV_LINE_CR_MESSAGE \
    "expected a line ending in LF or CR LF, found a CR inside the line at byte %zu (no field holds a CR)"

/* The unsigned decimal of 1..9 digits at s[*i] (s of len bytes), *i moved past it; -1 when
 * there is no digit at s[*i]. */
long qkv_line_number(const char *s, size_t len, size_t *i);

/* Makes room for need elements of elem bytes in *p (room *cap, doubled as needed); false when
 * out of memory (*p and *cap unchanged). */
bool qkv_array_grow(void **p, size_t *cap, size_t need, size_t elem);

#endif
