/* An encoded dataset: a corpus turned into id arrays by a featurizer, so that filling a batch is
 * a few memcpy calls. Words are in corpus order; sentence s is words sent_start[s] ..
 * sent_start[s+1]-1 (sentences without words are kept, with no words, and never batched). */
#ifndef QKV_DATA_DATASET_H
#define QKV_DATA_DATASET_H

#include "data/corpus.h"
#include "data/features.h"

/* Messages for the caller to print (data/ never prints). */
typedef struct qkv_warnings {
    int n, cap;
    char **msgs;
} qkv_warnings;

void qkv_warnings_free(qkv_warnings *w);

typedef struct qkv_dataset {
    int n_sent;
    int32_t *sent_start;                  /* [n_sent + 1] */
    int n_words;
    int n_features;                       /* the featurizer's kinds, same order */
    int32_t *features[QKV_MAX_FEATURES];  /* features[f][w]: id in vocabulary f (0 = UNK) */
    int32_t *tags;                        /* [n_words] gold tag id, -1 = tag unseen in training */
    int max_sent_len;                     /* words in the longest sentence */
    int n_nonempty;                       /* sentences with at least one word */
    int n_unknown_tags;                   /* words whose gold tag is -1 */
} qkv_dataset;

/* Encodes corpus c with fz. Each gold tag not in fz's tags becomes -1 and, once per distinct
 * tag, a warning "FILE:LINE: tag "T" is not among the N training tags (K words); they count as
 * errors" is appended to warnings (may be NULL). */
int qkv_dataset_encode(qkv_dataset *ds, const qkv_featurizer *fz, const qkv_corpus *c, qkv_warnings *warnings,
                       qkv_error *err);

void qkv_dataset_free(qkv_dataset *ds);

/* Drops the words of every sentence longer than max_len (>= 1) words: such a sentence keeps
 * its index but becomes empty, so it never reaches a batch (data/filter.c). */
int qkv_dataset_keep_max_len(qkv_dataset *ds, int max_len, qkv_error *err);

#endif
