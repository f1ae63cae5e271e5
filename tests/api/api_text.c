/* For tests/api/test_text.sh: raw text through the C library's segmenter.
 *
 *     api_text MODEL SEGMENTER|- TEXT.txt
 *     api_text --words MODEL SENTS.tsv
 *     api_text --errors TAGGER SEGMENTER BAD.txt
 *
 * The first form opens MODEL (name:NAME: the shipped model NAME, qkv_model_open_named; with SEGMENTER through qkv_model_open_segmenter; "-": the one
 * MODEL bundles), tags TEXT.txt with qkv_model_tag_text twice, all of it in one call and then
 * each paragraph (split at empty lines) in a call of its own, checks that both give the same,
 * and writes the result as the CoNLL-U `qkv tag --format text --tokenizer` writes (sent_id,
 * text, multiword-token lines, every column of each word's qkv_word_fields: LEMMA, UPOS,
 * XPOS, FEATS, HEAD, DEPREL; each token's MISC, "# newpar"), built from the qkv_text fields alone. The second
 * form tags the sentences of SENTS.tsv (a sentence a line, words separated by TABs) with
 * qkv_model_tag_words and writes the result the same way. The third form checks the errors of bad inputs. Exits 0; on a failure prints
 * "FAIL: ..." on stderr and exits 1. */
#define _POSIX_C_SOURCE 200809L
#include <qkv/qkv.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "api_check.h"

static char *read_file(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    char *buf = NULL;
    size_t cap = 0;
    *len = 0;
    for (;;) {
        if (*len + 4096 > cap) {
            cap = cap ? 2 * cap : 8192;
            buf = realloc(buf, cap);
        }
        size_t got = fread(buf + *len, 1, cap - *len, f);
        *len += got;
        if (got == 0)
            break;
    }
    fclose(f);
    return buf;
}

static const char *or_none(const char *v) { return v ? v : "_"; }

/* Word w of t as a CoNLL-U line numbered id, with misc. */
static void write_word(FILE *out, const qkv_text *t, int w, int id, const char *misc)
{
    const qkv_word_fields *f = &t->fields[w];
    char head[16] = "_";
    if (f->head >= 0)
        snprintf(head, sizeof head, "%d", f->head);
    fprintf(out, "%d\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t_\t%s\n", id, t->words[w].form, or_none(f->lemma),
            or_none(f->upos), or_none(f->xpos), or_none(f->feats), head, or_none(f->deprel), misc);
}

/* The text as CoNLL-U, sentences numbered on from *sent_id. */
static void write_conllu(FILE *out, const qkv_text *t, long *sent_id)
{
    for (int s = 0; s < t->n_sentences; s++) {
        const qkv_sentence *q = &t->sentences[s];
        if (t->paragraph && (s == 0 || t->paragraph[s] != t->paragraph[s - 1]))
            fputs("# newpar\n", out);
        fprintf(out, "# sent_id = %ld\n# text = %s\n", ++*sent_id, q->text);
        int id = 1;
        for (int k = q->token; k < q->token + q->n_tokens; k++) {
            const qkv_token *tok = &t->tokens[k];
            const char *misc = t->misc[k];
            CHECK(!strcmp(misc, "SpaceAfter=No") == !tok->space_after, "token %d: misc %s, space_after %d", k, misc,
                  tok->space_after);
            if (tok->n_words > 1)
                fprintf(out, "%d-%d\t%s\t_\t_\t_\t_\t_\t_\t_\t%s\n", id, id + tok->n_words - 1, tok->form, misc);
            for (int w = tok->word; w < tok->word + tok->n_words; w++)
                write_word(out, t, w, id++, tok->n_words > 1 ? "_" : misc);
        }
        fputc('\n', out);
    }
}

/* Word w's tag is one of its fields (the model's first column), its head (if any) a word of
 * its sentence of n words or 0. */
static void check_word(const qkv_text *t, int w, int n)
{
    const qkv_word_fields *f = &t->fields[w];
    const char *tag = t->words[w].tag, *cols[] = {f->lemma, f->upos, f->xpos, f->feats, f->deprel};
    int found = 0;
    for (int k = 0; k < 5; k++)
        found |= tag && cols[k] && !strcmp(tag, cols[k]);
    CHECK(found, "word %d: its tag \"%s\" is none of its fields", w, tag ? tag : "(NULL)");
    CHECK(f->head >= -1 && f->head <= n, "word %d: head %d out of range", w, f->head);
    CHECK((f->head >= 0) == (f->deprel != NULL), "word %d: a head without a label or a label without one", w);
}

/* The result's indices: sentences cover the tokens and words in order, tokens their words. */
static void check_shape(const qkv_text *t)
{
    int tok = 0, word = 0;
    for (int s = 0; s < t->n_sentences; s++) {
        const qkv_sentence *q = &t->sentences[s];
        CHECK(q->token == tok && q->word == word && q->n_tokens > 0, "sentence %d does not follow on", s);
        for (int k = q->token; k < q->token + q->n_tokens; k++) {
            CHECK(t->tokens[k].word == word && t->tokens[k].n_words >= 1, "token %d does not follow on", k);
            word += t->tokens[k].n_words;
        }
        tok += q->n_tokens;
        CHECK(word - q->word == q->n_words, "sentence %d: n_words", s);
        for (int w = q->word; w < q->word + q->n_words; w++)
            check_word(t, w, q->n_words);
    }
    CHECK(tok == t->n_tokens && word == t->n_words, "the sentences do not cover every token and word");
}

static int tag_file(const char *model_path, const char *seg_path, const char *text_path)
{
    char *error = NULL;
    /* name:NAME opens a shipped model by its name */
    qkv_model *m = strncmp(model_path, "name:", 5) ? qkv_model_open(model_path, &error)
                                                   : qkv_model_open_named(model_path + 5, &error);
    if (!m) {
        fprintf(stderr, "FAIL: %s\n", error);
        return 1;
    }
    if (strcmp(seg_path, "-") && qkv_model_open_segmenter(m, seg_path, &error)) {
        fprintf(stderr, "FAIL: %s\n", error);
        return 1;
    }
    CHECK(qkv_model_has_segmenter(m), "no segmenter");
    size_t len;
    char *text = read_file(text_path, &len);
    if (!text) {
        fprintf(stderr, "FAIL: cannot read %s\n", text_path);
        return 1;
    }
    qkv_text *all = qkv_model_tag_text(m, text, len, &error);
    if (!all) {
        fprintf(stderr, "FAIL: %s\n", error);
        return 1;
    }
    check_shape(all);
    long sent_id = 0;
    write_conllu(stdout, all, &sent_id);
    /* paragraph by paragraph, without reloading: the same sentences */
    char *whole = NULL, *parts = NULL;
    size_t whole_len = 0, parts_len = 0;
    FILE *a = open_memstream(&whole, &whole_len), *b = open_memstream(&parts, &parts_len);
    long id_a = 0, id_b = 0;
    write_conllu(a, all, &id_a);
    int n_calls = 0;
    for (size_t at = 0; at < len;) {
        const char *end = strstr(text + at, "\n\n");
        size_t n = end ? (size_t)(end - (text + at)) + 1 : len - at;
        qkv_text *one = qkv_model_tag_text(m, text + at, n, &error);
        CHECK(one != NULL, "paragraph at byte %zu: %s", at, one ? "" : error);
        if (one)
            write_conllu(b, one, &id_b);
        qkv_text_free(one);
        n_calls++;
        at += n + (end ? 1 : 0);
    }
    fclose(a);
    fclose(b);
    CHECK(n_calls > 1, "expected several paragraphs, got %d", n_calls);
    CHECK(whole_len == parts_len && !memcmp(whole, parts, whole_len),
          "tagging paragraph by paragraph differs from tagging the whole text");
    /* segmented only: the same sentences, tokens and words, no columns */
    qkv_text *seg = qkv_model_segment_text(m, text, len, &error);
    CHECK(seg != NULL, "qkv_model_segment_text: %s", seg ? "" : error);
    if (seg) {
        CHECK(seg->n_sentences == all->n_sentences && seg->n_tokens == all->n_tokens && seg->n_words == all->n_words,
              "qkv_model_segment_text: %d sentences, %d tokens, %d words; tagged %d, %d, %d", seg->n_sentences,
              seg->n_tokens, seg->n_words, all->n_sentences, all->n_tokens, all->n_words);
        for (int s = 0; s < seg->n_sentences && s < all->n_sentences; s++)
            CHECK(!strcmp(seg->sentences[s].text, all->sentences[s].text) &&
                  seg->sentences[s].n_words == all->sentences[s].n_words, "segmented sentence %d differs", s + 1);
        for (int t = 0; t < seg->n_tokens && t < all->n_tokens; t++)
            CHECK(!strcmp(seg->tokens[t].form, all->tokens[t].form) &&
                  seg->tokens[t].space_after == all->tokens[t].space_after, "segmented token %d differs", t + 1);
        for (int w = 0; w < seg->n_words && w < all->n_words; w++)
            CHECK(!strcmp(seg->words[w].form, all->words[w].form) && !seg->words[w].tag && !seg->fields[w].upos &&
                  !seg->fields[w].lemma && !seg->fields[w].deprel && seg->fields[w].head == -1,
                  "segmented word %d: another form, or a column", w + 1);
    }
    qkv_text_free(seg);
    qkv_text *empty = qkv_model_tag_text(m, "", 0, &error);
    CHECK(empty && empty->n_sentences == 0 && empty->n_words == 0, "empty text");
    qkv_text_free(empty);
    fprintf(stderr, "%d sentences, %d tokens, %d words; %d paragraph calls\n", all->n_sentences, all->n_tokens,
            all->n_words, n_calls);
    qkv_text_free(all);
    qkv_model_free(m);
    free(whole);
    free(parts);
    free(text);
    return failures ? 1 : 0;
}

/* A call failed (failed) with *error holding expected; the message is freed. */
static void expect_error(int failed, char **error, const char *expected, const char *what)
{
    CHECK(failed, "%s: no error", what);
    CHECK(*error && strstr(*error, expected), "%s: expected \"%s\", got \"%s\"", what, expected,
          *error ? *error : "(none)");
    free(*error);
    *error = NULL;
}

/* expect_error of a call (an expression: non-zero when it failed), made before the message is read. */
#define EXPECT_ERROR(failed_call, expected, what)                                                                   \
    do {                                                                                                             \
        int failed_ = (failed_call);                                                                                 \
        expect_error(failed_, &error, expected, what);                                                               \
    } while (0)

static int check_errors(const char *tagger, const char *seg, const char *bad_path)
{
    char *error = NULL;
    qkv_model *m;
    EXPECT_ERROR((m = qkv_model_open(seg, &error)) == NULL, "is a segmenter", "a segmenter opened as the tagger");
    m = qkv_model_open(tagger, &error);
    if (!m) {
        fprintf(stderr, "FAIL: %s\n", error);
        return 1;
    }
    EXPECT_ERROR(qkv_model_tag_text(m, "Some text.", 10, &error) == NULL, "no segmenter",
                 "raw text without a segmenter");
    EXPECT_ERROR(qkv_model_open_segmenter(m, tagger, &error) != 0, "not a segmenter",
                 "a tagger given as the segmenter");
    CHECK(!qkv_model_has_segmenter(m), "a refused segmenter was kept");
    EXPECT_ERROR(qkv_model_open_segmenter(m, bad_path, &error) != 0, bad_path, "a text file as segmenter");
    if (qkv_model_open_segmenter(m, seg, &error)) {
        fprintf(stderr, "FAIL: %s\n", error);
        return 1;
    }
    size_t len;
    char *bad = read_file(bad_path, &len);
    EXPECT_ERROR(qkv_model_tag_text(m, bad, len, &error) == NULL, "text:4: invalid UTF-8 at byte 5 of the line",
                 "invalid UTF-8");
    EXPECT_ERROR(qkv_model_tag_text(m, "a\0b", 3, &error) == NULL, "text:1: ", "a NUL byte");
    EXPECT_ERROR(qkv_model_tag_text(NULL, "a", 1, &error) == NULL, "no model", "no model");
    /* the model still works after the errors */
    qkv_text *t = qkv_model_tag_text(m, "It works.", 9, &error);
    CHECK(t && t->n_words > 0, "tagging after errors: %s", t ? "no words" : error);
    qkv_text_free(t);
    qkv_model_free(m);
    free(bad);
    return failures ? 1 : 0;
}

/* --words: the sentences of path (a line each, words separated by TABs) through qkv_model_tag_words. */
static int tag_words(const char *model_path, const char *path)
{
    char *error = NULL;
    qkv_model *m = strncmp(model_path, "name:", 5) ? qkv_model_open(model_path, &error)
                                                   : qkv_model_open_named(model_path + 5, &error);
    size_t len;
    char *text = m ? read_file(path, &len) : NULL;
    if (!m || !text) {
        fprintf(stderr, "FAIL: %s\n", m ? "cannot read the sentences" : error);
        return 1;
    }
    int n_sent = 0, n_words = 0, cap = 16;
    const char ***sents = malloc((size_t)cap * sizeof *sents);
    int *counts = malloc((size_t)cap * sizeof *counts);
    for (char *line = strtok(text, "\n"); line; line = strtok(NULL, "\n")) {
        if (n_sent == cap) {
            cap *= 2;
            sents = realloc(sents, (size_t)cap * sizeof *sents);
            counts = realloc(counts, (size_t)cap * sizeof *counts);
        }
        int n = 1;
        for (const char *p = line; *p; p++)
            n += *p == '\t';
        const char **words = malloc((size_t)n * sizeof *words);
        for (int i = 0; i < n; i++) {
            words[i] = line;
            line += strcspn(line, "\t");
            if (*line)
                *line++ = '\0';
        }
        sents[n_sent] = words;
        counts[n_sent++] = n;
        n_words += n;
    }
    qkv_text *t = qkv_model_tag_words(m, (const char *const *const *)sents, counts, n_sent, &error);
    if (!t) {
        fprintf(stderr, "FAIL: %s\n", error);
        return 1;
    }
    CHECK(t->n_sentences == n_sent && t->n_words == n_words && t->n_tokens == n_words, "the result's counts");
    check_shape(t);
    long sent_id = 0;
    write_conllu(stdout, t, &sent_id);
    qkv_text_free(t);
    qkv_text *none = qkv_model_tag_words(m, NULL, NULL, 0, &error);
    CHECK(none && none->n_sentences == 0 && none->n_words == 0, "no sentences");
    qkv_text_free(none);
    for (int s = 0; s < n_sent; s++)
        free(sents[s]);
    free(sents);
    free(counts);
    free(text);
    qkv_model_free(m);
    return failures ? 1 : 0;
}

int main(int argc, char **argv)
{
    if (argc == 4 && !strcmp(argv[1], "--words"))
        return tag_words(argv[2], argv[3]);
    if (argc == 5 && !strcmp(argv[1], "--errors"))
        return check_errors(argv[2], argv[3], argv[4]);
    if (argc == 4)
        return tag_file(argv[1], argv[2], argv[3]);
    fprintf(stderr, "usage: api_text MODEL SEGMENTER|- TEXT.txt | api_text --words MODEL SENTS.tsv | api_text --errors "
                    "TAGGER SEGMENTER BAD.txt\n");
    return 2;
}
