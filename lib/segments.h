/* A packed batch: n segments stored end to end in the rows of one matrix, no padding. The
 * sentences of a batch (rows = tokens, for attention, positions and the encoder) and the
 * characters of its words (rows = characters, for the character CNN) are both segments.
 *
 * Segment s is rows offsets[s] .. offsets[s+1]-1; offsets has n + 1 entries, offsets[0] = 0,
 * offsets[n] = the number of rows, non-decreasing (an empty segment has equal neighbours). */
#ifndef QKV_SEGMENTS_H
#define QKV_SEGMENTS_H

#include <stdbool.h>
#include <stdint.h>

#include "lib/tape.h"

typedef struct qkv_segments {
    int n;                  /* number of segments (e.g. sentences), >= 0 */
    const int32_t *offsets; /* [n + 1] */
} qkv_segments;

/* The rows the segments cover, offsets[n]; 0 when offsets is NULL or n < 0. */
static inline int qkv_segments_rows(qkv_segments s)
{
    return s.offsets && s.n >= 0 ? s.offsets[s.n] : 0;
}

/* The rows of segment i, 0 <= i < n. */
static inline int qkv_segments_len(qkv_segments s, int i)
{
    return s.offsets[i + 1] - s.offsets[i];
}

/* Checks that s packs exactly the rows of the matrix x (as above; with `nonempty` no segment
 * may be empty) and returns a copy whose offsets live in the tape's arena, valid until
 * qkv_tape_reset(): an op keeps it for backward, and its caller may reuse its own array at
 * once. On a bad batch fails the tape with a message starting "<op>: " (NULL offsets, a
 * negative count, offsets not running from 0 to the rows of x, decreasing offsets, an empty
 * segment) and returns {0, NULL}. */
qkv_segments qkv_tape_segments(qkv_tape *tp, const char *op, qkv_segments s, const qkv_tensor *x,
                               bool nonempty);

#endif
