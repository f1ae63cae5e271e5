/* The HTTP routes of qkv serve: UDPipe's REST API (/models, /process), /health and /metrics,
 * one handler for train/http/http_server.h. */
#ifndef QKV_SERVE_REST_H
#define QKV_SERVE_REST_H

#include "train/http/http_server.h"
#include "train/http/http_stats.h"
#include "train/serve/serve_models.h"

typedef struct serve_ctx {
    serve_models models;
    qkv_http_stats stats;
    int max_words; /* --max-words */
} serve_ctx;

/* qkv_http_handler of qkv serve (ctx: a serve_ctx). */
void serve_handle(void *ctx, const qkv_http_request *req, qkv_http_response *res);

#endif
