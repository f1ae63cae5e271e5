/* The parameters of an HTTP request: the URL's query and a form body, urlencoded
 * (application/x-www-form-urlencoded, the WHATWG URL standard's rules) or multipart
 * (multipart/form-data, RFC 7578 over RFC 2046). Names and values are byte strings with their
 * lengths (a value may hold a NUL byte: the caller decides whether that is an error). A name
 * given twice keeps its last value (a body's after the query's). */
#ifndef QKV_HTTP_FORM_H
#define QKV_HTTP_FORM_H

#include <stddef.h>

typedef struct qkv_http_param {
    char *name, *value; /* malloc'd, NUL-terminated after their lengths */
    size_t name_len, value_len;
} qkv_http_param;

typedef struct qkv_http_params {
    qkv_http_param *items;
    int n, cap;
} qkv_http_params;

/* The value of name (NULL: not given). */
const qkv_http_param *qkv_http_param_get(const qkv_http_params *p, const char *name);

/* Adds name=value (copies); replaces an earlier value of the same name. 0, or -1 out of memory. */
int qkv_http_param_set(qkv_http_params *p, const char *name, size_t name_len, const char *value, size_t value_len);

void qkv_http_params_free(qkv_http_params *p);

/* The pairs of s[0..n) ("a=1&b=x+y%21"; '+' is a space, %XX a byte) added to p. Returns 0, or
 * an HTTP status with msg (of msg_len bytes) saying what is wrong: 400 for a '%' not followed by
 * two hex digits, 500 out of memory. */
int qkv_http_parse_urlencoded(qkv_http_params *p, const char *s, size_t n, char *msg, size_t msg_len);

/* The fields of a multipart/form-data body whose Content-Type is content_type (its boundary
 * parameter) added to p: each part's name from its Content-Disposition, its bytes as the value
 * (a Content-Transfer-Encoding other than 7bit, 8bit or binary is refused). Returns 0, or an
 * HTTP status with msg: 400 for a body that does not follow the format (no boundary, a part
 * without headers' end or name, no closing delimiter), 415 for another transfer encoding, 500
 * out of memory. */
int qkv_http_parse_multipart(qkv_http_params *p, const char *content_type, const char *body, size_t n, char *msg,
                             size_t msg_len);

/* A request body by its Content-Type (NULL: none): urlencoded or multipart as above; an empty
 * body of any type adds nothing; any other type with a body is 415. */
int qkv_http_parse_body(qkv_http_params *p, const char *content_type, const char *body, size_t n, char *msg,
                        size_t msg_len);

#endif
