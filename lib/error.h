/* Errors in lib/: a function that can fail returns QKV_OK (0) or QKV_ERR (-1) and fills a
 * qkv_error with one line of text. Nothing in lib/ prints or exits; train/ prints the
 * message as "path:line: what is wrong" and exits non-zero. */
#ifndef QKV_ERROR_H
#define QKV_ERROR_H

#include <stddef.h>

enum { QKV_OK = 0, QKV_ERR = -1 };

typedef struct qkv_error {
    char msg[1024];
    int sentence; /* the sentence the error is about, as an index (in the packed batch an op was
                     given, in the dataset a prediction ran over: the function says which), for
                     the caller that knows its file and line to name them; -1: none */
} qkv_error;

/* Formats the message into err (err may be NULL) and returns QKV_ERR, so that
 * `return qkv_fail(err, "...")` reads naturally. err->sentence becomes -1. */
int qkv_fail(qkv_error *err, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

/* qkv_fail about one sentence: err->sentence becomes sentence. */
int qkv_fail_sentence(qkv_error *err, int sentence, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* Prepends "prefix: " to an existing message (e.g. a file name or a parameter name); keeps
 * err->sentence. */
int qkv_fail_prefix(qkv_error *err, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

#endif
