/* What train/ prints for each task (api/task.h): the reports of qkv eval and of the end of a
 * training, one row per task of QKV_TASK_REPORTS, its functions in the task's own files
 * (train/report_images.c, train/frame_report.c). The commands' half (tag output, attention
 * pictures, the options that apply) is train/cli/task_cli.h. */
#ifndef QKV_TASK_REPORT_H
#define QKV_TASK_REPORT_H

#include <stdbool.h>
#include <stdio.h>

#include "api/task.h"
#include "train/evaluate.h"

typedef struct qkv_task_report {
    /* The text report of the scores res of s's model on what, in place of the tagging report
       of train/report.h. NULL: the tagging report. */
    void (*text)(FILE *out, const qkv_session *s, const char *what, const qkv_eval_result *res);
    /* Members of the JSON report beyond the tagging report's, written before its closing brace
       (each ",\n \"name\": value"). NULL: none. */
    void (*json_members)(FILE *out, const qkv_eval_result *res);
    /* Scores the text report is followed by: the model of m_s on the data of data (its dev
       set and the task's other sets). NULL: none. Errors: the model's. */
    int (*scores_after)(qkv_session *m_s, const qkv_session *data, FILE *out, qkv_error *err);
    /* The data and model lines at the start of a training (stderr), in place of the tagging
       ones. NULL: the tagging lines. */
    void (*train_summary)(const qkv_session *s, const char *run_dir);
    /* The end of a training draws the confusion matrix of the classes (log.plot). */
    bool confusion_plot;
    /* The end of each epoch draws the attention of a dev sentence (log.plot_attention,
       train/attention_picture.h): the model reads words. */
    bool epoch_attention;
} qkv_task_report;

/* Indexed by qkv_task_kind. */
extern const qkv_task_report *const QKV_TASK_REPORTS[QKV_TASK_KIND_COUNT];

/* The row of s's task. */
const qkv_task_report *qkv_task_report_of(const qkv_session *s);

#endif
