/* What an HTTP server has answered, for a Prometheus scrape: requests by route and status code,
 * and each route's latency (the last QKV_HTTP_LATENCY_KEEP requests: quantiles, with the sum
 * and count of all). Thread-safe: the server's threads record, a handler writes. */
#ifndef QKV_HTTP_STATS_H
#define QKV_HTTP_STATS_H

#include <pthread.h>
#include <stdint.h>

#include "train/http/http_buf.h"

#define QKV_HTTP_ROUTES 8          /* routes counted apart; more share "other" */
#define QKV_HTTP_CODES 12          /* status codes per route */
#define QKV_HTTP_LATENCY_KEEP 2048 /* latencies kept per route for the quantiles */

typedef struct qkv_http_route_stats {
    const char *route; /* a static string ("/process"), NULL: unused */
    int codes[QKV_HTTP_CODES];
    uint64_t count[QKV_HTTP_CODES];
    double latency[QKV_HTTP_LATENCY_KEEP]; /* a ring, seconds */
    uint64_t n_latency;
    double latency_sum;
} qkv_http_route_stats;

typedef struct qkv_http_stats {
    pthread_mutex_t lock;
    qkv_http_route_stats routes[QKV_HTTP_ROUTES];
} qkv_http_stats;

void qkv_http_stats_init(qkv_http_stats *s);
void qkv_http_stats_free(qkv_http_stats *s);

/* One answered request: its route (a static string; NULL: "other"), status and seconds. */
void qkv_http_stats_record(qkv_http_stats *s, const char *route, int status, double seconds);

/* Responses with status >= 400 so far. */
uint64_t qkv_http_stats_errors(qkv_http_stats *s);

/* The Prometheus text exposition (version 0.0.4) of s with metric names beginning prefix:
 * PREFIX_http_requests_total{route,code}, PREFIX_http_errors_total (4xx and 5xx) and the
 * summary PREFIX_http_request_duration_seconds{route,quantile} with _sum and _count. */
void qkv_http_stats_write(qkv_http_stats *s, const char *prefix, qkv_buf *out);

#endif
