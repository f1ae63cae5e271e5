/* The CoNLL-U columns a model predicts (data.tags: upos, xpos, feats, lemma; the rows of
 * QKV_TAG_FIELDS in data/corpus.h) and how a column's values become the classes a head learns:
 *   upos, xpos: the tag itself; "_" is no tag (not learned, not scored).
 *   feats: the whole feature bundle as one class ("Number=Plur|Person=3"), in UD's order
 *     (features sorted by name and the values of one feature sorted, both case-insensitively:
 *     qkv_feats_canonical), so that a bundle written in another order ("Person=3|Number=Plur",
 *     "Case=Nom,Acc") is the same class and predictions are written in UD's order; "_" is a
 *     value, the empty bundle (CoNLL-U's FEATS "_" says the word has no feature).
 *   lemma: the edit script turning the form into the lemma (data/lemma_script.h); "_" is no
 *     lemma. A predicted script that does not apply to its form gives the form itself.
 * A column is read by the CoNLL-U reader into the corpus's fields (data/corpus.h:
 * qkv_corpus_value); its classes go into the featurizer's vocabulary of that column and the
 * dataset's tags of that column (data/dataset.h), which packed batches carry for its head. */
#ifndef QKV_DATA_COLUMNS_H
#define QKV_DATA_COLUMNS_H

#include <stdbool.h>
#include <stddef.h>

#include "data/corpus.h"

/* "UPOS (field 4)", "LEMMA (field 3)", ... into buf. */
void qkv_column_name(qkv_tag_field col, char *buf, size_t cap);

/* Whether "_" is a value of col (feats) rather than "no value". */
static inline bool qkv_column_underscore_is_value(qkv_tag_field col) { return col == QKV_TAG_FEATS; }

/* FEATS v[0..len) in UD's order into out (len bytes of room; not v): its '|'-separated features
 * by name, case-insensitively (equal names by the whole feature as written), and the
 * ','-separated values of each feature ("Case=Acc,Nom") case-insensitively, then by bytes.
 * Returns the length (len). */
size_t qkv_feats_canonical(const char *v, size_t len, char *out);

/* Bytes of scratch room for qkv_corpus_class over every word of c. */
size_t qkv_corpus_class_room(const qkv_corpus *c);

/* The class of word w in column i of c (0 <= i < c->n_columns): a pointer to *len bytes, into
 * the corpus text or into scratch (qkv_corpus_class_room bytes; lemma scripts, feature bundles
 * in UD's order); NULL when out of
 * memory. Call only for words whose value is not missing (qkv_corpus_value_missing). */
const char *qkv_corpus_class(const qkv_corpus *c, int i, int w, char *scratch, size_t *len);

/* Bytes of room for the value a class of clen bytes gives a form of flen bytes. */
#define QKV_COLUMN_VALUE_ROOM(flen, clen) (8 * ((size_t)(flen) + (size_t)(clen)) + 16)

/* The value that class cls (NUL-terminated) of column col gives form[0..flen): a pointer to the
 * NUL-terminated value (cls itself, or out with QKV_COLUMN_VALUE_ROOM bytes for lemmas); NULL
 * when it is a lemma script that does not apply to the form (the caller then takes the form). */
const char *qkv_column_value(qkv_tag_field col, const char *form, size_t flen, const char *cls, char *out);

#endif
