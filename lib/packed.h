/* A packed batch: n sequences stored end to end in the rows of one matrix, no padding. The
 * sentences of a batch (rows = tokens, for attention, positions and the encoder) and the
 * characters of its words (rows = characters, for the character CNN) are both sequences.
 *
 * Sequence s is rows offsets[s] .. offsets[s+1]-1; offsets has n + 1 entries, offsets[0] = 0,
 * offsets[n] = the number of rows, non-decreasing (an empty sequence has equal neighbours). */
#ifndef QKV_PACKED_H
#define QKV_PACKED_H

#include <stdbool.h>
#include <stdint.h>

#include "lib/tape.h"

typedef struct qkv_packed {
    int n;                  /* number of sequences (e.g. sentences), >= 0 */
    const int32_t *offsets; /* [n + 1] */
} qkv_packed;

/* The rows the sequences cover, offsets[n]; 0 when offsets is NULL or n < 0. */
static inline int qkv_packed_rows(qkv_packed s)
{
    return s.offsets && s.n >= 0 ? s.offsets[s.n] : 0;
}

/* The rows of sequence i, 0 <= i < n. */
static inline int qkv_packed_len(qkv_packed s, int i)
{
    return s.offsets[i + 1] - s.offsets[i];
}

/* Checks that s packs exactly the rows of the matrix x (as above; with `nonempty` no sequence
 * may be empty) and returns a copy whose offsets live in the tape's arena, valid until
 * qkv_tape_reset(): an op keeps it for backward, and its caller may reuse its own array at
 * once. On a bad batch fails the tape with a message starting "<op>: " (NULL offsets, a
 * negative count, offsets not running from 0 to the rows of x, decreasing offsets, an empty
 * sequence) and returns {0, NULL}. */
qkv_packed qkv_tape_packed(qkv_tape *tp, const char *op, qkv_packed s, const qkv_tensor *x,
                               bool nonempty);

#endif
