/* The biaffine dependency-parser head (models/biaffine_head.c; its kind row in models/kinds.h):
 * what pictures and tests read beyond the head interface. */
#ifndef QKV_MODELS_BIAFFINE_HEAD_H
#define QKV_MODELS_BIAFFINE_HEAD_H

#include "models/kinds.h"

/* The arc scores [T, L + 1] of a batch (lib/ops/biaffine.h: column 0 ROOT, column j word j of
 * the row's sentence, columns past the sentence 0) from the encoder output x [T, d_in]; a
 * softmax over a row's columns 0..n gives the word's head distribution. h must be a biaffine
 * head. NULL when the tape failed. */
qkv_tensor *qkv_biaffine_head_arcs(qkv_tape *tp, const qkv_head *h, qkv_tensor *x, qkv_packed sentences);

#endif
