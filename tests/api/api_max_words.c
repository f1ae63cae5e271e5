/* For tests/api/test_max_words.sh: the library's bound on a sentence's words.
 *
 *     api_max_words MODEL
 *
 * MODEL (a parser with a bundled segmenter, such as the shipped data/models/en.h5) opens with
 * the bound QKV_MAX_WORDS; every function that tags words refuses a sentence of one word more
 * (and one of 100,000 words) before any work, naming the sentence and the bound, and answers on
 * after it; qkv_model_set_max_words sets another bound, which raw text's segmented sentences
 * meet too; a bound below 1 is refused. Exits 0; on a failure prints "FAIL: ..." on stderr and
 * exits 1. */
#include <qkv/qkv.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "api_check.h"

/* The call failed (failed) with *error holding expected; the message is freed. */
static void expect_error(int failed, char **error, const char *expected, const char *what)
{
    CHECK(failed, "%s: no error", what);
    CHECK(!failed || (*error && strstr(*error, expected)), "%s: expected \"%s\", got \"%s\"", what, expected,
          *error ? *error : "(none)");
    free(*error);
    *error = NULL;
}

/* n words "w" into a malloc'd array. */
static const char **words_of(int n)
{
    const char **w = malloc((size_t)n * sizeof *w);
    for (int i = 0; i < n; i++)
        w[i] = "w";
    return w;
}

/* Every function that tags words refuses a sentence of n words (over the bound max). */
static void refused(qkv_model *m, int n, int max)
{
    char *error = NULL, want[128];
    const char **words = words_of(n), **tags = malloc((size_t)n * sizeof *tags);
    const char *ok[] = {"Fine", "."}, *const *sentences[] = {ok, words};
    int counts[] = {2, n}, *heads = malloc((size_t)n * sizeof *heads);
    float *probs = malloc((size_t)n * sizeof *probs);
    snprintf(want, sizeof want, "sentence 1: %d words, more than the %d a sentence may have", n, max);
    expect_error(qkv_model_tag(m, words, n, tags, &error), &error, want, "qkv_model_tag");
    expect_error(qkv_model_parse(m, words, n, tags, heads, &error), &error, want, "qkv_model_parse");
    expect_error(qkv_model_tag_probs(m, words, n, 1, tags, probs, &error), &error, want, "qkv_model_tag_probs");
    snprintf(want, sizeof want, "sentence 2: %d words, more than the %d a sentence may have", n, max);
    expect_error(qkv_model_tag_sentences(m, sentences, counts, 2, tags, &error), &error, want,
                 "qkv_model_tag_sentences");
    qkv_text *t = qkv_model_tag_words(m, sentences, counts, 2, &error);
    expect_error(t == NULL, &error, want, "qkv_model_tag_words");
    qkv_text_free(t);
    free(words);
    free(tags);
    free(heads);
    free(probs);
}

/* A sentence of n words is tagged and parsed. */
static void taken(qkv_model *m, int n)
{
    char *error = NULL;
    const char **words = words_of(n), *const *sentences[] = {words};
    qkv_text *t = qkv_model_tag_words(m, sentences, &n, 1, &error);
    CHECK(t && t->n_words == n, "a sentence of %d words: %s", n, t ? "words lost" : error);
    qkv_text_free(t);
    free(error);
    free(words);
}

int main(int argc, char **argv)
{
    qkv_model *m = api_open_model(argc, argv, "api_max_words MODEL");
    char *error = NULL;
    CHECK(qkv_model_max_words(m) == QKV_MAX_WORDS, "a model opens with the bound %d, not QKV_MAX_WORDS %d",
          qkv_model_max_words(m), QKV_MAX_WORDS);
    refused(m, QKV_MAX_WORDS + 1, QKV_MAX_WORDS);
    refused(m, 100000, QKV_MAX_WORDS);
    taken(m, 12);
    CHECK(qkv_model_set_max_words(m, 12, &error) == 0 && qkv_model_max_words(m) == 12, "qkv_model_set_max_words 12");
    taken(m, 12);
    refused(m, 13, 12);
    /* raw text: a segmented sentence over the bound, named by its line */
    const char *text = "One two three four five six seven eight nine ten eleven twelve thirteen.\n";
    qkv_text *t = qkv_model_tag_text(m, text, strlen(text), &error);
    expect_error(t == NULL, &error, "text:1: a sentence of 14 words, more than the 12", "qkv_model_tag_text");
    qkv_text_free(t);
    expect_error(qkv_model_set_max_words(m, 0, &error), &error, "a bound below 1", "qkv_model_set_max_words 0");
    CHECK(qkv_model_max_words(m) == 12, "a refused bound changed the bound");
    CHECK(qkv_model_set_max_words(m, QKV_MAX_WORDS, NULL) == 0, "qkv_model_set_max_words back");
    t = qkv_model_tag_text(m, text, strlen(text), &error);
    CHECK(t && t->n_words == 14, "raw text after the bound was raised: %s", t ? "words lost" : error);
    qkv_text_free(t);
    free(error);
    qkv_model_free(m);
    return failures ? 1 : 0;
}
