/* Packed batches: sentences of similar length grouped under a token budget, in an order
 * shuffled by a qkv_rng. The plan of one epoch is a pure function of (dataset, budget, rng
 * state at the epoch's start), and batch i of a plan can be filled on its own, so a run resumed
 * from a checkpoint (rng state + batch index) continues with the same batches.
 *
 * Planning: the sentences with words are shuffled (Fisher-Yates with the rng), stably sorted
 * by length (so sentences of equal length stay in shuffled order), cut greedily into batches of
 * at most `budget` words (a sentence longer than the budget is a batch of its own), and the
 * batch order is shuffled. Without an rng, sentences keep corpus order within a length and
 * batches stay in order of length (for evaluation). Sentences without words, and those left
 * out by qkv_dataset_keep_max_len, never enter a batch. The cut depends only on the sorted
 * sequence of lengths, so every plan of the same (dataset, budget) has the same number of
 * batches, of the same sizes in words (in shuffled order), whatever the rng: the steps per
 * epoch are fixed.
 *
 * A packed batch is what the attention op takes: the words of B sentences end to end (no
 * padding), offsets [B+1], feature ids [n_features][T], gold tags [T] and each sentence's index
 * in its corpus; with characters (data/features.h) also each word's character ids, packed the
 * same way: char_offsets [T+1] into chars. */
#ifndef QKV_DATA_BATCH_H
#define QKV_DATA_BATCH_H

#include <stdbool.h>
#include <stdint.h>

#include "data/dataset.h"
#include "lib/rng.h"

typedef struct qkv_batch {
    int n_sent;              /* B */
    int n_tokens;            /* T, real words only */
    int32_t *offsets;        /* [B+1], offsets[0] = 0, offsets[B] = T */
    int n_features;          /* feature kinds, same order as the featurizer's */
    int32_t *features[QKV_MAX_FEATURES]; /* features[f][t]: id in vocab f (0 = UNK) */
    int32_t *tags;           /* [T] gold tag ids, -1 = unknown/ignored */
    int32_t *arcs;          /* [T] gold arcs: each word's head (0 = ROOT, k = word k), -1 = none */
    int32_t *sent_ids;       /* [B] index of each sentence in its corpus */
    int n_chars;             /* character ids of all words (0 without characters) */
    int32_t *char_offsets;   /* [T+1] word t's ids are chars[char_offsets[t] .. char_offsets[t+1]-1] */
    int32_t *chars;          /* [n_chars]; both NULL when the batch holds no characters */
    int d_input;             /* width of the dense vectors */
    float *dense;            /* [T, d_input] the tokens' dense vectors; NULL: none */
    int n_columns;           /* tag columns (data/columns.h): 1, or more with qkv_batch_alloc_columns */
    int32_t *col_tags[QKV_MAX_COLUMNS]; /* [T] gold class ids of column i; [0] is tags */
    /* capacity of the buffers (set by qkv_batch_alloc; not part of the model's view) */
    int cap_sent, cap_tokens;
} qkv_batch;

typedef struct qkv_batch_plan {
    int n_batches;
    int32_t *start;   /* [n_batches + 1]: batch b is sentences order[start[b]] .. order[start[b+1]-1] */
    int32_t *order;   /* [number of sentences with words] sentence indices */
    int budget;
    int max_sent;     /* most sentences in one batch */
    int max_tokens;   /* most words in one batch */
    int64_t n_tokens; /* words in all batches */
} qkv_batch_plan;

/* Batches in the plan; the most sentences and words of one of them. */
static inline int qkv_batch_plan_n_batches(const qkv_batch_plan *p) { return p->n_batches; }
static inline int qkv_batch_plan_max_sent(const qkv_batch_plan *p) { return p->max_sent; }
static inline int qkv_batch_plan_max_tokens(const qkv_batch_plan *p) { return p->max_tokens; }

/* Plans one epoch of ds under a budget of words per batch (>= 1). rng may be NULL (no shuffle);
 * otherwise it is advanced (the next epoch's plan starts from the new state). */
int qkv_batch_plan_make(qkv_batch_plan *plan, const qkv_dataset *ds, int budget, qkv_rng *rng, qkv_error *err);
void qkv_batch_plan_free(qkv_batch_plan *plan);

/* The largest batch any plan of ds under budget can produce: at most min(budget, sentences
 * with words) sentences and max(budget, longest sentence) words. */
void qkv_batch_max_size(const qkv_dataset *ds, int budget, int *max_sent, int *max_tokens);

/* Buffers for batches of up to max_sent sentences and max_tokens words with n_features kinds,
 * and with_chars: room for up to QKV_WORD_CHAR_IDS character ids per word. */
int qkv_batch_alloc(qkv_batch *b, int n_features, bool with_chars, int max_sent, int max_tokens, qkv_error *err);
void qkv_batch_free(qkv_batch *b);
/* Room in b (after qkv_batch_alloc) for the dense vectors of its tokens, d_input each
 * (0: none); a dataset with dense vectors needs it. Errors: out of memory. */
int qkv_batch_alloc_dense(qkv_batch *b, int d_input, qkv_error *err);
/* The batch's dense vectors [T, d_input], or NULL. */
static inline const float *qkv_batch_dense(const qkv_batch *b) { return b->dense; }
/* Room in b (allocated) for the gold classes of n_columns tag columns (1..QKV_MAX_COLUMNS; 1:
 * the tags only), which qkv_batch_fill copies from a dataset of as many columns. */
int qkv_batch_alloc_columns(qkv_batch *b, int n_columns, qkv_error *err);

/* Fills b with batch `index` of plan, copying from ds; allocates nothing. Errors: index out of
 * range, a batch larger than b's buffers, a feature count different from ds's, characters in
 * ds but no room for them in b. */
int qkv_batch_fill(qkv_batch *b, const qkv_dataset *ds, const qkv_batch_plan *plan, int index, qkv_error *err);

/* A filled batch as read by a model and a loss: sentence offsets [B+1] (lib/packed.h), feature
 * ids [n_features][T], gold tags [T], and each word's characters: offsets [T+1] into the ids
 * [n_chars] (both NULL without characters). */
static inline const int32_t *qkv_batch_offsets(const qkv_batch *b) { return b->offsets; }
static inline const int32_t *const *qkv_batch_features(const qkv_batch *b)
{
    return (const int32_t *const *)b->features;
}
static inline const int32_t *qkv_batch_tags(const qkv_batch *b) { return b->tags; }
/* Gold arcs [T] (all -1 when the dataset has none). */
static inline const int32_t *qkv_batch_arcs(const qkv_batch *b) { return b->arcs; }
/* Tag columns; the gold class ids [T] of column i (0: qkv_batch_tags). */
static inline int qkv_batch_n_columns(const qkv_batch *b) { return b->n_columns > 1 ? b->n_columns : 1; }
static inline const int32_t *qkv_batch_column_tags(const qkv_batch *b, int i) { return i == 0 ? b->tags : b->col_tags[i]; }
static inline const int32_t *qkv_batch_char_offsets(const qkv_batch *b) { return b->char_offsets; }
static inline const int32_t *qkv_batch_chars(const qkv_batch *b) { return b->chars; }
/* B, T; sentence s's index in its dataset (0 <= s < B). */
static inline int qkv_batch_n_sent(const qkv_batch *b) { return b->n_sent; }
static inline int qkv_batch_n_tokens(const qkv_batch *b) { return b->n_tokens; }
static inline int qkv_batch_sent_id(const qkv_batch *b, int s) { return b->sent_ids[s]; }

/* Word dropout (Kiperwasser & Goldberg 2016): for word j of sentence s (its id in the corpus)
 * the counter-based draw qkv_rng_uniform_at(qkv_rng_key(key, s), j); with probability p the
 * token's word identities (the "word" and "lower" kinds of fz, whose order b's features follow)
 * become UNK (id 0). A token's draw depends on key, its sentence and its position only, not on
 * the batch it is in (the same on every process of a data-parallel run). p <= 0: nothing. */
void qkv_batch_word_dropout(qkv_batch *b, const qkv_featurizer *fz, double p, uint64_t key);

/* A plan of one batch: the first sentences of 1 .. max_len words, at most max_sent of them and
 * max_tokens words in all, in corpus order (for checks on a tiny batch); no batch when there
 * is no such sentence. Errors: out of memory. */
int qkv_batch_plan_first(qkv_batch_plan *plan, const qkv_dataset *ds, int max_len, int max_sent, int max_tokens,
                         qkv_error *err);

#endif
