/* Frame model scores (train/frame_report.h). */
#include "train/frame_report.h"

#include <stdlib.h>
#include <string.h>

#include "api/predict.h"
#include "data/frame_scores.h"

int qkv_frame_evaluate(qkv_network *m, const qkv_dataset *ds, const qkv_frame_refs *refs, qkv_frame_label label,
                       int batch_tokens, qkv_frame_eval *out, qkv_error *err)
{
    int n = qkv_dataset_n_words(ds);
    int32_t *pred = malloc((size_t)(n ? n : 1) * sizeof *pred);
    if (!pred)
        return qkv_fail(err, "out of memory for %d predictions", n);
    int st = qkv_predict(m, ds, batch_tokens, pred, NULL, NULL, err);
    out->n_utt = ds->n_sent;
    if (st == QKV_OK) {
        out->frames = qkv_frame_accuracy_counts(pred, ds->tags, n);
        st = label == QKV_FRAME_PHONEME
                 ? qkv_phone_error_counts(pred, ds->sent_start, ds->n_sent, refs->seq, refs->seq_start, refs->silence,
                                          &out->second, err)
                 : qkv_word_majority_counts(pred, ds->tags, refs->word, ds->sent_start, ds->n_sent,
                                            m->cfg.n_tags, &out->second, err);
    }
    free(pred);
    return st;
}

static int report_one(qkv_session *m_s, const qkv_session *d, const qkv_dataset *ds, const qkv_frame_refs *refs,
                      const char *what, FILE *out, qkv_error *err)
{
    qkv_frame_eval e;
    qkv_frame_label label = d->cfg.data.frame_labels;
    if (qkv_frame_evaluate(&m_s->model, ds, refs, label, d->cfg.data.batch_tokens, &e, err))
        return QKV_ERR;
    fprintf(out, "frames %s: %d utterances, %lld tokens, frame accuracy %.2f%%, %s %.2f%%\n", what, e.n_utt,
            (long long)e.frames.n, 100 * (1 - qkv_frame_score_rate(e.frames)),
            label == QKV_FRAME_PHONEME ? "phone error rate" : "word accuracy (majority of its frames)",
            100 * (label == QKV_FRAME_PHONEME ? qkv_frame_score_rate(e.second) : 1 - qkv_frame_score_rate(e.second)));
    return QKV_OK;
}

int qkv_frame_report(qkv_session *m_s, const qkv_session *data, FILE *out, qkv_error *err)
{
    char what[QKV_CFG_STR_MAX + 64];
    const char *voice = data->has_test ? data->cfg.data.held_out_voice : ""; /* "": scored whole */
    snprintf(what, sizeof what, "dev%s%s", voice[0] ? " (all voices but " : "", voice[0] ? voice : "");
    if (voice[0])
        snprintf(what + strlen(what), sizeof what - strlen(what), ")");
    if (data->has_dev && report_one(m_s, data, &data->dev, &data->dev_refs, what, out, err))
        return QKV_ERR;
    snprintf(what, sizeof what, "test (held-out voice %s)", voice);
    if (data->has_test && report_one(m_s, data, &data->test, &data->test_refs, what, out, err))
        return QKV_ERR;
    return QKV_OK;
}
