/* Request counts and latencies (http_stats.h). */
#include "train/http/http_stats.h"

#include <stdlib.h>
#include <string.h>

void qkv_http_stats_init(qkv_http_stats *s)
{
    memset(s, 0, sizeof *s);
    pthread_mutex_init(&s->lock, NULL);
}

void qkv_http_stats_free(qkv_http_stats *s) { pthread_mutex_destroy(&s->lock); }

/* The route's slot (the last one is "other"). Under the lock. */
static qkv_http_route_stats *route_of(qkv_http_stats *s, const char *route)
{
    if (!route)
        route = "other";
    for (int i = 0; i < QKV_HTTP_ROUTES - 1; i++) {
        if (!s->routes[i].route)
            s->routes[i].route = route;
        if (!strcmp(s->routes[i].route, route))
            return &s->routes[i];
    }
    s->routes[QKV_HTTP_ROUTES - 1].route = "other";
    return &s->routes[QKV_HTTP_ROUTES - 1];
}

void qkv_http_stats_record(qkv_http_stats *s, const char *route, int status, double seconds)
{
    pthread_mutex_lock(&s->lock);
    qkv_http_route_stats *r = route_of(s, route);
    int k = 0;
    while (k < QKV_HTTP_CODES - 1 && r->codes[k] && r->codes[k] != status)
        k++;
    r->codes[k] = status; /* the last slot takes any code beyond the first ones */
    r->count[k]++;
    r->latency[r->n_latency % QKV_HTTP_LATENCY_KEEP] = seconds;
    r->n_latency++;
    r->latency_sum += seconds;
    pthread_mutex_unlock(&s->lock);
}

uint64_t qkv_http_stats_errors(qkv_http_stats *s)
{
    uint64_t n = 0;
    pthread_mutex_lock(&s->lock);
    for (int i = 0; i < QKV_HTTP_ROUTES; i++)
        for (int k = 0; k < QKV_HTTP_CODES; k++)
            n += s->routes[i].codes[k] >= 400 ? s->routes[i].count[k] : 0;
    pthread_mutex_unlock(&s->lock);
    return n;
}

static int by_value(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

/* The quantiles of route r's kept latencies. Under the lock. */
static void write_quantiles(const qkv_http_route_stats *r, const char *prefix, qkv_buf *out)
{
    static const double Q[] = {0.5, 0.9, 0.99};
    size_t n = r->n_latency < QKV_HTTP_LATENCY_KEEP ? (size_t)r->n_latency : QKV_HTTP_LATENCY_KEEP;
    double sorted[QKV_HTTP_LATENCY_KEEP];
    memcpy(sorted, r->latency, n * sizeof *sorted);
    qsort(sorted, n, sizeof *sorted, by_value);
    for (size_t q = 0; q < sizeof Q / sizeof Q[0] && n > 0; q++) {
        size_t k = (size_t)(Q[q] * (double)n); /* the nearest-rank quantile */
        qkv_buf_addf(out, "%s_http_request_duration_seconds{route=\"%s\",quantile=\"%g\"} %.6f\n", prefix, r->route,
                     Q[q], sorted[k < n ? k : n - 1]);
    }
    qkv_buf_addf(out, "%s_http_request_duration_seconds_sum{route=\"%s\"} %.6f\n", prefix, r->route, r->latency_sum);
    qkv_buf_addf(out, "%s_http_request_duration_seconds_count{route=\"%s\"} %llu\n", prefix, r->route,
                 (unsigned long long)r->n_latency);
}

void qkv_http_stats_write(qkv_http_stats *s, const char *prefix, qkv_buf *out)
{
    uint64_t errors = qkv_http_stats_errors(s);
    pthread_mutex_lock(&s->lock);
    qkv_buf_addf(out, "# HELP %s_http_requests_total HTTP requests answered, by route and status code.\n"
                      "# TYPE %s_http_requests_total counter\n", prefix, prefix);
    for (int i = 0; i < QKV_HTTP_ROUTES; i++)
        for (int k = 0; k < QKV_HTTP_CODES && s->routes[i].route && s->routes[i].codes[k]; k++)
            qkv_buf_addf(out, "%s_http_requests_total{route=\"%s\",code=\"%d\"} %llu\n", prefix, s->routes[i].route,
                         s->routes[i].codes[k], (unsigned long long)s->routes[i].count[k]);
    qkv_buf_addf(out, "# HELP %s_http_errors_total HTTP requests answered with a status of 400 or more.\n"
                      "# TYPE %s_http_errors_total counter\n%s_http_errors_total %llu\n", prefix, prefix, prefix,
                 (unsigned long long)errors);
    qkv_buf_addf(out, "# HELP %s_http_request_duration_seconds Seconds from a request's headers to its answer "
                      "sent (quantiles of the last %d of each route).\n"
                      "# TYPE %s_http_request_duration_seconds summary\n", prefix, QKV_HTTP_LATENCY_KEEP, prefix);
    for (int i = 0; i < QKV_HTTP_ROUTES; i++)
        if (s->routes[i].route)
            write_quantiles(&s->routes[i], prefix, out);
    pthread_mutex_unlock(&s->lock);
}
