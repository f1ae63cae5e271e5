/* Corpus statistics for `qkv stats`: counts of sentences, words, multiword tokens, empty nodes,
 * the longest sentence, words per tag and, against a training corpus, the share of words and
 * of word types (distinct FORMs, case-sensitive) that the training file never contains. */
#ifndef QKV_DATA_STATS_H
#define QKV_DATA_STATS_H

#include <stdint.h>

#include "data/corpus.h"
#include "data/vocab.h"

typedef struct qkv_corpus_stats {
    int n_sent, n_words, n_multiword, n_empty_nodes, n_comments;
    int n_sent_without_words;
    int longest;          /* words in the longest sentence */
    int longest_line;     /* line of its first line (0 when there are no words) */
    qkv_vocab tags;       /* every tag with its count, by descending count (no UNK; not "_") */
    int n_untagged;       /* words whose tag is "_" (no tag) */
    int n_types;          /* distinct FORMs */
    /* against a training corpus (when given) */
    int has_train;
    int64_t unknown_words; /* words whose FORM is not in the training file */
    int unknown_types;     /* distinct FORMs not in the training file */
} qkv_corpus_stats;

/* train may be NULL. */
int qkv_corpus_stats_compute(qkv_corpus_stats *st, const qkv_corpus *c, const qkv_corpus *train, qkv_error *err);
void qkv_corpus_stats_free(qkv_corpus_stats *st);

#endif
