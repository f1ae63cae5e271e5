/* The CoNLL 2018 shared task's tag and lemma scores (conll18_ud_eval.py, Zeman et al. 2018) with
 * gold tokenization, where every system word is aligned with its gold word and precision, recall
 * and F1 are the one accuracy:
 *   UPOS, XPOS: the column's value equals the gold one;
 *   UFeats: the universal features of FEATS (those named in UD's list of universal features, as
 *     the task's script has it: PronType, NumType, Poss, Reflex, Foreign, Abbr, Gender, Animacy,
 *     Number, Case, Definite, Degree, VerbForm, Mood, Tense, Aspect, Voice, Evident, Polarity,
 *     Person, Polite; others such as Typo or ExtPos dropped) as a set equal the gold ones;
 *   AllTags: UPOS, XPOS and UFeats all correct;
 *   Lemmas: the lemma equals the gold one, or the gold lemma is "_" (unspecified: any lemma).
 * A word the system gave no value counts as an error. */
#ifndef QKV_DATA_UD_TAGS_H
#define QKV_DATA_UD_TAGS_H

#include <stdbool.h>

#include "data/corpus.h"
#include "data/ud_eval.h"

typedef enum { QKV_UD_UPOS, QKV_UD_XPOS, QKV_UD_UFEATS, QKV_UD_ALLTAGS, QKV_UD_LEMMAS, QKV_UD_TAG_SCORES } qkv_ud_tag_score;
/* "UPOS", "XPOS", "UFeats", "AllTags", "Lemmas" (index = value). */
extern const char *const QKV_UD_TAG_SCORE_NAMES[QKV_UD_TAG_SCORES];

typedef struct qkv_ud_tags {
    bool has[QKV_UD_TAG_SCORES];          /* scored: the system predicts the columns it needs */
    qkv_ud_score score[QKV_UD_TAG_SCORES];
} qkv_ud_tags;

/* Scores the system's values pred[k][w] (k a qkv_tag_field; pred[k] NULL: column not predicted;
 * pred[k][w] NULL: no value) of every word of gold (a CoNLL-U corpus). Errors: gold not CoNLL-U,
 * out of memory. */
int qkv_ud_score_tags(const qkv_corpus *gold, const char *const *const *pred, qkv_ud_tags *res, qkv_error *err);

/* The universal features of a FEATS value s[0..len) as the task compares them: sorted, joined by
 * '|' into out (room for len + 1 bytes), "" for none; returns its length. */
size_t qkv_ud_universal_feats(const char *s, size_t len, char *out);

#endif
