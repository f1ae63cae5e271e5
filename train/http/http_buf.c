/* The growing buffer of the HTTP layer (http_buf.h). */
#include "train/http/http_buf.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Room for n more bytes and a NUL; false (and failed) when out of memory. */
static bool reserve(qkv_buf *b, size_t n)
{
    if (b->failed)
        return false;
    if (b->len + n + 1 <= b->cap)
        return true;
    size_t cap = b->cap ? b->cap : 256;
    while (cap < b->len + n + 1) {
        if (cap > ((size_t)-1) / 2) {
            b->failed = true;
            return false;
        }
        cap *= 2;
    }
    char *d = realloc(b->data, cap);
    if (!d) {
        b->failed = true;
        return false;
    }
    b->data = d;
    b->cap = cap;
    return true;
}

void qkv_buf_add(qkv_buf *b, const void *p, size_t n)
{
    if (!reserve(b, n))
        return;
    if (n)
        memcpy(b->data + b->len, p, n);
    b->len += n;
    b->data[b->len] = '\0';
}

void qkv_buf_adds(qkv_buf *b, const char *s) { qkv_buf_add(b, s, strlen(s)); }

void qkv_buf_addf(qkv_buf *b, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(NULL, 0, fmt, ap);
    va_end(ap);
    if (n < 0 || !reserve(b, (size_t)n))
        return;
    va_start(ap, fmt);
    vsnprintf(b->data + b->len, (size_t)n + 1, fmt, ap);
    va_end(ap);
    b->len += (size_t)n;
}

void qkv_buf_json_string(qkv_buf *b, const char *s, size_t n)
{
    qkv_buf_add(b, "\"", 1);
    size_t run = 0; /* bytes of s[i - run .. i) that need no escape, written together */
    for (size_t i = 0; i < n; i++) {
        unsigned char c = (unsigned char)s[i];
        const char *esc = c == '"' ? "\\\"" : c == '\\' ? "\\\\" : c == '\n' ? "\\n" : c == '\t' ? "\\t"
                        : c == '\r' ? "\\r" : NULL;
        if (!esc && c >= 0x20) {
            run++;
            continue;
        }
        qkv_buf_add(b, s + i - run, run);
        run = 0;
        if (esc)
            qkv_buf_adds(b, esc);
        else
            qkv_buf_addf(b, "\\u%04x", c);
    }
    qkv_buf_add(b, s + n - run, run);
    qkv_buf_add(b, "\"", 1);
}

void qkv_buf_free(qkv_buf *b)
{
    free(b->data);
    memset(b, 0, sizeof *b);
}
