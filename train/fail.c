#include "train/fail.h"

#include <stdarg.h>
#include <stdio.h>

int qkv_fail_report(const qkv_error *err) { return qkv_fail_reportf("%s", err->msg); }

int qkv_fail_reportf(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fputs("qkv: ", stderr);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fputc('\n', stderr);
    return 1;
}
