/* A small HTTP/1.1 server over libmicrohttpd, for the qkv commands that serve (qkv serve):
 * one thread reads and writes every connection; whole requests wait in a queue for a pool of
 * `threads` workers that answer them (at most `max_queue` wait; more are answered 503). Each body is gathered whole up to a maximum size (a larger
 * one is answered 413 without being kept). A connection is closed after `timeout` seconds idle,
 * and only while idle: a request waiting for a worker or being answered never times out. A stop
 * lets the requests in flight finish. The handler sees one whole request and fills one
 * response; nothing is written to disk.
 *
 * Built only with libmicrohttpd (QKV_HAVE_MHD; Debian: libmicrohttpd-dev); without it
 * qkv_http_start fails saying so. */
#ifndef QKV_HTTP_SERVER_H
#define QKV_HTTP_SERVER_H

#include <stdbool.h>
#include <stddef.h>

#include "lib/error.h"
#include "train/http/http_stats.h"

typedef struct qkv_http_request {
    const char *method;       /* "GET", "POST", ... */
    const char *path;         /* the URL's path, without the query */
    const char *content_type; /* NULL: none */
    const char *body;         /* the body (NUL-terminated after body_len bytes) */
    size_t body_len;
    void *conn;               /* the server's own: qkv_http_query reads the query through it */
} qkv_http_request;

struct qkv_http_params;
/* The URL's query arguments of req added to p (libmicrohttpd decodes them; a value keeps any
 * NUL byte). 0, or -1 out of memory. */
int qkv_http_query(const qkv_http_request *req, struct qkv_http_params *p);

typedef struct qkv_http_response {
    int status;               /* 200 when the handler leaves it 0 */
    const char *content_type; /* static */
    qkv_buf body;             /* the server frees it */
    const char *allow;        /* a 405's Allow header (static), or NULL */
    const char *route;        /* the route for the statistics (static; NULL: "other") */
} qkv_http_response;

typedef void (*qkv_http_handler)(void *ctx, const qkv_http_request *req, qkv_http_response *res);

typedef struct qkv_http_options {
    const char *host;        /* address to listen on (a name or a numeric IPv4 or IPv6 address) */
    int port;                /* 0: a free port (qkv_http_port says which) */
    int threads;             /* requests answered at the same time (>= 1) */
    size_t max_body;         /* bytes; a larger body is answered 413 */
    unsigned timeout;        /* seconds a connection may stay idle */
    int max_queue;           /* whole requests waiting for a worker at most; one more is answered
                                503 at once (0: no bound) */
    qkv_http_stats *stats;   /* every answered request is recorded there (may be NULL) */
    bool same_origin;        /* true: no Access-Control-Allow-Origin header, so that pages of
                                other sites cannot read the answers (false: "*", any site may) */
} qkv_http_options;

typedef struct qkv_http_server qkv_http_server;

/* Whether this build has the server (libmicrohttpd). */
bool qkv_http_available(void);

/* Starts listening and answering with handler(ctx, ...). Returns the server, or NULL with err:
 * no libmicrohttpd in this build, an address that does not resolve, a port in use. */
qkv_http_server *qkv_http_start(const qkv_http_options *o, qkv_http_handler handler, void *ctx, qkv_error *err);

/* The port the server listens on. */
int qkv_http_port(const qkv_http_server *s);

/* Stops: no new connection is accepted, the requests in flight finish (waiting up to grace
 * seconds), then every connection is closed and the server freed. */
void qkv_http_stop(qkv_http_server *s, unsigned grace);

#endif
