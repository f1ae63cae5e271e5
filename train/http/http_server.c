/* The HTTP server over libmicrohttpd (http_server.h). */
#include "train/http/http_server.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "train/http/http_form.h"

#ifndef QKV_HAVE_MHD

bool qkv_http_available(void) { return false; }

qkv_http_server *qkv_http_start(const qkv_http_options *o, qkv_http_handler handler, void *ctx, qkv_error *err)
{
    (void)o, (void)handler, (void)ctx;
    qkv_fail(err, "this qkv was built without libmicrohttpd: install it (Debian: apt-get install libmicrohttpd-dev), "
                  "then run cmake and build again");
    return NULL;
}

int qkv_http_port(const qkv_http_server *s) { return (void)s, 0; }
void qkv_http_stop(qkv_http_server *s, unsigned grace) { (void)s, (void)grace; }
int qkv_http_query(const qkv_http_request *req, struct qkv_http_params *p) { return (void)req, (void)p, -1; }

#else

#include <errno.h>
#include <microhttpd.h>
#include <netdb.h>
#include <pthread.h>
#include <stdarg.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

/* One request on a connection, from its first call to its completion. A whole request is
 * handed to a worker with its connection suspended (libmicrohttpd neither reads it nor times it
 * out meanwhile); the worker fills res and resumes it, and the polling thread queues res. */
typedef struct conn_state {
    struct timespec start;
    qkv_buf body;
    bool too_large;
    int status;        /* of the response queued; 0: none */
    const char *route;
    struct MHD_Connection *c;
    qkv_http_request req;
    qkv_http_response res;
    bool answered;     /* res is filled */
    struct conn_state *next; /* in the queue of requests waiting for a worker */
} conn_state;

struct qkv_http_server {
    struct MHD_Daemon *d;
    qkv_http_options o;
    qkv_http_handler handler;
    void *ctx;
    pthread_mutex_t lock;
    pthread_cond_t idle; /* signalled when in_flight drops to 0 */
    pthread_cond_t work; /* signalled when a request is queued or the workers are to quit */
    conn_state *head, *tail; /* requests waiting for a worker, oldest first */
    int n_queued;            /* their number */
    pthread_t *workers;
    int n_workers;
    bool quit;           /* the workers return once their request is answered */
    int in_flight;       /* requests begun and not yet completed */
    bool stopping;       /* answers then close their connection */
    int port;
};

bool qkv_http_available(void) { return true; }

static double seconds_since(const struct timespec *t)
{
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    return (double)(now.tv_sec - t->tv_sec) + 1e-9 * (double)(now.tv_nsec - t->tv_nsec);
}

/* Queues res (its body taken over) on c. */
static enum MHD_Result queue(qkv_http_server *s, struct MHD_Connection *c, conn_state *st, qkv_http_response *res)
{
    if (res->body.failed) {
        qkv_buf_free(&res->body);
        res->status = 500;
        qkv_buf_adds(&res->body, "{\"error\": \"out of memory\"}\n");
        res->content_type = "application/json";
    }
    struct MHD_Response *r = res->body.len
        ? MHD_create_response_from_buffer(res->body.len, res->body.data, MHD_RESPMEM_MUST_FREE)
        : MHD_create_response_from_buffer(0, (void *)"", MHD_RESPMEM_PERSISTENT);
    if (!r) {
        qkv_buf_free(&res->body);
        return MHD_NO;
    }
    if (!res->body.len)
        qkv_buf_free(&res->body);
    res->body = (qkv_buf){0}; /* the response's now */
    MHD_add_response_header(r, MHD_HTTP_HEADER_CONTENT_TYPE, res->content_type ? res->content_type : "text/plain");
    if (!s->o.same_origin)
        MHD_add_response_header(r, MHD_HTTP_HEADER_ACCESS_CONTROL_ALLOW_ORIGIN, "*");
    if (res->allow)
        MHD_add_response_header(r, MHD_HTTP_HEADER_ALLOW, res->allow);
    pthread_mutex_lock(&s->lock);
    bool closing = s->stopping;
    pthread_mutex_unlock(&s->lock);
    if (closing)
        MHD_add_response_header(r, MHD_HTTP_HEADER_CONNECTION, "close");
    st->status = res->status ? res->status : 200;
    st->route = res->route;
    enum MHD_Result ok = MHD_queue_response(c, (unsigned)st->status, r);
    MHD_destroy_response(r);
    return ok;
}

/* res: a JSON error answer {"error": msg}. */
static void error_response(qkv_http_response *res, int status, const char *msg)
{
    *res = (qkv_http_response){status, "application/json", {0}, NULL, NULL};
    qkv_buf_adds(&res->body, "{\"error\": ");
    qkv_buf_json_string(&res->body, msg, strlen(msg));
    qkv_buf_adds(&res->body, "}\n");
}

static enum MHD_Result queue_error(qkv_http_server *s, struct MHD_Connection *c, conn_state *st, int status,
                                   const char *msg)
{
    qkv_http_response res;
    error_response(&res, status, msg);
    return queue(s, c, st, &res);
}

/* The first call of a request: its state, and a 413 at once when Content-Length is too large. */
static enum MHD_Result begin(qkv_http_server *s, struct MHD_Connection *c, void **con_cls)
{
    conn_state *st = calloc(1, sizeof *st);
    if (!st)
        return MHD_NO;
    clock_gettime(CLOCK_MONOTONIC, &st->start);
    *con_cls = st;
    pthread_mutex_lock(&s->lock);
    s->in_flight++;
    pthread_mutex_unlock(&s->lock);
    const char *cl = MHD_lookup_connection_value(c, MHD_HEADER_KIND, MHD_HTTP_HEADER_CONTENT_LENGTH);
    if (cl && strtoull(cl, NULL, 10) > s->o.max_body) {
        char msg[128];
        snprintf(msg, sizeof msg, "the request body is larger than the server takes (%zu bytes)", s->o.max_body);
        return queue_error(s, c, st, 413, msg);
    }
    return MHD_YES;
}

static enum MHD_Result on_request(void *cls, struct MHD_Connection *c, const char *url, const char *method,
                                  const char *version, const char *upload, size_t *upload_size, void **con_cls)
{
    (void)version;
    qkv_http_server *s = cls;
    conn_state *st = *con_cls;
    if (!st)
        return begin(s, c, con_cls);
    if (*upload_size) { /* a piece of the body */
        if (!st->too_large && st->body.len + *upload_size <= s->o.max_body)
            qkv_buf_add(&st->body, upload, *upload_size);
        else {
            st->too_large = true;
            qkv_buf_free(&st->body);
        }
        *upload_size = 0;
        return MHD_YES;
    }
    if (st->too_large) {
        char msg[128];
        snprintf(msg, sizeof msg, "the request body is larger than the server takes (%zu bytes)", s->o.max_body);
        return queue_error(s, c, st, 413, msg);
    }
    if (st->body.failed)
        return queue_error(s, c, st, 500, "out of memory for the request body");
    if (st->answered)
        return queue(s, c, st, &st->res);
    st->req = (qkv_http_request){method, url,
                                 MHD_lookup_connection_value(c, MHD_HEADER_KIND, MHD_HTTP_HEADER_CONTENT_TYPE),
                                 st->body.data ? st->body.data : "", st->body.len, c};
    st->c = c;
    pthread_mutex_lock(&s->lock);
    if (s->quit || (s->o.max_queue > 0 && s->n_queued >= s->o.max_queue)) {
        bool quit = s->quit;
        pthread_mutex_unlock(&s->lock);
        return queue_error(s, c, st, 503, quit ? "the server is stopping" : "the server is busy: try again");
    }
    s->n_queued++;
    MHD_suspend_connection(c);
    *(s->tail ? &s->tail->next : &s->head) = st;
    s->tail = st;
    pthread_cond_signal(&s->work);
    pthread_mutex_unlock(&s->lock);
    return MHD_YES;
}

/* A worker: answers the queued requests one at a time; told to quit, it answers those still
 * queued 503 and returns (every suspended connection is resumed before the daemon stops). */
static void *work(void *arg)
{
    qkv_http_server *s = arg;
    pthread_mutex_lock(&s->lock);
    for (;;) {
        while (!s->head && !s->quit)
            pthread_cond_wait(&s->work, &s->lock);
        if (!s->head)
            break;
        conn_state *st = s->head;
        s->head = st->next;
        s->n_queued--;
        if (!s->head)
            s->tail = NULL;
        bool quit = s->quit;
        pthread_mutex_unlock(&s->lock);
        if (quit)
            error_response(&st->res, 503, "the server is stopping");
        else
            s->handler(s->ctx, &st->req, &st->res);
        st->answered = true;
        MHD_resume_connection(st->c);
        pthread_mutex_lock(&s->lock);
    }
    pthread_mutex_unlock(&s->lock);
    return NULL;
}

static void on_completed(void *cls, struct MHD_Connection *c, void **con_cls, enum MHD_RequestTerminationCode toe)
{
    (void)c, (void)toe;
    qkv_http_server *s = cls;
    conn_state *st = *con_cls;
    if (!st)
        return;
    if (st->status && s->o.stats)
        qkv_http_stats_record(s->o.stats, st->route, st->status, seconds_since(&st->start));
    qkv_buf_free(&st->body);
    qkv_buf_free(&st->res.body);
    free(st);
    *con_cls = NULL;
    pthread_mutex_lock(&s->lock);
    if (--s->in_flight == 0)
        pthread_cond_broadcast(&s->idle);
    pthread_mutex_unlock(&s->lock);
}

static void logger(void *cls, const char *fmt, va_list ap)
{
    (void)cls;
    fprintf(stderr, "qkv serve: ");
    vfprintf(stderr, fmt, ap);
}

static enum MHD_Result query_arg(void *cls, enum MHD_ValueKind kind, const char *key, size_t key_len,
                                 const char *value, size_t value_len)
{
    (void)kind;
    return qkv_http_param_set(cls, key, key_len, value ? value : "", value ? value_len : 0) ? MHD_NO : MHD_YES;
}

int qkv_http_query(const qkv_http_request *req, struct qkv_http_params *p)
{
    int n = MHD_get_connection_values_n(req->conn, MHD_GET_ARGUMENT_KIND, query_arg, p);
    return n < 0 ? -1 : 0;
}

/* Tells the workers to quit and waits for them: the requests they answer finish, those queued
 * are answered 503. */
static void stop_workers(qkv_http_server *s)
{
    pthread_mutex_lock(&s->lock);
    s->quit = true;
    pthread_cond_broadcast(&s->work);
    pthread_mutex_unlock(&s->lock);
    for (int i = 0; i < s->n_workers; i++)
        pthread_join(s->workers[i], NULL);
    free(s->workers);
    s->workers = NULL;
    s->n_workers = 0;
}

/* Starts o.threads workers; false when not one could start. */
static bool start_workers(qkv_http_server *s)
{
    int n = s->o.threads > 1 ? s->o.threads : 1;
    s->workers = calloc((size_t)n, sizeof *s->workers);
    if (!s->workers)
        return false;
    while (s->n_workers < n && !pthread_create(&s->workers[s->n_workers], NULL, work, s))
        s->n_workers++;
    return s->n_workers > 0;
}

/* The daemon of s on address a. */
static struct MHD_Daemon *start_daemon(qkv_http_server *s, const struct addrinfo *a)
{
    unsigned flags = MHD_USE_AUTO_INTERNAL_THREAD | MHD_ALLOW_SUSPEND_RESUME | MHD_USE_ERROR_LOG |
                     (a->ai_family == AF_INET6 ? MHD_USE_IPv6 : 0);
    return MHD_start_daemon(flags, 0, NULL, NULL, on_request, s, MHD_OPTION_EXTERNAL_LOGGER, logger, NULL,
                            MHD_OPTION_SOCK_ADDR, a->ai_addr,
                            MHD_OPTION_CONNECTION_TIMEOUT, s->o.timeout, MHD_OPTION_NOTIFY_COMPLETED, on_completed, s,
                            MHD_OPTION_CONNECTION_MEMORY_LIMIT, (size_t)(256 * 1024), MHD_OPTION_END);
}

qkv_http_server *qkv_http_start(const qkv_http_options *o, qkv_http_handler handler, void *ctx, qkv_error *err)
{
    char port[16];
    snprintf(port, sizeof port, "%d", o->port);
    struct addrinfo hints = {.ai_flags = AI_PASSIVE | AI_NUMERICSERV, .ai_socktype = SOCK_STREAM}, *addr = NULL;
    int gai = getaddrinfo(o->host, port, &hints, &addr);
    if (gai) {
        qkv_fail(err, "--host %s: %s", o->host, gai_strerror(gai));
        return NULL;
    }
    qkv_http_server *s = calloc(1, sizeof *s);
    if (!s) {
        freeaddrinfo(addr);
        qkv_fail(err, "out of memory");
        return NULL;
    }
    *s = (qkv_http_server){.o = *o, .handler = handler, .ctx = ctx};
    pthread_mutex_init(&s->lock, NULL);
    pthread_cond_init(&s->idle, NULL);
    pthread_cond_init(&s->work, NULL);
    if (!start_workers(s)) {
        freeaddrinfo(addr);
        qkv_fail(err, "cannot start a thread to answer requests");
        qkv_http_stop(s, 0);
        return NULL;
    }
    errno = 0;
    s->d = start_daemon(s, addr);
    freeaddrinfo(addr);
    const union MHD_DaemonInfo *info = s->d ? MHD_get_daemon_info(s->d, MHD_DAEMON_INFO_BIND_PORT) : NULL;
    if (!info) {
        qkv_fail(err, "cannot listen on %s port %d%s%s", o->host, o->port, errno ? ": " : "",
                 errno ? strerror(errno) : "");
        qkv_http_stop(s, 0);
        return NULL;
    }
    s->port = info->port;
    return s;
}

int qkv_http_port(const qkv_http_server *s) { return s->port; }

void qkv_http_stop(qkv_http_server *s, unsigned grace)
{
    if (!s)
        return;
    if (s->d) {
        pthread_mutex_lock(&s->lock);
        s->stopping = true;
        pthread_mutex_unlock(&s->lock);
        MHD_socket fd = MHD_quiesce_daemon(s->d);
        if (fd != MHD_INVALID_SOCKET)
            close(fd);
        struct timespec until;
        clock_gettime(CLOCK_REALTIME, &until);
        until.tv_sec += grace;
        pthread_mutex_lock(&s->lock);
        while (s->in_flight > 0 && pthread_cond_timedwait(&s->idle, &s->lock, &until) != ETIMEDOUT)
            ;
        pthread_mutex_unlock(&s->lock);
    }
    stop_workers(s);
    if (s->d)
        MHD_stop_daemon(s->d);
    pthread_cond_destroy(&s->work);
    pthread_cond_destroy(&s->idle);
    pthread_mutex_destroy(&s->lock);
    free(s);
}

#endif
