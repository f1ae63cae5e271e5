/* multipart/form-data bodies (http_form.h: qkv_http_parse_multipart, qkv_http_parse_body). */
#define _GNU_SOURCE /* memmem */
#include "train/http/http_form.h"

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

/* The first occurrence of needle[0..m) in s[0..n), or NULL. */
static const char *find(const char *s, size_t n, const char *needle, size_t m)
{
    return m ? memmem(s, n, needle, m) : NULL;
}

/* The value of parameter key (case-insensitive) of a header value like `form-data; name="x"`
 * or `multipart/form-data; boundary=abc` into out (quotes removed, \-escapes undone); false
 * when it is not there or does not fit. */
static bool header_param(const char *v, size_t n, const char *key, char *out, size_t out_len)
{
    size_t k = strlen(key);
    for (size_t i = 0; i < n; i++) {
        if (v[i] != ';')
            continue;
        size_t j = i + 1;
        while (j < n && (v[j] == ' ' || v[j] == '\t'))
            j++;
        if (j + k >= n || strncasecmp(v + j, key, k) || v[j + k] != '=')
            continue;
        j += k + 1;
        size_t o = 0;
        bool quoted = v[j] == '"';
        for (j += quoted; j < n && o + 1 < out_len; j++) {
            if (quoted ? v[j] == '"' : (v[j] == ';' || v[j] == ' ' || v[j] == '\t'))
                break;
            if (quoted && v[j] == '\\' && j + 1 < n)
                j++;
            out[o++] = v[j];
        }
        out[o] = '\0';
        return o > 0 && o + 1 < out_len;
    }
    return false;
}

/* One part's headers h[0..n) (lines ending in CRLF): its field name into name, and whether its
 * transfer encoding is one we take. Returns 0 or an HTTP status with msg. */
static int part_headers(const char *h, size_t n, char *name, size_t name_len, int part, char *msg, size_t msg_len)
{
    bool named = false;
    for (size_t at = 0; at < n;) {
        const char *eol = find(h + at, n - at, "\r\n", 2);
        size_t end = eol ? (size_t)(eol - h) : n;
        const char *line = h + at;
        size_t len = end - at;
        const char *colon = memchr(line, ':', len);
        if (!colon)
            return snprintf(msg, msg_len, "malformed multipart/form-data: part %d has a header line without ':'",
                            part), 400;
        size_t key = (size_t)(colon - line);
        const char *val = colon + 1;
        size_t vlen = len - key - 1;
        while (vlen && (*val == ' ' || *val == '\t'))
            val++, vlen--;
        if (key == 19 && !strncasecmp(line, "Content-Disposition", key)) {
            if (vlen < 9 || strncasecmp(val, "form-data", 9))
                return snprintf(msg, msg_len, "malformed multipart/form-data: part %d is not form-data", part), 400;
            named = header_param(val, vlen, "name", name, name_len);
        } else if (key == 25 && !strncasecmp(line, "Content-Transfer-Encoding", key)) {
            while (vlen && (val[vlen - 1] == ' ' || val[vlen - 1] == '\t'))
                vlen--;
            if (!((vlen == 4 && !strncasecmp(val, "7bit", 4)) || (vlen == 4 && !strncasecmp(val, "8bit", 4)) ||
                  (vlen == 6 && !strncasecmp(val, "binary", 6))))
                return snprintf(msg, msg_len, "part %d: Content-Transfer-Encoding %.*s is not supported: send 7bit, "
                                "8bit or binary", part, (int)(vlen < 40 ? vlen : 40), val), 415;
        }
        at = end + 2;
    }
    if (!named)
        return snprintf(msg, msg_len, "malformed multipart/form-data: part %d has no Content-Disposition name",
                        part), 400;
    return 0;
}

/* After a delimiter at *at: "--" ends the body (returns 1), else optional blanks and CRLF
 * (returns 0, *at past them); -1 when neither. */
static int after_delimiter(const char *body, size_t n, size_t *at)
{
    if (*at + 2 <= n && !memcmp(body + *at, "--", 2))
        return 1;
    while (*at < n && (body[*at] == ' ' || body[*at] == '\t'))
        ++*at;
    if (*at + 2 > n || memcmp(body + *at, "\r\n", 2))
        return -1;
    *at += 2;
    return 0;
}

int qkv_http_parse_multipart(qkv_http_params *p, const char *content_type, const char *body, size_t n, char *msg,
                             size_t msg_len)
{
    char boundary[80], delim[84], name[256];
    if (!content_type || !header_param(content_type, strlen(content_type), "boundary", boundary, sizeof boundary))
        return snprintf(msg, msg_len, "malformed multipart/form-data: no boundary (1 to 70 characters) in its "
                        "Content-Type"), 400;
    int dl = snprintf(delim, sizeof delim, "\r\n--%s", boundary);
    /* the first delimiter may open the body (no CRLF before it) */
    const char *first = n >= (size_t)dl - 2 && !memcmp(body, delim + 2, (size_t)dl - 2) ? body : find(body, n, delim, (size_t)dl);
    if (!first)
        return snprintf(msg, msg_len, "malformed multipart/form-data: the boundary never occurs in the body"), 400;
    size_t at = (size_t)(first - body) + (size_t)(first == body ? dl - 2 : dl);
    for (int part = 1;; part++) {
        int end = after_delimiter(body, n, &at);
        if (end == 1)
            return 0;
        if (end < 0)
            return snprintf(msg, msg_len, "malformed multipart/form-data: no line break after delimiter %d", part), 400;
        const char *hend = at + 2 <= n && !memcmp(body + at, "\r\n", 2) ? body + at : find(body + at, n - at, "\r\n\r\n", 4);
        if (!hend)
            return snprintf(msg, msg_len, "malformed multipart/form-data: the headers of part %d do not end", part), 400;
        int st = part_headers(body + at, (size_t)(hend - body) - at, name, sizeof name, part, msg, msg_len);
        if (st)
            return st;
        size_t data = (size_t)(hend - body) + (hend == body + at ? 2 : 4);
        const char *next = find(body + data, n - data, delim, (size_t)dl);
        if (!next)
            return snprintf(msg, msg_len, "malformed multipart/form-data: part %d has no closing delimiter", part), 400;
        if (qkv_http_param_set(p, name, strlen(name), body + data, (size_t)(next - body) - data))
            return snprintf(msg, msg_len, "out of memory"), 500;
        at = (size_t)(next - body) + (size_t)dl;
    }
}

/* Whether the media type of content_type (before any ';') is type. */
static bool media_type(const char *content_type, const char *type)
{
    size_t n = strlen(type);
    while (*content_type == ' ')
        content_type++;
    if (strncasecmp(content_type, type, n))
        return false;
    const char *rest = content_type + n;
    while (*rest == ' ')
        rest++;
    return *rest == '\0' || *rest == ';';
}

int qkv_http_parse_body(qkv_http_params *p, const char *content_type, const char *body, size_t n, char *msg,
                        size_t msg_len)
{
    if (n == 0)
        return 0;
    if (content_type && media_type(content_type, "application/x-www-form-urlencoded"))
        return qkv_http_parse_urlencoded(p, body, n, msg, msg_len);
    if (content_type && media_type(content_type, "multipart/form-data"))
        return qkv_http_parse_multipart(p, content_type, body, n, msg, msg_len);
    return snprintf(msg, msg_len, "unsupported Content-Type '%.60s': send application/x-www-form-urlencoded or "
                    "multipart/form-data", content_type ? content_type : "<none>"), 415;
}
