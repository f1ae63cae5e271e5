#include "data/dataset.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "data/columns.h"

void qkv_warnings_free(qkv_warnings *w)
{
    for (int i = 0; i < w->n; i++)
        free(w->msgs[i]);
    free(w->msgs);
    memset(w, 0, sizeof *w);
}

int qkv_warnings_add(qkv_warnings *w, qkv_error *err, const char *fmt, ...)
{
    if (w->n == w->cap) {
        int cap = w->cap ? w->cap * 2 : 8;
        char **m = realloc(w->msgs, (size_t)cap * sizeof *m);
        if (!m)
            return qkv_fail(err, "out of memory for warnings");
        w->msgs = m;
        w->cap = cap;
    }
    char buf[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    if (!(w->msgs[w->n] = strdup(buf)))
        return qkv_fail(err, "out of memory for warnings");
    w->n++;
    return QKV_OK;
}

/* The number of distinct training tags (ids 0..n_tags-1) among ds's gold tags. */
static int n_known_tags(const qkv_dataset *ds, int n_tags)
{
    uint8_t *seen = calloc((size_t)n_tags + 1, 1);
    int n = 0;
    for (int w = 0; seen && w < ds->n_words; w++)
        if (ds->tags[w] >= 0 && ds->tags[w] < n_tags && !seen[ds->tags[w]]) {
            seen[ds->tags[w]] = 1;
            n++;
        }
    free(seen);
    return n;
}

/* One warning per distinct unseen tag, with its first line and its number of words. */
static int report_unknown_tags(const qkv_corpus *c, const qkv_dataset *ds, int n_tags, qkv_warnings *w,
                               qkv_error *err)
{
    qkv_vocab unseen;
    if (qkv_vocab_init(&unseen, 0, err) != QKV_OK)
        return QKV_ERR;
    int st = QKV_OK;
    int32_t *first = NULL;
    for (int i = 0; i < c->n_words && st == QKV_OK; i++) {
        if (ds->tags[i] != QKV_TAG_UNSEEN)
            continue;
        int32_t id;
        int before = unseen.size;
        size_t len;
        const char *tag = qkv_corpus_tag(c, i, &len);
        st = qkv_vocab_add(&unseen, tag, len, &id, err);
        if (st == QKV_OK && unseen.size > before) {
            int32_t *nf = realloc(first, (size_t)unseen.size * sizeof *nf);
            if (!nf) {
                st = qkv_fail(err, "out of memory");
                break;
            }
            first = nf;
            first[id] = c->word_line[i];
        }
    }
    for (int t = 0; t < unseen.size && st == QKV_OK; t++) {
        long long n = (long long)qkv_vocab_count(&unseen, t);
        st = qkv_warnings_add(w, err, "%.200s:%d: tag \"%.60s\" is not among the %d training tags (%lld word%s); they count as errors",
                  c->name, first[t], qkv_vocab_string(&unseen, t), n_tags, n, n == 1 ? "" : "s");
    }
    if (st == QKV_OK && unseen.size > 1) {
        int known = n_known_tags(ds, n_tags), tagged = ds->n_words - ds->n_untagged;
        st = qkv_warnings_add(w, err, "%.200s: the tag sets differ: %d of its %d tags in %s (%d of %d tagged words, %.1f%%) "
                              "are not among the %d training tags", c->name, unseen.size, unseen.size + known,
                              c->tag_column, ds->n_unknown_tags, tagged, 100.0 * ds->n_unknown_tags / tagged, n_tags);
    }
    free(first);
    qkv_vocab_free(&unseen);
    return st;
}

/* The gold arcs of c, its HEAD column (-1 for none), when any word has one. */
static int copy_arcs(qkv_dataset *ds, const qkv_corpus *c, qkv_error *err)
{
    if (qkv_corpus_n_heads(c) == 0)
        return QKV_OK;
    ds->arcs = malloc(((size_t)c->n_words + 1) * sizeof *ds->arcs);
    if (!ds->arcs)
        return qkv_fail(err, "%.200s: out of memory encoding %d words", c->name, c->n_words);
    for (int w = 0; w < c->n_words; w++)
        ds->arcs[w] = c->heads[w] >= 0 ? c->heads[w] : -1;
    return QKV_OK;
}

/* One warning naming the first word of ds without a tag and their number. */
static int report_untagged(const qkv_corpus *c, const qkv_dataset *ds, qkv_warnings *w, qkv_error *err)
{
    int first = 0;
    while (ds->tags[first] != QKV_TAG_NONE)
        first++;
    return qkv_warnings_add(w, err, "%.200s:%d: %d word%s no tag (\"%s\" in %s), the first here; %s not scored", c->name,
                            c->word_line[first], ds->n_untagged, ds->n_untagged == 1 ? " has" : "s have", QKV_NO_TAG,
                            c->tag_column, ds->n_untagged == 1 ? "it is" : "they are");
}

int qkv_dataset_encode(qkv_dataset *ds, const qkv_featurizer *fz, const qkv_corpus *c, qkv_warnings *warnings,
                       qkv_error *err)
{
    memset(ds, 0, sizeof *ds);
    ds->n_sent = c->n_sent;
    ds->n_words = c->n_words;
    ds->n_features = fz->n_kinds;
    size_t nw = (size_t)c->n_words + 1;
    ds->sent_start = malloc(((size_t)c->n_sent + 1) * sizeof *ds->sent_start);
    ds->tags = malloc(nw * sizeof *ds->tags);
    int ok = ds->sent_start && ds->tags;
    for (int f = 0; f < fz->n_kinds; f++)
        ok = ok && (ds->features[f] = malloc(nw * sizeof *ds->features[f]));
    size_t max_len = 0;
    for (int w = 0; w < c->n_words; w++)
        if (c->forms[w].len > max_len)
            max_len = c->forms[w].len;
    if (ok && fz->has_chars) {
        ds->char_start = malloc(nw * sizeof *ds->char_start);
        ds->chars = malloc(nw * QKV_WORD_CHAR_IDS * sizeof *ds->chars);
        ok = ds->char_start && ds->chars;
    }
    char *scratch = ok ? malloc(QKV_FEATURE_ROOM(max_len)) : NULL;
    char *cls = scratch ? malloc(qkv_corpus_class_room(c)) : NULL;
    if (!cls) {
        free(scratch);
        qkv_dataset_free(ds);
        return qkv_fail(err, "%.200s: out of memory encoding %d words", c->name, c->n_words);
    }
    memcpy(ds->sent_start, c->sent_start, ((size_t)c->n_sent + 1) * sizeof *ds->sent_start);
    for (int s = 0; s < c->n_sent; s++) {
        int n = qkv_corpus_sent_len(c, s);
        ds->n_nonempty += n > 0;
        if (n > ds->max_sent_len)
            ds->max_sent_len = n;
    }
    if (ds->char_start)
        ds->char_start[0] = 0;
    for (int w = 0; w < c->n_words; w++) {
        size_t len, tlen;
        const char *form = qkv_corpus_form(c, w, &len);
        bool as_class = (fz->columns[0] == QKV_TAG_LEMMA && c->fields) || fz->columns[0] == QKV_TAG_FEATS;
        const char *tag = as_class ? qkv_corpus_class(c, 0, w, cls, &tlen) : qkv_corpus_tag(c, w, &tlen);
        ds->tags[w] = qkv_corpus_untagged(c, w) ? QKV_TAG_NONE : qkv_vocab_lookup(&fz->tags, tag, tlen);
        ds->n_unknown_tags += ds->tags[w] == QKV_TAG_UNSEEN;
        ds->n_untagged += ds->tags[w] == QKV_TAG_NONE;
        for (int f = 0; f < fz->n_kinds; f++)
            ds->features[f][w] = qkv_featurizer_id(fz, f, form, len, scratch);
        if (ds->chars)
            ds->char_start[w + 1] =
                ds->char_start[w] + qkv_featurizer_char_ids(fz, form, len, ds->chars + ds->char_start[w]);
    }
    free(scratch);
    free(cls);
    if (ds->chars) { /* room was made for the longest words: give back the rest */
        int32_t *fit = realloc(ds->chars, ((size_t)ds->char_start[c->n_words] + 1) * sizeof *fit);
        if (fit)
            ds->chars = fit;
    }
    if (copy_arcs(ds, c, err) != QKV_OK ||
        (qkv_featurizer_n_columns(fz) > 1 && qkv_dataset_encode_columns(ds, fz, c, err) != QKV_OK) ||
        qkv_dataset_form_chars(ds, fz, c, err) != QKV_OK ||
        (ds->n_unknown_tags && warnings && report_unknown_tags(c, ds, fz->tags.size, warnings, err) != QKV_OK)) {
        qkv_dataset_free(ds);
        return QKV_ERR;
    }
    if (ds->n_untagged && warnings && report_untagged(c, ds, warnings, err) != QKV_OK) {
        qkv_dataset_free(ds);
        return QKV_ERR;
    }
    return QKV_OK;
}

/* "A, B, C" (the first six, then ", ...") of the n strings of v. */
static void list_tags(const qkv_vocab *v, int n, char *out, size_t cap)
{
    size_t used = 0;
    out[0] = 0;
    for (int t = 0; t < n && used < cap; t++) {
        const char *name = qkv_vocab_string(v, t);
        if (t == 6) {
            snprintf(out + used, cap - used, ", ...");
            return;
        }
        int k = snprintf(out + used, cap - used, "%s%.40s", t ? ", " : "", name);
        used += k > 0 ? (size_t)k : 0;
    }
}

/* The error of qkv_dataset_require_tags when no tagged word of ds has a training tag. */
static int fail_no_known_tag(const qkv_dataset *ds, const qkv_corpus *c, const qkv_featurizer *fz, qkv_error *err)
{
    qkv_vocab unseen;
    if (qkv_vocab_init(&unseen, 0, err) != QKV_OK)
        return QKV_ERR;
    for (int w = 0; w < c->n_words; w++) {
        size_t len;
        const char *tag = qkv_corpus_tag(c, w, &len);
        int32_t id;
        if (ds->tags[w] == QKV_TAG_UNSEEN && qkv_vocab_add(&unseen, tag, len, &id, err) != QKV_OK) {
            qkv_vocab_free(&unseen);
            return QKV_ERR;
        }
    }
    char theirs[300], ours[300];
    list_tags(&unseen, unseen.size, theirs, sizeof theirs);
    list_tags(&fz->tags, fz->tags.size, ours, sizeof ours);
    qkv_fail(err, "%.200s: the tag sets differ: none of its %d tagged words has one of the %d training tags (%s); its "
                  "%d tags in %s (%s) are all unknown to the model, so nothing can be scored (a file of the tag "
                  "set the model was trained on is needed)",
             c->name, ds->n_words - ds->n_untagged, fz->tags.size, ours, unseen.size, c->tag_column, theirs);
    qkv_vocab_free(&unseen);
    return QKV_ERR;
}

int qkv_dataset_require_tags(const qkv_dataset *ds, const qkv_corpus *c, const qkv_featurizer *fz, qkv_error *err)
{
    if (ds->n_words > 0 && ds->n_untagged == ds->n_words)
        return qkv_fail(err, "%.200s: no word has a tag in %s: all %d are \"%s\"", c->name, c->tag_column,
                        ds->n_words, QKV_NO_TAG);
    if (ds->n_words > ds->n_untagged && ds->n_unknown_tags == ds->n_words - ds->n_untagged)
        return fail_no_known_tag(ds, c, fz, err);
    return QKV_OK;
}

int qkv_dataset_keep_max_len(qkv_dataset *ds, int max_len, qkv_error *err)
{
    if (max_len < 1)
        return qkv_fail(err, "dataset: max_len must be >= 1, got %d", max_len);
    if (!ds->left_out && !(ds->left_out = calloc((size_t)ds->n_sent + 1, 1)))
        return qkv_fail(err, "dataset: out of memory");
    ds->n_nonempty = ds->max_sent_len = ds->n_left_out = 0;
    ds->n_left_out_words = 0;
    for (int s = 0; s < ds->n_sent; s++) {
        int n = ds->sent_start[s + 1] - ds->sent_start[s];
        ds->left_out[s] = n > max_len;
        if (n > max_len) {
            ds->n_left_out++;
            ds->n_left_out_words += n;
        } else if (n > 0) {
            ds->n_nonempty++;
            if (n > ds->max_sent_len)
                ds->max_sent_len = n;
        }
    }
    return QKV_OK;
}

int qkv_dataset_first_longer(const qkv_dataset *ds, int max_len, int *n_longer)
{
    int first = -1, n = 0;
    for (int s = 0; s < ds->n_sent; s++)
        if (qkv_dataset_batchable(ds, s) && ds->sent_start[s + 1] - ds->sent_start[s] > max_len) {
            if (first < 0)
                first = s;
            n++;
        }
    if (n_longer)
        *n_longer = n;
    return first;
}

void qkv_dataset_free(qkv_dataset *ds)
{
    free(ds->left_out);
    free(ds->sent_start);
    free(ds->tags);
    free(ds->loss_tags);
    free(ds->arcs);
    free(ds->form_chars);
    for (int i = 1; i < QKV_MAX_COLUMNS; i++)
        free(ds->col_tags[i]);
    free(ds->char_start);
    free(ds->chars);
    free(ds->dense);
    for (int f = 0; f < QKV_MAX_FEATURES; f++)
        free(ds->features[f]);
    memset(ds, 0, sizeof *ds);
}
