/* Tags sentences with a qkv model through the C library: one sentence a line on standard input,
 * words separated by spaces (or TABs); writes each word and its tag (TAB between them), a line each, and
 * an empty line after each sentence. The model is loaded once for all sentences.
 *
 *     cc tag_sentences.c $(pkg-config --cflags --libs qkv) -o tag_sentences
 *     echo "The cat sat ." | ./tag_sentences model.h5 */
#define _POSIX_C_SOURCE 200809L
#include <qkv/qkv.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: %s MODEL.h5 < sentences.txt\n", argv[0]);
        return 2;
    }
    char *error = NULL;
    qkv_model *model = qkv_model_open(argv[1], &error);
    if (!model) {
        fprintf(stderr, "tag_sentences: %s\n", error);
        free(error);
        return 1;
    }
    char *line = NULL;
    size_t cap = 0;
    const char **words = NULL, **tags = NULL;
    size_t max_words = 0;
    int status = 0;
    while (status == 0 && getline(&line, &cap, stdin) >= 0) {
        size_t n = 0;
        if (max_words < strlen(line) / 2 + 1) { /* a line of L bytes holds at most L/2 + 1 words */
            max_words = strlen(line) / 2 + 1;
            words = realloc(words, max_words * sizeof *words);
            tags = realloc(tags, max_words * sizeof *tags);
            if (!words || !tags) {
                fprintf(stderr, "tag_sentences: out of memory\n");
                status = 1;
                break;
            }
        }
        for (char *w = strtok(line, " \t\r\n"); w; w = strtok(NULL, " \t\r\n"))
            words[n++] = w;
        if (n == 0)
            continue;
        if (qkv_model_tag(model, words, (int)n, tags, &error)) {
            fprintf(stderr, "tag_sentences: %s\n", error);
            free(error);
            status = 1;
            break;
        }
        for (size_t i = 0; i < n; i++)
            printf("%s\t%s\n", words[i], tags[i]);
        printf("\n");
    }
    free(line);
    free(words);
    free(tags);
    qkv_model_free(model);
    return status;
}
