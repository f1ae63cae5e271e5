/* /process of qkv serve apart from HTTP (serve_process.h). */
#include "train/serve/serve_process.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "data/corpus.h"

#define FAIL(status, ...) (snprintf(msg, msg_len, __VA_ARGS__), (status))

/* 400 when data holds a run of non-blank bytes longer than SERVE_MAX_TOKEN_BYTES. */
static int check_tokens(const char *data, size_t len, char *msg, size_t msg_len)
{
    size_t run = 0;
    long line = 1;
    for (size_t i = 0; i < len; i++) {
        char c = data[i];
        line += c == '\n';
        run = c == ' ' || c == '\t' || c == '\n' || c == '\r' ? 0 : run + 1;
        if (run > SERVE_MAX_TOKEN_BYTES)
            return FAIL(400, "line %ld: a token longer than %d bytes: the server takes no longer ones", line,
                        SERVE_MAX_TOKEN_BYTES);
    }
    return 0;
}

static void word_line(qkv_buf *b, int id, const char *form, size_t n, const char *misc)
{
    qkv_buf_addf(b, "%d\t", id);
    qkv_buf_add(b, form, n);
    qkv_buf_addf(b, "\t_\t_\t_\t_\t_\t_\t_\t%s\n", misc);
}

/* Horizontal or vertical input as CoNLL-U (ID and FORM, "_" elsewhere). */
static void pretokenized_conllu(const serve_job *job, qkv_buf *b)
{
    int id = 0;
    for (size_t at = 0; at < job->len;) {
        const char *s = job->data + at, *nl = memchr(s, '\n', job->len - at);
        size_t n = nl ? (size_t)(nl - s) : job->len - at;
        at += n + (nl != NULL);
        if (n && s[n - 1] == '\r')
            n--;
        if (job->input == SERVE_INPUT_VERTICAL) {
            const char *tab = memchr(s, '\t', n);
            size_t f = tab ? (size_t)(tab - s) : n;
            while (f && s[f - 1] == ' ')
                f--;
            if (f == 0 && id > 0) /* a blank line ends the sentence */
                qkv_buf_add(b, "\n", 1), id = 0;
            else if (f > 0)
                word_line(b, ++id, s, f, "_");
            continue;
        }
        for (size_t i = 0; i < n;) { /* horizontal: tokens between spaces; U+00A0 is a space inside one */
            while (i < n && (s[i] == ' ' || s[i] == '\t'))
                i++;
            size_t start = i;
            while (i < n && s[i] != ' ' && s[i] != '\t')
                i++;
            if (i == start)
                continue;
            qkv_buf_addf(b, "%d\t", ++id);
            for (size_t k = start; k < i; k++)
                if (k + 1 < i && (unsigned char)s[k] == 0xC2 && (unsigned char)s[k + 1] == 0xA0)
                    qkv_buf_add(b, " ", 1), k++;
                else
                    qkv_buf_add(b, s + k, 1);
            qkv_buf_adds(b, "\t_\t_\t_\t_\t_\t_\t_\t_\n");
        }
        if (id > 0)
            qkv_buf_add(b, "\n", 1), id = 0;
    }
    if (id > 0)
        qkv_buf_add(b, "\n", 1);
}

/* A segmented text as the CoNLL-U qkv tag writes for raw text: "# sent_id", "# text",
 * multiword tokens, SpaceAfter=No; every column "_". */
static void segmented_conllu(const qkv_text *t, qkv_buf *b)
{
    for (int s = 0; s < t->n_sentences; s++) {
        const qkv_sentence *q = &t->sentences[s];
        qkv_buf_addf(b, "# sent_id = %d\n# text = %s\n", s + 1, q->text);
        for (int k = q->token; k < q->token + q->n_tokens; k++) {
            const qkv_token *tok = &t->tokens[k];
            const char *misc = tok->space_after ? "_" : "SpaceAfter=No";
            int first = tok->word - q->word + 1;
            if (tok->n_words > 1)
                qkv_buf_addf(b, "%d-%d\t%s\t_\t_\t_\t_\t_\t_\t_\t%s\n", first, first + tok->n_words - 1, tok->form,
                             misc);
            for (int w = tok->word; w < tok->word + tok->n_words; w++)
                word_line(b, w - q->word + 1, t->words[w].form, strlen(t->words[w].form),
                          tok->n_words > 1 ? "_" : misc);
        }
        qkv_buf_add(b, "\n", 1);
    }
}

/* The words of c's sentences as the C library takes them (NUL-terminated copies in *chars). */
static int corpus_words(const qkv_corpus *c, const char ****sents, int **n_words, char **chars)
{
    size_t total = 0;
    for (int w = 0; w < c->n_words; w++)
        total += c->forms[w].len + 1;
    *sents = calloc((size_t)c->n_sent + 1, sizeof **sents);
    *n_words = calloc((size_t)c->n_sent + 1, sizeof **n_words);
    const char **ptrs = malloc(((size_t)c->n_words + 1) * sizeof *ptrs);
    *chars = malloc(total + 1);
    if (!*sents || !*n_words || !ptrs || !*chars) {
        free(ptrs);
        return -1;
    }
    char *at = *chars;
    for (int w = 0; w < c->n_words; w++) {
        size_t n;
        const char *f = qkv_corpus_form(c, w, &n);
        memcpy(at, f, n);
        at[n] = '\0';
        ptrs[w] = at;
        at += n + 1;
    }
    for (int s = 0; s < c->n_sent; s++) {
        (*sents)[s] = ptrs + c->sent_start[s];
        (*n_words)[s] = qkv_corpus_sent_len(c, s);
    }
    (*sents)[c->n_sent] = ptrs; /* kept for freeing */
    return 0;
}

/* c's words tagged through an instance of m into *t. */
static int tag_words(serve_model *m, const qkv_corpus *c, qkv_text **t, char *msg, size_t msg_len)
{
    const char ***sents = NULL;
    int *n_words = NULL;
    char *chars = NULL, *error = NULL;
    int status = 0;
    if (corpus_words(c, &sents, &n_words, &chars))
        status = FAIL(500, "out of memory");
    qkv_model *q = status ? NULL : serve_model_acquire(m, &error);
    if (q) {
        *t = qkv_model_tag_words(q, (const char *const *const *)sents, n_words, c->n_sent, &error);
        serve_model_release(m, q);
    }
    if (!status && !*t)
        status = FAIL(400, "%s", error ? error : "the model failed");
    free(error);
    if (sents)
        free((void *)sents[c->n_sent]);
    free(sents);
    free(n_words);
    free(chars);
    return status;
}

/* c written into out with the columns of t the job asks for (t NULL: as read). */
static int write_columns(const qkv_corpus *c, const qkv_text *t, const serve_job *job, qkv_buf *out, char *msg,
                         size_t msg_len)
{
    const char **vals[QKV_TAG_FIELD_COUNT] = {0};
    int32_t *heads = NULL;
    int status = 0;
    size_t n = (size_t)c->n_words + 1;
    if (t && job->tag)
        for (int k = 0; k < QKV_TAG_FIELD_COUNT; k++)
            if (k != QKV_TAG_DEPREL && !(vals[k] = calloc(n, sizeof **vals)))
                status = FAIL(500, "out of memory");
    if (t && job->parse && (!(vals[QKV_TAG_DEPREL] = calloc(n, sizeof **vals)) || !(heads = malloc(n * sizeof *heads))))
        status = FAIL(500, "out of memory");
    for (int w = 0; t && !status && w < c->n_words; w++) {
        const qkv_word_fields *f = &t->fields[w];
        if (job->tag) {
            vals[QKV_TAG_LEMMA][w] = f->lemma, vals[QKV_TAG_UPOS][w] = f->upos;
            vals[QKV_TAG_XPOS][w] = f->xpos, vals[QKV_TAG_FEATS][w] = f->feats;
        }
        if (job->parse)
            vals[QKV_TAG_DEPREL][w] = f->deprel, heads[w] = f->head;
    }
    char *text = NULL;
    size_t len = 0;
    FILE *mem = status ? NULL : open_memstream(&text, &len);
    qkv_error err;
    if (!status && !mem)
        status = FAIL(500, "out of memory");
    else if (!status && qkv_corpus_write_fields_parsed(c, mem, (const char *const *const *)vals, heads, &err))
        status = FAIL(500, "writing the result: %s", err.msg);
    if (mem && fclose(mem) && !status)
        status = FAIL(500, "out of memory");
    if (!status)
        qkv_buf_add(out, text, len);
    free(text);
    for (int k = 0; k < QKV_TAG_FIELD_COUNT; k++)
        free(vals[k]);
    free(heads);
    return status;
}

/* Raw text segmented (and tagged) through an instance of m into *t, and as CoNLL-U into skel. */
static int segment(serve_model *m, const serve_job *job, qkv_text **t, qkv_buf *skel, char *msg, size_t msg_len)
{
    char *error = NULL;
    qkv_model *q = serve_model_acquire(m, &error);
    if (q) {
        *t = qkv_model_tag_text(q, job->data, job->len, &error);
        serve_model_release(m, q);
    }
    int status = *t ? 0 : FAIL(400, "%s", error ? error : "the segmenter failed");
    free(error);
    if (*t)
        segmented_conllu(*t, skel);
    return status;
}

/* 400 when a sentence of c has more than max words. */
static int check_lengths(const qkv_corpus *c, int max, char *msg, size_t msg_len)
{
    for (int s = 0; s < c->n_sent; s++)
        if (qkv_corpus_sent_len(c, s) > max)
            return FAIL(400, "sentence %d (line %d) has %d words, more than the server takes (--max-words %d)",
                        s + 1, (int)c->sent_line[s], qkv_corpus_sent_len(c, s), max);
    return 0;
}

int serve_process(serve_model *m, const serve_job *job, qkv_buf *out, long *n_words, char *msg, size_t msg_len)
{
    qkv_buf skel = {0};
    qkv_text *t = NULL;
    qkv_corpus c;
    memset(&c, 0, sizeof c);
    int status = check_tokens(job->data, job->len, msg, msg_len);
    if (!status && job->tokenize)
        status = segment(m, job, &t, &skel, msg, msg_len);
    else if (!status && job->input != SERVE_INPUT_CONLLU)
        pretokenized_conllu(job, &skel);
    if (!status && skel.failed)
        status = FAIL(500, "out of memory");
    const char *text = job->tokenize || job->input != SERVE_INPUT_CONLLU ? skel.data : job->data;
    size_t len = job->tokenize || job->input != SERVE_INPUT_CONLLU ? skel.len : job->len;
    qkv_read_opts opts = QKV_READ_DEFAULTS;
    opts.format = QKV_FORMAT_CONLLU;
    qkv_error err;
    if (!status && qkv_corpus_read_mem(&c, text ? text : "", len, "data", &opts, &err))
        status = FAIL(400, "cannot read the input as %s: %s",
                      job->input == SERVE_INPUT_CONLLU ? "CoNLL-U" : "words", err.msg);
    if (!status && !job->tokenize)
        status = check_lengths(&c, job->max_words, msg, msg_len);
    if (!status && !job->tokenize && (job->tag || job->parse) && c.n_words > 0)
        status = tag_words(m, &c, &t, msg, msg_len);
    if (!status && t && t->n_words != c.n_words)
        status = FAIL(500, "%d words read, %d tagged", c.n_words, t->n_words);
    if (!status)
        status = write_columns(&c, job->tag || job->parse ? t : NULL, job, out, msg, msg_len);
    if (!status) {
        *n_words = c.n_words;
        serve_model_count(m, c.n_words);
    }
    qkv_corpus_free(&c);
    qkv_text_free(t);
    qkv_buf_free(&skel);
    return status;
}
