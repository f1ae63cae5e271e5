/* The softmax head (models/kinds.h): a linear classifier over each token, trained with the
 * cross-entropy of the softmax of its logits, predicting the argmax.
 * Parameters: <prefix>classifier.w [n_tags, d_in], <prefix>classifier.b [n_tags]. */
#include <math.h>
#include <stdlib.h>

#include "lib/ops/ops.h"
#include "lib/vmath.h"
#include "models/kinds.h"

static int create(qkv_head *h, qkv_params *ps, qkv_rng *rng, int d_in, const qkv_head_spec *spec, qkv_error *err)
{
    qkv_classifier *c = calloc(1, sizeof *c);
    if (!c)
        return qkv_fail(err, "softmax head: out of memory");
    h->state = c;
    return qkv_classifier_create(c, ps, rng, h->prefix, d_in, spec->n_tags, err);
}

static qkv_tensor *logits(qkv_tape *tp, const qkv_head *h, qkv_tensor *x)
{
    const qkv_classifier *c = h->state;
    return qkv_linear(tp, x, c->w, c->b);
}

/* The mean cross-entropy over the tokens with a gold tag, its targets smoothed by
 * gold->label_smoothing over the n_tags classes. */
static qkv_tensor *loss(qkv_tape *tp, const qkv_head *h, qkv_tensor *lg, qkv_packed sentences, const qkv_gold *gold)
{
    (void)h, (void)sentences;
    return qkv_cross_entropy_smoothed(tp, lg, gold->tags, gold->label_smoothing);
}

/* The argmax of each row (first on ties); the loss sum in double, max-shifted. */
static int predict(qkv_tape *tp, const qkv_head *h, qkv_tensor *lg, qkv_packed sentences, const qkv_gold *g,
                   const qkv_prediction *out, qkv_error *err)
{
    (void)tp, (void)err;
    const int32_t *gold = g ? g->tags : NULL;
    int32_t *pred = out->tags;
    double *loss_sum = out->loss_sum;
    uint8_t *unconstrained = out->unconstrained;
    int T = qkv_packed_rows(sentences), n_tags = h->n_tags;
    for (int b = 0; unconstrained && b < sentences.n; b++)
        unconstrained[b] = 0;
    double total = 0;
    for (int t = 0; t < T; t++) {
        const qkv_real *row = lg->data + (size_t)t * n_tags;
        int best = 0;
        for (int k = 1; k < n_tags; k++)
            if (row[k] > row[best])
                best = k;
        pred[t] = best;
        if (gold && gold[t] >= 0) { /* -log softmax(row)[gold] */
            const double mx = row[best], sum = qkv_exp_shift_total(row, n_tags, row[best]);
            total += log(sum) + mx - (double)row[gold[t]];
        }
    }
    if (gold)
        *loss_sum = total;
    return QKV_OK;
}

/* The softmax of each row, in double, max-shifted. */
static int probs(const qkv_head *h, const qkv_tensor *lg, qkv_packed sentences, double *out, uint8_t *unconstrained,
                 qkv_error *err)
{
    (void)err;
    int T = qkv_packed_rows(sentences), n_tags = h->n_tags;
    for (int b = 0; unconstrained && b < sentences.n; b++)
        unconstrained[b] = 0;
    for (int t = 0; t < T; t++) {
        const qkv_real *row = lg->data + (size_t)t * n_tags;
        double *p = out + (size_t)t * n_tags, mx = row[0], sum = 0;
        for (int k = 1; k < n_tags; k++)
            mx = fmax(mx, (double)row[k]);
        for (int k = 0; k < n_tags; k++)
            sum += p[k] = exp((double)row[k] - mx);
        for (int k = 0; k < n_tags; k++)
            p[k] /= sum;
    }
    return QKV_OK;
}

static void release(qkv_head *h)
{
    free(h->state);
    h->state = NULL;
}

const qkv_head_desc qkv_softmax_head = {
    .name = "softmax",
    .param_prefixes = (const char *const[]){"classifier.", NULL},
    .create = create,
    .logits = logits,
    .loss = loss,
    .predict = predict,
    .probs = probs,
    .scores = QKV_SCORE_ACCURACY,
    .free = release,
};
