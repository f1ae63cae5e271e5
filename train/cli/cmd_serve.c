/* qkv serve [MODEL...] [--port N] [--host ADDR] [--threads N]: UDPipe's REST API over HTTP
 * (train/serve/serve_rest.h) on the server of train/http/http_server.h. */
#include <signal.h>
#include <stdio.h>
#include <string.h>

#include "data/segment.h"
#include "train/cli/cli.h"
#include "train/cli/commands.h"
#include "train/fail.h"
#include "train/http/http_server.h"
#include "train/serve/serve_rest.h"

static const char ABOUT[] =
    "Serves models over HTTP with UDPipe's REST API, so that UDPipe's clients work:\n"
    "GET or POST /process (parameters model, tokenizer, tagger, parser, input:\n"
    "conllu|horizontal|vertical, output: conllu, and data; in the URL's query or a form\n"
    "body, urlencoded or multipart) answers {\"model\", \"acknowledgements\", \"result\"},\n"
    "the result being the CoNLL-U qkv tag writes for the same text; /models lists the\n"
    "models and what each does; /health answers {\"status\": \"ok\"}; /metrics is\n"
    "Prometheus text (requests, errors, words, latency quantiles). A bad request gets a\n"
    "4xx status and {\"error\": \"...\"}. Each MODEL (default: en, the shipped English\n"
    "model) is a shipped model's name or a model file (its name in the API: the file's\n"
    "name without .h5; the first is the default); models of words only: image and frame\n"
    "models are tagged with qkv tag. Nothing is written to disk. SIGTERM or\n"
    "SIGINT stops it: the requests in flight finish (within 60 s), then it exits with\nstatus 0.\n"
    "  qkv serve --port 8080 &\n"
    "  curl -F tokenizer= -F tagger= -F parser= -F data='Some raw text.' \\\n"
    "      http://127.0.0.1:8080/process\n";

/* Seconds a stop waits for the requests in flight. */
#define SERVE_STOP_GRACE 60

typedef struct serve_args {
    char *models[QKV_CLI_MAX_LIST];
    int n_models;
    const char *host;
    long port, threads, max_body, timeout, max_words, max_queue;
} serve_args;

static int parse_args(serve_args *a, int argc, char **argv)
{
    const qkv_cli_opt rows[] = {
        {"MODEL", QKV_CLI_LIST, a->models, "MODEL", .count = &a->n_models},
        {"--port", QKV_CLI_INT, &a->port, "N", "the TCP port to listen on (default 8080; 0: a free one, printed)",
         .lo = 0, .hi = 65535},
        {"--host", QKV_CLI_STRING, &a->host, "ADDR",
         "the address to listen on (default 127.0.0.1, this machine only;\n0.0.0.0: every IPv4 address, ::: every one)"},
        {"--threads", QKV_CLI_INT, &a->threads, "N",
         "requests answered at the same time, each on one core and its own\ncopy of the model, opened when needed "
         "(default 2)", .lo = 1, .hi = 256},
        {"--max-body", QKV_CLI_INT, &a->max_body, "BYTES",
         "the largest request body taken (default 1048576); larger: 413", .lo = 1024, .hi = 1L << 30},
        {"--timeout", QKV_CLI_INT, &a->timeout, "SECONDS",
         "a connection idle this long is closed (default 60)", .lo = 1, .hi = 86400},
        {"--max-queue", QKV_CLI_INT, &a->max_queue, "N",
         "the most requests waiting for a thread (default 256); more: 503", .lo = 1, .hi = 1000000},
        {"--max-words", QKV_CLI_INT, &a->max_words, "N",
         "the most words a sentence may have (raw text: as segmented, before\nthe tagger and parser see it; "
         "default " QKV_CLI_STR(QKV_SEG_MAX_SENTENCE_WORDS) "); more: 400",
         .lo = 1, .hi = 100000},
    };
    const qkv_cli_spec spec = {"serve", ABOUT, NULL, rows, QKV_CLI_N(rows)};
    return qkv_cli_parse(&spec, argc, argv);
}

static void print_models(const serve_models *ms)
{
    for (int i = 0; i < ms->n; i++) {
        const serve_model *m = &ms->m[i];
        fprintf(stderr, "qkv serve: model %s (%s):%s%s%s%s\n", m->id, m->source, m->can_tokenize ? " tokenizer" : "",
                m->can_tag ? " tagger" : "", m->can_parse ? " parser" : "", i == 0 ? ", the default" : "");
    }
}

int qkv_cmd_serve(int argc, char **argv)
{
    serve_args a = {.host = "127.0.0.1", .port = 8080, .threads = 2, .max_body = 1 << 20, .timeout = 60,
                    .max_words = QKV_SEG_MAX_SENTENCE_WORDS, .max_queue = 256};
    int usage = parse_args(&a, argc, argv);
    if (usage >= 0)
        return usage;
    if (!qkv_http_available())
        return qkv_fail_reportf("this qkv was built without libmicrohttpd: install it (Debian: "
                                "apt-get install libmicrohttpd-dev), then run cmake and build again");
    /* SIGINT and SIGTERM are taken here by sigwait, never by a thread that computes (see
       train/interrupt.h): blocked before any thread starts, so every thread inherits the block */
    sigset_t stop;
    sigemptyset(&stop);
    sigaddset(&stop, SIGINT);
    sigaddset(&stop, SIGTERM);
    pthread_sigmask(SIG_BLOCK, &stop, NULL);
    static serve_ctx sc;
    qkv_error err;
    qkv_http_stats_init(&sc.stats);
    sc.max_words = (int)a.max_words;
    if (serve_models_open(&sc.models, a.models, a.n_models, (int)a.threads, (int)a.max_words, &err)) {
        serve_models_free(&sc.models);
        return qkv_fail_report(&err);
    }
    print_models(&sc.models);
    qkv_http_options o = {.host = a.host, .port = (int)a.port, .threads = (int)a.threads, .max_body = (size_t)a.max_body,
                          .timeout = (unsigned)a.timeout, .max_queue = (int)a.max_queue, .stats = &sc.stats};
    qkv_http_server *server = qkv_http_start(&o, serve_handle, &sc, &err);
    if (!server) {
        serve_models_free(&sc.models);
        return qkv_fail_report(&err);
    }
    fprintf(stderr, "qkv serve: listening on http://%s%s%s:%d/ (%ld thread%s; SIGTERM or Ctrl-C stops)\n",
            strchr(a.host, ':') ? "[" : "", a.host, strchr(a.host, ':') ? "]" : "", qkv_http_port(server), a.threads,
            a.threads == 1 ? "" : "s");
    int sig = 0;
    sigwait(&stop, &sig);
    fprintf(stderr, "qkv serve: %s: finishing the requests in flight\n", sig == SIGINT ? "SIGINT" : "SIGTERM");
    qkv_http_stop(server, SERVE_STOP_GRACE);
    serve_models_free(&sc.models);
    qkv_http_stats_free(&sc.stats);
    fprintf(stderr, "qkv serve: stopped\n");
    return 0;
}
