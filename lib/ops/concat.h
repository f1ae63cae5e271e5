/* Concatenating matrices along rows: the op that gathers vectors computed one at a time (e.g.
 * the positions of an ODE solution, lib/nn/floater.h) into one matrix. */
#ifndef QKV_CONCAT_H
#define QKV_CONCAT_H

#include "lib/tape.h"

/* y [r_0 + ... + r_{n-1}, D] = parts[0]; parts[1]; ... with parts[i] matrices [r_i, D] (a
 * vector [D] counts as [1, D]), 1 <= n <= QKV_MAX_INPUTS. One tape node "concat_rows"; its
 * backward adds each block of dy into its part's gradient. Tape errors: n outside 1 ..
 * QKV_MAX_INPUTS, parts with different column counts. */
qkv_tensor *qkv_concat_rows(qkv_tape *tp, int n, qkv_tensor *const *parts);

/* The same for any n >= 1: a tree of qkv_concat_rows nodes (QKV_MAX_INPUTS parts each). */
qkv_tensor *qkv_concat_rows_many(qkv_tape *tp, int n, qkv_tensor *const *parts);

#endif
