/* The routes of qkv board (board.h): / the page, /api/runs the runs and the folders skipped,
 * /api/config?run=ID a run's config, /api/metrics?run=ID&offset=B&ino=I its metrics rows,
 * /file?run=ID&name=REL one of its pictures. Anything else, and any run or file not inside
 * the given folders, is 404. */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "train/board/board.h"
#include "train/http/http_form.h"

static void not_found(qkv_http_response *res)
{
    res->status = 404;
    res->content_type = "application/json";
    qkv_buf_adds(&res->body, "{\"error\": \"not found\"}\n");
}

/* The query parameter name of req (NULL: absent, or holding a NUL byte). */
static const char *param(const qkv_http_params *p, const char *name)
{
    const qkv_http_param *v = qkv_http_param_get(p, name);
    return v && strlen(v->value) == v->value_len ? v->value : NULL;
}

/* Reads the whole file path into res's body; false when it cannot. */
static bool send_file(const char *path, qkv_http_response *res)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return false;
    char chunk[65536];
    size_t n;
    while ((n = fread(chunk, 1, sizeof chunk, f)) > 0)
        qkv_buf_add(&res->body, chunk, n);
    fclose(f);
    res->content_type = "image/png";
    return true;
}

static void api_route(const board_ctx *b, const char *path, const qkv_http_params *q, qkv_http_response *res)
{
    char run[PATH_MAX], file[PATH_MAX];
    const char *id = param(q, "run");
    res->content_type = "application/json";
    if (strcmp(path, "/api/runs") == 0) {
        res->route = "runs";
        board_runs_json(b, &res->body);
    } else if (strcmp(path, "/api/config") == 0 && id && board_run_path(b, id, run, sizeof run)) {
        res->route = "config";
        if (!board_config_json(run, &res->body))
            qkv_buf_adds(&res->body, "{\"config\": []}\n");
    } else if (strcmp(path, "/api/metrics") == 0 && id && board_run_path(b, id, run, sizeof run)) {
        res->route = "metrics";
        const char *o = param(q, "offset"), *i = param(q, "ino");
        if (!board_metrics_json(run, o ? atoll(o) : 0, i ? strtoull(i, NULL, 10) : 0, &res->body))
            not_found(res);
    } else if (strcmp(path, "/file") == 0 && id && param(q, "name") &&
               board_file_path(b, id, param(q, "name"), file, sizeof file)) {
        res->route = "file";
        if (!send_file(file, res))
            not_found(res);
    } else {
        not_found(res);
    }
}

void board_handle(void *ctx, const qkv_http_request *req, qkv_http_response *res)
{
    const board_ctx *b = ctx;
    if (strcmp(req->method, "GET") != 0 && strcmp(req->method, "HEAD") != 0) {
        res->status = 405;
        res->allow = "GET, HEAD";
        res->content_type = "application/json";
        qkv_buf_adds(&res->body, "{\"error\": \"only GET\"}\n");
        return;
    }
    if (strcmp(req->path, "/") == 0) {
        res->route = "page";
        res->content_type = "text/html; charset=utf-8";
        qkv_buf_adds(&res->body, BOARD_PAGE);
        return;
    }
    qkv_http_params q = {0};
    if (qkv_http_query(req, &q) != 0) {
        qkv_http_params_free(&q);
        res->status = 500;
        return;
    }
    api_route(b, req->path, &q, res);
    qkv_http_params_free(&q);
}
