/* Private helpers of the op files in lib/ops/ (not part of the public API).
 *
 * QKV_PARALLEL_MIN (lib/parallel.h): a loop over a tensor runs on OpenMP threads only when it
 * touches at least this many elements (QKV_PARALLEL_MIN_EXP for loops with an exp or erf per
 * element); below it the thread start-up costs more than it saves, so small tensors (and every
 * gradient check) stay serial, outside any parallel region. Use lib/parallel.h's loops:
 *     QKV_FOR_ELEMENTS(i, n, y[i] = ...;)                            (one flat loop, simd)
 *     QKV_FOR_ROWS(int, i, rows, x->size >= QKV_PARALLEL_MIN, {...})  (rows; inner loops
 *                                                          _Pragma("omp simd"))
 * The explicit simd matters: at -O2 GCC 12 vectorizes only loops whose trip count is a known
 * multiple of the vector width ("very cheap" cost model), i.e. almost none of ours. Write
 * conditionals as selects on values already loaded (v = a[i]; y = c ? v : 0), not as
 * conditional loads, or they stay scalar branches.
 * The qkv_r* math functions of the build's element type are in lib/tensor.h. */
#ifndef QKV_OP_UTIL_H
#define QKV_OP_UTIL_H

#include <math.h>
#include <stdint.h>

#include "lib/parallel.h"
#include "lib/tape.h"
#include "lib/tensor.h"

/* The backward of qkv_add (lib/ops/elementwise.c): dy into the gradients of both inputs; for the
 * fused ops that record an "add" node of their own (qkv_add_layer_norm). */
void qkv_add_backward(qkv_tape *tp, qkv_node *node);

/* The output of an element-wise op of a and b (lib/ops/elementwise.c): a tensor shaped like a, or
 * NULL after failing the tape ("OP: an operand is NULL", "OP: shapes differ: [..] and [..]"). */
qkv_tensor *qkv_same_shape_output(qkv_tape *tp, const char *op, qkv_tensor *a, qkv_tensor *b);

/* Fails the tape unless p is in [0, 1) ("OP: p = P is outside [0, 1)"); true when it is. */
bool qkv_dropout_p_ok(qkv_tape *tp, const char *op, double p);

/* A dropout mask (lib/ops/dropout.c): keep [size] (1 = kept) and the survivors' scale 1/(1-p). */
typedef struct qkv_dropout_saved {
    uint8_t *keep;
    qkv_real scale;
} qkv_dropout_saved;

/* The mask of x for dropout p (0 < p < 1), drawn as qkv_dropout draws it (from the tape's
 * streams or rng), in the tape's arena; NULL after failing the tape (no rng, out of memory). */
qkv_dropout_saved *qkv_dropout_draw(qkv_tape *tp, const qkv_tensor *x, double p);

/* The backward of y = x + dropout(a) (node->in = {x, a}, node->saved its qkv_dropout_saved): dy
 * into dx, m ⊙ dy / (1 - p) into da; for the fused ops that end in a residual add. */
void qkv_add_dropout_backward(qkv_tape *tp, qkv_node *node);

#endif
