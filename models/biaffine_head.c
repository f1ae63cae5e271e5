/* The biaffine head (models/kinds.h): a graph-based dependency parser over any encoder (Dozat
 * and Manning 2017, "Deep Biaffine Attention for Neural Dependency Parsing"). Its targets are
 * arcs: each word's head (HEAD) and the label of that arc (DEPREL, the head's tags).
 *
 * Four one-layer ReLU MLPs over the encoder output x [T, d_in], dropout after each:
 *   arc roles  a_dep, a_head [T, arc_dim]; label roles r_dep, r_head [T, label_dim];
 * arc scores s[t, j] = a_dep_t^T U a_head_j + u^T a_head_j over ROOT (j = 0, the learned vector
 * arc.root) and the words of t's sentence (lib/ops/biaffine.h); label logits of word t with head
 * j: r_dep_t^T W_l r_head_j + w_dep_l · r_dep_t + w_head_l · r_head_j + b_l (ROOT: rel.root).
 * Loss: the mean cross-entropy over each word's candidate heads plus the mean cross-entropy of
 * the labels of the gold arcs. Prediction: a tree per sentence from the arc scores (lib/
 * tree_decode.h: Chu-Liu/Edmonds or Eisner, one child of ROOT), then each word's best label
 * for its predicted head.
 *
 * Parameters (after the head's prefix): arc_mlp.{dep,head}.{w,b} [arc_dim, d_in], [arc_dim];
 * rel_mlp.{dep,head}.{w,b} [label_dim, d_in], [label_dim]; arc.root [arc_dim], arc.U
 * [arc_dim, arc_dim], arc.u [arc_dim]; rel.root [label_dim], rel.U [n_tags, label_dim,
 * label_dim], rel.w_dep, rel.w_head [n_tags, label_dim], rel.b [n_tags]. The biaffine weights
 * start at zero (Dozat and Manning), the MLPs Xavier uniform, the ROOT vectors N(0, 1). */
#include "models/biaffine_head.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "lib/ops/biaffine.h"
#include "lib/ops/ops.h"
#include "lib/vmath.h"

typedef struct {
    qkv_tensor *w, *b;
} mlp;

typedef struct {
    mlp arc_dep, arc_head, rel_dep, rel_head;
    qkv_tensor *arc_root, *arc_U, *arc_u, *rel_root, *rel_U, *rel_w_dep, *rel_w_head, *rel_b;
    qkv_biaffine_opts opts;
} biaffine_state;

static int add_mlp(mlp *m, qkv_params *ps, qkv_rng *rng, const char *prefix, const char *name, int out, int d_in,
                   qkv_error *err)
{
    m->w = qkv_params_add(ps, err, 2, (int[]){out, d_in}, "%s%s.w", prefix, name);
    m->b = m->w ? qkv_params_add(ps, err, 1, (int[]){out}, "%s%s.b", prefix, name) : NULL;
    if (!m->b)
        return QKV_ERR;
    qkv_init_xavier_uniform(m->w, rng);
    return QKV_OK;
}

static qkv_tensor *add(qkv_params *ps, qkv_error *err, int rank, const int *shape, const char *prefix,
                       const char *name)
{
    return qkv_params_add(ps, err, rank, shape, "%s%s", prefix, name);
}

static int create(qkv_head *h, qkv_params *ps, qkv_rng *rng, int d_in, const qkv_head_spec *spec, qkv_error *err)
{
    biaffine_state *st = calloc(1, sizeof *st);
    if (!st)
        return qkv_fail(err, "biaffine head: out of memory");
    h->state = st;
    st->opts = spec->biaffine;
    const int a = st->opts.arc_dim, l = st->opts.label_dim, L = spec->n_tags;
    const char *p = h->prefix;
    if (a < 1 || l < 1)
        return qkv_fail(err, "biaffine head: arc_dim %d and label_dim %d must be positive", a, l);
    if (add_mlp(&st->arc_dep, ps, rng, p, "arc_mlp.dep", a, d_in, err) ||
        add_mlp(&st->arc_head, ps, rng, p, "arc_mlp.head", a, d_in, err) ||
        add_mlp(&st->rel_dep, ps, rng, p, "rel_mlp.dep", l, d_in, err) ||
        add_mlp(&st->rel_head, ps, rng, p, "rel_mlp.head", l, d_in, err))
        return QKV_ERR;
    if (!(st->arc_root = add(ps, err, 1, (int[]){a}, p, "arc.root")) ||
        !(st->arc_U = add(ps, err, 2, (int[]){a, a}, p, "arc.U")) || !(st->arc_u = add(ps, err, 1, (int[]){a}, p, "arc.u")) ||
        !(st->rel_root = add(ps, err, 1, (int[]){l}, p, "rel.root")) ||
        !(st->rel_U = add(ps, err, 3, (int[]){L, l, l}, p, "rel.U")) ||
        !(st->rel_w_dep = add(ps, err, 2, (int[]){L, l}, p, "rel.w_dep")) ||
        !(st->rel_w_head = add(ps, err, 2, (int[]){L, l}, p, "rel.w_head")) ||
        !(st->rel_b = add(ps, err, 1, (int[]){L}, p, "rel.b")))
        return QKV_ERR;
    if (rng) {
        qkv_init_normal(st->arc_root, rng, 1.0);
        qkv_init_normal(st->rel_root, rng, 1.0);
    }
    return QKV_OK;
}

/* x itself: the head reads the encoder output in loss and predict. */
static qkv_tensor *logits(qkv_tape *tp, const qkv_head *h, qkv_tensor *x)
{
    (void)tp, (void)h;
    return x;
}

static qkv_tensor *role(qkv_tape *tp, const biaffine_state *st, const mlp *m, qkv_tensor *x)
{
    return qkv_dropout(tp, qkv_relu(tp, qkv_linear(tp, x, m->w, m->b)), st->opts.dropout);
}

qkv_tensor *qkv_biaffine_head_arcs(qkv_tape *tp, const qkv_head *h, qkv_tensor *x, qkv_packed sentences)
{
    const biaffine_state *st = h->state;
    qkv_tensor *dep = role(tp, st, &st->arc_dep, x), *head = role(tp, st, &st->arc_head, x);
    return qkv_biaffine_arcs(tp, dep, head, st->arc_root, st->arc_U, st->arc_u, sentences);
}

/* Label logits [T, n_tags] of each word t by its arc to head arcs[t] (< 0: a zero head vector). */
static qkv_tensor *label_logits(qkv_tape *tp, const biaffine_state *st, qkv_tensor *dep, qkv_tensor *head,
                                qkv_packed sentences, const int32_t *arcs)
{
    qkv_tensor *g = qkv_gather_heads(tp, head, st->rel_root, sentences, arcs);
    qkv_tensor *y = qkv_bilinear(tp, dep, g, st->rel_U);
    y = qkv_add(tp, y, qkv_linear(tp, dep, st->rel_w_dep, st->rel_b));
    return qkv_add(tp, y, qkv_linear(tp, g, st->rel_w_head, NULL));
}

qkv_tensor *qkv_biaffine_head_labels(qkv_tape *tp, const qkv_head *h, qkv_tensor *x, qkv_packed sentences,
                                     const int32_t *arcs)
{
    const biaffine_state *st = h->state;
    qkv_tensor *dep = role(tp, st, &st->rel_dep, x), *head = role(tp, st, &st->rel_head, x);
    return label_logits(tp, st, dep, head, sentences, arcs);
}

/* The labels the loss reads: the gold label of each word that has a gold head, else -1. */
static int32_t *label_targets(qkv_tape *tp, int T, const int32_t *tags, const int32_t *arcs)
{
    int32_t *t = qkv_tape_alloc(tp, (size_t)(T ? T : 1) * sizeof *t);
    for (int i = 0; t && i < T; i++)
        t[i] = arcs[i] >= 0 && tags[i] >= 0 ? tags[i] : -1;
    return t;
}

/* The mean cross-entropy over the gold arcs plus that of their labels, the targets of both
 * smoothed by gold->label_smoothing (over a word's candidate arcs, over the labels). */
static qkv_tensor *loss(qkv_tape *tp, const qkv_head *h, qkv_tensor *x, qkv_packed sentences, const qkv_gold *gold)
{
    const biaffine_state *st = h->state;
    const int32_t *tags = gold->tags, *arcs = gold->arcs;
    if (tp->failed)
        return NULL;
    if (!arcs)
        return qkv_tape_fail(tp, "biaffine head: the batch has no gold heads (HEAD column)");
    qkv_tensor *arc_loss = qkv_arc_cross_entropy(tp, qkv_biaffine_head_arcs(tp, h, x, sentences), sentences, arcs,
                                             gold->label_smoothing);
    qkv_tensor *dep = role(tp, st, &st->rel_dep, x), *head = role(tp, st, &st->rel_head, x);
    const int32_t *targets = label_targets(tp, qkv_packed_rows(sentences), tags, arcs);
    if (!targets)
        return NULL;
    qkv_tensor *labels = qkv_cross_entropy_smoothed(tp, label_logits(tp, st, dep, head, sentences, arcs), targets,
                                                    gold->label_smoothing);
    return qkv_add(tp, arc_loss, labels);
}

/* What decoding the sentences of a batch shares: the head, a sentence's scores (buf [C, C]) and
 * the summed NLL of the gold arcs. */
typedef struct decoding {
    const biaffine_state *st;
    double *buf, nll;
} decoding;

/* Sentence i's tree from the arc scores [T, C] into pred_arcs; d->nll += the gold arcs' NLL. */
static int decode_sentence(decoding *d, const qkv_tensor *s, qkv_packed sent, int i, const int32_t *gold_arcs,
                           int32_t *pred_arcs, qkv_error *err)
{
    double *buf = d->buf, *nll = &d->nll;
    const int o = sent.offsets[i], n = qkv_packed_len(sent, i), C = s->shape[1];
    for (int t = 0; t < n; t++) {
        const qkv_real *row = s->data + (size_t)(o + t) * C;
        qkv_real mx = row[0];
        for (int j = 0; j <= n; j++) {
            buf[(size_t)t * (n + 1) + j] = row[j];
            mx = row[j] > mx ? row[j] : mx;
        }
        if (gold_arcs && gold_arcs[o + t] >= 0)
            *nll += log(qkv_exp_shift_total(row, n + 1, mx)) + mx - (double)row[gold_arcs[o + t]];
    }
    return qkv_tree_decode(d->st->opts.decoder, buf, n, pred_arcs + o, err);
}

/* The argmax label of each row into pred; with gold, *nll += the gold labels' NLL. */
static void best_labels(const qkv_tensor *lg, const int32_t *gold, int32_t *pred, double *nll)
{
    const int T = lg->shape[0], L = lg->shape[1];
    for (int t = 0; t < T; t++) {
        const qkv_real *row = lg->data + (size_t)t * L;
        int best = 0;
        for (int k = 1; k < L; k++)
            best = row[k] > row[best] ? k : best;
        if (pred)
            pred[t] = best;
        if (gold && gold[t] >= 0) {
            const double sum = qkv_exp_shift_total(row, L, row[best]);
            *nll += log(sum) + (double)row[best] - (double)row[gold[t]];
        }
    }
}

static int predict(qkv_tape *tp, const qkv_head *h, qkv_tensor *x, qkv_packed sentences, const qkv_gold *g,
                   const qkv_prediction *out, qkv_error *err)
{
    const biaffine_state *st = h->state;
    const int32_t *gold = g ? g->tags : NULL, *gold_arcs = g ? g->arcs : NULL;
    int32_t *pred = out->tags, *pred_arcs = out->arcs;
    qkv_tensor *s = qkv_biaffine_head_arcs(tp, h, x, sentences);
    qkv_tensor *dep = role(tp, st, &st->rel_dep, x), *head = role(tp, st, &st->rel_head, x);
    if (!s || !dep || !head)
        return qkv_fail(err, "%s", tp->err.msg);
    const int C = s->shape[1];
    decoding d = {st, malloc((size_t)C * C * sizeof *d.buf), 0};
    if (!d.buf)
        return qkv_fail(err, "biaffine head: out of memory for a sentence of %d words", C - 1);
    int status = QKV_OK;
    for (int i = 0; i < sentences.n && status == QKV_OK; i++)
        status = decode_sentence(&d, s, sentences, i, gold_arcs, pred_arcs, err);
    free(d.buf);
    if (status)
        return QKV_ERR;
    double nll = d.nll;
    qkv_tensor *lg = label_logits(tp, st, dep, head, sentences, pred_arcs);
    if (!lg)
        return qkv_fail(err, "%s", tp->err.msg);
    best_labels(lg, NULL, pred, NULL);
    if (gold && gold_arcs) { /* the loss of the gold arcs' labels */
        const int32_t *targets = label_targets(tp, qkv_packed_rows(sentences), gold, gold_arcs);
        qkv_tensor *glg = targets ? label_logits(tp, st, dep, head, sentences, gold_arcs) : NULL;
        if (!glg)
            return qkv_fail(err, "%s", tp->err.msg);
        best_labels(glg, targets, NULL, &nll);
    }
    if (out->loss_sum)
        *out->loss_sum = nll;
    return QKV_OK;
}

static void release(qkv_head *h)
{
    free(h->state);
    h->state = NULL;
}

const qkv_head_desc qkv_biaffine_head = {
    .name = "biaffine",
    .param_prefixes = (const char *const[]){"arc_mlp.", "rel_mlp.", "arc.", "rel.", NULL},
    .create = create,
    .logits = logits,
    .loss = loss,
    .predict = predict,
    .arcs = true,
    .scores = QKV_SCORE_ACCURACY | QKV_SCORE_ATTACHMENT,
    .free = release,
};
