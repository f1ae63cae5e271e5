#include "train/attention_picture.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "api/run_iter.h"
#include "models/biaffine_head.h"
#include "train/plot/plot_attention.h"

/* The tags the model predicts of the batch's logits (Viterbi under a CRF output layer), as qkv
 * tag writes them, into pred [n]. A parser (model.output biaffine) gives the labels of its
 * predicted arcs, and with arcs (NULL: not asked for) [n, n + 1] the probability of each
 * candidate head (column 0 ROOT, column j word j) of each word: the softmax over its row of arc
 * scores. */
static int predict(qkv_run_iter *it, qkv_session *s, qkv_tensor *logits, int n, int32_t *pred, double *arcs,
                   qkv_error *err)
{
    double loss_unused = 0;
    int32_t *pred_arcs = qkv_tape_alloc(&it->tp, (size_t)n * sizeof *pred_arcs);
    if (!pred_arcs)
        return qkv_fail(err, "out of memory");
    if (qkv_network_head_predict(&it->tp, &s->model, 0, logits, it->in.sentences, NULL,
                                 &(qkv_prediction){pred, pred_arcs, &loss_unused, NULL}, err))
        return QKV_ERR;
    if (!arcs)
        return QKV_OK;
    qkv_tensor *sc = qkv_biaffine_head_arcs(&it->tp, qkv_network_head(&s->model, 0), logits, it->in.sentences);
    if (!sc)
        return qkv_fail(err, "%s", it->tp.err.msg);
    for (int t = 0; t < n; t++) {
        const qkv_real *row = sc->data + (size_t)t * sc->shape[1];
        double mx = row[0], sum = 0;
        for (int j = 1; j <= n; j++)
            mx = row[j] > mx ? row[j] : mx;
        for (int j = 0; j <= n; j++)
            sum += arcs[(size_t)t * (n + 1) + j] = exp((double)row[j] - mx);
        for (int j = 0; j <= n; j++)
            arcs[(size_t)t * (n + 1) + j] /= sum;
    }
    return QKV_OK;
}

/* The batch of it holds the one sentence to draw: the first of s->dev of 1 .. max_words words. */
static int one_sentence(qkv_run_iter *it, const qkv_session *s, int max_words, qkv_error *err)
{
    qkv_batch_plan plan;
    if (qkv_batch_plan_first(&plan, &s->dev, max_words, 1, max_words, err))
        return QKV_ERR;
    if (qkv_batch_plan_n_batches(&plan) == 0) {
        qkv_batch_plan_free(&plan);
        return qkv_fail(err, "%s: no sentence of 1 to %d words to draw the attention of", qkv_corpus_name(&s->dev_c),
                        max_words);
    }
    if (qkv_run_iter_set_plan(it, &plan, err))
        return QKV_ERR;
    return qkv_run_iter_fill(it, 0, err);
}

/* The sentence's words (forms of s->dev_c from word first on) and their predicted tags. */
typedef struct labels {
    char **words;
    const char **tags;
    double *arcs; /* a parser's head probabilities, else NULL */
} labels;

static void labels_free(labels *l, int n)
{
    for (int w = 0; l->words && w < n; w++)
        free(l->words[w]);
    free(l->words), free(l->tags), free(l->arcs);
}

/* Runs the model on the batch of it (one sentence of n words, from word first of the corpus)
 * keeping the weights of layer p->layer in keep, and fills l. */
static int run_sentence(qkv_run_iter *it, qkv_session *s, int layer, int first, int n, qkv_attention_weights *keep,
                        labels *l, qkv_error *err)
{
    bool parses = qkv_network_parses(&s->model);
    l->words = calloc((size_t)n, sizeof *l->words);
    l->tags = calloc((size_t)n, sizeof *l->tags);
    l->arcs = parses ? calloc((size_t)n * (n + 1), sizeof *l->arcs) : NULL;
    if (!l->words || !l->tags || (parses && !l->arcs))
        return qkv_fail(err, "out of memory");
    qkv_tensor *logits = qkv_run_iter_logits(it, &s->model, layer, keep, err);
    if (!logits)
        return QKV_ERR;
    int32_t *pred = qkv_tape_alloc(&it->tp, (size_t)n * sizeof *pred);
    if (!pred)
        return qkv_fail(err, "out of memory");
    if (predict(it, s, logits, n, pred, l->arcs, err))
        return QKV_ERR;
    for (int w = 0; w < n; w++) {
        size_t len;
        const char *form = qkv_corpus_form(&s->dev_c, first + w, &len);
        if (!(l->words[w] = strndup(form, len)))
            return qkv_fail(err, "out of memory");
        l->tags[w] = qkv_featurizer_tag(&s->fz, pred[w]);
    }
    return QKV_OK;
}

int qkv_attention_picture_draw(qkv_session *s, const qkv_attention_picture *p, const char *image, qkv_error *err)
{
    qkv_run_iter it;
    if (qkv_run_iter_init(&it, &s->dev, p->max_words, true, err))
        return QKV_ERR;
    labels l = {0};
    int n = 0;
    int status = one_sentence(&it, s, p->max_words, err);
    if (status == QKV_OK) {
        int first = qkv_dataset_sent_first(&s->dev, qkv_batch_sent_id(&it.batch, 0));
        n = qkv_batch_n_tokens(&it.batch);
        qkv_attention_weights keep;
        memset(&keep, 0, sizeof keep);
        status = run_sentence(&it, s, p->layer, first, n, &keep, &l, err);
        if (status == QKV_OK) {
            qkv_attention_plot ap = {&keep, 0, n, (const char *const *)l.words, l.tags, p->layer, p->head,
                                     p->width, p->height, l.arcs};
            status = qkv_plot_attention(&ap, image, err);
        }
    }
    labels_free(&l, n);
    qkv_run_iter_free(&it);
    return status;
}
