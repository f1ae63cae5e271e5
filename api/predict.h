/* Running a trained model to get tags: the one code path of `qkv eval`, `qkv tag` and the
 * library's qkv_model_tag (include/qkv/qkv.h), so that they cannot drift apart. */
#ifndef QKV_API_PREDICT_H
#define QKV_API_PREDICT_H

#include "api/session.h"

/* Runs m, recording no gradients, over every batchable sentence of ds (data/dataset.h) in
 * batches of batch_tokens words (>= 1; longest sentences first). pred [n_words of ds]: each
 * word's predicted tag id (qkv_tagger_predict: argmax, or the CRF's Viterbi path); -1 for the
 * words of sentences never batched. logits (may be NULL): [n_words, n_tags] copied in dataset
 * order. loss_sum (may be NULL): the summed loss of the words with a known gold tag.
 * Predictions depend only on the sentence, not on the batch it ran in. Errors: out of memory,
 * a model error (e.g. a sentence longer than a learned position table). */
int qkv_predict(qkv_tagger *m, const qkv_dataset *ds, int batch_tokens, int32_t *pred, qkv_real *logits,
                double *loss_sum, qkv_error *err);

/* qkv_predict over one shard of the batches (batch i when i mod n_shards = shard; 0 <= shard <
 * n_shards), for data-parallel evaluation: the words of the other shards' sentences keep
 * pred -1 (and their logits rows are left as they are); loss_sum covers the shard's words. */
int qkv_predict_shard(qkv_tagger *m, const qkv_dataset *ds, int batch_tokens, int shard, int n_shards, int32_t *pred,
                      qkv_real *logits, double *loss_sum, qkv_error *err);

/* qkv_predict_shard, and with a constrained CRF (model.crf_constrained) a sentence that has no
 * tag sequence the constraints allow is decoded without them (qkv_crf_viterbi_fallback) rather
 * than failing the call: unconstrained [n_sent of ds] (may be NULL; the caller zeroes it)
 * receives 1 for each such sentence, and loss_sum is then +inf. */
int qkv_predict_marked(qkv_tagger *m, const qkv_dataset *ds, int batch_tokens, int shard, int n_shards, int32_t *pred,
                       qkv_real *logits, double *loss_sum, uint8_t *unconstrained, qkv_error *err);

/* qkv_predict_marked with each word's predicted head (a parser, model.output biaffine) into
 * pred_heads [n_words of ds] (may be NULL for a tagger; required for a parser): 0 = ROOT, k =
 * word k of the sentence, a tree per sentence; -1 for the words of sentences not predicted
 * and for every word of a tagger. A parser's logits are not per-word tag scores: logits must
 * then be NULL (an error otherwise). The loss of a parser sums its arcs' and labels' over
 * the words with a gold head and label. */
int qkv_predict_parsed(qkv_tagger *m, const qkv_dataset *ds, int batch_tokens, int shard, int n_shards, int32_t *pred,
                       int32_t *pred_heads, qkv_real *logits, double *loss_sum, uint8_t *unconstrained,
                       qkv_error *err);

/* Tags every word of corpus c with the session's model (from a checkpoint or an export):
 * encodes c with the session's featurizer, refuses sentences the model cannot take
 * (qkv_session_check_lengths), predicts in batches of batch_tokens words and sets tags[w]
 * (n_words of c entries) to word w's tag name, a string owned by the session's featurizer.
 * The tags are in the model's own tag set (converting them back to a file's tag scheme is the
 * caller's: qkv_corpus_tags_as_file). A sentence with no tag sequence model.crf_constrained
 * allows is tagged without the constraints, with one warning in s->warnings naming the line of
 * the first and their number. Errors: those of the steps, naming c's lines. */
int qkv_session_tag(qkv_session *s, const qkv_corpus *c, int batch_tokens, const char **tags, qkv_error *err);
/* qkv_session_tag, and with a parser each word's head into heads [n_words of c] (may be NULL;
 * -1 for every word of a tagger). */
int qkv_session_parse(qkv_session *s, const qkv_corpus *c, int batch_tokens, const char **tags, int32_t *heads,
                      qkv_error *err);

/* The k (1 <= k <= n_tags) most probable tags of every word of corpus c with their softmax
 * probabilities, best first (ties: the lower tag id, so ids[w * k] is qkv_session_tag's tag):
 * ids [n_words * k] tag ids, probs [n_words * k]. Errors: a crf or biaffine model (its tags are the
 * sentence's Viterbi path, not per-word probabilities), k out of range, those of
 * qkv_session_tag. */
int qkv_session_tag_probs(qkv_session *s, const qkv_corpus *c, int batch_tokens, int k, int32_t *ids, float *probs,
                          qkv_error *err);

#endif
