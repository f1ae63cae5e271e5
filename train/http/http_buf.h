/* A growing byte buffer for the HTTP layer (train/http/): responses, JSON and Prometheus text
 * are built in one. Out of memory is sticky: after a failed append every later append does
 * nothing and failed stays true, so a caller checks once at the end. */
#ifndef QKV_HTTP_BUF_H
#define QKV_HTTP_BUF_H

#include <stdbool.h>
#include <stddef.h>

typedef struct qkv_buf {
    char *data; /* NUL-terminated after every append (when not failed) */
    size_t len, cap;
    bool failed; /* an append ran out of memory */
} qkv_buf;

/* Appends n bytes of p / the string s / the formatted text. */
void qkv_buf_add(qkv_buf *b, const void *p, size_t n);
void qkv_buf_adds(qkv_buf *b, const char *s);
void qkv_buf_addf(qkv_buf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* Appends s[0..n) as a JSON string, quotes included (RFC 8259: '"', '\' and the control
 * characters escaped; s is valid UTF-8, written as it is). */
void qkv_buf_json_string(qkv_buf *b, const char *s, size_t n);

void qkv_buf_free(qkv_buf *b);

#endif
