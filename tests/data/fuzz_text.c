/* libFuzzer target for the readers of raw text (build and run: tests/data/fuzz.sh text): a
 * sentence a line (qkv_corpus_read_text, data/corpus.h), the decoding of any labels of its
 * characters into sentences, tokens and words (qkv_seg_decode, data/segment.h), and, with a
 * model that bundles a segmenter, the whole path of the public API (qkv_model_tag_text and
 * qkv_model_segment_text, include/qkv/qkv.h). The model is QKV_FUZZ_MODEL, else the seed
 * tests/data/fuzz_seeds/checkpoint/bundle.h5 from the source folder (a tiny tagger and segmenter
 * made by tests/data/make_fuzz_seeds.sh), which must open. Properties: an error names the text
 * and a line it has; every word and token is the text's, in order, within its line; a
 * segmentation's tokens are non-empty and neither begin nor end with whitespace (but inside a
 * grapheme cluster), its sentences have 1 .. QKV_SEG_MAX_SENTENCE_WORDS words; nothing is
 * printed. */
#define _GNU_SOURCE /* memmem */
#include "fuzz_common.h"

#include <unigbrk.h>

#include "data/corpus.h"
#include "data/segment.h"
#include "data/utf8.h"
#include "lib/io/utf8.h"
#include "qkv/qkv.h"

#define NAME "fuzz.txt"

static long count_lines(const uint8_t *data, size_t size)
{
    long n = 1;
    for (size_t i = 0; i < size; i++)
        n += data[i] == '\n';
    return n;
}

/* The line of number line (1-based) of data, and its length. */
static const char *line_of(const uint8_t *data, size_t size, long line, size_t *len)
{
    size_t at = 0;
    for (long k = 1; k < line && at < size; at++)
        k += data[at] == '\n';
    const char *nl = memchr(data + at, '\n', size - at);
    *len = nl ? (size_t)(nl - (const char *)data - at) : size - at;
    return (const char *)data + at;
}

static void check_sentences(const uint8_t *data, size_t size)
{
    qkv_corpus c;
    qkv_error err;
    fuzz_output mark = fuzz_output_mark();
    int status = qkv_corpus_read_text(&c, (const char *)data, size, NAME, &err);
    fuzz_output_check(mark);
    if (status) {
        long line = -1;
        fuzz_check(sscanf(err.msg, NAME ":%ld:", &line) == 1 && line >= 1 && line <= count_lines(data, size),
                   "an error names the text and one of its lines");
        return;
    }
    for (int w = 0; w < c.n_words; w++) {
        size_t n, flen;
        const char *form = qkv_corpus_form(&c, w, &flen), *line = line_of(data, size, c.word_line[w], &n);
        fuzz_check(flen > 0 && memmem(line, n, form, flen) != NULL, "every word is of its line");
    }
    qkv_corpus_free(&c);
}

static int space_at(const qkv_seg_text *st, int i)
{
    int k;
    return qkv_utf8_is_space(qkv_utf8_decode(st->text + st->char_off[i], st->char_off[i + 1] - st->char_off[i], &k));
}

/* The characters of the text, labelled from their bytes, decoded; the segmentation checked. */
static void check_decode(const uint8_t *data, size_t size)
{
    qkv_seg_text st;
    qkv_error err;
    fuzz_check(qkv_seg_init(&st, NAME, &err) == QKV_OK && qkv_seg_add_raw(&st, (const char *)data, size, 1, &err) ==
               QKV_OK, "raw text as characters");
    if (st.n_par == 0) { /* no character: no paragraph */
        qkv_seg_free(&st);
        return;
    }
    uint8_t *labels = malloc((size_t)st.n_chars + 1);
    fuzz_check(labels != NULL, "malloc");
    for (int i = 0; i < st.n_chars; i++)
        labels[i] = (uint8_t)(data[st.char_off[i]] ^ (i >> 2)) % QKV_SEG_COUNT;
    qkv_segmentation seg = {0};
    fuzz_check(qkv_seg_decode(&st, 0, labels, &seg, &err) == QKV_OK, "any labels decode");
    char *brk = malloc(size + 1);
    fuzz_check(brk != NULL, "malloc");
    u8_grapheme_breaks((const uint8_t *)st.text, st.text_len, brk); /* brk[b]: a cluster begins at byte b */
    for (int t = 0; t < seg.n_tokens; t++) {
        int a = seg.tok_start[t], b = seg.tok_end[t] - 1;
        fuzz_check(a <= b && seg.tok_word[t] < seg.tok_word[t + 1], "tokens of words");
        /* whitespace at either end only inside a cluster that the token holds on */
        fuzz_check(!space_at(&st, a) || (a < b && !brk[st.char_off[a + 1]]), "no token begins with whitespace");
        fuzz_check(!space_at(&st, b) || (a < b && !brk[st.char_off[b]]), "no token ends with whitespace");
    }
    free(brk);
    char *out = NULL;
    size_t out_len = 0;
    FILE *f = open_memstream(&out, &out_len);
    fuzz_check(f != NULL, "open_memstream");
    for (int s = 0; s < seg.n_sent; s++) {
        int words = seg.tok_word[seg.sent_start[s + 1]] - seg.tok_word[seg.sent_start[s]];
        fuzz_check(words >= 1 && words <= QKV_SEG_MAX_SENTENCE_WORDS, "sentences of 1 .. the most words");
        fuzz_check(qkv_seg_write_sentence(f, &st, &seg, s, "1", &err) == QKV_OK, "a sentence is written");
    }
    fclose(f);
    free(out);
    qkv_segmentation_free(&seg);
    free(labels);
    qkv_seg_free(&st);
}

static qkv_model *model;

static void load_model(void)
{
    static int tried;
    if (tried++)
        return;
    const char *path = getenv("QKV_FUZZ_MODEL");
    char *error = NULL;
    model = qkv_model_open(path && path[0] ? path : "tests/data/fuzz_seeds/checkpoint/bundle.h5", &error);
    if (!model)
        fprintf(stderr, "fuzz_text: %s\n", error);
    fuzz_check(model && qkv_model_has_segmenter(model), "the model of raw text opens, with its segmenter");
    free(error);
}

/* Tokens are the text's, in order (a TAB, CR or LF inside one is a space). */
static void check_model_text(const qkv_text *t, const char *text)
{
    const char *at = text;
    for (int k = 0; k < t->n_tokens; k++) {
        const char *found = strstr(at, t->tokens[k].form);
        fuzz_check(found != NULL, "tokens are the text's, in order");
        at = found + strlen(t->tokens[k].form);
    }
    for (int s = 0; s < t->n_sentences; s++)
        fuzz_check(t->sentences[s].n_words <= qkv_model_max_words(model), "sentences within the bound");
}

static void check_model(const uint8_t *data, size_t size)
{
    char *copy = malloc(size + 1), *error = NULL;
    fuzz_check(copy != NULL, "malloc");
    for (size_t i = 0; i < size; i++)
        copy[i] = data[i] == '\t' || data[i] == '\r' || data[i] == '\n' ? ' ' : (char)data[i];
    copy[size] = '\0';
    for (int tag = 0; tag < 2; tag++) {
        fuzz_output mark = fuzz_output_mark();
        qkv_text *t = tag ? qkv_model_tag_text(model, (const char *)data, size, &error)
                          : qkv_model_segment_text(model, (const char *)data, size, &error);
        fuzz_output_check(mark);
        if (t)
            check_model_text(t, copy);
        else
            fuzz_check(error && !strncmp(error, "text:", 5), "an error names the text");
        qkv_text_free(t);
        free(error);
        error = NULL;
    }
    free(copy);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    check_sentences(data, size);
    if (qkv_utf8_check((const char *)data, size) == size && !memchr(data, 0, size))
        check_decode(data, size);
    load_model();
    check_model(data, size);
    return 0;
}
