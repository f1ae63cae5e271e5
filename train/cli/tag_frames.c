/* qkv tag with a frame model (train/cli/tag_frames.h). */
#include "train/cli/tag_frames.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "api/predict.h"
#include "api/speech_store.h"
#include "train/fail.h"

/* The utterances of the corpus fc, their predicted labels pred [n_words of ds], on stdout. */
static void write_labels(const qkv_session *s, const qkv_frame_corpus *fc, const qkv_dataset *ds, const int32_t *pred,
                         bool per_frame)
{
    int k = s->cfg.data.frame_stack > 0 ? s->cfg.data.frame_stack : 1;
    double token_s = (double)k * fc->hop / fc->sample_rate;
    for (int u = 0; u < fc->n_utt; u++) {
        int first = qkv_dataset_sent_first(ds, u), n = qkv_dataset_sent_len(ds, u);
        printf("# utterance %d, voice %s: %s\n", u, fc->voice[u], fc->text[u]);
        for (int t = 0; t < n; t++) {
            const char *label = pred[first + t] >= 0 ? qkv_featurizer_tag(&s->fz, pred[first + t]) : "_";
            if (per_frame) {
                printf("%.3f\t%s\n", t * token_s, label);
                continue;
            }
            int end = t;
            while (end + 1 < n && pred[first + end + 1] == pred[first + t])
                end++;
            printf("%.3f\t%.3f\t%s\n", t * token_s, (end + 1) * token_s, label);
            t = end;
        }
        putchar('\n');
    }
}

int qkv_tag_frames(qkv_session *s, const qkv_tag_request *r)
{
    const char *file = r->file;
    bool per_frame = r->per_frame;
    if (!strcmp(file, "-"))
        return qkv_fail_reportf("a frame model reads a frame corpus file (HDF5, made by qkv speech), not standard "
                                "input: give FILE");
    qkv_error err;
    qkv_frame_corpus fc;
    qkv_dataset ds;
    memset(&ds, 0, sizeof ds);
    if (qkv_frame_corpus_load(&fc, file, &err))
        return qkv_fail_report(&err);
    const qkv_frame_select sel = {s->cfg.data.frame_labels, "", 0, s->cfg.data.frame_stack};
    int32_t *pred = NULL;
    int status = qkv_dataset_from_frames(&ds, NULL, &s->fz, &fc, file, &sel, &err);
    int got = status == QKV_OK ? qkv_dataset_d_input(&ds) : 0;
    if (status == QKV_OK && s->frames_d_input > 0 && got != s->frames_d_input)
        status = qkv_fail(&err, "%.300s: frames of %d values (mel bands x data.frame_stack %d), the model reads %d",
                          file, got, sel.stack > 0 ? sel.stack : 1, s->frames_d_input);
    if (status == QKV_OK && !(pred = malloc(((size_t)qkv_dataset_n_words(&ds) + 1) * sizeof *pred)))
        status = qkv_fail(&err, "out of memory");
    if (status == QKV_OK)
        status = qkv_predict(&s->model, &ds, s->cfg.data.batch_tokens, pred, NULL, NULL, &err);
    if (status == QKV_OK) {
        write_labels(s, &fc, &ds, pred, per_frame);
        if (fflush(stdout))
            status = qkv_fail(&err, "writing the labels: %s", strerror(errno));
    }
    free(pred);
    qkv_dataset_free(&ds);
    qkv_frame_corpus_free(&fc);
    return status ? qkv_fail_report(&err) : 0;
}
