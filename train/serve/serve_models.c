/* The pools of models of qkv serve (serve_models.h). */
#include "train/serve/serve_models.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static qkv_model *open_one(const serve_model *m, char **error)
{
    qkv_model *q = m->named ? qkv_model_open_named(m->source, error) : qkv_model_open(m->source, error);
    if (q && qkv_model_set_max_words(q, m->max_words, error)) {
        qkv_model_free(q);
        return NULL;
    }
    return q;
}

/* What m can do, asked of its instance q: a segmenter, and the columns one word gets. */
static int capabilities(serve_model *m, qkv_model *q, qkv_error *err)
{
    const char *word = "word", *const *sentence = &word;
    int n_words = 1;
    char *error = NULL;
    qkv_text *t = qkv_model_tag_words(q, &sentence, &n_words, 1, &error);
    if (!t) {
        qkv_fail(err, "%s: cannot tag a word with it (qkv serve serves models of words; image and frame models are "
                      "tagged with qkv tag): %s", m->source, error ? error : "no message");
        free(error);
        return QKV_ERR;
    }
    const qkv_word_fields *f = &t->fields[0];
    m->can_tokenize = qkv_model_has_segmenter(q);
    m->can_tag = f->lemma || f->upos || f->xpos || f->feats;
    m->can_parse = f->head >= 0;
    qkv_text_free(t);
    return QKV_OK;
}

/* Model m from spec: its source, id, first instance and what it can do. */
static int open_model(serve_model *m, const char *spec, int max_open, int max_words, qkv_error *err)
{
    m->max_words = max_words;
    size_t n = strlen(spec);
    m->named = !strchr(spec, '/') && !(n > 3 && !strcmp(spec + n - 3, ".h5"));
    snprintf(m->source, sizeof m->source, "%s", spec);
    const char *base = strrchr(spec, '/') ? strrchr(spec, '/') + 1 : spec;
    size_t bn = strlen(base);
    snprintf(m->id, sizeof m->id, "%.*s", (int)(bn > 3 && !strcmp(base + bn - 3, ".h5") ? bn - 3 : bn), base);
    pthread_mutex_init(&m->lock, NULL);
    pthread_cond_init(&m->freed, NULL);
    m->max_open = max_open > 0 ? max_open : 1;
    m->idle = calloc((size_t)m->max_open, sizeof *m->idle);
    if (!m->idle)
        return qkv_fail(err, "out of memory");
    char *error = NULL;
    qkv_model *q = open_one(m, &error);
    if (!q) {
        qkv_fail(err, "%s", error ? error : spec);
        free(error);
        return QKV_ERR;
    }
    m->idle[m->n_idle++] = q;
    m->n_open = 1;
    return capabilities(m, q, err);
}

int serve_models_open(serve_models *ms, char *const *specs, int n, int max_open, int max_words, qkv_error *err)
{
    static char *const EN[] = {"en"};
    if (n == 0)
        specs = EN, n = 1;
    ms->m = calloc((size_t)n, sizeof *ms->m);
    if (!ms->m)
        return qkv_fail(err, "out of memory");
    for (int i = 0; i < n; i++) {
        ms->n = i + 1;
        if (open_model(&ms->m[i], specs[i], max_open, max_words, err))
            return QKV_ERR;
        for (int j = 0; j < i; j++)
            if (!strcmp(ms->m[j].id, ms->m[i].id))
                return qkv_fail(err, "%s and %s are both the model '%s': serve one of them, or rename a file",
                                ms->m[j].source, ms->m[i].source, ms->m[i].id);
    }
    return QKV_OK;
}

void serve_models_free(serve_models *ms)
{
    for (int i = 0; i < ms->n; i++) {
        serve_model *m = &ms->m[i];
        for (int k = 0; k < m->n_idle; k++)
            qkv_model_free(m->idle[k]);
        free(m->idle);
        pthread_cond_destroy(&m->freed);
        pthread_mutex_destroy(&m->lock);
    }
    free(ms->m);
    memset(ms, 0, sizeof *ms);
}

serve_model *serve_models_find(const serve_models *ms, const char *name)
{
    if (!name || !*name)
        return &ms->m[0];
    size_t n = strlen(name);
    for (int i = 0; i < ms->n; i++)
        if (!strcmp(ms->m[i].id, name))
            return &ms->m[i];
    for (int i = 0; i < ms->n; i++)
        if (!strncmp(ms->m[i].id, name, n) && ms->m[i].id[n] == '-')
            return &ms->m[i];
    return NULL;
}

qkv_model *serve_model_acquire(serve_model *m, char **error)
{
    pthread_mutex_lock(&m->lock);
    while (m->n_idle == 0 && m->n_open >= m->max_open)
        pthread_cond_wait(&m->freed, &m->lock);
    if (m->n_idle > 0) {
        qkv_model *q = m->idle[--m->n_idle];
        pthread_mutex_unlock(&m->lock);
        return q;
    }
    m->n_open++; /* opened below, outside the lock */
    pthread_mutex_unlock(&m->lock);
    qkv_model *q = open_one(m, error);
    if (!q) {
        pthread_mutex_lock(&m->lock);
        m->n_open--;
        pthread_cond_signal(&m->freed);
        pthread_mutex_unlock(&m->lock);
    }
    return q;
}

void serve_model_release(serve_model *m, qkv_model *q)
{
    pthread_mutex_lock(&m->lock);
    m->idle[m->n_idle++] = q;
    pthread_cond_signal(&m->freed);
    pthread_mutex_unlock(&m->lock);
}

void serve_model_count(serve_model *m, long words)
{
    pthread_mutex_lock(&m->lock);
    m->words += (uint64_t)words;
    pthread_mutex_unlock(&m->lock);
}
