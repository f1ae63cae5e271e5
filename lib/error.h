/* Errors in lib/: a function that can fail returns QKV_OK (0) or QKV_ERR (-1) and fills a
 * qkv_error with one line of text. Nothing in lib/ prints or exits; train/ prints the
 * message as "path:line: what is wrong" and exits non-zero. */
#ifndef QKV_ERROR_H
#define QKV_ERROR_H

#include <stddef.h>

enum { QKV_OK = 0, QKV_ERR = -1 };

typedef struct qkv_error {
    char msg[1024];
} qkv_error;

/* Formats the message into err (err may be NULL) and returns QKV_ERR, so that
 * `return qkv_fail(err, "...")` reads naturally. */
int qkv_fail(qkv_error *err, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

/* Prepends "prefix: " to an existing message (e.g. a file name or a parameter name). */
int qkv_fail_prefix(qkv_error *err, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

#endif
