/* The lemma lexicon a model with a LEMMA head carries (data/lemma_lexicon.h): built from its
 * training file when it is trained (qkv_session_data, data.lemma_lexicon_min_count times or
 * more), or added to a model file by `qkv export --lemma-lexicon FILE`, and stored in its
 * checkpoints and exports as /lemma_lexicon/keys and /lemma_lexicon/scripts (string lists in byte
 * order of the keys). Keys hold the UPOS when the model has a UPOS head: a word whose lowercased
 * form and predicted UPOS the lexicon lists takes the lemma of the lexicon's script; every other
 * word keeps the lemma of the LEMMA head's script. A model file without them (or trained with
 * data.lemma_lexicon_min_count 0) lemmatizes with the head alone. */
#ifndef QKV_API_LEMMA_LEXICON_H
#define QKV_API_LEMMA_LEXICON_H

#include <stdbool.h>
#include <stdint.h>

#include "api/session.h"
#include "lib/io/store.h"

/* The lexicon of the CoNLL-U corpus c into s->lemma_lexicon, keyed by UPOS when s's model has a
 * UPOS column, with s's data.lemma_lexicon_min_count; nothing (an empty lexicon) for a model
 * without a LEMMA column or with the count 0. Errors: c is not CoNLL-U, out of memory. */
int qkv_session_lemma_lexicon_build(qkv_session *s, const qkv_corpus *c, qkv_error *err);

/* s's lexicon as GROUP/lemma_lexicon/keys and GROUP/lemma_lexicon/scripts; nothing when it is
 * empty. Errors: HDF5 failures. */
int qkv_lemma_lexicon_save(qkv_store_writer *w, const char *group, const qkv_session *s, qkv_error *err);

/* GROUP/lemma_lexicon of the file (when it has one) into s->lemma_lexicon (s's featurizer
 * loaded first: its columns say whether keys hold a UPOS); where names the file in messages.
 * Errors: "WHERE: GROUP/lemma_lexicon: entry I: ..." (qkv_lemma_lexicon_set), one list longer
 * than the other, HDF5 failures. */
int qkv_lemma_lexicon_load(const qkv_store_reader *r, const char *where, const char *group, qkv_session *s,
                           qkv_error *err);

/* Bytes of room qkv_session_lexicon_lemma needs for a form of flen bytes. */
size_t qkv_session_lexicon_room(const qkv_session *s, size_t flen);

/* The lexicon's lemma of word w of c (form; UPOS: the class of s's UPOS head in pred[h][w],
 * pred [n_heads][n_words] as qkv_tagged_from_pred takes it) into out
 * (qkv_session_lexicon_room bytes): *found is true, or false when the lexicon gives none.
 * Errors: those of qkv_lemma_lexicon_lemma (out of memory). */
int qkv_session_lexicon_lemma(const qkv_session *s, const qkv_corpus *c, const int32_t *const *pred, int w,
                              char *out, bool *found, qkv_error *err);

#endif
