/* metrics.tsv: one row per logged point of a run, tab-separated with a header, ready for
 * gnuplot (`plot 'metrics.tsv' using 1:4`). Columns:
 *   step  epoch  split  loss  accuracy  lr  tokens_per_sec  elapsed_s  span_precision  span_recall  span_f1
 * split is "train" (the cross-entropy per token over every token of the steps since the
 * previous train row, not a mean of batch means, so it does not depend on the batch size;
 * accuracy is "nan") or "dev" (loss per token and accuracy on the dev set). The span columns
 * (fractions, train/span_eval.h) are "nan" on train rows and when the tags are not span tags.
 * A model of several heads (data.tags a list) adds one column per head, accuracy_<column>
 * (accuracy_upos, ...: "nan" on train rows); accuracy is then head 0's. */
#ifndef QKV_METRICS_H
#define QKV_METRICS_H

#include <stdio.h>

#include "lib/error.h"

typedef struct qkv_metrics {
    FILE *f;
    char path[4096];
    int n_heads;                     /* set before qkv_metrics_open: > 1 adds the heads' columns */
    char head_names[16][16];
} qkv_metrics;

/* Opens run_dir/metrics.tsv. keep_until_step < 0: a new file with a header. Otherwise (a
 * resumed run) the existing rows with step <= keep_until_step are kept and later ones dropped,
 * since the resumed run writes them again. */
int qkv_metrics_open(qkv_metrics *m, const char *run_dir, long keep_until_step, qkv_error *err);
/* One row of metrics.tsv: where in the run (step, epoch label, split "train" or "dev") and
 * what was measured there. */
typedef struct qkv_metrics_at {
    long step;
    int epoch;
    const char *split;
} qkv_metrics_at;
typedef struct qkv_metrics_values {
    double loss, accuracy, lr, tokens_per_sec, elapsed_s;
    const double *spans; /* precision, recall, F1; NULL: none */
    const double *heads; /* [n_heads] accuracies; NULL: nan */
} qkv_metrics_values;
void qkv_metrics_row(qkv_metrics *m, qkv_metrics_at at, const qkv_metrics_values *v);
void qkv_metrics_close(qkv_metrics *m);

#endif
