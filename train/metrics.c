#include "train/metrics.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

static const char HEADER[] = "step\tepoch\tsplit\tloss\taccuracy\tlr\ttokens_per_sec\telapsed_s\tspan_precision\tspan_recall\tspan_f1\n";

int qkv_metrics_open(qkv_metrics *m, const char *run_dir, long keep_until_step, qkv_error *err)
{
    snprintf(m->path, sizeof m->path, "%s/metrics.tsv", run_dir);
    char *kept = NULL;
    size_t kept_len = 0;
    if (keep_until_step >= 0) {
        FILE *old = fopen(m->path, "r");
        if (old) {
            FILE *mem = open_memstream(&kept, &kept_len);
            char line[1024];
            while (mem && fgets(line, sizeof line, old)) {
                char *end;
                long step = strtol(line, &end, 10);
                if (end != line && *end == '\t' && step <= keep_until_step)
                    fputs(line, mem);
            }
            fclose(old);
            if (mem)
                fclose(mem);
        }
    }
    m->f = fopen(m->path, "w");
    if (!m->f) {
        free(kept);
        return qkv_fail(err, "%s: cannot write: %s", m->path, strerror(errno));
    }
    if (m->n_heads > 1) { /* the per-head accuracies after the fixed columns */
        fwrite(HEADER, 1, sizeof HEADER - 2, m->f);
        for (int h = 0; h < m->n_heads; h++)
            fprintf(m->f, "\taccuracy_%s", m->head_names[h]);
        fputc('\n', m->f);
    } else
        fputs(HEADER, m->f);
    if (kept)
        fwrite(kept, 1, kept_len, m->f);
    free(kept);
    fflush(m->f);
    return QKV_OK;
}

void qkv_metrics_row(qkv_metrics *m, qkv_metrics_at at, const qkv_metrics_values *v)
{
    if (!m->f)
        return;
    long step = at.step;
    int epoch = at.epoch;
    const char *split = at.split;
    double loss = v->loss, accuracy = v->accuracy, lr = v->lr, tokens_per_sec = v->tokens_per_sec,
           elapsed_s = v->elapsed_s;
    const double *spans = v->spans, *heads = v->heads;
    fprintf(m->f, "%ld\t%d\t%s\t%.9g\t%.6f\t%.6g\t%.1f\t%.2f\t%.6f\t%.6f\t%.6f", step, epoch, split, loss, accuracy,
            lr, tokens_per_sec, elapsed_s, spans ? spans[0] : NAN, spans ? spans[1] : NAN, spans ? spans[2] : NAN);
    for (int h = 0; m->n_heads > 1 && h < m->n_heads; h++)
        fprintf(m->f, "\t%.6f", heads ? heads[h] : NAN);
    fputc('\n', m->f);
    fflush(m->f);
}

void qkv_metrics_close(qkv_metrics *m)
{
    if (m->f)
        fclose(m->f);
    m->f = NULL;
}
