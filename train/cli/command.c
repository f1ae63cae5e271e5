#include "train/cli/command.h"

#include <stdio.h>

#include "api/model_file.h"
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
    if (s->cfg.data.task == QKV_TASK_SEGMENT)
        return qkv_fail_reportf("%s is a segmenter: give it with --tokenizer and a tagger as CHECKPOINT", path);
    return 0;
}

/* An image model's scored file: IDX images and the labels beside them. */
static int read_scored_images(qkv_session *s, const char *path)
{
    qkv_error err;
    qkv_images im;
    int failed = qkv_session_read_images(s, path, true, &im, &err) ||
                 qkv_session_image_dataset(s, &im, &s->dev, &s->dev_c, &err);
    qkv_images_free(&im);
    return failed ? qkv_fail_report(&err) : 0;
}

int qkv_cmd_read_scored(qkv_session *s, const char *path)
{
    qkv_error err;
    if (qkv_session_reads_images(s))
        return read_scored_images(s, path);
    if (s->cfg.data.task == QKV_TASK_FRAMES) { /* a frame corpus: path is the dev file */
        snprintf(s->cfg.data.dev, sizeof s->cfg.data.dev, "%s", path);
        return qkv_session_frames(s, false, &err) ? qkv_fail_report(&err) : 0;
    }
    if (qkv_session_read_corpus(s, &s->dev_c, path, &err) ||
        qkv_dataset_encode(&s->dev, &s->fz, &s->dev_c, &s->warnings, &err) ||
        qkv_dataset_require_tags(&s->dev, &s->dev_c, &s->fz, &err) ||
        qkv_session_check_gold(s, &s->dev_c, &s->dev, false, &err) ||
        qkv_session_check_lengths(s, &s->dev_c, &s->dev, false, &err))
        return qkv_fail_report(&err);
    return 0;
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
