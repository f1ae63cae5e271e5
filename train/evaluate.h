/* Evaluation of a tagger on an encoded dataset: predictions, accuracy, loss, per-tag
 * precision/recall/F1 counts, confusions and accuracy by sentence length. */
#ifndef QKV_EVALUATE_H
#define QKV_EVALUATE_H

#include "api/session.h"
#include "api/predict.h"
#include "data/ud_eval.h"

#define QKV_N_LENGTH_BUCKETS 4
extern const int QKV_LENGTH_BUCKET_MAX[QKV_N_LENGTH_BUCKETS]; /* 10, 20, 40, INT_MAX */

typedef struct qkv_eval_result {
    long n_words, n_correct; /* scored words: all but the untagged ones */
    long n_unknown_gold;     /* words whose gold tag never occurs in training: always errors */
    long n_untagged;         /* words whose gold tag is "_": tagged (pred) but not scored */
    double loss;             /* mean cross-entropy over words with a known gold tag */
    double accuracy;         /* n_correct / n_words */
    double seconds, tokens_per_sec; /* tokens: every word tagged, scored or not */
    int n_tags;
    long *gold, *predicted, *correct; /* [n_tags] per-tag counts */
    long *confusion;         /* [n_tags * n_tags]: confusion[g * n_tags + p], known gold only */
    long bucket_words[QKV_N_LENGTH_BUCKETS], bucket_correct[QKV_N_LENGTH_BUCKETS];
    int32_t *pred;           /* [n_words] predicted tag id of every word, in dataset order */
    /* a parser (model.output biaffine): a scored word also needs a gold head, n_correct counts
     * the words with the right head and the right label (accuracy is then LAS, over full DEPREL
     * labels, punctuation included), n_arc_correct those with the right head (UAS) */
    int32_t *pred_arcs;      /* [n_words] predicted arcs; NULL for a tagger */
    long n_arc_correct;
    double uas;
    struct qkv_span_eval *spans; /* entity-level scores (train/span_eval.h); NULL: not computed */
    bool has_segments;       /* a segmenter's scores (train/seg_eval.h): */
    qkv_ud_score seg_tokens, seg_sentences; /*  Tokens and Sentences, as the CoNLL 2018 task's */
    /* every head (a model of several, one per tag column of data.tags); head 0's are the above */
    int n_outputs;
    long head_words[QKV_MAX_COLUMNS], head_correct[QKV_MAX_COLUMNS]; /* scored words, correct ones */
    double head_accuracy[QKV_MAX_COLUMNS];
    int32_t *head_pred[QKV_MAX_COLUMNS]; /* [n_words] class ids of heads 1.. ([0]: pred) */
    struct qkv_ud_tags *ud;  /* CoNLL 2018 tag and lemma scores (data/ud_tags.h); NULL: not computed */
    qkv_ud_eval *deps;       /* a parser's CoNLL 2018 UAS, LAS (universal DEPREL), MLAS and BLEX with
                                gold tokenization (data/ud_eval.h); NULL: not computed */
    int n_lemma_fallback;    /* words whose predicted lemma script did not apply (the form is taken) */
} qkv_eval_result;

/* (train/ud_tags_eval.c) res->ud: the CoNLL 2018 scores UPOS, XPOS, UFeats, AllTags and Lemmas
 * of res's predictions of corpus c (the dev corpus s encoded, CoNLL-U), for a model of several
 * columns or of feats or lemma (nothing for a tagger of UPOS or XPOS alone); for a parser also
 * res->deps (UAS, LAS, MLAS, BLEX as the shared task's scorer counts them: every word,
 * punctuation included; LAS over the universal part of DEPREL). Errors: out of memory. */
int qkv_eval_add_ud_tags(qkv_eval_result *res, qkv_session *s, const qkv_corpus *c, qkv_error *err);
/* Whether s's model predicts column col (one of its data.tags). */
bool qkv_eval_predicts_column(const qkv_session *s, qkv_tag_field col);
/* Whether a parser's MLAS (it reads UPOS and FEATS) and BLEX (LEMMA) are its own: the model
 * parses and predicts those columns too; other columns would be the gold file's. */
bool qkv_eval_scores_mlas(const qkv_session *s);
bool qkv_eval_scores_blex(const qkv_session *s);

/* The score that selects best.h5 with train.select_by accuracy: head 0's accuracy, or with
 * several heads the mean accuracy of those train.select_columns names (default every head). */
double qkv_eval_selection_accuracy(const qkv_eval_result *res, const qkv_run_config *cfg);
/* Fills head_words, head_correct of head 0 and every head_accuracy from the counts (after
 * evaluating, and after summing the shards of a data-parallel evaluation). */
void qkv_eval_finish_heads(qkv_eval_result *res);

/* Runs the session's model without recording gradients over ds in batches of batch_tokens
 * words. Errors: out of memory, a model error (e.g. a sentence longer than max_len). */
int qkv_evaluate(qkv_session *s, const qkv_dataset *ds, int batch_tokens, qkv_eval_result *res, qkv_error *err);
/* qkv_evaluate() that also copies each head h's scores into scores[h] (api/predict.h:
 * qkv_head_scores, dataset order; scores [n_outputs] may be NULL; arc_offsets from
 * qkv_arc_offsets when a head has arcs), e.g. for a comparison with a reference implementation:
 * a tagging head's logits [words of ds, n_tags_h], a parser's arc scores and label logits. The
 * predictions and counts are qkv_evaluate's. */
int qkv_evaluate_scores(qkv_session *s, const qkv_dataset *ds, int batch_tokens, qkv_eval_result *res,
                        const qkv_head_scores *scores, const int64_t *arc_offsets, qkv_error *err);
/* qkv_evaluate() of shard `shard` of n_shards (0 <= shard < n_shards): the batches i of the
 * evaluation plan with i % n_shards == shard only; the counts, loss and res->pred (-1 for the
 * words of other shards) are of their words only (train/dist.h sums the shards). */
int qkv_evaluate_shard(qkv_session *s, const qkv_dataset *ds, int batch_tokens, int shard, int n_shards,
                       qkv_eval_result *res, qkv_error *err);
void qkv_eval_result_free(qkv_eval_result *res);

#endif
