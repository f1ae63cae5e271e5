/* CHECK for the programs of tests/api/ (api_threads.c, api_text.c, ...), which link only the
 * installed library's API: a failed condition prints "FAIL: ..." on stderr and counts in
 * failures (the program exits 1 when it is not 0). api_open_model: the model of a program whose
 * one argument names it. */
#ifndef QKV_TESTS_API_CHECK_H
#define QKV_TESTS_API_CHECK_H

#include <qkv/qkv.h>
#include <stdio.h>
#include <stdlib.h>

static int failures;
#define CHECK(cond, ...)                                                                                              \
    do {                                                                                                             \
        if (!(cond)) {                                                                                               \
            fprintf(stderr, "FAIL: " __VA_ARGS__);                                                                   \
            fprintf(stderr, "\n");                                                                                   \
            failures++;                                                                                              \
        }                                                                                                            \
    } while (0)

/* The model argv[1] of a program called as usage ("NAME MODEL ...") with that one argument: on
 * another count the usage is printed and the program exits 2; a model that does not open
 * prints "FAIL: <qkv_model_open's error>" and exits 1. */
static inline qkv_model *api_open_model(int argc, char **argv, const char *usage)
{
    if (argc != 2) {
        fprintf(stderr, "usage: %s\n", usage);
        exit(2);
    }
    char *error = NULL;
    qkv_model *m = qkv_model_open(argv[1], &error);
    if (!m) {
        fprintf(stderr, "FAIL: %s\n", error);
        exit(1);
    }
    return m;
}

#endif
