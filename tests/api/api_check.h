/* CHECK for the programs of tests/api/ (api_threads.c, api_text.c), which link only the
 * installed library's API: a failed condition prints "FAIL: ..." on stderr and counts in
 * failures (the program exits 1 when it is not 0). */
#ifndef QKV_TESTS_API_CHECK_H
#define QKV_TESTS_API_CHECK_H

#include <stdio.h>

static int failures;
#define CHECK(cond, ...)                                                                                              \
    do {                                                                                                             \
        if (!(cond)) {                                                                                               \
            fprintf(stderr, "FAIL: " __VA_ARGS__);                                                                   \
            fprintf(stderr, "\n");                                                                                   \
            failures++;                                                                                              \
        }                                                                                                            \
    } while (0)

#endif
