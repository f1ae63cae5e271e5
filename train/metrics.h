/* metrics.tsv: one row per logged point of a run, tab-separated with a header, ready for
 * gnuplot (`plot 'metrics.tsv' using 1:4`). Columns:
 *   step  epoch  split  loss  SCORE  lr  tokens_per_sec  elapsed_s  [EXTRA...]
 * split is "train" (the cross-entropy per token over every token of the steps since the
 * previous train row, not a mean of batch means, so it does not depend on the batch size;
 * the scores are "nan") or "dev" (loss per token and the scores on the dev set). Every score
 * column is named for what it holds (qkv_metrics_label gives its display name), as fractions:
 *   SCORE, head 0's dev score: las (a parser: right head and label), accuracy_<column> (a
 *     tagger of a CoNLL-U column: accuracy_upos, ...), accuracy (a tagger of span tags, an
 *     image classifier), frame_accuracy (speech frames), char_accuracy (a segmenter's labels);
 *   EXTRA, only the run's own: uas (a parser), span_precision span_recall span_f1 (span tags,
 *     train/span_eval.h), tokens_f1 sentences_f1 (a segmenter, CoNLL 2018), accuracy_<column>
 *     of every further head (data.tags a list). */
#ifndef QKV_METRICS_H
#define QKV_METRICS_H

#include <stdio.h>

#include "lib/error.h"

#define QKV_METRICS_MAX_EXTRA 16
#define QKV_METRICS_NAME_LEN 32

struct qkv_tfevents;

typedef struct qkv_metrics {
    FILE *f;
    char path[4096];
    /* set before qkv_metrics_open: the name of column 5 and of the dev scores after column 8 */
    char score_name[QKV_METRICS_NAME_LEN];
    int n_extra;
    char extra_names[QKV_METRICS_MAX_EXTRA][QKV_METRICS_NAME_LEN];
    struct qkv_tfevents *tb; /* NULL, or every row is also written there (train/tfevents.h) */
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
    double loss, score, lr, tokens_per_sec, elapsed_s;
    const double *extra; /* [n_extra] in the order of extra_names; NULL: nan */
} qkv_metrics_values;
void qkv_metrics_row(qkv_metrics *m, qkv_metrics_at at, const qkv_metrics_values *v);
void qkv_metrics_close(qkv_metrics *m);

/* The display name of a score column: "las" -> "LAS", "accuracy_upos" -> "UPOS accuracy",
 * "span_f1" -> "span F1", "frame_accuracy" -> "frame accuracy"; an unknown name as it is. */
void qkv_metrics_label(const char *column, char *out, size_t len);

#endif
