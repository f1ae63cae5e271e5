/* For tests/api/test_crf_probs.sh: each word's tag probabilities through the C library.
 *
 *     api_probs MODEL < SENTENCES.txt
 *
 * Opens MODEL, reads one sentence a line (words separated by spaces) and for each word writes
 * "WORD" then, for every tag best first, TAB "TAG PROBABILITY" (qkv_model_tag_probs with k =
 * qkv_model_n_tags), an empty line after each sentence. Checks that each word's probabilities
 * are in [0, 1], in order and sum to 1. Exits 0; on a failure prints "FAIL: ..." on stderr and
 * exits 1. */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <qkv/qkv.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "api_check.h"

int main(int argc, char **argv)
{
    qkv_model *m = api_open_model(argc, argv, "api_probs MODEL < SENTENCES.txt");
    char *error = NULL;
    int k = qkv_model_n_tags(m);
    char line[4096];
    while (fgets(line, sizeof line, stdin)) {
        const char *words[256];
        int n = 0;
        for (char *w = strtok(line, " \n"); w && n < 256; w = strtok(NULL, " \n"))
            words[n++] = w;
        const char **tags = malloc((size_t)(n ? n : 1) * (size_t)k * sizeof *tags);
        float *probs = malloc((size_t)(n ? n : 1) * (size_t)k * sizeof *probs);
        if (qkv_model_tag_probs(m, words, n, k, tags, probs, &error)) {
            fprintf(stderr, "FAIL: qkv_model_tag_probs: %s\n", error);
            return 1;
        }
        for (int i = 0; i < n; i++) {
            double sum = 0;
            printf("%s", words[i]);
            for (int j = 0; j < k; j++) {
                float p = probs[i * k + j];
                CHECK(p >= 0 && p <= 1 && (j == 0 || p <= probs[i * k + j - 1]), "word %s: probabilities out of order",
                      words[i]);
                sum += p;
                printf("\t%s %.6f", tags[i * k + j], p);
            }
            printf("\n");
            CHECK(fabs(sum - 1) < 1e-4, "word %s: probabilities sum to %g", words[i], sum);
        }
        printf("\n");
        free(tags);
        free(probs);
    }
    qkv_model_free(m);
    return failures ? 1 : 0;
}
