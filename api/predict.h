/* Running a trained model to get tags: the one code path of `qkv eval`, `qkv tag` and the
 * library's qkv_model_tag (include/qkv/qkv.h), so that they cannot drift apart. */
#ifndef QKV_API_PREDICT_H
#define QKV_API_PREDICT_H

#include "api/session.h"

/* Which batches of a dataset a prediction runs: batches of batch_tokens words (>= 1), longest
 * sentences first, and of those the ones of shard `shard` of n_shards (batch i when i mod
 * n_shards = shard; 0 <= shard < n_shards), for data-parallel evaluation. QKV_ALL_BATCHES(n):
 * every batch. */
typedef struct qkv_batching {
    int batch_tokens, shard, n_shards;
} qkv_batching;
#define QKV_ALL_BATCHES(n) (&(const qkv_batching){(n), 0, 1})

/* Runs m, recording no gradients, over every batchable sentence of ds (data/dataset.h) in
 * batches of batch_tokens words (>= 1; longest sentences first). pred [n_words of ds]: each
 * word's predicted tag id (qkv_network_predict: argmax, or the CRF's Viterbi path); -1 for the
 * words of sentences never batched. logits (may be NULL): [n_words, n_tags] copied in dataset
 * order. loss_sum (may be NULL): the summed loss of the words with a known gold tag.
 * Predictions depend only on the sentence, not on the batch it ran in. Errors: out of memory,
 * a model error (e.g. a sentence longer than a learned position table). */
int qkv_predict(qkv_network *m, const qkv_dataset *ds, int batch_tokens, int32_t *pred, qkv_real *logits,
                double *loss_sum, qkv_error *err);

/* qkv_predict over the batches of b (one shard of them): the words of the other shards'
 * sentences keep pred -1 (and their logits rows are left as they are); loss_sum covers the
 * shard's words. */
int qkv_predict_shard(qkv_network *m, const qkv_dataset *ds, const qkv_batching *b, int32_t *pred, qkv_real *logits,
                      double *loss_sum, qkv_error *err);

/* qkv_predict_shard, and with a constrained CRF (model.crf_constrained) a sentence that has no
 * tag sequence the constraints allow is decoded without them (the CRF head's fallback,
 * models/crf_head.c) rather than failing the call: unconstrained [n_sent of ds] (may be NULL;
 * the caller zeroes it) receives 1 for each such sentence, and loss_sum is then +inf. An error
 * about one sentence names it by its index in ds (err->sentence; qkv_session_name_sentence
 * turns it into the corpus's file and line). */
int qkv_predict_marked(qkv_network *m, const qkv_dataset *ds, const qkv_batching *b, int32_t *pred, qkv_real *logits,
                       double *loss_sum, uint8_t *unconstrained, qkv_error *err);

/* The probability of every tag for every word of ds, probs [n_words of ds, n_tags] in dataset
 * order (qkv_network_probs: softmax of the logits, or a CRF's marginals by forward-backward); a
 * sentence a constrained CRF has no allowed sequence for gets its marginals without the
 * constraints and 1 in unconstrained [n_sent of ds] (may be NULL; the caller zeroes it). Errors:
 * as qkv_predict. */
int qkv_predict_probs(qkv_network *m, const qkv_dataset *ds, int batch_tokens, double *probs, uint8_t *unconstrained,
                      qkv_error *err);
/* Every head's predictions (a model of one head or several, models/network.h): pred[h] [n_words
 * of ds] receives head h's class ids of the words of the batches of b's shard (as
 * qkv_predict_shard; -1 elsewhere), each head decoded by its kind, against the gold classes of
 * ds's column h; a sentence a constrained CRF head has no allowed tag sequence for is decoded
 * without the constraints (as qkv_predict_marked) and its loss_sum[h] is +inf;
 * arcs [n_words of ds] (may be NULL) the trees of the head with arcs (0 = ROOT, k = word k of
 * the sentence; -1 elsewhere, and for every word when no head has arcs), whose loss reads ds's
 * gold arcs;
 * loss_sum (may be NULL) [n_outputs] each head's summed loss of its gold-tagged words. needs (may
 * be NULL; needs[h] NULL: none) [n_outputs][n_tags_h]: the characters a form needs for class c
 * (qkv_session_class_needs: lemma scripts), so that a word whose form is too short for its best
 * class takes the best class it can (the scripts that apply to no form are never produced).
 * Errors: ds without a tag column per head, those of qkv_predict. */
int qkv_predict_heads(qkv_network *m, const qkv_dataset *ds, const qkv_batching *b, const int32_t *const *needs,
                      int32_t *const *pred, int32_t *arcs, double *loss_sum, qkv_error *err);
/* The scores of one head that qkv_predict_heads_scores copies out, in dataset order (each may be
 * NULL; rows of sentences not predicted are left as they are). */
typedef struct qkv_head_scores {
    qkv_real *logits;      /* a tagging head: [n_words of ds, n_tags_h] its logits */
    qkv_real *arcs;        /* a head with arcs: sentence s's arc scores [n_s, n_s + 1] (row t: word t + 1
                              of the sentence, column 0 ROOT, column j word j; models/biaffine_head.h)
                              row-major at offset arc_offsets[s] (qkv_arc_offsets) */
    qkv_real *labels;      /* a head with arcs: [n_words of ds, n_tags_h] the label logits of each word's
                              predicted arc (qkv_biaffine_head_labels: their argmax is its label) */
    qkv_real *gold_labels; /* a head with arcs: the same of each word's gold arc (no gold head: the
                              zero head vector) */
} qkv_head_scores;
/* offsets [n_sent of ds + 1]: where each sentence's arc block starts in qkv_head_scores.arcs,
 * offsets[s + 1] = offsets[s] + n_s (n_s + 1), n_s its words; returns the total offsets[n_sent]. */
int64_t qkv_arc_offsets(const qkv_dataset *ds, int64_t *offsets);
/* What qkv_predict_heads_scores writes: pred, arcs and loss_sum as qkv_predict_heads, and each
 * head h's scores into scores[h] (scores [n_outputs] may be NULL; with arcs it needs arc_offsets
 * from qkv_arc_offsets). */
typedef struct qkv_heads_out {
    int32_t *const *pred;
    int32_t *arcs;
    double *loss_sum;
    const qkv_head_scores *scores;
    const int64_t *arc_offsets;
    uint8_t *unconstrained; /* [n_sent of ds] (may be NULL; the caller zeroes it): 1 for each sentence
                               a head decoded without its constraints */
} qkv_heads_out;
/* qkv_predict_heads that also copies the scores out asks for. The arc and label scores are
 * those the prediction reads, computed again from the same encoder output. Errors: as
 * qkv_predict_heads. */
int qkv_predict_heads_scores(qkv_network *m, const qkv_dataset *ds, const qkv_batching *b, const int32_t *const *needs,
                             const qkv_heads_out *out, qkv_error *err);
/* needs[h] for qkv_predict_heads: for each lemma column h of s's featurizer, malloc'd
 * [n_classes] qkv_lemma_script_needs of each script; NULL for the other columns. Errors: out of
 * memory (what is allocated stays in needs for the caller to free). */
int qkv_session_class_needs(const qkv_session *s, int32_t **needs, qkv_error *err);

/* Every column a model predicts, as values of the file (data/columns.h: lemmas from their edit
 * scripts). */
typedef struct qkv_tagged {
    const char **values[QKV_TAG_FIELD_COUNT]; /* [n_words] word w's value in column k (qkv_tag_field),
                                                 NULL for a column the model does not predict and
                                                 for words never batched */
    int32_t *arcs;                            /* [n_words] a parser's arcs: each word's head (0 = ROOT,
                                                 k = word k of the sentence, -1: none, every word of a
                                                 model without a head with arcs); NULL where no
                                                 prediction made them */
    char *lemmas;                             /* the lemmas' strings */
    int n_lemma_fallback;                     /* words whose predicted script did not apply to the form */
    int first_fallback;                       /* the first of them */
} qkv_tagged;

/* Tags every word of corpus c with every head of the session's model (qkv_predict_heads) into out
 * (free with qkv_tagged_free; the values of columns other than lemma are strings of the
 * featurizer; a parser's arcs in out->arcs, -1 without one). A lemma script that does not
 * apply to its form gives the form, counted in out and named in one warning in s->warnings; so
 * are the sentences a constrained CRF tagged without its constraints, as in qkv_session_tag.
 * Errors: those of qkv_session_tag's steps. */
int qkv_session_tag_fields(qkv_session *s, const qkv_corpus *c, int batch_tokens, qkv_tagged *out, qkv_error *err);
/* The same from predictions made already: pred[h] [n_words of c] head h's class ids (-1: none). */
int qkv_tagged_from_pred(qkv_session *s, const qkv_corpus *c, const int32_t *const *pred, qkv_tagged *out,
                         qkv_error *err);
void qkv_tagged_free(qkv_tagged *t);
/* Whether s's model is written back through qkv_session_tag_fields: several columns, lemmas, or
 * a parser's arcs and labels. */
static inline bool qkv_session_predicts_columns(const qkv_session *s)
{
    return qkv_featurizer_n_columns(&s->fz) > 1 || s->fz.columns[0] == QKV_TAG_LEMMA || qkv_network_parses(&s->model);
}

/* One warning in s->warnings naming the line of the first sentence of c that unconstrained
 * [n_sent of c] flags (decoded without model.crf_constrained's constraints) and their number;
 * nothing when none is flagged. Errors: out of memory. */
int qkv_session_warn_unconstrained(qkv_session *s, const qkv_corpus *c, const uint8_t *unconstrained,
                                   qkv_error *err);
/* The most words a sentence tagged by qkv_session_tag, _parse, _tag_fields and _tag_probs may
 * have: s->max_words, or QKV_MAX_WORDS (include/qkv/qkv.h) when it is 0. A parser's memory
 * grows with the square of a sentence's words; the bound keeps one sentence from taking it all. */
int qkv_session_max_words(const qkv_session *s);
/* Checks a sentence of n words against qkv_session_max_words, M: longer, it is the error
 * "SUBJECT N words, more than the M a sentence may have (a parser's memory grows with a
 * sentence's words squaredHINT)", subject naming the sentence ("sentence 2:", "a sentence of")
 * and hint ("" or "; ...") saying how to raise the bound. The one wording of every caller's
 * message. Returns QKV_OK or QKV_ERR. */
int qkv_session_check_sentence_words(const qkv_session *s, int n, const char *subject, const char *hint,
                                     qkv_error *err);
/* Checks every sentence of c against qkv_session_max_words: the first longer one is an error
 * about it (err->sentence its index in c; qkv_session_name_sentence names its line) "a sentence
 * of N words, more than the M a sentence may have ...", hint as qkv_session_check_sentence_words
 * takes it. Returns QKV_OK or QKV_ERR. */
int qkv_session_check_words(const qkv_session *s, const qkv_corpus *c, const char *hint, qkv_error *err);

/* Tags every word of corpus c with the session's model (from a checkpoint or an export):
 * encodes c with the session's featurizer, refuses sentences the model cannot take
 * (qkv_session_check_words, qkv_session_check_lengths), predicts in batches of batch_tokens
 * words with every head, each decoded alone (qkv_predict_heads), and sets tags[w] (n_words of c
 * entries) to word w's tag name, a string owned by the session's featurizer. The tags are in
 * the model's own tag set (converting them back to a file's tag scheme is the caller's:
 * qkv_corpus_tags_as_file). With several columns (data.tags a list) the tags are head 0's
 * (qkv_session_tag_fields gives every column); a model whose first column is lemma is an
 * error. A sentence with no tag sequence model.crf_constrained allows is tagged without the
 * constraints, with one warning in s->warnings naming the line of the first and their number.
 * Errors: those of the steps, naming c's lines. */
int qkv_session_tag(qkv_session *s, const qkv_corpus *c, int batch_tokens, const char **tags, qkv_error *err);
/* qkv_session_tag, and each word's arc from the model's head with arcs (its head: 0 = ROOT,
 * k = word k) into arcs [n_words of c] (may be NULL; -1 for every word of a model without a
 * parser head). */
int qkv_session_parse(qkv_session *s, const qkv_corpus *c, int batch_tokens, const char **tags, int32_t *arcs,
                      qkv_error *err);

/* The k (1 <= k <= n_tags) most probable tags of every word of corpus c with their
 * probabilities (qkv_predict_probs: softmax, or a crf model's marginals), best first (ties: the
 * lower tag id): ids [n_words * k] tag ids, probs [n_words * k]. For a softmax model ids[w * k]
 * is qkv_session_tag's tag; a crf model's is the tag of highest marginal, which may differ from
 * the Viterbi path's. Errors: a biaffine model (its labels belong to arcs), k out of range, those
 * of qkv_session_tag. */
int qkv_session_tag_probs(qkv_session *s, const qkv_corpus *c, int batch_tokens, int k, int32_t *ids, float *probs,
                          qkv_error *err);

/* The class of every image of im with an image model (model.input pixels, patches or conv_patches, output
 * class): classes [im->n] class ids (the argmax, ties to the lower id) and probs [im->n] their
 * softmax probabilities, in batches of batch_tokens tokens. Labels are not read. Errors: a model
 * that does not read images, images of another size than the model's, those of qkv_predict. */
int qkv_session_classify(qkv_session *s, const qkv_images *im, int batch_tokens, int32_t *classes, float *probs,
                         qkv_error *err);

#endif
