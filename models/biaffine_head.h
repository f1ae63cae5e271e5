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
/* The label logits [T, n_tags] of each word t of a batch by its arc to head arcs[t] (0 = ROOT, j = word j
 * of t's sentence, < 0: a zero head vector) from the encoder output x [T, d_in]:
 * r_dep_t^T W_l g_t + w_dep_l · r_dep_t + w_head_l · g_t + b_l, g_t the head's label role (the
 * formula of models/biaffine_head.c; what its prediction takes the argmax of). h must be a
 * biaffine head. NULL when the tape failed (e.g. a head index past the sentence). */
qkv_tensor *qkv_biaffine_head_labels(qkv_tape *tp, const qkv_head *h, qkv_tensor *x, qkv_packed sentences,
                                     const int32_t *arcs);

#endif
