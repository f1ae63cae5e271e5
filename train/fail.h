/* How train/ reports a failure: the library returns errors (qkv_error), the qkv commands print
 * them, as "qkv: what is wrong" on standard error, and exit with status 1. */
#ifndef QKV_TRAIN_FAIL_H
#define QKV_TRAIN_FAIL_H

#include "lib/error.h"

/* Prints "qkv: " and err's message and a newline on stderr; returns 1 (a failed command's
 * exit status). */
int qkv_fail_report(const qkv_error *err);

/* Prints "qkv: " and the formatted message and a newline on stderr; returns 1. */
int qkv_fail_reportf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

#endif
