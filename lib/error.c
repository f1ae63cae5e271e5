#include "lib/error.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

int qkv_fail(qkv_error *err, const char *fmt, ...)
{
    if (err) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(err->msg, sizeof err->msg, fmt, ap);
        va_end(ap);
        err->sentence = -1;
    }
    return QKV_ERR;
}

int qkv_fail_sentence(qkv_error *err, int sentence, const char *fmt, ...)
{
    if (err) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(err->msg, sizeof err->msg, fmt, ap);
        va_end(ap);
        err->sentence = sentence;
    }
    return QKV_ERR;
}

int qkv_fail_prefix(qkv_error *err, const char *fmt, ...)
{
    if (err) {
        char prefix[256], old[sizeof err->msg];
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(prefix, sizeof prefix, fmt, ap);
        va_end(ap);
        memcpy(old, err->msg, sizeof old);
        snprintf(err->msg, sizeof err->msg, "%.255s: %.700s", prefix, old);
    }
    return QKV_ERR;
}
