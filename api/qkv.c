/* The public C API (include/qkv/qkv.h) over the session, model file and prediction code that
 * the qkv command uses too. */
#include "qkv/qkv.h"

#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "api/model_file.h"
#include "api/model_find.h"
#include "api/predict.h"
#include "api/segmenter.h"
#include "api/task.h"
#include "api/text_builder.h"
#include "data/utf8.h"
#include "data/line_fields.h"

struct qkv_model {
    qkv_session s;
    qkv_tokenizer tk; /* the segmenter, when has_tk */
    bool has_tk;
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
    qkv_session_init(&m->tk.s);
    qkv_error err;
    pthread_mutex_lock(&open_lock);
    int status = qkv_checkpoint_load_model(path, &m->s, &err);
    if (status == QKV_OK && qkv_session_task(&m->s)->segments)
        status = qkv_fail(&err, "%s is a segmenter (data.task: segment): open a tagger and give the segmenter to "
                                "qkv_model_open_segmenter", path);
    if (status == QKV_OK && qkv_model_file_has(path, QKV_SEGMENTER_GROUP)) {
        status = qkv_tokenizer_load(&m->tk, path, QKV_SEGMENTER_GROUP, &err);
        m->has_tk = true;
    }
    pthread_mutex_unlock(&open_lock);
    if (status) {
        set_error(error, err.msg);
        qkv_model_free(m);
        return NULL;
    }
    return m;
}

qkv_model *qkv_model_open_named(const char *name, char **error)
{
    char path[4096];
    qkv_error err;
    if (qkv_model_find(name, path, sizeof path, &err)) {
        set_error(error, err.msg);
        return NULL;
    }
    return qkv_model_open(path, error);
}

/* The words as a CoNLL-U sentence (ID, FORM, the other eight fields "_") in m->text; *len its
 * length. Errors: a word the format cannot hold. */
static int append_sentence(qkv_model *m, const char *const *words, int n_words, size_t *len, qkv_error *err);
static int sentence_text(qkv_model *m, const char *const *words, int n_words, size_t *len, qkv_error *err)
{
    *len = 0;
    return append_sentence(m, words, n_words, len, err);
}

/* The words as a CoNLL-U sentence appended to m->text at *len (a blank line after it); *len
 * grows by its length. Errors: a word the format cannot hold. */
static int append_sentence(qkv_model *m, const char *const *words, int n_words, size_t *len, qkv_error *err)
{
    size_t need = *len + 2;
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
    size_t at = *len;
    for (int i = 0; i < n_words; i++)
        at += (size_t)snprintf(m->text + at, m->cap - at, "%d\t%s\t_\t_\t_\t_\t_\t_\t_\t_\n", i + 1, words[i]);
    at += (size_t)snprintf(m->text + at, m->cap - at, "\n");
    *len = at;
    return QKV_OK;
}

/* Sentence s (0-based) of n words against the model's bound (qkv_model_set_max_words), before
 * any memory is taken for it. */
static int check_words(const qkv_model *m, int s, int n, qkv_error *err)
{
    char subject[32];
    snprintf(subject, sizeof subject, "sentence %d:", s + 1);
    return qkv_session_check_sentence_words(&m->s, n, subject, "; qkv_model_set_max_words sets the bound", err);
}

int qkv_model_set_max_words(qkv_model *m, int max_words, char **error)
{
    if (!m || max_words < 1) {
        set_error(error, "qkv_model_set_max_words: no model, or a bound below 1 word");
        return 1;
    }
    m->s.max_words = max_words;
    return 0;
}

int qkv_model_max_words(const qkv_model *m) { return m ? qkv_session_max_words(&m->s) : 0; }

/* The n_words words of one sentence read into c as the CoNLL-U the model reads. */
static int read_sentence(qkv_model *m, const char *const *words, int n_words, qkv_corpus *c, qkv_error *err)
{
    size_t len = 0;
    memset(c, 0, sizeof *c);
    if (check_words(m, 0, n_words, err))
        return QKV_ERR;
    qkv_read_opts opts = QKV_READ_DEFAULTS;
    opts.format = QKV_FORMAT_CONLLU;
    if (sentence_text(m, words, n_words, &len, err))
        return QKV_ERR;
    return qkv_corpus_read_mem(c, m->text, len, "sentence", &opts, err);
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
    qkv_corpus c;
    int status = read_sentence(m, words, n_words, &c, &err);
    if (status == QKV_OK)
        status = qkv_session_tag(&m->s, &c, m->s.cfg.data.batch_tokens, tags, &err);
    qkv_warnings_free(&m->s.warnings); /* the API has no warnings: the call's tags stand */
    qkv_corpus_free(&c);
    if (status)
        set_error(error, err.msg);
    return status ? 1 : 0;
}

int qkv_model_parse(qkv_model *m, const char *const *words, int n_words, const char **labels, int *heads,
                    char **error)
{
    qkv_error err;
    if (!m || n_words < 0 || (n_words > 0 && (!words || !labels || !heads))) {
        set_error(error, "qkv_model_parse: no model, a negative word count, or no words, labels or heads array");
        return 1;
    }
    if (!qkv_network_parses(&m->s.model)) {
        set_error(error, "qkv_model_parse: the model is not a parser (model.output: biaffine)");
        return 1;
    }
    if (n_words == 0)
        return 0;
    qkv_corpus c;
    int32_t *h = malloc((size_t)n_words * sizeof *h);
    int status = h ? read_sentence(m, words, n_words, &c, &err) : qkv_fail(&err, "out of memory");
    if (status == QKV_OK)
        status = qkv_session_parse(&m->s, &c, m->s.cfg.data.batch_tokens, labels, h, &err);
    for (int i = 0; status == QKV_OK && i < n_words; i++)
        heads[i] = (int)h[i];
    qkv_warnings_free(&m->s.warnings);
    if (h)
        qkv_corpus_free(&c);
    free(h);
    if (status)
        set_error(error, err.msg);
    return status ? 1 : 0;
}

int qkv_model_tag_sentences(qkv_model *m, const char *const *const *sentences, const int *n_words, int n_sentences,
                            const char **tags, char **error)
{
    if (!m || n_sentences < 0 || (n_sentences > 0 && (!sentences || !n_words || !tags))) {
        set_error(error, "qkv_model_tag_sentences: no model, a negative sentence count, or no sentences, word "
                         "counts or tags array");
        return 1;
    }
    qkv_error err;
    size_t len = 0;
    int status = QKV_OK, total = 0;
    for (int s = 0; s < n_sentences && status == QKV_OK; s++) {
        if (n_words[s] < 0 || (n_words[s] > 0 && !sentences[s]))
            status = qkv_fail(&err, "sentence %d: a negative word count or no words", s + 1);
        else if (check_words(m, s, n_words[s], &err))
            status = QKV_ERR;
        else if (append_sentence(m, sentences[s], n_words[s], &len, &err))
            status = qkv_fail_prefix(&err, "sentence %d", s + 1);
        total += n_words[s] > 0 ? n_words[s] : 0;
    }
    qkv_corpus c;
    memset(&c, 0, sizeof c);
    qkv_read_opts opts = QKV_READ_DEFAULTS;
    opts.format = QKV_FORMAT_CONLLU;
    if (status == QKV_OK && total > 0)
        status = qkv_corpus_read_mem(&c, m->text, len, "sentences", &opts, &err);
    if (status == QKV_OK && c.n_words != total)
        status = qkv_fail(&err, "qkv_model_tag_sentences: %d words read back, %d given", c.n_words, total);
    if (status == QKV_OK && total > 0)
        status = qkv_session_tag(&m->s, &c, m->s.cfg.data.batch_tokens, tags, &err);
    qkv_warnings_free(&m->s.warnings);
    qkv_corpus_free(&c);
    if (status)
        set_error(error, err.msg);
    return status ? 1 : 0;
}

int qkv_model_tag_probs(qkv_model *m, const char *const *words, int n_words, int k, const char **tags, float *probs,
                        char **error)
{
    qkv_error err;
    if (!m || n_words < 0 || (n_words > 0 && (!words || !tags || !probs))) {
        set_error(error, "qkv_model_tag_probs: no model, a negative word count, or no words, tags or probs array");
        return 1;
    }
    if (n_words == 0)
        return 0;
    qkv_corpus c;
    memset(&c, 0, sizeof c);
    int32_t *ids = malloc((size_t)n_words * (size_t)(k > 0 ? k : 1) * sizeof *ids);
    int status = ids ? read_sentence(m, words, n_words, &c, &err) : qkv_fail(&err, "out of memory");
    if (status == QKV_OK)
        status = qkv_session_tag_probs(&m->s, &c, m->s.cfg.data.batch_tokens, k, ids, probs, &err);
    for (size_t i = 0; status == QKV_OK && i < (size_t)n_words * (size_t)k; i++)
        tags[i] = qkv_featurizer_tag(&m->s.fz, ids[i]);
    free(ids);
    qkv_corpus_free(&c);
    if (status)
        set_error(error, err.msg);
    return status ? 1 : 0;
}

int qkv_model_n_tags(const qkv_model *m) { return m ? qkv_featurizer_n_tags(&m->s.fz) : 0; }

const char *qkv_model_tag_name(const qkv_model *m, int t)
{
    return m && t >= 0 && t < qkv_featurizer_n_tags(&m->s.fz) ? qkv_featurizer_tag(&m->s.fz, t) : NULL;
}

void qkv_model_free(qkv_model *m)
{
    if (!m)
        return;
    qkv_session_free(&m->s);
    qkv_tokenizer_free(&m->tk);
    free(m->text);
    free(m);
}

int qkv_model_open_segmenter(qkv_model *m, const char *path, char **error)
{
    if (!m || !path) {
        set_error(error, "qkv_model_open_segmenter: no model or no path given");
        return 1;
    }
    qkv_tokenizer tk;
    qkv_error err;
    pthread_mutex_lock(&open_lock);
    int status = qkv_tokenizer_load(&tk, path, NULL, &err);
    pthread_mutex_unlock(&open_lock);
    if (status) {
        set_error(error, err.msg);
        qkv_tokenizer_free(&tk);
        return 1;
    }
    qkv_tokenizer_free(&m->tk);
    m->tk = tk;
    m->has_tk = true;
    return 0;
}

int qkv_model_has_segmenter(const qkv_model *m) { return m && m->has_tk; }

/* qkv_model_tag_text (tag) and qkv_model_segment_text (!tag); fn names the function in errors. */
static qkv_text *text_of(qkv_model *m, const char *text, size_t len, bool tag, const char *fn, char **error)
{
    char msg[256];
    if (!m || (!text && len > 0)) {
        snprintf(msg, sizeof msg, "%s: no model or no text", fn);
        set_error(error, msg);
        return NULL;
    }
    if (!m->has_tk) {
        snprintf(msg, sizeof msg, "%s: the model has no segmenter: export it with qkv export --tokenizer SEG.h5, or "
                                  "give one to qkv_model_open_segmenter", fn);
        set_error(error, msg);
        return NULL;
    }
    text_builder b;
    memset(&b, 0, sizeof b);
    b.has_paragraphs = true;
    qkv_error err;
    int status = QKV_OK;
    if (len > 0) {
        FILE *in = fmemopen((void *)text, len, "r");
        if (!in)
            status = qkv_fail(&err, "out of memory for the text");
        else {
            status = (tag ? qkv_tag_raw_paragraphs : qkv_segment_raw_paragraphs)(&m->s, &m->tk, in, "text",
                                                                               qkv_text_builder_paragraph, &b, &err);
            fclose(in);
        }
    }
    qkv_text *t = status == QKV_OK ? qkv_text_builder_finish(&b) : NULL;
    if (status == QKV_OK && !t)
        qkv_fail(&err, "out of memory for the result");
    if (!t)
        set_error(error, err.msg);
    qkv_text_builder_free(&b);
    return t;
}

qkv_text *qkv_model_tag_text(qkv_model *m, const char *text, size_t len, char **error)
{
    return text_of(m, text, len, true, "qkv_model_tag_text", error);
}

qkv_text *qkv_model_segment_text(qkv_model *m, const char *text, size_t len, char **error)
{
    return text_of(m, text, len, false, "qkv_model_segment_text", error);
}

void qkv_text_free(qkv_text *t) { free(t); }

/* The sentences as one CoNLL-U corpus *c, read as the model reads its data (qkv tag's input). */
static int read_sentences(qkv_model *m, const char *const *const *sentences, const int *n_words, int n_sentences,
                          qkv_corpus *c, qkv_error *err)
{
    size_t len = 0;
    memset(c, 0, sizeof *c);
    for (int s = 0; s < n_sentences; s++) {
        if (n_words[s] < 0 || (n_words[s] > 0 && !sentences[s]))
            return qkv_fail(err, "sentence %d: a negative word count or no words", s + 1);
        if (check_words(m, s, n_words[s], err))
            return QKV_ERR;
        if (n_words[s] > 0 && append_sentence(m, sentences[s], n_words[s], &len, err))
            return qkv_fail_prefix(err, "sentence %d", s + 1);
    }
    qkv_read_opts opts = m->s.cfg.data.read;
    opts.format = QKV_FORMAT_CONLLU;
    return len ? qkv_corpus_read_mem(c, m->text, len, "sentences", &opts, err) : QKV_OK;
}

qkv_text *qkv_model_tag_words(qkv_model *m, const char *const *const *sentences, const int *n_words, int n_sentences,
                              char **error)
{
    if (!m || n_sentences < 0 || (n_sentences > 0 && (!sentences || !n_words))) {
        set_error(error, "qkv_model_tag_words: no model, a negative sentence count, or no sentences or word counts");
        return NULL;
    }
    text_builder b;
    memset(&b, 0, sizeof b);
    qkv_error err;
    qkv_corpus c;
    qkv_tagged t = {0};
    const char **tags = NULL;
    char *tags_buf = NULL;
    bool columns = qkv_session_predicts_columns(&m->s);
    int status = read_sentences(m, sentences, n_words, n_sentences, &c, &err);
    if (status == QKV_OK && c.n_words > 0)
        status = columns ? qkv_session_tag_fields(&m->s, &c, m->s.cfg.data.batch_tokens, &t, &err)
                         : qkv_tag_corpus(&m->s, &c, &tags, &tags_buf, &err);
    qkv_warnings_free(&m->s.warnings);
    if (status == QKV_OK && c.n_words > 0) {
        qkv_tagged_paragraph p = {NULL, NULL, &c, columns ? t.values[m->s.fz.columns[0]] : tags,
                                  columns ? (const char *const *const *)t.values : NULL, t.arcs};
        status = qkv_text_builder_words(&b, sentences, n_words, n_sentences, &p, &err);
    }
    qkv_text *out = status == QKV_OK ? qkv_text_builder_finish(&b) : NULL;
    if (status == QKV_OK && !out)
        qkv_fail(&err, "out of memory for the result");
    if (!out)
        set_error(error, err.msg);
    qkv_tagged_free(&t);
    free(tags);
    free(tags_buf);
    qkv_corpus_free(&c);
    qkv_text_builder_free(&b);
    return out;
}
