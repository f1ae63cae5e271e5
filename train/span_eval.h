/* Entity-level (span) scores of an evaluation: the chunks of the gold tags of a corpus and of
 * the predicted tags, by conlleval's rules (data/spans.h), compared per sentence. */
#ifndef QKV_SPAN_EVAL_H
#define QKV_SPAN_EVAL_H

#include <stdbool.h>

#include "data/spans.h"
#include "train/evaluate.h"

typedef struct qkv_span_eval {
    qkv_span_counts counts;      /* overall and per type (types in order of first appearance) */
    double precision, recall, f1; /* overall, micro-averaged over the chunks of every type */
} qkv_span_eval;

/* Whether every tag of the featurizer is a span tag ("O", B-/I-/E-/S- and a type): the tag sets
 * that span scores, and train.select_by: auto, apply to. */
bool qkv_tags_are_spans(const qkv_featurizer *fz);

/* When fz's tags are span tags, scores res->pred (ds's words, predicted tag ids of fz; -1 = not
 * tagged, read as O) against the gold tags of c (the corpus ds was encoded from; a gold tag "_"
 * reads as O, a gold tag unseen in training keeps its chunk) into a new res->spans, which
 * qkv_eval_result_free frees; otherwise leaves res->spans NULL. Errors: out of memory. */
int qkv_eval_add_spans(qkv_eval_result *res, const qkv_featurizer *fz, const qkv_corpus *c, const qkv_dataset *ds,
                       qkv_error *err);

/* Whether train.select_by of cfg means span F1 for the tags of fz: span_f1, or auto with span
 * tags (qkv_tags_are_spans). */
bool qkv_select_by_span_f1(const qkv_run_config *cfg, const qkv_featurizer *fz);

void qkv_span_eval_free(qkv_span_eval *e);

#endif
