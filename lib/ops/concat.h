/* Concatenating matrices along rows: the op that gathers vectors computed one at a time (e.g.
 * the positions of an ODE solution, lib/nn/floater.h) into one matrix; and along columns: the
 * op that widens each token's vector by more features (a parser's input of its encoder output
 * and tag vectors, models/network_tag_inputs.c). */
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

/* y [R, D_0 + ... + D_{n-1}] = [parts[0] parts[1] ...]: row r of y is row r of each part side by
 * side, parts[i] matrices [R, D_i], 1 <= n <= QKV_MAX_INPUTS. One tape node "concat_cols"; its
 * backward adds each block of columns of dy into its part's gradient. Tape errors: n outside 1 ..
 * QKV_MAX_INPUTS, a part not of rank 2, parts with different row counts. */
qkv_tensor *qkv_concat_cols(qkv_tape *tp, int n, qkv_tensor *const *parts);

#endif
