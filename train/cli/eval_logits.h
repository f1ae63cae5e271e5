/* qkv eval --logits OUT.h5: the scores of every head of the evaluated corpus in an HDF5 file
 * (its layout: docs/reference/checkpoints.md, "The scores file of qkv eval --logits"), for parity checks against
 * a reference implementation (python/qkv_torch.py compare). */
#ifndef QKV_CLI_EVAL_LOGITS_H
#define QKV_CLI_EVAL_LOGITS_H

#include <stdbool.h>

#include "train/evaluate.h"

typedef struct qkv_eval_logits {
    bool per_head;                          /* the /heads layout: several heads, or a parser */
    int n_outputs;
    qkv_head_scores heads[QKV_MAX_COLUMNS]; /* what each head's scores are copied into */
    int64_t *arc_offsets;                   /* [n_sent + 1] (qkv_arc_offsets) with a parser, else NULL */
} qkv_eval_logits;

/* Room in l for the scores of s's model over ds (n_words of ds rows per head; a parser's arc
 * blocks). Errors: out of memory, more heads than QKV_MAX_COLUMNS, arc scores past INT_MAX
 * values (l is then to be freed). */
int qkv_eval_logits_alloc(qkv_eval_logits *l, const qkv_session *s, const qkv_dataset *ds, qkv_error *err);
/* l (filled by qkv_evaluate_scores) and res's predictions into a new HDF5 file at path: one
 * tagging head keeps the layout /logits [n_words, n_tags] float32, /pred [n_words] int64; a
 * parser or several heads /sentences, /columns and /heads/<column>/... . Errors: the store's. */
int qkv_eval_logits_write(const char *path, const qkv_eval_logits *l, const qkv_session *s, const qkv_dataset *ds,
                          const qkv_eval_result *res, qkv_error *err);
void qkv_eval_logits_free(qkv_eval_logits *l);

#endif
