/* A model's lemma lexicon: built, stored, loaded and looked up (lemma_lexicon.h). */
#include "api/lemma_lexicon.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "data/lemma_script.h"

/* The head of s's column col, or -1. */
static int column_head(const qkv_session *s, qkv_tag_field col)
{
    for (int h = 0; h < qkv_featurizer_n_columns(&s->fz); h++)
        if (s->fz.columns[h] == col)
            return h;
    return -1;
}

int qkv_session_lemma_lexicon_build(qkv_session *s, const qkv_corpus *c, qkv_error *err)
{
    qkv_lemma_lexicon_free(&s->lemma_lexicon);
    int min_count = s->cfg.data.lemma_lexicon_min_count;
    if (column_head(s, QKV_TAG_LEMMA) < 0 || min_count <= 0)
        return QKV_OK;
    return qkv_lemma_lexicon_build(&s->lemma_lexicon, c, column_head(s, QKV_TAG_UPOS) >= 0, min_count, err);
}

int qkv_lemma_lexicon_save(qkv_store_writer *w, const char *group, const qkv_session *s, qkv_error *err)
{
    const qkv_lemma_lexicon *lx = &s->lemma_lexicon;
    if (lx->n == 0)
        return QKV_OK;
    char path[128];
    snprintf(path, sizeof path, "%s/lemma_lexicon/keys", group);
    if (qkv_store_write_strings(w, path, lx->n, lx->keys, err))
        return QKV_ERR;
    snprintf(path, sizeof path, "%s/lemma_lexicon/scripts", group);
    return qkv_store_write_strings(w, path, lx->n, lx->scripts, err);
}

int qkv_lemma_lexicon_load(const qkv_store_reader *r, const char *where, const char *group, qkv_session *s,
                           qkv_error *err)
{
    char keys_path[128], scripts_path[128];
    snprintf(keys_path, sizeof keys_path, "%s/lemma_lexicon/keys", group);
    snprintf(scripts_path, sizeof scripts_path, "%s/lemma_lexicon/scripts", group);
    qkv_lemma_lexicon_free(&s->lemma_lexicon);
    if (!qkv_store_has(r, keys_path) && !qkv_store_has(r, scripts_path))
        return QKV_OK;
    char **keys = NULL, **scripts = NULL;
    size_t n_keys = 0, n_scripts = 0;
    int status = qkv_store_read_strings(r, keys_path, &n_keys, &keys, err);
    if (status == QKV_OK)
        status = qkv_store_read_strings(r, scripts_path, &n_scripts, &scripts, err);
    if (status == QKV_OK && n_keys != n_scripts)
        status = qkv_fail(err, "%zu keys but %zu scripts", n_keys, n_scripts);
    if (status == QKV_OK)
        status = qkv_lemma_lexicon_set(&s->lemma_lexicon, n_keys, (const char *const *)keys,
                                       (const char *const *)scripts, column_head(s, QKV_TAG_UPOS) >= 0, err);
    free(keys); /* one allocation each, see lib/io/store.h */
    free(scripts);
    if (status)
        qkv_fail_prefix(err, "%s: %s/lemma_lexicon", where, group);
    return status;
}

size_t qkv_session_lexicon_room(const qkv_session *s, size_t flen)
{
    return s->lemma_lexicon.n ? QKV_LEMMA_ROOM(flen, s->lemma_lexicon.max_script) : 1;
}

int qkv_session_lexicon_lemma(const qkv_session *s, const qkv_corpus *c, const int32_t *const *pred, int w,
                              char *out, bool *found, qkv_error *err)
{
    const qkv_lemma_lexicon *lx = &s->lemma_lexicon;
    *found = false;
    if (lx->n == 0)
        return QKV_OK;
    int hu = column_head(s, QKV_TAG_UPOS);
    const char *upos = hu >= 0 && pred[hu][w] >= 0 ? qkv_featurizer_class(&s->fz, hu, pred[hu][w]) : NULL;
    size_t flen;
    const char *form = qkv_corpus_form(c, w, &flen);
    return qkv_lemma_lexicon_lemma(lx, form, flen, upos, out, found, err);
}
