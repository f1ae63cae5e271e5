/* Query strings and form bodies (http_form.h). */
#include "train/http/http_form.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

const qkv_http_param *qkv_http_param_get(const qkv_http_params *p, const char *name)
{
    size_t n = strlen(name);
    for (int i = 0; i < p->n; i++)
        if (p->items[i].name_len == n && !memcmp(p->items[i].name, name, n))
            return &p->items[i];
    return NULL;
}

static char *copy(const char *s, size_t n)
{
    char *c = malloc(n + 1);
    if (c) {
        if (n)
            memcpy(c, s, n);
        c[n] = '\0';
    }
    return c;
}

int qkv_http_param_set(qkv_http_params *p, const char *name, size_t name_len, const char *value, size_t value_len)
{
    char *v = copy(value, value_len);
    if (!v)
        return -1;
    for (int i = 0; i < p->n; i++)
        if (p->items[i].name_len == name_len && !memcmp(p->items[i].name, name, name_len)) {
            free(p->items[i].value);
            p->items[i].value = v;
            p->items[i].value_len = value_len;
            return 0;
        }
    if (p->n == p->cap) {
        int cap = p->cap ? 2 * p->cap : 8;
        qkv_http_param *items = realloc(p->items, (size_t)cap * sizeof *items);
        if (!items) {
            free(v);
            return -1;
        }
        p->items = items;
        p->cap = cap;
    }
    char *k = copy(name, name_len);
    if (!k) {
        free(v);
        return -1;
    }
    p->items[p->n++] = (qkv_http_param){k, v, name_len, value_len};
    return 0;
}

void qkv_http_params_free(qkv_http_params *p)
{
    for (int i = 0; i < p->n; i++) {
        free(p->items[i].name);
        free(p->items[i].value);
    }
    free(p->items);
    memset(p, 0, sizeof *p);
}

static int hex(char c)
{
    return c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10 : c >= 'A' && c <= 'F' ? c - 'A' + 10 : -1;
}

/* s[0..n) decoded ('+' a space, %XX a byte) into out (room for n bytes); its length, or -1 for a
 * bad escape. */
static long decode(const char *s, size_t n, char *out)
{
    size_t o = 0;
    for (size_t i = 0; i < n; i++) {
        if (s[i] == '+')
            out[o++] = ' ';
        else if (s[i] != '%')
            out[o++] = s[i];
        else if (i + 2 < n && hex(s[i + 1]) >= 0 && hex(s[i + 2]) >= 0) {
            out[o++] = (char)(hex(s[i + 1]) * 16 + hex(s[i + 2]));
            i += 2;
        } else
            return -1;
    }
    return (long)o;
}

int qkv_http_parse_urlencoded(qkv_http_params *p, const char *s, size_t n, char *msg, size_t msg_len)
{
    char *buf = malloc(n + 1);
    if (!buf)
        return snprintf(msg, msg_len, "out of memory"), 500;
    int status = 0;
    for (size_t at = 0; at < n && !status;) {
        const char *amp = memchr(s + at, '&', n - at);
        size_t end = amp ? (size_t)(amp - s) : n;
        const char *eq = memchr(s + at, '=', end - at);
        size_t name_end = eq ? (size_t)(eq - s) : end;
        if (end > at) { /* "a&&b": an empty pair is nothing */
            long nl = decode(s + at, name_end - at, buf), vl;
            char *val = buf + (nl > 0 ? nl : 0);
            vl = eq ? decode(s + name_end + 1, end - name_end - 1, val) : 0;
            int shown = end - at < 40 ? (int)(end - at) : 40; /* s is not NUL-terminated */
            if (nl < 0 || vl < 0)
                status = (snprintf(msg, msg_len, "malformed form data: a '%%' not followed by two hex digits in "
                                                  "\"%.*s\"", shown, s + at), 400);
            else if (qkv_http_param_set(p, buf, (size_t)nl, val, (size_t)vl))
                status = (snprintf(msg, msg_len, "out of memory"), 500);
        }
        at = end + 1;
    }
    free(buf);
    return status;
}
