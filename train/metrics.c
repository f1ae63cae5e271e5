#include "train/metrics.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "train/tfevents.h"

/* Splits line (its newline removed) at tabs into at most cap fields; returns their number. */
static int split_tabs(char *line, char **fields, int cap)
{
    line[strcspn(line, "\r\n")] = '\0';
    int n = 0;
    for (char *p = line; p && n < cap; n++) {
        fields[n] = p;
        p = strchr(p, '\t');
        if (p)
            *p++ = '\0';
    }
    return n;
}

/* A kept row of the old header's layout written in the new one (header names new[0..n_new)):
 * each column by its name, column 5 (head 0's score, whatever its name was) as column 5, a
 * column the old file did not have "nan". */
static void remap_row(FILE *mem, char *line, char **old, int n_old, char **new, int n_new)
{
    char *f[64];
    int n = split_tabs(line, f, 64);
    for (int j = 0; j < n_new; j++) {
        const char *v = j == 4 && n > 4 ? f[4] : "nan";
        for (int i = 0; j != 4 && i < n_old && i < n; i++)
            if (i != 4 && !strcmp(old[i], new[j]))
                v = f[i];
        fprintf(mem, "%s%s", j ? "\t" : "", v);
    }
    fputc('\n', mem);
}

/* The rows of an existing metrics file with step <= keep (in memory; NULL: none), in the
 * layout of the header `header` (rows of another layout are rewritten by column name). */
static char *kept_rows(const char *path, long keep, const char *header, size_t *len)
{
    char *kept = NULL;
    *len = 0;
    FILE *old = fopen(path, "r");
    if (!old)
        return NULL;
    FILE *mem = open_memstream(&kept, len);
    static char line[4096], old_head[4096], new_head[4096];
    char *old_names[64], *new_names[64];
    snprintf(new_head, sizeof new_head, "%s", header);
    int n_new = split_tabs(new_head, new_names, 64), n_old = 0;
    bool same = true;
    if (fgets(old_head, sizeof old_head, old)) {
        same = !strcmp(old_head, header);
        n_old = split_tabs(old_head, old_names, 64);
    }
    while (mem && fgets(line, sizeof line, old)) {
        char *end;
        long step = strtol(line, &end, 10);
        if (end == line || *end != '\t' || step > keep)
            continue;
        if (same)
            fputs(line, mem);
        else
            remap_row(mem, line, old_names, n_old, new_names, n_new);
    }
    fclose(old);
    if (mem)
        fclose(mem);
    return kept;
}

int qkv_metrics_open(qkv_metrics *m, const char *run_dir, long keep_until_step, qkv_error *err)
{
    snprintf(m->path, sizeof m->path, "%s/metrics.tsv", run_dir);
    char header[4096];
    size_t n = (size_t)snprintf(header, sizeof header, "step\tepoch\tsplit\tloss\t%s\tlr\ttokens_per_sec\telapsed_s",
                                m->score_name[0] ? m->score_name : "accuracy");
    for (int k = 0; k < m->n_extra && n < sizeof header; k++)
        n += (size_t)snprintf(header + n, sizeof header - n, "\t%s", m->extra_names[k]);
    if (n + 1 < sizeof header)
        strcat(header, "\n");
    size_t kept_len = 0;
    char *kept = keep_until_step >= 0 ? kept_rows(m->path, keep_until_step, header, &kept_len) : NULL;
    m->f = fopen(m->path, "w");
    if (!m->f) {
        free(kept);
        return qkv_fail(err, "%s: cannot write: %s", m->path, strerror(errno));
    }
    fputs(header, m->f);
    if (kept)
        fwrite(kept, 1, kept_len, m->f);
    free(kept);
    fflush(m->f);
    return QKV_OK;
}

/* The row's scalars to the TensorBoard file: train/loss, train/lr; dev/loss and every dev score
 * by its column name (nan values left out). */
static void tb_row(qkv_metrics *m, qkv_metrics_at at, const qkv_metrics_values *v)
{
    bool dev = !strcmp(at.split, "dev");
    char tag[64];
    snprintf(tag, sizeof tag, "%s/loss", at.split);
    qkv_tfevents_scalar(m->tb, tag, at.step, v->loss);
    if (!dev) {
        qkv_tfevents_scalar(m->tb, "train/lr", at.step, v->lr);
        qkv_tfevents_flush(m->tb);
        return;
    }
    snprintf(tag, sizeof tag, "dev/%s", m->score_name[0] ? m->score_name : "accuracy");
    qkv_tfevents_scalar(m->tb, tag, at.step, v->score);
    for (int k = 0; v->extra && k < m->n_extra; k++) {
        snprintf(tag, sizeof tag, "dev/%s", m->extra_names[k]);
        qkv_tfevents_scalar(m->tb, tag, at.step, v->extra[k]);
    }
    qkv_tfevents_flush(m->tb);
}

void qkv_metrics_row(qkv_metrics *m, qkv_metrics_at at, const qkv_metrics_values *v)
{
    if (m->tb)
        tb_row(m, at, v);
    if (!m->f)
        return;
    fprintf(m->f, "%ld\t%d\t%s\t%.9g\t%.6f\t%.6g\t%.1f\t%.2f", at.step, at.epoch, at.split, v->loss, v->score, v->lr,
            v->tokens_per_sec, v->elapsed_s);
    for (int k = 0; k < m->n_extra; k++)
        fprintf(m->f, "\t%.6f", v->extra ? v->extra[k] : NAN);
    fputc('\n', m->f);
    fflush(m->f);
}

void qkv_metrics_close(qkv_metrics *m)
{
    if (m->f)
        fclose(m->f);
    m->f = NULL;
}

void qkv_metrics_label(const char *column, char *out, size_t len)
{
    static const char *const NAMES[][2] = {
        {"las", "LAS"},
        {"uas", "UAS"},
        {"span_f1", "span F1"},
        {"span_precision", "span precision"},
        {"span_recall", "span recall"},
        {"frame_accuracy", "frame accuracy"},
        {"char_accuracy", "character accuracy"},
        {"tokens_f1", "Tokens F1"},
        {"sentences_f1", "Sentences F1"},
    };
    for (size_t k = 0; k < sizeof NAMES / sizeof NAMES[0]; k++)
        if (!strcmp(column, NAMES[k][0])) {
            snprintf(out, len, "%s", NAMES[k][1]);
            return;
        }
    if (!strncmp(column, "accuracy_", 9) && column[9]) { /* accuracy_upos: "UPOS accuracy" */
        size_t n = 0;
        for (const char *c = column + 9; *c && n + 1 < len; c++)
            out[n++] = (char)toupper((unsigned char)*c);
        snprintf(out + n, len - n, " accuracy");
        return;
    }
    snprintf(out, len, "%s", column);
}
