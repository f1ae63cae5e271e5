/* The routes of qkv serve (serve_rest.h). UDPipe's REST API: GET or POST /models lists the
 * models and what each does; GET or POST /process takes model, tokenizer, input, tagger, parser,
 * output and data from the query or a form body and answers {"model", "acknowledgements",
 * "result"}; a bad request is a 4xx with {"error": "..."}. */
#include "train/serve/serve_rest.h"

#include <omp.h>
#include <stdio.h>
#include <string.h>

#include "lib/io/utf8.h"
#include "train/http/http_form.h"
#include "train/serve/serve_process.h"

static void json_error(qkv_http_response *res, int status, const char *msg)
{
    res->status = status;
    res->content_type = "application/json";
    qkv_buf_adds(&res->body, "{\"error\": ");
    qkv_buf_json_string(&res->body, msg, strlen(msg));
    qkv_buf_adds(&res->body, "}\n");
}

static void models_route(serve_ctx *sc, qkv_http_response *res)
{
    qkv_buf *b = &res->body;
    res->content_type = "application/json";
    qkv_buf_adds(b, "{\n \"models\": {");
    for (int i = 0; i < sc->models.n; i++) {
        const serve_model *m = &sc->models.m[i];
        qkv_buf_adds(b, i ? ",\n  " : "\n  ");
        qkv_buf_json_string(b, m->id, strlen(m->id));
        qkv_buf_addf(b, ": [%s%s%s%s%s]", m->can_tokenize ? "\"tokenizer\"" : "",
                     m->can_tokenize && (m->can_tag || m->can_parse) ? ", " : "", m->can_tag ? "\"tagger\"" : "",
                     m->can_tag && m->can_parse ? ", " : "", m->can_parse ? "\"parser\"" : "");
    }
    qkv_buf_adds(b, "\n },\n \"default_model\": ");
    qkv_buf_json_string(b, sc->models.m[0].id, strlen(sc->models.m[0].id));
    qkv_buf_adds(b, "\n}\n");
}

/* Every parameter valid UTF-8 without NUL bytes; else 400 with msg. */
static int check_params(const qkv_http_params *p, char *msg, size_t msg_len)
{
    for (int i = 0; i < p->n; i++) {
        const qkv_http_param *q = &p->items[i];
        size_t bad = qkv_utf8_check(q->value, q->value_len);
        if (qkv_utf8_check(q->name, q->name_len) != q->name_len)
            return snprintf(msg, msg_len, "a parameter name is not valid UTF-8 or holds a NUL byte"), 400;
        if (bad != q->value_len)
            return snprintf(msg, msg_len, "parameter '%s': %s at byte %zu", q->name,
                            q->value[bad] ? "invalid UTF-8" : "a NUL byte", bad), 400;
    }
    return 0;
}

/* Whether a step's parameter (tokenizer, tagger, parser) asks for it: given and not "none".
 * 400 with msg for options this server does not have (any value but "" and "none"; UDPipe's
 * tokenizer=normalized_spaces too: the output keeps SpacesAfter= as qkv tag writes it). */
static int step(const qkv_http_params *p, const char *name, bool *on, char *msg, size_t msg_len)
{
    const qkv_http_param *q = qkv_http_param_get(p, name);
    *on = q && strcmp(q->value, "none");
    if (!q || !*q->value || !strcmp(q->value, "none"))
        return 0;
    return snprintf(msg, msg_len, "%s options '%.60s' are not supported: give %s empty (or none)", name, q->value,
                    name), 400;
}

/* The job of a /process request, and its model; 0 or 400 with msg. */
static int read_job(serve_ctx *sc, const qkv_http_params *p, serve_job *job, serve_model **m, char *msg,
                    size_t msg_len)
{
    const qkv_http_param *data = qkv_http_param_get(p, "data"), *model = qkv_http_param_get(p, "model");
    const qkv_http_param *input = qkv_http_param_get(p, "input"), *output = qkv_http_param_get(p, "output");
    int status = check_params(p, msg, msg_len);
    if (!status && !data)
        status = (snprintf(msg, msg_len, "Required argument 'data' is missing."), 400);
    if (!status && !(*m = serve_models_find(&sc->models, model ? model->value : NULL)))
        status = (snprintf(msg, msg_len, "Requested model '%.100s' does not exist.", model->value), 400);
    if (status || (status = step(p, "tokenizer", &job->tokenize, msg, msg_len)) ||
        (status = step(p, "tagger", &job->tag, msg, msg_len)) || (status = step(p, "parser", &job->parse, msg, msg_len)))
        return status;
    const char *in = input ? input->value : "conllu";
    job->input = !strcmp(in, "horizontal") ? SERVE_INPUT_HORIZONTAL : !strcmp(in, "vertical") ? SERVE_INPUT_VERTICAL
                                                                                              : SERVE_INPUT_CONLLU;
    if (!job->tokenize && strcmp(in, "conllu") && strcmp(in, "horizontal") && strcmp(in, "vertical"))
        return snprintf(msg, msg_len, "Unknown input format '%.60s' (conllu, horizontal or vertical).", in), 400;
    if (output && strcmp(output->value, "conllu"))
        return snprintf(msg, msg_len, "Unknown output format '%.60s' (conllu).", output->value), 400;
    const char *missing = job->tokenize && !(*m)->can_tokenize ? "tokenizer"
                        : job->tag && !(*m)->can_tag       ? "tagger"
                        : job->parse && !(*m)->can_parse   ? "parser" : NULL;
    if (missing)
        return snprintf(msg, msg_len, "The model '%s' does not contain a %s.", (*m)->id, missing), 400;
    job->data = data->value;
    job->len = data->value_len;
    job->max_words = sc->max_words;
    return 0;
}

/* Drops each CR before an LF of the data parameter: a multipart form (a browser's, UDPipe's
 * client's) sends text lines ending in CRLF; the text is the same with LF. */
static void data_lines(qkv_http_params *p)
{
    qkv_http_param *d = (qkv_http_param *)qkv_http_param_get(p, "data");
    if (!d)
        return;
    size_t o = 0;
    for (size_t i = 0; i < d->value_len; i++)
        if (!(d->value[i] == '\r' && i + 1 < d->value_len && d->value[i + 1] == '\n'))
            d->value[o++] = d->value[i];
    d->value[o] = '\0';
    d->value_len = o;
}

static void process_route(serve_ctx *sc, const qkv_http_request *req, qkv_http_response *res)
{
    qkv_http_params p = {0};
    char msg[512];
    int status = qkv_http_query(req, &p) ? (snprintf(msg, sizeof msg, "out of memory"), 500) : 0;
    if (!status && !strcmp(req->method, "POST"))
        status = qkv_http_parse_body(&p, req->content_type, req->body, req->body_len, msg, sizeof msg);
    serve_job job = {0};
    serve_model *m = NULL;
    data_lines(&p);
    if (!status)
        status = read_job(sc, &p, &job, &m, msg, sizeof msg);
    qkv_buf result = {0};
    long n_words = 0;
    if (!status)
        status = serve_process(m, &job, &result, &n_words, msg, sizeof msg);
    if (!status && result.failed)
        status = (snprintf(msg, sizeof msg, "out of memory"), 500);
    if (status)
        json_error(res, status, msg);
    else {
        res->content_type = "application/json";
        qkv_buf_adds(&res->body, "{\n \"model\": ");
        qkv_buf_json_string(&res->body, m->id, strlen(m->id));
        qkv_buf_adds(&res->body, ",\n \"acknowledgements\": [\n  ");
        char ack[256];
        int n = snprintf(ack, sizeof ack, "qkv %s, model %s (%s)", QKV_VERSION, m->id, m->source);
        qkv_buf_json_string(&res->body, ack, n < (int)sizeof ack ? (size_t)n : sizeof ack - 1);
        qkv_buf_adds(&res->body, "\n ],\n \"result\": ");
        qkv_buf_json_string(&res->body, result.data ? result.data : "", result.len);
        qkv_buf_adds(&res->body, "\n}\n");
    }
    qkv_buf_free(&result);
    qkv_http_params_free(&p);
}

static void metrics_route(serve_ctx *sc, qkv_http_response *res)
{
    res->content_type = "text/plain; version=0.0.4";
    qkv_http_stats_write(&sc->stats, "qkv", &res->body);
    qkv_buf_adds(&res->body, "# HELP qkv_words_total Words answered by /process, by model.\n"
                             "# TYPE qkv_words_total counter\n");
    for (int i = 0; i < sc->models.n; i++) {
        serve_model *m = &sc->models.m[i];
        pthread_mutex_lock(&m->lock);
        qkv_buf_addf(&res->body, "qkv_words_total{model=\"%s\"} %llu\n", m->id, (unsigned long long)m->words);
        pthread_mutex_unlock(&m->lock);
    }
}

void serve_handle(void *ctx, const qkv_http_request *req, qkv_http_response *res)
{
    serve_ctx *sc = ctx;
    omp_set_num_threads(1); /* each request on one core: --threads requests run side by side */
    static const char *const ROUTES[] = {"/models", "/process", "/health", "/metrics"};
    int r = 0;
    while (r < 4 && strcmp(req->path, ROUTES[r]))
        r++;
    res->route = r < 4 ? ROUTES[r] : NULL;
    bool get = !strcmp(req->method, "GET") || !strcmp(req->method, "HEAD");
    if (r == 4)
        json_error(res, 404, "no such route: the server answers /models, /process, /health and /metrics");
    else if (!get && !(r < 2 && !strcmp(req->method, "POST"))) {
        res->allow = r < 2 ? "GET, HEAD, POST" : "GET, HEAD";
        json_error(res, 405, "method not allowed here");
    } else if (r == 0)
        models_route(sc, res);
    else if (r == 1)
        process_route(sc, req, res);
    else if (r == 2) {
        res->content_type = "application/json";
        qkv_buf_addf(&res->body, "{\"status\": \"ok\", \"models\": %d}\n", sc->models.n);
    } else
        metrics_route(sc, res);
}
