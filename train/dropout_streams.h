/* The trainer's counter-based dropout streams (lib/tape.h qkv_dropout_streams) for a filled
 * batch: token rows keyed by (sentence id, position), sentences by their id, so that every mask
 * of a step is the same whichever process computes the sentence (train/dist.h). */
#ifndef QKV_TRAIN_DROPOUT_STREAMS_H
#define QKV_TRAIN_DROPOUT_STREAMS_H

#include "data/batch.h"
#include "lib/tape.h"

typedef struct qkv_train_streams {
    qkv_dropout_streams ds;  /* what the tape points at */
    uint64_t *row_ids, *sent_ids;
    int cap_rows, cap_sent;
} qkv_train_streams;

/* Points st->ds at batch b under key (site numbers restart at 0): row id of word j of sentence
 * s = s << 32 | j, sentence id = s (corpus indices). Errors: out of memory. */
int qkv_train_streams_set(qkv_train_streams *st, const qkv_batch *b, uint64_t key, qkv_error *err);
void qkv_train_streams_free(qkv_train_streams *st);

#endif
