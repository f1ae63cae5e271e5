/* Prediction with every head of a model (see predict.h: qkv_predict_heads), and the session's
 * tagging of a corpus through it (qkv_session_tag, _parse, _tag_fields). */
#include "api/predict.h"

#include <stdlib.h>
#include <string.h>

#include "api/run_iter.h"
#include "api/lemma_lexicon.h"
#include "api/tag_pairs.h"
#include "data/columns.h"
#include "data/lemma_script.h"
#include "models/biaffine_head.h"

/* For a head with needs (lemma scripts): each token whose predicted class needs more characters
 * than its form has takes the best-scoring class its form can take (logits [T, n_tags]). */
static void applicable_argmax(const qkv_tensor *logits, const qkv_batch *b, const qkv_dataset *ds,
                              const int32_t *needs, int32_t *bp)
{
    int n_tags = logits->shape[1];
    const int32_t *offsets = qkv_batch_offsets(b);
    for (int s = 0; s < qkv_batch_n_sent(b); s++) {
        int w0 = qkv_dataset_sent_first(ds, qkv_batch_sent_id(b, s));
        for (int t = offsets[s]; t < offsets[s + 1]; t++) {
            int chars = ds->form_chars[w0 + t - offsets[s]];
            if (needs[bp[t]] >= 0 && needs[bp[t]] <= chars)
                continue;
            const qkv_real *row = logits->data + (size_t)t * n_tags;
            int best = bp[t];
            for (int c = 0; c < n_tags; c++)
                if (needs[c] >= 0 && needs[c] <= chars && (best == bp[t] || row[c] > row[best]))
                    best = c;
            bp[t] = best;
        }
    }
}

/* Head h's prediction of the batch it->batch into out (batch order: tags [T], a head with arcs'
 * trees into arcs [T], the summed loss of its gold-tagged words) from its *logits: those given
 * (the parser's tag inputs computed them, qkv_network_head_input), else made here of its input x. */
static int predict_head(qkv_run_iter *it, qkv_network *m, int h, qkv_tensor *x, const qkv_prediction *out,
                        qkv_tensor **logits_out, qkv_error *err)
{
    const qkv_batch *b = &it->batch;
    if (!*logits_out)
        *logits_out = qkv_head_logits(&it->tp, qkv_network_head(m, h), x, it->in.sentences);
    qkv_tensor *logits = *logits_out;
    if (!logits)
        return qkv_fail(err, "%s", it->tp.err.msg);
    qkv_gold gold = {.tags = qkv_batch_column_tags(b, h), .arcs = qkv_batch_arcs(b)};
    if (qkv_network_head_predict(&it->tp, m, h, logits, it->in.sentences, &gold, out, err)) {
        if (err->sentence >= 0 && err->sentence < qkv_batch_n_sent(b)) /* its index in ds */
            err->sentence = qkv_batch_sent_id(b, err->sentence);
        return QKV_ERR;
    }
    return QKV_OK;
}

/* Copies the batch's rows src [T] into dst [n_words of ds] (dataset order). */
static void scatter(const qkv_batch *b, const qkv_dataset *ds, const int32_t *src, int32_t *dst)
{
    const int32_t *offsets = qkv_batch_offsets(b);
    for (int s = 0; s < qkv_batch_n_sent(b); s++) {
        int len = offsets[s + 1] - offsets[s], w0 = qkv_dataset_sent_first(ds, qkv_batch_sent_id(b, s));
        memcpy(dst + w0, src + offsets[s], (size_t)len * sizeof *src);
    }
}

/* Copies the batch's arcs src [T] that are set (>= 0) into dst [n_words of ds] (dataset order):
 * the heads without arcs give -1 and leave the arcs of the head with them. */
static void scatter_arcs_set(const qkv_batch *b, const qkv_dataset *ds, const int32_t *src, int32_t *dst)
{
    const int32_t *offsets = qkv_batch_offsets(b);
    for (int s = 0; s < qkv_batch_n_sent(b); s++) {
        int w0 = qkv_dataset_sent_first(ds, qkv_batch_sent_id(b, s)) - offsets[s];
        for (int t = offsets[s]; t < offsets[s + 1]; t++)
            if (src[t] >= 0)
                dst[w0 + t] = src[t];
    }
}

/* Copies the batch's rows src [T, C] into dst [n_words of ds, C] (dataset order). */
static void scatter_rows(const qkv_batch *b, const qkv_dataset *ds, const qkv_real *src, int C, qkv_real *dst)
{
    const int32_t *offsets = qkv_batch_offsets(b);
    for (int s = 0; s < qkv_batch_n_sent(b); s++) {
        int len = offsets[s + 1] - offsets[s], w0 = qkv_dataset_sent_first(ds, qkv_batch_sent_id(b, s));
        memcpy(dst + (size_t)w0 * C, src + (size_t)offsets[s] * C, (size_t)len * C * sizeof *src);
    }
}

/* The batch's arc scores [T, L + 1] into arcs: sentence s's columns 0..n_s of its rows as the
 * block [n_s, n_s + 1] at arc_offsets[s] (qkv_arc_offsets). */
static void scatter_arcs(const qkv_batch *b, const qkv_tensor *scores, const int64_t *arc_offsets, qkv_real *arcs)
{
    const int32_t *offsets = qkv_batch_offsets(b);
    const int C = scores->shape[1];
    for (int i = 0; i < qkv_batch_n_sent(b); i++) {
        int n = offsets[i + 1] - offsets[i];
        qkv_real *dst = arcs + arc_offsets[qkv_batch_sent_id(b, i)];
        for (int t = 0; t < n; t++)
            memcpy(dst + (size_t)t * (n + 1), scores->data + (size_t)(offsets[i] + t) * C, (size_t)(n + 1) * sizeof *dst);
    }
}

int64_t qkv_arc_offsets(const qkv_dataset *ds, int64_t *offsets)
{
    offsets[0] = 0;
    for (int s = 0; s < ds->n_sent; s++) {
        int64_t n = qkv_dataset_sent_len(ds, s);
        offsets[s + 1] = offsets[s] + n * (n + 1);
    }
    return offsets[ds->n_sent];
}

/* Head `head`'s scores of the batch it->batch into sc (dataset order): a tagging head's logits
 * [T, n_tags]; a head with arcs' arc scores and label logits, from its input hidden
 * (qkv_network_head_input) and its predicted arcs bh [T] (batch order). */
static int copy_scores(qkv_run_iter *it, const qkv_head *head, qkv_tensor *hidden, const qkv_tensor *logits,
                       const int32_t *bh, const qkv_head_scores *sc, const int64_t *arc_offsets, qkv_error *err)
{
    const qkv_batch *b = &it->batch;
    const qkv_dataset *ds = it->ds;
    if (!qkv_head_scored_by(head, QKV_SCORE_ATTACHMENT)) { /* tags: their logits */
        if (sc->logits)
            scatter_rows(b, ds, logits->data, logits->shape[1], sc->logits);
        return QKV_OK;
    }
    qkv_packed sent = it->in.sentences;
    const int32_t *gold = qkv_batch_arcs(b);
    qkv_tensor *arcs = sc->arcs ? qkv_biaffine_head_arcs(&it->tp, head, hidden, sent) : NULL;
    qkv_tensor *labels = sc->labels ? qkv_biaffine_head_labels(&it->tp, head, hidden, sent, bh) : NULL;
    qkv_tensor *gold_labels = sc->gold_labels && gold ? qkv_biaffine_head_labels(&it->tp, head, hidden, sent, gold)
                                                      : NULL;
    if (it->tp.failed)
        return qkv_fail(err, "%s", it->tp.err.msg);
    if (arcs)
        scatter_arcs(b, arcs, arc_offsets, sc->arcs);
    if (labels)
        scatter_rows(b, ds, labels->data, head->n_tags, sc->labels);
    if (gold_labels)
        scatter_rows(b, ds, gold_labels->data, head->n_tags, sc->gold_labels);
    return QKV_OK;
}

/* Every head's prediction of the batch it->batch into o->pred[h] (dataset order), a head with
 * arcs' trees into o->arcs, its scores into o->scores[h]; o->loss_sum[h] += the summed loss of
 * its gold-tagged words (+inf for a batch with a sentence a constrained CRF decoded without its
 * constraints, flagged in o->unconstrained); needs as qkv_predict_heads. */
static int predict_batch(qkv_run_iter *it, qkv_network *m, const int32_t *const *needs, const qkv_heads_out *o,
                         qkv_error *err)
{
    const qkv_dataset *ds = it->ds;
    qkv_tensor *hidden = qkv_run_iter_hidden(it, m, err);
    if (!hidden)
        return QKV_ERR;
    const qkv_batch *b = &it->batch;
    size_t T = (size_t)qkv_batch_n_tokens(b), B = (size_t)qkv_batch_n_sent(b);
    int32_t *bp = qkv_tape_alloc(&it->tp, T * sizeof *bp), *bh = qkv_tape_alloc(&it->tp, T * sizeof *bh);
    uint8_t *flags = qkv_tape_alloc(&it->tp, B); /* sentences a head decoded without its constraints */
    if (!bp || !bh || !flags)
        return qkv_fail(err, "%s", it->tp.err.msg);
    qkv_tensor *lg[QKV_NETWORK_MAX_HEADS] = {NULL}; /* each head's logits; the parser's tag inputs fill theirs */
    for (int h = 0; h < qkv_network_n_outputs(m); h++) {
        double loss = 0;
        qkv_tensor *x = qkv_network_head_input(&it->tp, m, h, hidden, it->in.sentences, lg);
        if (!x)
            return qkv_fail(err, "%s", it->tp.err.msg);
        if (predict_head(it, m, h, x, &(qkv_prediction){bp, bh, &loss, flags}, &lg[h], err))
            return QKV_ERR;
        const qkv_tensor *logits = lg[h];
        for (size_t i = 0; o->unconstrained && i < B; i++)
            if (flags[i])
                o->unconstrained[qkv_batch_sent_id(b, (int)i)] = 1;
        if (needs && needs[h] && ds->form_chars)
            applicable_argmax(logits, b, ds, needs[h], bp);
        if (o->loss_sum)
            o->loss_sum[h] += loss;
        scatter(b, ds, bp, o->pred[h]);
        if (o->arcs)
            scatter_arcs_set(b, ds, bh, o->arcs);
        const qkv_head *head = qkv_network_head(m, h);
        if (o->scores && copy_scores(it, head, x, logits, bh, &o->scores[h], o->arc_offsets, err))
            return QKV_ERR;
    }
    return QKV_OK;
}

int qkv_predict_heads(qkv_network *m, const qkv_dataset *ds, const qkv_batching *b, const int32_t *const *needs,
                      int32_t *const *pred, int32_t *arcs, double *loss_sum, qkv_error *err)
{
    return qkv_predict_heads_scores(m, ds, b, needs, &(qkv_heads_out){pred, arcs, loss_sum, NULL, NULL, NULL}, err);
}

int qkv_predict_heads_scores(qkv_network *m, const qkv_dataset *ds, const qkv_batching *b, const int32_t *const *needs,
                             const qkv_heads_out *o, qkv_error *err)
{
    int32_t *const *pred = o->pred;
    int32_t *pred_arcs = o->arcs;
    double *loss_sum = o->loss_sum;
    const qkv_head_scores *scores = o->scores;
    const int64_t *arc_offsets = o->arc_offsets;
    int n_outputs = qkv_network_n_outputs(m), n_words = qkv_dataset_n_words(ds);
    if (qkv_dataset_n_columns(ds) != n_outputs)
        return qkv_fail(err, "the model has %d heads, the data %d tag columns", n_outputs, qkv_dataset_n_columns(ds));
    for (int h = 0; scores && h < n_outputs; h++)
        if (scores[h].arcs && !arc_offsets)
            return qkv_fail(err, "head %d: arc scores asked for without their offsets (qkv_arc_offsets)", h);
    for (int w = 0; pred_arcs && w < n_words; w++)
        pred_arcs[w] = -1;
    for (int h = 0; h < n_outputs; h++) {
        for (int w = 0; w < n_words; w++)
            pred[h][w] = -1;
        if (loss_sum)
            loss_sum[h] = 0;
    }
    if (qkv_dataset_n_batchable(ds) == 0)
        return QKV_OK;
    qkv_run_iter it;
    int status = qkv_run_iter_init(&it, ds, b->batch_tokens, true, err) || qkv_run_iter_plan(&it, NULL, err);
    for (int i = qkv_run_iter_n_batches(&it) - 1; i >= 0 && status == QKV_OK; i--)
        if (i % b->n_shards == b->shard)
            status = qkv_run_iter_fill(&it, i, err) || predict_batch(&it, m, needs, o, err);
    qkv_run_iter_free(&it);
    return status ? QKV_ERR : QKV_OK;
}

/* Room for the lemmas head h's classes pred give the words of c (qkv_column_value). */
static size_t lemma_room(const qkv_session *s, const qkv_corpus *c, int h, const int32_t *pred)
{
    size_t room = 1;
    for (int w = 0; w < c->n_words; w++) {
        size_t flen;
        qkv_corpus_form(c, w, &flen);
        const char *cls = pred[w] >= 0 ? qkv_featurizer_class(&s->fz, h, pred[w]) : "";
        room += QKV_COLUMN_VALUE_ROOM(flen, strlen(cls)) + flen + 1 + qkv_session_lexicon_room(s, flen);
    }
    return room;
}

/* Head h's lemma of every word of c from its predicted scripts pred[h] into out->values[LEMMA]
 * (strings in out->lemmas), or the lemma lexicon's for a form and predicted UPOS it lists
 * (api/lemma_lexicon.h); a script that does not apply gives the form (counted). Errors: out of
 * memory. */
static int decode_lemmas(qkv_session *s, const qkv_corpus *c, int h, const int32_t *const *heads_pred,
                         qkv_tagged *out, qkv_error *err)
{
    const int32_t *pred = heads_pred[h];
    size_t room = lemma_room(s, c, h, pred), used = 0;
    if (!(out->lemmas = malloc(room)))
        return qkv_fail(err, "out of memory for the lemmas of %d words", c->n_words);
    const char **v = out->values[QKV_TAG_LEMMA];
    for (int w = 0; w < c->n_words; w++) {
        size_t flen;
        const char *form = qkv_corpus_form(c, w, &flen);
        char *at = out->lemmas + used;
        const char *lemma = NULL;
        bool listed = false;
        if (pred[w] >= 0 && qkv_session_lexicon_lemma(s, c, heads_pred, w, at, &listed, err))
            return QKV_ERR;
        if (listed)
            lemma = at;
        else if (pred[w] >= 0)
            lemma = qkv_column_value(QKV_TAG_LEMMA, form, flen, qkv_featurizer_class(&s->fz, h, pred[w]), at);
        if (lemma && !*lemma) /* a script that deletes the whole form: no lemma */
            lemma = NULL;
        if (!lemma && pred[w] >= 0 && out->n_lemma_fallback++ == 0)
            out->first_fallback = w;
        if (!lemma) {
            memcpy(at, form, flen);
            at[flen] = '\0';
        }
        v[w] = pred[w] >= 0 ? at : NULL;
        used += strlen(at) + 1;
    }
    if (out->n_lemma_fallback)
        return qkv_warnings_add(&s->warnings, err,
                                "%.200s:%d: %d word%s a predicted lemma edit script that does not apply to the form, "
                                "the first here; the lemma is the form", qkv_corpus_name(c),
                                c->word_line[out->first_fallback], out->n_lemma_fallback,
                                out->n_lemma_fallback == 1 ? " has" : "s have");
    return QKV_OK;
}

int qkv_tagged_from_pred(qkv_session *s, const qkv_corpus *c, const int32_t *const *pred, qkv_tagged *out,
                         qkv_error *err)
{
    memset(out, 0, sizeof *out);
    int n_outputs = qkv_featurizer_n_columns(&s->fz), n_words = c->n_words, status = QKV_OK;
    for (int h = 0; h < n_outputs && status == QKV_OK; h++) {
        qkv_tag_field col = s->fz.columns[h];
        if (!(out->values[col] = calloc((size_t)n_words + 1, sizeof(char *))))
            status = qkv_fail(err, "out of memory for %d words", n_words);
        else if (col == QKV_TAG_LEMMA)
            status = decode_lemmas(s, c, h, pred, out, err);
        else
            for (int w = 0; w < n_words; w++)
                out->values[col][w] = pred[h][w] >= 0 ? qkv_featurizer_class(&s->fz, h, pred[h][w]) : NULL;
    }
    if (status != QKV_OK)
        qkv_tagged_free(out);
    return status;
}

/* What qkv_session_parse and qkv_session_tag_fields share: the sentences of c checked against
 * the bound on their words and the model's lengths, encoded without their HEAD column (tagging
 * replaces it), and every head's classes predicted into pred[h] [n_words of c] (malloc'd here
 * for each head; the caller frees them, after an error too) and the arcs into arcs [n_words of
 * c] (may be NULL). columns: the lemma heads keep to the scripts a form can take and UPOS and
 * XPOS to the pairs seen in training (qkv_predict_heads_paired); else each head is decoded alone
 * (qkv_predict_heads). The sentences a constrained CRF decoded without its constraints are
 * named in one warning (qkv_session_warn_unconstrained). Errors name c's lines. */
static int session_predict(qkv_session *s, const qkv_corpus *c, int batch_tokens, bool columns, int32_t **pred,
                           int32_t *arcs, qkv_error *err)
{
    int n_outputs = qkv_network_n_outputs(&s->model), n_words = c->n_words;
    qkv_dataset ds;
    memset(&ds, 0, sizeof ds);
    int status =
        n_outputs <= QKV_MAX_COLUMNS ? QKV_OK : qkv_fail(err, "%d heads, at most %d", n_outputs, QKV_MAX_COLUMNS);
    for (int h = 0; h < n_outputs && status == QKV_OK; h++)
        if (!(pred[h] = malloc(((size_t)n_words + 1) * sizeof *pred[h])))
            status = qkv_fail(err, "out of memory for %d words", n_words);
    if (status == QKV_OK)
        status = qkv_session_check_words(s, c, "", err);
    if (status == QKV_OK)
        status = qkv_dataset_encode(&ds, &s->fz, c, NULL, err);
    if (status == QKV_OK)
        qkv_dataset_forget_arcs(&ds); /* tagging replaces the input's HEAD: no gold to read */
    if (status == QKV_OK)
        status = qkv_session_check_lengths(s, c, &ds, false, err);
    int32_t *needs[QKV_MAX_COLUMNS] = {0};
    if (status == QKV_OK && columns)
        status = qkv_session_class_needs(s, needs, err);
    uint8_t *unconstrained = status == QKV_OK ? calloc((size_t)c->n_sent + 1, 1) : NULL;
    if (status == QKV_OK && !unconstrained)
        status = qkv_fail(err, "out of memory for %d sentences", c->n_sent);
    const qkv_heads_out out = {.pred = pred, .arcs = arcs, .unconstrained = unconstrained};
    const qkv_batching *all = QKV_ALL_BATCHES(batch_tokens);
    if (status == QKV_OK)
        status = columns ? qkv_predict_heads_paired(s, &ds, all, (const int32_t *const *)needs, &out, err)
                         : qkv_predict_heads_scores(&s->model, &ds, all, NULL, &out, err);
    if (status != QKV_OK)
        qkv_session_name_sentence(c, err);
    if (status == QKV_OK)
        status = qkv_session_warn_unconstrained(s, c, unconstrained, err);
    free(unconstrained);
    for (int h = 0; h < QKV_MAX_COLUMNS; h++)
        free(needs[h]);
    qkv_dataset_free(&ds);
    return status;
}

int qkv_session_tag(qkv_session *s, const qkv_corpus *c, int batch_tokens, const char **tags, qkv_error *err)
{
    if (s->fz.columns[0] == QKV_TAG_LEMMA)
        return qkv_fail(err, "the model's first column is lemma, whose classes are edit scripts: tag every column "
                             "with qkv_session_tag_fields");
    return qkv_session_parse(s, c, batch_tokens, tags, NULL, err);
}

int qkv_session_parse(qkv_session *s, const qkv_corpus *c, int batch_tokens, const char **tags, int32_t *arcs,
                      qkv_error *err)
{
    int32_t *pred[QKV_MAX_COLUMNS] = {0};
    int status = session_predict(s, c, batch_tokens, false, pred, arcs, err);
    for (int w = 0; status == QKV_OK && w < c->n_words; w++)
        tags[w] = pred[0][w] >= 0 ? qkv_featurizer_tag(&s->fz, pred[0][w]) : NULL;
    for (int h = 0; h < QKV_MAX_COLUMNS; h++)
        free(pred[h]);
    return status;
}

int qkv_session_tag_fields(qkv_session *s, const qkv_corpus *c, int batch_tokens, qkv_tagged *out, qkv_error *err)
{
    memset(out, 0, sizeof *out);
    int32_t *pred[QKV_MAX_COLUMNS] = {0};
    int32_t *arcs = malloc(((size_t)c->n_words + 1) * sizeof *arcs);
    int status = arcs ? session_predict(s, c, batch_tokens, true, pred, arcs, err)
                      : qkv_fail(err, "out of memory for %d words", c->n_words);
    if (status == QKV_OK)
        status = qkv_tagged_from_pred(s, c, (const int32_t *const *)pred, out, err);
    if (status == QKV_OK)
        out->arcs = arcs;
    else
        free(arcs);
    for (int h = 0; h < QKV_MAX_COLUMNS; h++)
        free(pred[h]);
    return status;
}

void qkv_tagged_free(qkv_tagged *t)
{
    for (int k = 0; k < QKV_TAG_FIELD_COUNT; k++)
        free(t->values[k]);
    free(t->arcs);
    free(t->lemmas);
    memset(t, 0, sizeof *t);
}

int qkv_session_class_needs(const qkv_session *s, int32_t **needs, qkv_error *err)
{
    for (int h = 0; h < qkv_featurizer_n_columns(&s->fz); h++) {
        needs[h] = NULL;
        if (s->fz.columns[h] != QKV_TAG_LEMMA)
            continue;
        int n = qkv_featurizer_n_classes(&s->fz, h);
        if (!(needs[h] = malloc(((size_t)n + 1) * sizeof *needs[h])))
            return qkv_fail(err, "out of memory for %d lemma scripts", n);
        for (int c = 0; c < n; c++) {
            const char *script = qkv_featurizer_class(&s->fz, h, c);
            needs[h][c] = (int32_t)qkv_lemma_script_needs(script, strlen(script));
        }
    }
    return QKV_OK;
}
