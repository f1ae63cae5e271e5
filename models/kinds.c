/* The kind tables (models/kinds.h) and what every head shares. */
#include "models/kinds.h"

#include <stdio.h>
#include <string.h>

#define QKV_KIND_NAME_(e, name, desc) name,
#define QKV_KIND_ENTRY_(e, name, desc) &desc,
const char *const QKV_INPUT_KIND_NAMES[] = {QKV_INPUT_KINDS(QKV_KIND_NAME_) NULL};
const char *const QKV_ENCODER_KIND_NAMES[] = {QKV_ENCODER_KINDS(QKV_KIND_NAME_) NULL};
const char *const QKV_OUTPUT_NAMES[] = {QKV_HEAD_KINDS(QKV_KIND_NAME_) NULL};
const qkv_input_desc *const QKV_INPUT_DESCS[QKV_INPUT_KIND_COUNT] = {QKV_INPUT_KINDS(QKV_KIND_ENTRY_)};
const qkv_encoder_desc *const QKV_ENCODER_DESCS[QKV_ENCODER_KIND_COUNT] = {QKV_ENCODER_KINDS(QKV_KIND_ENTRY_)};
const char *const QKV_SEQ_POOL_NAMES[] = {"mean", "cls", NULL};
_Static_assert(sizeof QKV_SEQ_POOL_NAMES / sizeof QKV_SEQ_POOL_NAMES[0] == QKV_SEQ_POOL_COUNT + 1, "one name per qkv_seq_pool");
const qkv_head_desc *const QKV_HEAD_DESCS[QKV_OUTPUT_COUNT] = {QKV_HEAD_KINDS(QKV_KIND_ENTRY_)};

int qkv_head_create(qkv_head *h, qkv_params *ps, qkv_rng *rng, int d_in, const qkv_head_spec *spec,
                    qkv_error *err)
{
    memset(h, 0, sizeof *h);
    const char *prefix = spec->prefix ? spec->prefix : "", *tagset = spec->tagset ? spec->tagset : "";
    if ((unsigned)spec->kind >= QKV_OUTPUT_COUNT)
        return qkv_fail(err, "head: unknown kind %d", (int)spec->kind);
    if (spec->n_tags < 1)
        return qkv_fail(err, "head '%s': no tags (is the training file empty?)", prefix);
    if (strlen(prefix) >= sizeof h->prefix || strlen(tagset) >= sizeof h->tagset)
        return qkv_fail(err, "head: prefix '%s' or tag set '%s' longer than %d characters", prefix, tagset,
                        QKV_HEAD_NAME_MAX - 1);
    h->desc = QKV_HEAD_DESCS[spec->kind];
    snprintf(h->prefix, sizeof h->prefix, "%s", prefix);
    snprintf(h->tagset, sizeof h->tagset, "%s", tagset);
    h->n_tags = spec->n_tags;
    h->loss_weight = spec->loss_weight != 0 ? spec->loss_weight : 1.0;
    h->pool = spec->pool;
    return h->desc->create(h, ps, rng, d_in, spec, err);
}

qkv_tensor *qkv_head_logits(qkv_tape *tp, const qkv_head *h, qkv_tensor *x, qkv_packed sentences)
{
    return h->desc->sequence_logits ? h->desc->sequence_logits(tp, h, x, sentences) : h->desc->logits(tp, h, x);
}

void qkv_head_free(qkv_head *h)
{
    if (h->desc)
        h->desc->free(h);
    memset(h, 0, sizeof *h);
}

int qkv_classifier_create(qkv_classifier *c, qkv_params *ps, qkv_rng *rng, const char *prefix, int d_in, int n_tags,
                          qkv_error *err)
{
    c->w = qkv_params_add(ps, err, 2, (int[]){n_tags, d_in}, "%sclassifier.w", prefix);
    c->b = c->w ? qkv_params_add(ps, err, 1, (int[]){n_tags}, "%sclassifier.b", prefix) : NULL;
    if (!c->b)
        return QKV_ERR;
    qkv_init_xavier_uniform(c->w, rng);
    return QKV_OK;
}
