/* For tests/api/test_parse_api.sh: sentences parsed through the C library.
 *
 *     api_parse MODEL SENTENCES.txt
 *
 * Opens MODEL (a parser), parses each line of SENTENCES.txt (words separated by spaces) with
 * qkv_model_parse and writes, for every word, its FORM, head and label (TAB-separated, an
 * empty line after each sentence), as `qkv tag --format text` writes them in FORM, HEAD and
 * DEPREL. A tagger must be refused with an error. Exits 0; on a failure prints "FAIL: ..." on
 * stderr and exits 1. */
#define _POSIX_C_SOURCE 200809L
#include <qkv/qkv.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "api_check.h"

int main(int argc, char **argv)
{
    CHECK(argc == 3, "usage: api_parse MODEL SENTENCES.txt");
    char *error = NULL;
    qkv_model *m = qkv_model_open(argv[1], &error);
    CHECK(m, "qkv_model_open: %s", error ? error : "");
    FILE *f = m ? fopen(argv[2], "r") : NULL;
    CHECK(f, "cannot open %s", argv[2]);
    if (!f)
        return 1;
    char line[8192];
    while (fgets(line, sizeof line, f)) {
        const char *words[512], *labels[512];
        int heads[512], n = 0;
        for (char *w = strtok(line, " \n"); w && n < 512; w = strtok(NULL, " \n"))
            words[n++] = w;
        int status = qkv_model_parse(m, words, n, labels, heads, &error);
        CHECK(status == 0, "qkv_model_parse: %s", error ? error : "");
        if (status)
            break;
        for (int i = 0; i < n; i++)
            printf("%s\t%d\t%s\n", words[i], heads[i], labels[i]);
        printf("\n");
    }
    fclose(f);
    qkv_model_free(m);
    free(error);
    return failures ? 1 : 0;
}
