/* The scores of an image classifier (train/report.h): accuracy over images, per-class
 * precision/recall/F1 and the confusion matrix. */
#include <string.h>

#include "train/report.h"

static double ratio(long a, long b) { return b ? (double)a / (double)b : 0; }

/* The widest class name, at least min. */
static int name_width(const qkv_session *s, int n, int min)
{
    int width = min;
    for (int t = 0; t < n; t++)
        if ((int)strlen(qkv_featurizer_tag(&s->fz, t)) > width)
            width = (int)strlen(qkv_featurizer_tag(&s->fz, t));
    return width;
}

static void confusion_text(FILE *out, const qkv_session *s, const qkv_eval_result *res)
{
    int n = res->n_tags, width = name_width(s, n, 5);
    fprintf(out, "  confusion matrix (rows: gold class, columns: predicted class, by number):\n  %*s", width + 4, "");
    for (int p = 0; p < n; p++)
        fprintf(out, " %5d", p);
    fputc('\n', out);
    for (int g = 0; g < n; g++) {
        fprintf(out, "  %2d %-*s", g, width + 1, qkv_featurizer_tag(&s->fz, g));
        for (int p = 0; p < n; p++)
            fprintf(out, " %5ld", res->confusion[(size_t)g * n + p]);
        fputc('\n', out);
    }
}

void qkv_report_images_text(FILE *out, const qkv_session *s, const char *what, const qkv_eval_result *res)
{
    fprintf(out, "%s: accuracy %.2f%% (%ld of %ld images), loss %.4f, %.0f images/s\n", what, 100 * res->accuracy,
            res->n_correct, res->n_words, res->loss, res->seconds > 0 ? (double)res->n_words / res->seconds : 0);
    int width = name_width(s, res->n_tags, 8);
    fprintf(out, "  %-*s %9s %9s %9s %8s\n", width, "class", "precision", "recall", "f1", "support");
    for (int t = 0; t < res->n_tags; t++) {
        double p = ratio(res->correct[t], res->predicted[t]), r = ratio(res->correct[t], res->gold[t]);
        double f1 = p + r > 0 ? 2 * p * r / (p + r) : 0;
        fprintf(out, "  %-*s %9.4f %9.4f %9.4f %8ld\n", width, qkv_featurizer_tag(&s->fz, t), p, r, f1, res->gold[t]);
    }
    confusion_text(out, s, res);
}

void qkv_report_images_json(FILE *out, const qkv_eval_result *res)
{
    fprintf(out, ",\n \"images\": %ld, \"confusion_matrix\": [", res->n_words);
    for (int g = 0; g < res->n_tags; g++) {
        fprintf(out, "%s[", g ? ", " : "");
        for (int p = 0; p < res->n_tags; p++)
            fprintf(out, "%s%ld", p ? ", " : "", res->confusion[(size_t)g * res->n_tags + p]);
        fputc(']', out);
    }
    fputc(']', out);
}

void qkv_report_images_summary(const qkv_session *s, const char *run_dir)
{
    const qkv_network_config *m = &s->model.cfg;
    fprintf(stderr, "train: %s, %d images; dev: %s, %d images\n", qkv_corpus_name(&s->train_c),
            qkv_dataset_n_batchable(&s->train), s->has_dev ? qkv_corpus_name(&s->dev_c) : "none",
            s->has_dev ? qkv_dataset_n_batchable(&s->dev) : 0);
    fprintf(stderr, "model: %zu parameters, %d tokens an image (%d x %d%s) of %d values, %d classes; run folder %s\n",
            qkv_params_count(qkv_network_params(&s->model)), qkv_grid_len(m->grid), m->grid.rows, m->grid.cols,
            m->grid.n_prefix ? " and [CLS]" : "", m->d_input, qkv_featurizer_n_tags(&s->fz), run_dir);
}
