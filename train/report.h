/* Printing evaluation results (train/ is the only layer that prints). */
#ifndef QKV_REPORT_H
#define QKV_REPORT_H

#include <stdbool.h>
#include <stdio.h>

#include "train/evaluate.h"

/* Accuracy, per-tag precision/recall/F1, the most frequent confusions, speed; by_length adds
 * accuracy per sentence-length bucket. With span tags the first line leads with span F1 and the
 * entity-level scores follow it; a segmenter's report counts characters (and paragraphs) and
 * gives its Tokens and Sentences scores (res->has_segments). */
void qkv_report_text(FILE *out, const qkv_session *s, const char *what, const qkv_eval_result *res, bool by_length);
void qkv_report_json(FILE *out, const qkv_session *s, const char *what, const qkv_eval_result *res, bool by_length);
/* (train/report_images.c) An image model's scores (qkv_report_text and _json call them for a
 * model that reads images): accuracy over images, per-class precision/recall/F1 and the
 * confusion matrix, as text; the JSON object's extra members "images" and "confusion_matrix"
 * ([gold][predicted] counts), written before its closing brace. */
void qkv_report_images_text(FILE *out, const qkv_session *s, const char *what, const qkv_eval_result *res);
void qkv_report_images_json(FILE *out, const qkv_eval_result *res);
/* What a sentence and a word of s's data are: "sentences" and "words", or for a segmenter
 * (data.task: segment) "paragraphs" and "characters". */
const char *qkv_report_word_unit(const qkv_session *s);
const char *qkv_report_sentence_unit(const qkv_session *s);

/* Prints the dataset's warnings (unseen tags) to stderr once each, then forgets them. */
void qkv_report_warnings(qkv_session *s);

#endif
