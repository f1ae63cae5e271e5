/* Tokens and Sentences scores of predicted segmentation labels (data/segment.h) against the
 * gold labels of the same characters, as the CoNLL 2018 shared task scores them (data/ud_eval.h:
 * a predicted token or sentence is correct when a gold one has its start and end), without
 * writing CoNLL-U: both segmentations are of one text, so spans compare as character ranges. */
#ifndef QKV_DATA_SEG_SCORE_H
#define QKV_DATA_SEG_SCORE_H

#include <stdint.h>

#include "data/segment.h"
#include "data/ud_eval.h"

/* Decodes every paragraph of st twice (qkv_seg_decode): with its gold labels st->labels and with
 * labels [st->n_chars] (predicted), and scores the predicted tokens and sentences (a sentence
 * spans its first token's start to its last token's end) into *tokens and *sentences.
 * Errors: out of memory. */
int qkv_seg_score(const qkv_seg_text *st, const uint8_t *labels, qkv_ud_score *tokens, qkv_ud_score *sentences,
                  qkv_error *err);

#endif
