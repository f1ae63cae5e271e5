/* What the qkv commands that run a saved model share: loading it, reading the corpus it is run
 * on, reporting the scores, and failing (train/fail.h), each one function. Every function here
 * prints its error ("qkv: what is wrong") and returns 1 on failure, 0 on success, so that a
 * command's steps read `if (step(...)) goto done;`. */
#ifndef QKV_CLI_COMMAND_H
#define QKV_CLI_COMMAND_H

#include <stdbool.h>
#include <stdio.h>

#include "api/session.h"
#include "train/evaluate.h"
#include "train/fail.h"

/* Loads the model of path (a checkpoint or a `qkv export`) into the initialized session s
 * (config, featurizer, parameters) and runs the process with its train.threads, or with the
 * count of the command's --threads when one was given (qkv_cmd_threads). */
int qkv_cmd_load_model(qkv_session *s, const char *path);

/* The --threads N row of a command that runs a saved model (field: long *, initialized to -1);
 * the command passes the value to qkv_cmd_threads after parsing. */
#define QKV_THREADS_OPTION_ROW(field)                                                               \
    {"--threads", QKV_CLI_INT, (field), "N",                                                      \
     "threads to run on (default: the model's train.threads; 0: every core)", .lo = 0, .hi = 1024}

/* The thread count qkv_cmd_load_model uses in place of the model's train.threads (n >= 0), or
 * none (n < 0, the default). */
void qkv_cmd_threads(long n);

/* Fails when the session's model (loaded from path) is a segmenter (data.task: segment): "PATH
 * is a segmenter: give it with --tokenizer and a tagger as CHECKPOINT". */
int qkv_cmd_refuse_segmenter(const qkv_session *s, const char *path);

/* Reads the file path with the model's data settings as the session's dev set, as its task
 * reads a scored file (api/session.h: qkv_session_read_scored). */
int qkv_cmd_read_scored(qkv_session *s, const char *path);

/* The scores of the model of s on `what` (a file name, or "CHECKPOINT on CORPUS") on stdout: one
 * JSON object (json) or the text report; by_length adds the accuracy per sentence length
 * (train/report.h). */
void qkv_cmd_report(const qkv_session *s, const char *what, const qkv_eval_result *res, bool json, bool by_length);

/* The confusion matrix of res (the tags or classes of s's model) as a heatmap in image (.png or
 * .svg, with its gnuplot script beside it; train/plot/plot_confusion.h). Returns QKV_ERR with
 * err set (nothing printed): the caller decides whether it fails or warns. */
int qkv_cmd_plot_confusion(const qkv_session *s, const qkv_eval_result *res, const char *title, const char *image,
                           qkv_error *err);

#endif
