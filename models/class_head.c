/* The class head (models/kinds.h): one class per sequence (an image), a per-sequence head. Each
 * sequence of the encoder output x [T, d_in] becomes one vector, by model.pool: mean (the mean
 * of its tokens' rows) or cls (its first token's row, the [CLS] token of an image input:
 * Dosovitskiy et al. 2021, eq. 4); a linear classifier maps it to the class logits [B, n_tags],
 * and every token of the sequence gets its sequence's row, logits [T, n_tags]. With the image
 * dataset's tags (the label on each sequence's first token, QKV_TAG_NONE elsewhere; data/idx.h)
 * the softmax cross-entropy over tokens is then the mean over sequences of their class's
 * cross-entropy, and the argmax of each row the sequence's class.
 * Parameters: <prefix>classifier.w [n_tags, d_in], <prefix>classifier.b [n_tags]. */
#include <stdlib.h>

#include "lib/ops/ops.h"
#include "models/kinds.h"

static int create(qkv_head *h, qkv_params *ps, qkv_rng *rng, int d_in, const qkv_head_spec *spec, qkv_error *err)
{
    if ((unsigned)spec->pool >= QKV_SEQ_POOL_COUNT)
        return qkv_fail(err, "class head: unknown pooling %d", (int)spec->pool);
    qkv_classifier *c = calloc(1, sizeof *c);
    if (!c)
        return qkv_fail(err, "class head: out of memory");
    h->state = c;
    return qkv_classifier_create(c, ps, rng, h->prefix, d_in, spec->n_tags, err);
}

/* [B, d] of x [T, d]: each sequence's first row (cls), or its mean as P x with the constant
 * P [B, T], P[s][t] = 1/len(s) on s's tokens. */
static qkv_tensor *pool(qkv_tape *tp, const qkv_head *h, qkv_tensor *x, qkv_packed sentences)
{
    int B = sentences.n, T = qkv_packed_rows(sentences);
    if (h->pool == QKV_SEQ_POOL_CLS) {
        int32_t *first = qkv_tape_alloc(tp, (size_t)(B ? B : 1) * sizeof *first);
        if (!first)
            return qkv_tape_fail(tp, "class head: out of memory");
        for (int s = 0; s < B; s++)
            first[s] = sentences.offsets[s];
        return qkv_embedding(tp, x, first, B);
    }
    qkv_tensor *p = qkv_tape_tensor2(tp, B, T);
    if (!p)
        return NULL;
    for (int s = 0; s < B; s++) {
        int a = sentences.offsets[s], e = sentences.offsets[s + 1];
        for (int t = 0; t < T; t++)
            p->data[(size_t)s * T + t] = t >= a && t < e ? (qkv_real)(1.0 / (e - a)) : 0;
    }
    return qkv_matmul(tp, p, x, false, false);
}

static qkv_tensor *sequence_logits(qkv_tape *tp, const qkv_head *h, qkv_tensor *x, qkv_packed sentences)
{
    const qkv_classifier *c = h->state;
    if (tp->failed)
        return NULL;
    int B = sentences.n, T = qkv_packed_rows(sentences);
    if (B < 1)
        return qkv_tape_fail(tp, "class head: a batch without sequences");
    for (int s = 0; s < B; s++)
        if (qkv_packed_len(sentences, s) < 1)
            return qkv_tape_fail(tp, "class head: sequence %d has no tokens", s);
    qkv_tensor *per_seq = qkv_linear(tp, pool(tp, h, x, sentences), c->w, c->b);
    int32_t *seq_of = qkv_tape_alloc(tp, (size_t)T * sizeof *seq_of);
    if (!seq_of)
        return qkv_tape_fail(tp, "class head: out of memory");
    for (int s = 0; s < B; s++)
        for (int t = sentences.offsets[s]; t < sentences.offsets[s + 1]; t++)
            seq_of[t] = s;
    return per_seq ? qkv_embedding(tp, per_seq, seq_of, T) : NULL;
}

/* Loss and prediction are the softmax head's over these logits (models/softmax_head.c): the mean
 * cross-entropy over the gold-tagged tokens (one per sequence), the argmax of each row. */
static qkv_tensor *loss(qkv_tape *tp, const qkv_head *h, qkv_tensor *lg, qkv_packed sentences, const qkv_gold *gold)
{
    return qkv_softmax_head.loss(tp, h, lg, sentences, gold);
}

static int predict(qkv_tape *tp, const qkv_head *h, qkv_tensor *lg, qkv_packed sentences, const qkv_gold *gold,
                   const qkv_prediction *out, qkv_error *err)
{
    return qkv_softmax_head.predict(tp, h, lg, sentences, gold, out, err);
}

static int probs(const qkv_head *h, const qkv_tensor *lg, qkv_packed sentences, double *out, uint8_t *unconstrained,
                 qkv_error *err)
{
    return qkv_softmax_head.probs(h, lg, sentences, out, unconstrained, err);
}

static void release(qkv_head *h)
{
    free(h->state);
    h->state = NULL;
}

const qkv_head_desc qkv_class_head = {
    .name = "class",
    .param_prefixes = (const char *const[]){"classifier.", NULL},
    .create = create,
    .sequence_logits = sequence_logits,
    .loss = loss,
    .predict = predict,
    .probs = probs,
    .scores = QKV_SCORE_ACCURACY,
    .free = release,
};
