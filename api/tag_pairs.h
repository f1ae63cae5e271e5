/* The UPOS/XPOS pairs a model's training file shows, and decoding that keeps to them: in a model
 * with a UPOS and an XPOS head, a word never gets a pair of tags no training word has; where the
 * two heads' own choices make such a pair, the word takes the seen pair of the highest sum of
 * the two heads' log-probabilities (log-softmax of each head's logits).
 *
 * The pairs are collected when the model is trained (qkv_session_data) and stored in its
 * checkpoints and exports as /tag_pairs/upos_xpos, one string "UPOS<TAB>XPOS" a pair in byte
 * order. A model file without them (made before they were kept) decodes each head alone. */
#ifndef QKV_API_TAG_PAIRS_H
#define QKV_API_TAG_PAIRS_H

#include <stdbool.h>
#include <stdint.h>

#include "api/predict.h"
#include "api/session.h"

/* Whether s keeps to seen pairs: it has them and a UPOS and an XPOS head. */
bool qkv_tag_pairs_active(const qkv_session *s);

/* The pairs of s's training dataset (s->train, gold classes of its UPOS and XPOS columns) into
 * s->tag_pairs; nothing for a model without both columns. Errors: out of memory. */
int qkv_tag_pairs_build(qkv_session *s, qkv_error *err);

/* The pairs as stored: *n strings "UPOS\tXPOS" in byte order, in one malloc'd block *strings
 * (free(*strings) frees all); *n = 0 and NULL when s has none. Errors: out of memory. */
int qkv_tag_pairs_strings(const qkv_session *s, size_t *n, char ***strings, qkv_error *err);

/* Sets s's pairs from n stored strings (s's featurizer loaded first); a tag the model does not
 * know is an error, as is a string without a TAB. Errors: out of memory. */
int qkv_tag_pairs_set(qkv_session *s, size_t n, const char *const *strings, qkv_error *err);

/* qkv_predict_heads_scores (api/predict.h) of s's model over the batches b of ds into out, then,
 * when qkv_tag_pairs_active, each word whose UPOS and XPOS classes in out->pred make an unseen
 * pair gets the seen pair of the highest summed log-probability (out->scores may be NULL or ask
 * for any head's scores, as there; the UPOS and XPOS logits are computed either way). Errors:
 * those of qkv_predict_heads_scores, out of memory. */
int qkv_predict_heads_paired(qkv_session *s, const qkv_dataset *ds, const qkv_batching *b, const int32_t *const *needs,
                             const qkv_heads_out *out, qkv_error *err);

#endif
