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
/* (train/report_images.c) An image model's scores (the images task's row of
 * train/task_report.h: qkv_report_text and _json call them): accuracy over images, per-class precision/recall/F1 and the
 * confusion matrix, as text; the JSON object's extra members "images" and "confusion_matrix"
 * ([gold][predicted] counts), written before its closing brace. */
void qkv_report_images_text(FILE *out, const qkv_session *s, const char *what, const qkv_eval_result *res);
void qkv_report_images_json(FILE *out, const qkv_eval_result *res);
/* (train/report_images.c) The data and model lines at the start of an image model's training
 * on stderr: the images of train and dev, the parameters, the tokens an image, the classes and
 * the run folder run_dir. */
void qkv_report_images_summary(const qkv_session *s, const char *run_dir);

/* Prints the dataset's warnings (unseen tags) to stderr once each, then forgets them. */
void qkv_report_warnings(qkv_session *s);

#endif
