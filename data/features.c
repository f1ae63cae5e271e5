#include "data/features.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "data/columns.h"
#include "data/utf8.h"

enum { SHAPE_MAX_RUN = 4 };

size_t qkv_word_shape(const char *form, size_t len, char *out)
{
    size_t i = 0, o = 0;
    uint32_t last = 0;
    int run = 0;
    while (i < len) {
        int n;
        uint32_t cp = qkv_utf8_decode(form + i, len - i, &n);
        char cls = qkv_utf8_shape_class(cp);
        uint32_t sh = cls ? (uint32_t)cls : cp;
        run = sh == last ? run + 1 : 1;
        last = sh;
        if (run <= SHAPE_MAX_RUN) {
            if (sh == cp)
                for (int k = 0; k < n; k++)
                    out[o++] = form[i + k];
            else
                out[o++] = (char)sh;
        }
        i += (size_t)n;
    }
    out[o] = '\0';
    return o;
}

size_t qkv_feature_string(const qkv_feature_kind *k, const char *form, size_t len, char *out)
{
    switch (k->type) {
    case QKV_FEAT_WORD:
        memcpy(out, form, len);
        out[len] = '\0';
        return len;
    case QKV_FEAT_LOWER:
        return qkv_utf8_lower(form, len, out);
    case QKV_FEAT_PREFIX: {
        size_t n = qkv_utf8_lower(form, len, out);
        size_t b = qkv_utf8_prefix_bytes(out, n, (size_t)k->length);
        out[b] = '\0';
        return b;
    }
    case QKV_FEAT_SUFFIX: {
        size_t n = qkv_utf8_lower(form, len, out);
        size_t s = qkv_utf8_suffix_start(out, n, (size_t)k->length);
        memmove(out, out + s, n - s + 1);
        return n - s;
    }
    case QKV_FEAT_SHAPE:
        return qkv_word_shape(form, len, out);
    }
    out[0] = '\0';
    return 0;
}

int32_t qkv_featurizer_id(const qkv_featurizer *fz, int f, const char *form, size_t len, char *scratch)
{
    const qkv_feature_kind *k = &fz->kinds[f];
    if (k->type == QKV_FEAT_WORD)
        return qkv_vocab_lookup(&k->vocab, form, len);
    size_t n = qkv_feature_string(k, form, len, scratch);
    return qkv_vocab_lookup(&k->vocab, scratch, n);
}

static int add_kind(qkv_featurizer *fz, qkv_feature_type type, int length, int min_count, const char *name,
                    qkv_error *err)
{
    qkv_feature_kind *k = &fz->kinds[fz->n_kinds];
    memset(k, 0, sizeof *k);
    k->type = type;
    k->length = length;
    k->min_count = min_count;
    if (length)
        snprintf(k->name, sizeof k->name, "%s%d", name, length);
    else
        snprintf(k->name, sizeof k->name, "%s", name);
    if (qkv_vocab_init(&k->vocab, 1, err) != QKV_OK)
        return QKV_ERR;
    fz->n_kinds++;
    return QKV_OK;
}

int qkv_featurizer_init(qkv_featurizer *fz, const qkv_feature_config *cfg, qkv_error *err)
{
    memset(fz, 0, sizeof *fz);
    if (cfg->prefix_max < 0 || cfg->prefix_max > QKV_MAX_AFFIX || cfg->suffix_max < 0 ||
        cfg->suffix_max > QKV_MAX_AFFIX)
        return qkv_fail(err, "features: prefix and suffix lengths must be 0..%d, got %d and %d", QKV_MAX_AFFIX,
                        cfg->prefix_max, cfg->suffix_max);
    if (cfg->word_min_count < 1 || cfg->affix_min_count < 1 || cfg->shape_min_count < 1 ||
        (cfg->chars && cfg->char_min_count < 1))
        return qkv_fail(err, "features: every min_count must be >= 1, got word %d, affix %d, shape %d, char %d",
                        cfg->word_min_count, cfg->affix_min_count, cfg->shape_min_count, cfg->char_min_count);
    if (!cfg->word && !cfg->lower && !cfg->prefix_max && !cfg->suffix_max && !cfg->shape)
        return qkv_fail(err, "features: no feature kind selected (word, lower, prefix, suffix or shape)");
    int st = qkv_vocab_init(&fz->tags, 0, err);
    fz->n_columns = cfg->n_columns > 1 ? cfg->n_columns : 1;
    if (fz->n_columns > QKV_MAX_COLUMNS)
        st = qkv_fail(err, "features: %d tag columns, at most %d", fz->n_columns, QKV_MAX_COLUMNS);
    for (int i = 0; i < fz->n_columns && st == QKV_OK; i++) {
        fz->columns[i] = cfg->columns[i];
        if (i > 0)
            st = qkv_vocab_init(&fz->col_tags[i], 0, err);
    }
    if (st == QKV_OK && cfg->chars) {
        st = qkv_vocab_init(&fz->chars, 1, err);
        fz->has_chars = st == QKV_OK;
        fz->char_min_count = cfg->char_min_count;
    }
    if (st == QKV_OK && cfg->word)
        st = add_kind(fz, QKV_FEAT_WORD, 0, cfg->word_min_count, "word", err);
    if (st == QKV_OK && cfg->lower)
        st = add_kind(fz, QKV_FEAT_LOWER, 0, cfg->word_min_count, "lower", err);
    for (int k = 1; st == QKV_OK && k <= cfg->prefix_max; k++)
        st = add_kind(fz, QKV_FEAT_PREFIX, k, cfg->affix_min_count, "prefix", err);
    for (int k = 1; st == QKV_OK && k <= cfg->suffix_max; k++)
        st = add_kind(fz, QKV_FEAT_SUFFIX, k, cfg->affix_min_count, "suffix", err);
    if (st == QKV_OK && cfg->shape)
        st = add_kind(fz, QKV_FEAT_SHAPE, 0, cfg->shape_min_count, "shape", err);
    if (st != QKV_OK)
        qkv_featurizer_free(fz);
    return st;
}

int qkv_featurizer_build(qkv_featurizer *fz, const qkv_feature_config *cfg, const qkv_corpus *train,
                         qkv_error *err)
{
    if (qkv_featurizer_init(fz, cfg, err) != QKV_OK)
        return QKV_ERR;
    size_t max_len = 0;
    for (int w = 0; w < train->n_words; w++)
        if (train->forms[w].len > max_len)
            max_len = train->forms[w].len;
    char *scratch = malloc(QKV_FEATURE_ROOM(max_len));
    char *cls_scratch = malloc(qkv_corpus_class_room(train));
    if (!scratch || !cls_scratch) {
        free(scratch);
        free(cls_scratch);
        qkv_featurizer_free(fz);
        return qkv_fail(err, "features: out of memory");
    }
    int st = (train->n_columns > 1 ? train->n_columns : 1) >= fz->n_columns ? QKV_OK
                                                : qkv_fail(err, "features: %d tag columns, the corpus has %d",
                                                           fz->n_columns, train->n_columns);
    for (int w = 0; w < train->n_words && st == QKV_OK; w++) {
        size_t len, tlen;
        const char *form = qkv_corpus_form(train, w, &len);
        for (int i = 0; i < fz->n_columns && st == QKV_OK; i++) {
            if (qkv_corpus_value_missing(train, i, w)) /* "_" is no tag, never a class */
                continue;
            const char *tag = qkv_corpus_class(train, i, w, cls_scratch, &tlen);
            st = tag ? qkv_vocab_add(i == 0 ? &fz->tags : &fz->col_tags[i], tag, tlen, NULL, err)
                     : qkv_fail(err, "features: out of memory");
        }
        if (st == QKV_OK && fz->has_chars)
            st = qkv_featurizer_count_chars(fz, form, len, err);
        for (int f = 0; f < fz->n_kinds && st == QKV_OK; f++) {
            size_t n = qkv_feature_string(&fz->kinds[f], form, len, scratch);
            st = qkv_vocab_add(&fz->kinds[f].vocab, scratch, n, NULL, err);
        }
    }
    free(scratch);
    free(cls_scratch);
    if (st == QKV_OK)
        st = qkv_vocab_prune(&fz->tags, 1, err);
    if (st == QKV_OK && fz->tags.size == 0 && train->n_words > 0)
        st = qkv_fail(err, "no word has a tag in %s: all %d are \"%s\"", train->tag_column, train->n_words,
                      QKV_NO_TAG);
    for (int i = 1; i < fz->n_columns && st == QKV_OK; i++)
        st = qkv_vocab_prune(&fz->col_tags[i], 1, err);
    for (int i = 0; i < fz->n_columns && st == QKV_OK && train->n_words > 0; i++) {
        const qkv_vocab *v = qkv_featurizer_column_vocab(fz, i);
        char name[32];
        qkv_column_name(fz->columns[i], name, sizeof name);
        bool only_empty = v->size == 1 && qkv_column_underscore_is_value(fz->columns[i]) &&
                          !strcmp(qkv_vocab_string(v, 0), QKV_NO_TAG);
        if (v->size == 0 || only_empty)
            st = qkv_fail(err, "no word has a value in %s: all %d are \"%s\" (nothing to train on)", name,
                          train->n_words, QKV_NO_TAG);
    }
    if (st == QKV_OK && fz->has_chars)
        st = qkv_featurizer_finish_chars(fz, err);
    for (int f = 0; f < fz->n_kinds && st == QKV_OK; f++)
        st = qkv_vocab_prune(&fz->kinds[f].vocab, fz->kinds[f].min_count, err);
    if (st != QKV_OK) {
        qkv_featurizer_free(fz);
        return qkv_fail_prefix(err, "%.200s", train->name);
    }
    return QKV_OK;
}

int qkv_featurizer_set_vocab(qkv_featurizer *fz, int f, const char *const *strings, int n, qkv_error *err)
{
    if (f < 0 || f >= fz->n_kinds)
        return qkv_fail(err, "features: no feature kind %d (there are %d)", f, fz->n_kinds);
    qkv_vocab v;
    if (qkv_vocab_from_strings(&v, 1, strings, n, err) != QKV_OK)
        return qkv_fail_prefix(err, "feature %s", fz->kinds[f].name);
    qkv_vocab_free(&fz->kinds[f].vocab);
    fz->kinds[f].vocab = v;
    return QKV_OK;
}

int qkv_featurizer_set_tags(qkv_featurizer *fz, const char *const *strings, int n, qkv_error *err)
{
    qkv_vocab v;
    if (qkv_vocab_from_strings(&v, 0, strings, n, err) != QKV_OK)
        return qkv_fail_prefix(err, "tags");
    qkv_vocab_free(&fz->tags);
    fz->tags = v;
    return QKV_OK;
}

/* The tag column of vocabulary v (>= 1 for the other columns' vocabularies), else 0. */
static int vocab_column(const qkv_featurizer *fz, int v)
{
    int first = fz->n_kinds + 1 + (fz->has_chars != 0);
    return v >= first ? v - first + 1 : 0;
}

#define QKV_COLUMN_VOCAB_NAME_(e, name, field) "tags." name,
static const char *const COLUMN_VOCAB_NAMES[] = {QKV_TAG_FIELDS(QKV_COLUMN_VOCAB_NAME_)};
_Static_assert(sizeof COLUMN_VOCAB_NAMES / sizeof COLUMN_VOCAB_NAMES[0] == QKV_TAG_FIELD_COUNT, "one name per column");

const char *qkv_featurizer_vocab_name(const qkv_featurizer *fz, int v)
{
    int col = vocab_column(fz, v);
    if (col)
        return COLUMN_VOCAB_NAMES[fz->columns[col]];
    return v < fz->n_kinds ? fz->kinds[v].name : v == fz->n_kinds ? "tags" : "chars";
}

const qkv_vocab *qkv_featurizer_vocab(const qkv_featurizer *fz, int v)
{
    int col = vocab_column(fz, v);
    if (col)
        return &fz->col_tags[col];
    return v < fz->n_kinds ? &fz->kinds[v].vocab : v == fz->n_kinds ? &fz->tags : &fz->chars;
}

int qkv_featurizer_set_strings(qkv_featurizer *fz, int v, const char *const *strings, int n, qkv_error *err)
{
    if (v < 0 || v >= qkv_featurizer_n_vocabs(fz))
        return qkv_fail(err, "features: no vocabulary %d (there are %d)", v, qkv_featurizer_n_vocabs(fz));
    if (v < fz->n_kinds)
        return qkv_featurizer_set_vocab(fz, v, strings, n, err);
    if (v == fz->n_kinds)
        return qkv_featurizer_set_tags(fz, strings, n, err);
    int col = vocab_column(fz, v);
    if (col) {
        qkv_vocab nv;
        if (qkv_vocab_from_strings(&nv, 0, strings, n, err) != QKV_OK)
            return qkv_fail_prefix(err, "%s", qkv_featurizer_vocab_name(fz, v));
        qkv_vocab_free(&fz->col_tags[col]);
        fz->col_tags[col] = nv;
        return QKV_OK;
    }
    return qkv_featurizer_set_chars(fz, strings, n, err);
}

void qkv_featurizer_free(qkv_featurizer *fz)
{
    for (int f = 0; f < fz->n_kinds; f++)
        qkv_vocab_free(&fz->kinds[f].vocab);
    qkv_vocab_free(&fz->tags);
    for (int i = 1; i < fz->n_columns; i++)
        qkv_vocab_free(&fz->col_tags[i]);
    if (fz->has_chars)
        qkv_vocab_free(&fz->chars);
    memset(fz, 0, sizeof *fz);
}
