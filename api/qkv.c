/* The public C API (include/qkv/qkv.h) over the session, model file and prediction code that
 * the qkv command uses too. */
#include "qkv/qkv.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "api/model_file.h"
#include "api/predict.h"

struct qkv_model {
    qkv_session s;
    char *text;      /* the sentence as CoNLL-U, rebuilt by every qkv_model_tag */
    size_t cap;
};

/* Opening reads HDF5, which is safe from several threads only when built thread-safe (Debian's
 * is): models open one at a time whatever the build. */
static pthread_mutex_t open_lock = PTHREAD_MUTEX_INITIALIZER;

static void set_error(char **error, const char *msg)
{
    if (!error)
        return;
    *error = strdup(msg);
}

qkv_model *qkv_model_open(const char *path, char **error)
{
    if (!path) {
        set_error(error, "qkv_model_open: no path given");
        return NULL;
    }
    qkv_model *m = calloc(1, sizeof *m);
    if (!m) {
        set_error(error, "out of memory for a model");
        return NULL;
    }
    qkv_session_init(&m->s);
    qkv_error err;
    pthread_mutex_lock(&open_lock);
    int status = qkv_checkpoint_load_model(path, &m->s, &err);
    pthread_mutex_unlock(&open_lock);
    if (status) {
        set_error(error, err.msg);
        qkv_model_free(m);
        return NULL;
    }
    return m;
}

/* The words as a CoNLL-U sentence (ID, FORM, the other eight fields "_") in m->text; *len its
 * length. Errors: a word the format cannot hold. */
static int sentence_text(qkv_model *m, const char *const *words, int n_words, size_t *len, qkv_error *err)
{
    size_t need = 1;
    for (int i = 0; i < n_words; i++) {
        if (!words[i])
            return qkv_fail(err, "word %d: NULL", i + 1);
        size_t n = strlen(words[i]);
        char buf[160];
        const char *problem = qkv_text_line_problem(words[i], n, buf, sizeof buf);
        if (n == 0)
            return qkv_fail(err, "word %d: empty", i + 1);
        if (problem)
            return qkv_fail(err, "word %d: %s", i + 1, problem);
        if (strpbrk(words[i], "\t\r\n"))
            return qkv_fail(err, "word %d: contains a TAB or a line break", i + 1);
        need += n + 40;
    }
    if (need > m->cap) {
        char *t = realloc(m->text, need);
        if (!t)
            return qkv_fail(err, "out of memory for a sentence of %d words", n_words);
        m->text = t;
        m->cap = need;
    }
    size_t at = 0;
    for (int i = 0; i < n_words; i++)
        at += (size_t)snprintf(m->text + at, m->cap - at, "%d\t%s\t_\t_\t_\t_\t_\t_\t_\t_\n", i + 1, words[i]);
    *len = at;
    return QKV_OK;
}

int qkv_model_tag(qkv_model *m, const char *const *words, int n_words, const char **tags, char **error)
{
    qkv_error err;
    if (!m || n_words < 0 || (n_words > 0 && (!words || !tags))) {
        set_error(error, "qkv_model_tag: no model, a negative word count, or no words or tags array");
        return 1;
    }
    if (n_words == 0)
        return 0;
    size_t len = 0;
    qkv_corpus c;
    memset(&c, 0, sizeof c);
    qkv_read_opts opts = QKV_READ_DEFAULTS;
    opts.format = QKV_FORMAT_CONLLU;
    int status = sentence_text(m, words, n_words, &len, &err);
    if (status == QKV_OK)
        status = qkv_corpus_read_mem(&c, m->text, len, "sentence", &opts, &err);
    if (status == QKV_OK)
        status = qkv_session_tag(&m->s, &c, m->s.cfg.data.batch_tokens, tags, &err);
    qkv_corpus_free(&c);
    if (status)
        set_error(error, err.msg);
    return status ? 1 : 0;
}

int qkv_model_n_tags(const qkv_model *m) { return qkv_featurizer_n_tags(&m->s.fz); }

const char *qkv_model_tag_name(const qkv_model *m, int t)
{
    return t >= 0 && t < qkv_featurizer_n_tags(&m->s.fz) ? qkv_featurizer_tag(&m->s.fz, t) : NULL;
}

void qkv_model_free(qkv_model *m)
{
    if (!m)
        return;
    qkv_session_free(&m->s);
    free(m->text);
    free(m);
}
