#include "models/crf_head.h"

#include "models/kinds.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

int qkv_crf_head_create(qkv_crf_head *h, qkv_params *ps, int n_tags, bool constrained, const char *const *tag_names,
                        qkv_error *err)
{
    return qkv_crf_head_create_prefixed(h, ps, "", n_tags, constrained, tag_names, err);
}

int qkv_crf_head_create_prefixed(qkv_crf_head *h, qkv_params *ps, const char *prefix, int n_tags, bool constrained,
                                 const char *const *tag_names, qkv_error *err)
{
    memset(h, 0, sizeof *h);
    h->transitions = qkv_params_add(ps, err, 2, (int[]){n_tags, n_tags}, "%scrf.transitions", prefix);
    h->start = h->transitions ? qkv_params_add(ps, err, 1, (int[]){n_tags}, "%scrf.start", prefix) : NULL;
    h->end = h->start ? qkv_params_add(ps, err, 1, (int[]){n_tags}, "%scrf.end", prefix) : NULL;
    if (!h->end)
        return QKV_ERR;
    qkv_tensor *own[3] = {h->transitions, h->start, h->end};
    for (int i = 0; i < 3; i++) {
        qkv_init_constant(own[i], 0.0);
        qkv_params_of(ps, own[i])->no_weight_decay = true;
    }
    if (!constrained)
        return QKV_OK;
    if (!tag_names)
        return qkv_fail(err, "crf: model.crf_constrained needs the tag names");
    h->allowed = malloc(((size_t)n_tags * n_tags + 2 * (size_t)n_tags) * sizeof *h->allowed);
    if (!h->allowed)
        return qkv_fail(err, "crf: out of memory for the transition mask of %d tags", n_tags);
    bool *start = h->allowed + (size_t)n_tags * n_tags, *end = start + n_tags;
    qkv_bio_allowed(tag_names, n_tags, h->allowed, start, end);
    h->mask = (qkv_crf_mask){h->allowed, start, end};
    return QKV_OK;
}

void qkv_crf_head_free(qkv_crf_head *h)
{
    free(h->allowed);
    memset(h, 0, sizeof *h);
}

/* The prefix of a tag name: B, I, E, S or O when the name is "O" or one of those and a hyphen,
 * else '?'. */
static char span_kind(const char *name)
{
    if (!strcmp(name, "O"))
        return 'O';
    return name[0] && strchr("BIES", name[0]) && name[1] == '-' ? name[0] : '?';
}

void qkv_bio_allowed(const char *const *names, int n, bool *trans, bool *start, bool *end)
{
    bool bioes = false;
    for (int j = 0; j < n; j++)
        bioes = bioes || span_kind(names[j]) == 'E' || span_kind(names[j]) == 'S';
    for (int j = 0; j < n; j++) {
        char kj = span_kind(names[j]);
        bool cont = kj == 'I' || (bioes && kj == 'E'); /* tag j continues a chunk */
        start[j] = !cont;
        end[j] = !(bioes && (kj == 'B' || kj == 'I'));
        for (int i = 0; i < n; i++) {
            char ki = span_kind(names[i]);
            bool open = bioes && (ki == 'B' || ki == 'I'); /* tag i leaves its chunk open */
            /* names + 2 only for B-, I-, E- names: their type */
            bool same = cont && (ki == 'B' || ki == 'I') && strcmp(names[i] + 2, names[j] + 2) == 0;
            trans[(size_t)i * n + j] = cont || open ? same : true;
        }
    }
}

/* --- the CRF head kind (models/kinds.h): a classifier's logits as emission scores --- */

typedef struct crf_state {
    qkv_classifier cls;
    qkv_crf_head crf;
} crf_state;

static int create(qkv_head *h, qkv_params *ps, qkv_rng *rng, int d_in, const qkv_head_spec *spec, qkv_error *err)
{
    crf_state *s = calloc(1, sizeof *s);
    if (!s)
        return qkv_fail(err, "crf head: out of memory");
    h->state = s;
    if (qkv_classifier_create(&s->cls, ps, rng, h->prefix, d_in, spec->n_tags, err))
        return QKV_ERR;
    return qkv_crf_head_create_prefixed(&s->crf, ps, h->prefix, spec->n_tags, spec->crf_constrained, spec->tag_names,
                                        err);
}

static qkv_tensor *logits(qkv_tape *tp, const qkv_head *h, qkv_tensor *x)
{
    const crf_state *s = h->state;
    return qkv_linear(tp, x, s->cls.w, s->cls.b);
}

static int gold_count(const int32_t *tags, int n)
{
    int count = 0;
    for (int t = 0; t < n; t++)
        count += tags[t] >= 0;
    return count;
}

/* The summed sentence NLL (unknown tags marginalised) over the number of gold-tagged tokens.
 * Label smoothing does not apply: the NLL is of a whole tag sequence, not of a softmax over each
 * word's tags (gold->label_smoothing > 0 fails the tape). */
static qkv_tensor *loss(qkv_tape *tp, const qkv_head *h, qkv_tensor *lg, qkv_packed sentences, const qkv_gold *gold)
{
    const int32_t *tags = gold->tags;
    if (!tp->failed && gold->label_smoothing != 0)
        return qkv_tape_fail(tp, "crf head: label smoothing (%g) does not apply to a CRF's loss, the NLL of each "
                             "sentence's tag sequence", gold->label_smoothing);
    const qkv_crf_head *c = qkv_head_crf(h);
    qkv_tensor *nll = qkv_crf_nll(tp, lg, c->transitions, c->start, c->end, sentences, tags, qkv_crf_head_mask(c));
    int count = nll ? gold_count(tags, qkv_packed_rows(sentences)) : 0;
    return qkv_scale(tp, nll, count ? 1.0 / count : 0.0);
}

/* The Viterbi path of each sentence; the summed NLL with gold. With unconstrained, a sentence
 * with no path the constraints allow is decoded without them (qkv_crf_viterbi_fallback) and
 * the batch's loss is +inf (the constraints give that sentence no path, so no likelihood). */
static int predict(qkv_tape *tp, const qkv_head *h, qkv_tensor *lg, qkv_packed sentences, const qkv_gold *g,
                   const qkv_prediction *out, qkv_error *err)
{
    const int32_t *gold = g ? g->tags : NULL;
    int32_t *pred = out->tags;
    double *loss_sum = out->loss_sum;
    uint8_t *unconstrained = out->unconstrained;
    const qkv_crf_head *c = qkv_head_crf(h);
    int n_open = 0;
    if (unconstrained ? qkv_crf_viterbi_fallback(lg, c->transitions, c->start, c->end, sentences,
                                                 qkv_crf_head_mask(c), pred, unconstrained, &n_open, err)
                      : qkv_crf_viterbi(lg, c->transitions, c->start, c->end, sentences, qkv_crf_head_mask(c), pred,
                                        err))
        return QKV_ERR;
    if (n_open > 0) {
        *loss_sum = INFINITY;
        return QKV_OK;
    }
    if (gold) {
        qkv_tensor *nll = qkv_crf_nll(tp, lg, c->transitions, c->start, c->end, sentences, gold, qkv_crf_head_mask(c));
        if (!nll) {
            *err = tp->err;
            return QKV_ERR;
        }
        *loss_sum = (double)nll->data[0];
    }
    return QKV_OK;
}

/* The marginals of each sentence (forward-backward under the constraints). */
static int probs(const qkv_head *h, const qkv_tensor *lg, qkv_packed sentences, double *out, uint8_t *unconstrained,
                 qkv_error *err)
{
    const qkv_crf_head *c = qkv_head_crf(h);
    return qkv_crf_marginals(lg, c->transitions, c->start, c->end, sentences, qkv_crf_head_mask(c), out,
                             unconstrained, err);
}

static void release(qkv_head *h)
{
    crf_state *s = h->state;
    if (s)
        qkv_crf_head_free(&s->crf);
    free(s);
    h->state = NULL;
}

const qkv_head_desc qkv_crf_head_kind = {
    .name = "crf",
    .param_prefixes = (const char *const[]){"classifier.", "crf.", NULL},
    .create = create,
    .logits = logits,
    .loss = loss,
    .predict = predict,
    .probs = probs,
    .scores = QKV_SCORE_ACCURACY,
    .free = release,
};

const qkv_crf_head *qkv_head_crf(const qkv_head *h)
{
    return h && h->desc == &qkv_crf_head_kind && h->state ? &((const crf_state *)h->state)->crf : NULL;
}
