/* Scores of a frame tagger (data/frames.h): frame accuracy, phone error rate and word accuracy
 * by majority vote over a word's frames. Label ids are a dataset's tag ids; a gold id < 0
 * (unseen in training) is never equal to a prediction. A "frame" is a token of the dataset
 * (k stacked frames with data.frame_stack k). */
#ifndef QKV_DATA_FRAME_SCORES_H
#define QKV_DATA_FRAME_SCORES_H

#include <stdint.h>

#include "lib/error.h"

typedef struct qkv_frame_score {
    int64_t n, errors; /* scored units (frames, reference phonemes or words) and errors among them */
} qkv_frame_score;

/* errors / n as a fraction (0 when n is 0). */
static inline double qkv_frame_score_rate(qkv_frame_score s) { return s.n ? (double)s.errors / (double)s.n : 0; }

/* Frames whose prediction differs from the gold label, of n frames. */
qkv_frame_score qkv_frame_accuracy_counts(const int32_t *pred, const int32_t *gold, int64_t n);

/* The Levenshtein distance between a [na] and b [nb] (substitution, insertion and deletion
 * each cost 1; Levenshtein 1966, by the Wagner-Fischer recurrence). Errors: out of memory. */
int qkv_edit_distance(const int32_t *a, int64_t na, const int32_t *b, int64_t nb, int64_t *dist, qkv_error *err);

/* Phone error rate: for each of n_sent sentences (tokens offsets[s] .. offsets[s+1]-1), the
 * hypothesis is pred collapsed to runs (consecutive equal labels are one) with the runs of
 * silence left out; errors is the sum over sentences of its edit distance to the reference
 * ref[ref_start[s] .. ref_start[s+1]-1] (the spoken phonemes), n the sum of reference lengths.
 * Errors: out of memory. */
int qkv_phone_error_counts(const int32_t *pred, const int32_t *offsets, int n_sent, const int32_t *ref,
                           const int64_t *ref_start, int32_t silence, qkv_frame_score *out, qkv_error *err);

/* Word accuracy by majority: in each sentence, the frames with word[t] = w >= 0 are word w's;
 * its predicted label is the most frequent prediction among them (ties: the smallest id) and it
 * is right when that equals the gold label of its first frame. n counts the words with frames
 * (unspoken words, such as punctuation, have none and are not scored). Errors: out of memory. */
int qkv_word_majority_counts(const int32_t *pred, const int32_t *gold, const int32_t *word, const int32_t *offsets,
                             int n_sent, int n_labels, qkv_frame_score *out, qkv_error *err);

#endif
