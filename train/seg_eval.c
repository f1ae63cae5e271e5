#include "train/seg_eval.h"

#include <stdlib.h>
#include <string.h>

#include "api/task.h"
#include "data/seg_rules.h"
#include "data/seg_score.h"

int qkv_seg_eval_read(const qkv_session *s, const char *path, qkv_seg_text *st, qkv_error *err)
{
    memset(st, 0, sizeof *st);
    if (!qkv_session_task(s)->segments)
        return QKV_OK;
    return qkv_seg_read(st, path, err);
}

int qkv_eval_add_segments(qkv_eval_result *res, const qkv_featurizer *fz, const qkv_seg_lexicon *lexicon,
                          const qkv_dataset *ds, const qkv_seg_text *st, qkv_error *err)
{
    res->has_segments = false;
    if (st->n_chars == 0)
        return QKV_OK;
    int n = qkv_dataset_n_words(ds);
    if (n != st->n_chars)
        return qkv_fail(err, "%.200s: %d characters, but the evaluated set has %d", st->name, st->n_chars, n);
    int n_tags = qkv_featurizer_n_tags(fz);
    uint8_t label_of[256];
    if (n_tags > 256)
        return qkv_fail(err, "a segmenter has %d labels, not %d tags", QKV_SEG_COUNT, n_tags);
    for (int t = 0; t < n_tags; t++) {
        label_of[t] = QKV_SEG_INSIDE;
        for (int k = 0; k < QKV_SEG_COUNT; k++)
            if (!strcmp(qkv_featurizer_tag(fz, t), QKV_SEG_LABEL_NAMES[k]))
                label_of[t] = (uint8_t)k;
    }
    uint8_t *labels = malloc((size_t)st->n_chars);
    if (!labels)
        return qkv_fail(err, "out of memory for %d labels", st->n_chars);
    for (int i = 0; i < st->n_chars; i++)
        labels[i] = res->pred[i] >= 0 && res->pred[i] < n_tags ? label_of[res->pred[i]] : QKV_SEG_INSIDE;
    qkv_seg_lexicon_apply(lexicon, st, labels);
    qkv_seg_rules_apply(lexicon, st, labels);
    int status = qkv_seg_score(st, labels, &res->seg_tokens, &res->seg_sentences, err);
    free(labels);
    res->has_segments = status == QKV_OK;
    return status;
}
