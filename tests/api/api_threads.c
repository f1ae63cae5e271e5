/* For tests/api/test_api.sh: the C library's errors and its use from threads.
 *
 *     api_threads MODEL SENTENCES.txt
 *
 * Checks the errors of qkv_model_open and qkv_model_tag (a message, never a crash or output),
 * then tags every sentence (one a line, words separated by spaces) with one model, and again
 * from two threads at once, each with its own model opened from the same file: every thread
 * must get the same tags. Writes the single-threaded tags like examples/tag_sentences.c (word
 * TAB tag, an empty line after each sentence) and exits 0; on a failure prints "FAIL: ..." on
 * stderr and exits 1. */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <pthread.h>
#include <qkv/qkv.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "api_check.h"

typedef struct sentences {
    int n, cap;
    int *n_words;
    char ***words;
} sentences;

static int read_sentences(const char *path, sentences *ss)
{
    FILE *f = fopen(path, "r");
    if (!f)
        return 1;
    char *line = NULL;
    size_t cap = 0;
    while (getline(&line, &cap, f) >= 0) {
        if (ss->n == ss->cap) {
            ss->cap = ss->cap ? 2 * ss->cap : 64;
            ss->n_words = realloc(ss->n_words, (size_t)ss->cap * sizeof *ss->n_words);
            ss->words = realloc(ss->words, (size_t)ss->cap * sizeof *ss->words);
        }
        char **w = malloc((strlen(line) / 2 + 1) * sizeof *w);
        int n = 0;
        for (char *t = strtok(line, " \n"); t; t = strtok(NULL, " \n"))
            w[n++] = strdup(t);
        if (n == 0) {
            free(w);
            continue;
        }
        ss->words[ss->n] = w;
        ss->n_words[ss->n++] = n;
    }
    free(line);
    fclose(f);
    return 0;
}

typedef struct job {
    const char *path;
    const sentences *ss;
    const char ***tags; /* [sentence][word] */
    char *error;
} job;

static void *tag_all(void *arg)
{
    job *j = arg;
    qkv_model *m = qkv_model_open(j->path, &j->error);
    if (!m)
        return NULL;
    for (int s = 0; s < j->ss->n && !j->error; s++)
        qkv_model_tag(m, (const char *const *)j->ss->words[s], j->ss->n_words[s], j->tags[s], &j->error);
    /* the tag strings are the model's: copy them before freeing it */
    for (int s = 0; s < j->ss->n && !j->error; s++)
        for (int w = 0; w < j->ss->n_words[s]; w++)
            j->tags[s][w] = strdup(j->tags[s][w]);
    qkv_model_free(m);
    return NULL;
}

static const char ***new_tags(const sentences *ss)
{
    const char ***t = calloc((size_t)ss->n, sizeof *t);
    for (int s = 0; s < ss->n; s++)
        t[s] = calloc((size_t)ss->n_words[s], sizeof **t);
    return t;
}

static void free_tags(const sentences *ss, const char ***t, int owned)
{
    for (int s = 0; s < ss->n; s++) {
        for (int w = 0; owned && w < ss->n_words[s]; w++)
            free((char *)t[s][w]);
        free(t[s]);
    }
    free(t);
}

/* qkv_model_tag must fail on words with an error starting with expect. */
static void expect_tag_error(qkv_model *m, const char *const *words, int n, const char *expect)
{
    const char *tags[4] = {0};
    char *error = NULL;
    int st = qkv_model_tag(m, words, n, tags, &error);
    CHECK(st != 0 && error && !strncmp(error, expect, strlen(expect)), "qkv_model_tag: expected an error '%s...', got %d '%s'",
          expect, st, error ? error : "(none)");
    free(error);
}

int main(int argc, char **argv)
{
    if (argc != 3) {
        fprintf(stderr, "usage: api_threads MODEL SENTENCES.txt\n");
        return 2;
    }
    sentences ss = {0};
    if (read_sentences(argv[2], &ss) || ss.n == 0) {
        fprintf(stderr, "FAIL: cannot read sentences from %s\n", argv[2]);
        return 1;
    }
    /* errors of open: a message naming the file, no model */
    char *error = NULL;
    qkv_model *bad = qkv_model_open("/nonexistent/model.h5", &error);
    CHECK(!bad && error && strstr(error, "/nonexistent/model.h5"), "opening a missing file: %s", error ? error : "(no error)");
    free(error);
    error = NULL;
    CHECK(!qkv_model_open(argv[2], &error) && error && strstr(error, argv[2]), "opening a text file as a model: %s",
          error ? error : "(no error)");
    free(error);
    CHECK(!qkv_model_open("/nonexistent/model.h5", NULL), "opening a missing file without an error pointer");
    qkv_model_free(NULL);

    error = NULL;
    qkv_model *m = qkv_model_open(argv[1], &error);
    if (!m) {
        fprintf(stderr, "FAIL: qkv_model_open %s: %s\n", argv[1], error);
        return 1;
    }
    int n_tags = qkv_model_n_tags(m);
    CHECK(n_tags > 1 && qkv_model_tag_name(m, 0) && !qkv_model_tag_name(m, n_tags) && !qkv_model_tag_name(m, -1),
          "tag names: %d tags", n_tags);
    /* errors of tag: the word named, nothing else broken */
    expect_tag_error(m, (const char *[]){"fine", "a\tb"}, 2, "word 2: ");
    expect_tag_error(m, (const char *[]){"line\nbreak"}, 1, "word 1: ");
    expect_tag_error(m, (const char *[]){"ok", "ok", ""}, 3, "word 3: empty");
    expect_tag_error(m, (const char *[]){"\xff\xfe"}, 1, "word 1: ");
    expect_tag_error(m, (const char *[]){"ok", NULL}, 2, "word 2: ");
    expect_tag_error(m, (const char *[]){"ok"}, -1, "qkv_model_tag: ");
    CHECK(qkv_model_tag(m, NULL, 0, NULL, NULL) == 0, "an empty sentence is no error");

    /* one model, one sentence after another */
    const char ***ref = new_tags(&ss);
    for (int s = 0; s < ss.n; s++)
        if (qkv_model_tag(m, (const char *const *)ss.words[s], ss.n_words[s], ref[s], &error)) {
            fprintf(stderr, "FAIL: sentence %d: %s\n", s + 1, error);
            return 1;
        }
    /* all sentences in one call: the tags of one call a sentence, word for word */
    int total = 0;
    for (int s = 0; s < ss.n; s++)
        total += ss.n_words[s];
    const char **all = malloc((size_t)total * sizeof *all);
    CHECK(qkv_model_tag_sentences(m, (const char *const *const *)ss.words, ss.n_words, ss.n, all, &error) == 0,
          "qkv_model_tag_sentences: %s", error ? error : "");
    int differ = 0;
    for (int s = 0, at = 0; s < ss.n; s++)
        for (int w = 0; w < ss.n_words[s]; w++, at++)
            differ += !all[at] || strcmp(all[at], ref[s][w]) != 0;
    CHECK(differ == 0, "qkv_model_tag_sentences: %d of %d words tagged differently from one call a sentence", differ,
          total);
    free(all);
    const char *const bad_sent[] = {"ok", "a\tb"}, *const ok_sent[] = {"ok"};
    const char *const *const two[] = {ok_sent, bad_sent};
    const char *two_tags[3];
    error = NULL;
    CHECK(qkv_model_tag_sentences(m, two, (const int[]){1, 2}, 2, two_tags, &error) != 0 && error &&
              !strncmp(error, "sentence 2: word 2: ", 20),
          "qkv_model_tag_sentences of a bad word: %s", error ? error : "(no error)");
    free(error);
    error = NULL;
    CHECK(qkv_model_tag_sentences(m, NULL, NULL, 0, NULL, NULL) == 0, "no sentences is no error");
    /* the n best tags with probabilities: the first is qkv_model_tag's; all of them sum to 1 */
    for (int s = 0; s < ss.n && s < 50; s++) {
        int n = ss.n_words[s], k = s % 2 ? 3 : n_tags;
        const char **best = malloc((size_t)n * (size_t)k * sizeof *best);
        float *probs = malloc((size_t)n * (size_t)k * sizeof *probs);
        CHECK(qkv_model_tag_probs(m, (const char *const *)ss.words[s], n, k, best, probs, &error) == 0,
              "qkv_model_tag_probs: %s", error ? error : "");
        for (int w = 0; w < n; w++) {
            CHECK(!strcmp(best[w * k], ref[s][w]), "sentence %d word %d: best tag %s, qkv_model_tag %s", s + 1, w + 1,
                  best[w * k], ref[s][w]);
            double sum = 0;
            for (int j = 0; j < k; j++) {
                CHECK(probs[w * k + j] >= 0 && probs[w * k + j] <= 1 && (j == 0 || probs[w * k + j] <= probs[w * k + j - 1]),
                      "sentence %d word %d: probabilities out of order", s + 1, w + 1);
                for (int i = 0; i < j; i++)
                    CHECK(strcmp(best[w * k + i], best[w * k + j]), "a tag twice among the best");
                sum += probs[w * k + j];
            }
            CHECK(k < n_tags ? sum <= 1 + 1e-5 : fabs(sum - 1) < 1e-4, "sentence %d word %d: probabilities sum to %g",
                  s + 1, w + 1, sum);
        }
        free(best);
        free(probs);
    }
    const char *one_tag[1];
    float one_prob[1];
    error = NULL;
    CHECK(qkv_model_tag_probs(m, ok_sent, 1, 0, one_tag, one_prob, &error) != 0 && error && strstr(error, "best tags"),
          "qkv_model_tag_probs with k 0: %s", error ? error : "(no error)");
    free(error);
    error = NULL;
    /* two threads, a model each, at the same time */
    job jobs[2];
    pthread_t th[2];
    for (int k = 0; k < 2; k++) {
        jobs[k] = (job){argv[1], &ss, new_tags(&ss), NULL};
        CHECK(pthread_create(&th[k], NULL, tag_all, &jobs[k]) == 0, "pthread_create");
    }
    for (int k = 0; k < 2; k++) {
        pthread_join(th[k], NULL);
        CHECK(!jobs[k].error, "thread %d: %s", k, jobs[k].error);
        int differ = 0;
        for (int s = 0; s < ss.n && !jobs[k].error; s++)
            for (int w = 0; w < ss.n_words[s]; w++)
                differ += strcmp(ref[s][w], jobs[k].tags[s][w]) != 0;
        CHECK(differ == 0, "thread %d: %d words tagged differently from the single-threaded run", k, differ);
        free(jobs[k].error);
        free_tags(&ss, jobs[k].tags, !jobs[k].error);
    }
    for (int s = 0; s < ss.n; s++) {
        for (int w = 0; w < ss.n_words[s]; w++)
            printf("%s\t%s\n", ss.words[s][w], ref[s][w]);
        printf("\n");
    }
    free_tags(&ss, ref, 0);
    qkv_model_free(m);
    for (int s = 0; s < ss.n; s++) {
        for (int w = 0; w < ss.n_words[s]; w++)
            free(ss.words[s][w]);
        free(ss.words[s]);
    }
    free(ss.words);
    free(ss.n_words);
    return failures ? 1 : 0;
}
