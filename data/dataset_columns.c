/* The gold classes of a dataset's tag columns beyond the first (see dataset.h). */
#include "data/dataset.h"

#include <stdbool.h>
#include <stdlib.h>

#include "data/columns.h"
#include "data/utf8.h"

int qkv_dataset_encode_columns(qkv_dataset *ds, const qkv_featurizer *fz, const qkv_corpus *c, qkv_error *err)
{
    int n = qkv_featurizer_n_columns(fz);
    ds->n_columns = n;
    if (c->n_columns <= 1) { /* read without them (plain text to tag): no gold classes */
        for (int i = 1; i < n; i++) {
            if (!(ds->col_tags[i] = malloc(((size_t)c->n_words + 1) * sizeof *ds->col_tags[i])))
                return qkv_fail(err, "%.200s: out of memory encoding %d words", c->name, c->n_words);
            for (int w = 0; w < c->n_words; w++)
                ds->col_tags[i][w] = QKV_TAG_NONE;
        }
        return QKV_OK;
    }
    if (c->n_columns < n || !c->fields)
        return qkv_fail(err, "%.200s: the model predicts %d columns (data.tags), the file was read with %d", c->name,
                        n, c->n_columns);
    for (int i = 1; i < n; i++)
        if (c->columns[i] != fz->columns[i])
            return qkv_fail(err, "%.200s: column %d is %s, the model's is %s", c->name, i + 1,
                            QKV_TAG_FIELD_NAMES[c->columns[i]], QKV_TAG_FIELD_NAMES[fz->columns[i]]);
    char *scratch = malloc(qkv_corpus_class_room(c));
    if (!scratch)
        return qkv_fail(err, "%.200s: out of memory", c->name);
    for (int i = 1; i < n; i++) {
        if (!(ds->col_tags[i] = malloc(((size_t)c->n_words + 1) * sizeof *ds->col_tags[i]))) {
            free(scratch);
            return qkv_fail(err, "%.200s: out of memory encoding %d words", c->name, c->n_words);
        }
        for (int w = 0; w < c->n_words; w++) {
            size_t len;
            const char *cls = qkv_corpus_value_missing(c, i, w) ? NULL : qkv_corpus_class(c, i, w, scratch, &len);
            ds->col_tags[i][w] = cls ? qkv_vocab_lookup(&fz->col_tags[i], cls, len) : QKV_TAG_NONE;
            ds->n_col_unknown[i] += ds->col_tags[i][w] == QKV_TAG_UNSEEN;
        }
    }
    free(scratch);
    return QKV_OK;
}

int qkv_dataset_form_chars(qkv_dataset *ds, const qkv_featurizer *fz, const qkv_corpus *c, qkv_error *err)
{
    bool lemma = false;
    for (int i = 0; i < qkv_featurizer_n_columns(fz); i++)
        lemma |= fz->columns[i] == QKV_TAG_LEMMA;
    if (!lemma)
        return QKV_OK;
    size_t longest = 0;
    for (int w = 0; w < c->n_words; w++)
        longest = c->forms[w].len > longest ? c->forms[w].len : longest;
    char *lower = malloc(QKV_UTF8_LOWER_ROOM(longest));
    if (!lower || !(ds->form_chars = malloc(((size_t)c->n_words + 1) * sizeof *ds->form_chars))) {
        free(lower);
        return qkv_fail(err, "%.200s: out of memory", c->name);
    }
    for (int w = 0; w < c->n_words; w++) {
        size_t len;
        const char *form = qkv_corpus_form(c, w, &len);
        size_t n = qkv_utf8_length(form, len), nl = qkv_utf8_length(lower, qkv_utf8_lower(form, len, lower));
        ds->form_chars[w] = (int32_t)(nl < n ? nl : n);
    }
    free(lower);
    return QKV_OK;
}
