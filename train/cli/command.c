#include "train/cli/command.h"

#include <stdio.h>

#include "api/model_file.h"
#include "api/task.h"
#include "lib/gemm/backend.h"
#include "lib/threads.h"
#include "train/plot/plot_confusion.h"
#include "train/report.h"

#include <stdlib.h>

static long threads_override = -1;

void qkv_cmd_threads(long n)
{
    threads_override = n;
}

int qkv_cmd_load_model(qkv_session *s, const char *path)
{
    qkv_error err;
    if (qkv_checkpoint_load_model(path, s, &err))
        return qkv_fail_report(&err);
    qkv_set_threads(threads_override >= 0 ? (int)threads_override : s->cfg.train.threads);
    if (qkv_gemm_set_backend(s->cfg.train.gemm, &err) || qkv_gemm_set_precision(s->cfg.train.precision, &err))
        return qkv_fail_report(&err);
    return 0;
}

int qkv_cmd_refuse_segmenter(const qkv_session *s, const char *path)
{
    if (qkv_session_task(s)->segments)
        return qkv_fail_reportf("%s is a segmenter: give it with --tokenizer and a tagger as CHECKPOINT", path);
    return 0;
}

int qkv_cmd_read_scored(qkv_session *s, const char *path)
{
    qkv_error err;
    return qkv_session_read_scored(s, path, &err) ? qkv_fail_report(&err) : 0;
}

void qkv_cmd_report(const qkv_session *s, const char *what, const qkv_eval_result *res, bool json, bool by_length)
{
    if (json)
        qkv_report_json(stdout, s, what, res, by_length);
    else
        qkv_report_text(stdout, s, what, res, by_length);
}

int qkv_cmd_plot_confusion(const qkv_session *s, const qkv_eval_result *res, const char *title, const char *image,
                           qkv_error *err)
{
    const char **names = malloc((size_t)(res->n_tags ? res->n_tags : 1) * sizeof *names);
    if (!names)
        return qkv_fail(err, "out of memory");
    for (int t = 0; t < res->n_tags; t++)
        names[t] = qkv_featurizer_tag(&s->fz, t);
    int status = qkv_plot_confusion(res->confusion, res->n_tags, names, title, image, err);
    free(names);
    return status;
}
