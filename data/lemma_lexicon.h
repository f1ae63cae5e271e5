/* A lemma lexicon: the lemmas of the forms a training file shows, for the forms seen in training
 * (a dictionary beside the edit-script classifier of data/lemma_script.h, as UDPipe's and
 * Stanza's lemmatizers keep one).
 *
 * An entry's key is the lowercased form (qkv_utf8_lower), followed by a TAB and the UPOS when
 * the lexicon is built by UPOS ("grew\tVERB"); its value is the edit script (data/lemma_script.h)
 * that turns the training form into its lemma. Scripts, not lemmas, are kept so that case is
 * handled as the classifier handles it: the script's casing part names the lemma's case, so
 * "The" and "the" (DET) both give "the", "Apple" and "APPLE" (PROPN) "Apple" when training shows
 * that casing; a form the key matches in another case gets the lemma the script gives it.
 *
 * The rule that keeps an entry: its key occurs at least min_count times among the training
 * words with a lemma, and its most frequent script (the first in byte order on a tie) has at
 * least QKV_LEMMA_LEXICON_SHARE percent of them; a key whose lemmas disagree more is left to the
 * classifier. Words whose LEMMA is "_" are not counted. On EWT dev with the shipped English model,
 * keys by UPOS with min_count 1 and 90% (or 100%) gave the best Lemmas; a plurality (50%), a
 * higher count, and keys of the form alone gave fewer. */
#ifndef QKV_DATA_LEMMA_LEXICON_H
#define QKV_DATA_LEMMA_LEXICON_H

#include <stdbool.h>
#include <stddef.h>

#include "data/corpus.h"
#include "lib/error.h"

/* The least share of a key's training words, in percent, its script must have to be kept. */
#define QKV_LEMMA_LEXICON_SHARE 90

typedef struct qkv_lemma_lexicon {
    size_t n;             /* entries, keys in byte order (strcmp) */
    const char **keys;    /* [n] "form" or "form\tUPOS", the form lowercased, NUL-ended */
    const char **scripts; /* [n] the edit script of each key, NUL-ended */
    bool by_upos;         /* keys hold the UPOS */
    size_t max_script;    /* bytes of the longest script */
    char *buf;            /* holds every string (internal) */
} qkv_lemma_lexicon;

/* The lexicon of the CoNLL-U corpus c (FORM, LEMMA and, by_upos, UPOS of each word) into *lx
 * (zeroed or freed before), with the rule above. Errors: c is not CoNLL-U (no LEMMA column:
 * "NAME: ..."), out of memory. */
int qkv_lemma_lexicon_build(qkv_lemma_lexicon *lx, const qkv_corpus *c, bool by_upos, int min_count,
                            qkv_error *err);

/* A lexicon from n stored entries (keys[i], scripts[i]) as qkv_lemma_lexicon_build makes them
 * (a model file's /lemma_lexicon, api/lemma_lexicon.h); by_upos says whether keys hold a UPOS.
 * Errors "entry I: ..." for keys out of order, a key with no TAB where by_upos (or one where
 * not), a script that is not one (qkv_lemma_script_needs); out of memory. */
int qkv_lemma_lexicon_set(qkv_lemma_lexicon *lx, size_t n, const char *const *keys, const char *const *scripts,
                          bool by_upos, qkv_error *err);

/* The lemma lx gives form[0..flen) with the UPOS upos (NUL-ended; ignored unless lx->by_upos,
 * where NULL finds nothing), written NUL-ended into out (QKV_LEMMA_ROOM(flen, lx->max_script)
 * bytes): *found is true, or false when lx has no entry for it or its script does not apply to
 * the form or gives the empty lemma. Errors: out of memory for the key of a long form. */
int qkv_lemma_lexicon_lemma(const qkv_lemma_lexicon *lx, const char *form, size_t flen, const char *upos, char *out,
                            bool *found, qkv_error *err);

void qkv_lemma_lexicon_free(qkv_lemma_lexicon *lx);

#endif
