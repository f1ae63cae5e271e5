/* The scores of a frame model (data.task frames) on the dev set and the held-out voice's test
 * set: frame accuracy, and the phone error rate (data.frame_labels phoneme) or the word accuracy
 * by majority over each word's frames (upos), data/frame_scores.h. */
#ifndef QKV_FRAME_REPORT_H
#define QKV_FRAME_REPORT_H

#include <stdio.h>

#include "api/session.h"
#include "data/frame_scores.h"

typedef struct qkv_frame_eval {
    int n_utt;
    qkv_frame_score frames; /* frame (token) errors */
    qkv_frame_score second; /* phoneme: phone errors; upos: word errors */
} qkv_frame_eval;

/* Runs m over ds (batches of batch_tokens) and scores it against ds's tags and refs for label.
 * Errors: the model's, out of memory. */
int qkv_frame_evaluate(qkv_network *m, const qkv_dataset *ds, const qkv_frame_refs *refs, qkv_frame_label label,
                       int batch_tokens, qkv_frame_eval *out, qkv_error *err);

/* Prints one line per set of data (dev, and the test when data.held_out_voice names one) for
 * the model of m_s: "frames dev: 123 utterances, frame accuracy 81.20%, phone error rate
 * 25.31%". Errors: as qkv_frame_evaluate. */
int qkv_frame_report(qkv_session *m_s, const qkv_session *data, FILE *out, qkv_error *err);

#endif
