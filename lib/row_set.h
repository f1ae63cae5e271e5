/* The rows of a matrix parameter [V, D] that a batch touches: each row once, in the order of
 * first use. Embedding tables use it so that work after backward (zeroing gradients, a lazy
 * optimizer update) is proportional to the rows a batch selects, not to V.
 *
 * Everything is allocated by qkv_row_set_init; adding and clearing allocate nothing. */
#ifndef QKV_ROW_SET_H
#define QKV_ROW_SET_H

#include <stdint.h>

#include "lib/error.h"
#include "lib/tensor.h"

typedef struct qkv_row_set {
    int n_total;     /* V: ids must be in 0 .. V-1 */
    int n;           /* rows in the set */
    int32_t *rows;   /* [n] distinct row ids, in the order they were first added */
    uint8_t *mark;   /* [V] 1 for the rows in the set */
} qkv_row_set;

/* An empty set for a table of v rows (v >= 1). QKV_ERR with err set when out of memory;
 * s is then safe to qkv_row_set_free. */
int qkv_row_set_init(qkv_row_set *s, int v, qkv_error *err);
void qkv_row_set_free(qkv_row_set *s);

/* Adds ids[0 .. n-1] (each in 0 .. V-1, repeats allowed) to the set. */
void qkv_row_set_add(qkv_row_set *s, const int32_t *ids, int n);

/* Empties the set (cost proportional to its size). */
void qkv_row_set_clear(qkv_row_set *s);

/* Sets rows s->rows of the row-major matrix x [V, d] to zero. */
void qkv_row_set_zero(const qkv_row_set *s, qkv_real *x, int d);

#endif
