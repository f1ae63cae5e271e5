/* qkv board [RUN_DIR|RUNS_PARENT ...] [--port N] [--host ADDR]: a local web page over run
 * folders (train/board/board.h) on the server of train/http/http_server.h. */
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "train/board/board.h"
#include "train/cli/cli.h"
#include "train/cli/commands.h"
#include "train/fail.h"

static const char ABOUT[] =
    "A web page over run folders, updating while they train: it lists the runs of\n"
    "each folder given (a run folder itself, or a folder of runs; default: runs) and\n"
    "draws, for the runs chosen on it, the training loss by step (raw and smoothed),\n"
    "the dev loss, the learning rate and every dev score under its own name (LAS,\n"
    "UAS, UPOS accuracy, span F1, ...) in percent, with the epochs marked; each\n"
    "run's config and the keys in which the chosen runs differ; each run's PNG\n"
    "pictures (the loss plot, the attention picture of each epoch, ...), full size on\n"
    "click. The page asks for new rows every 2 s (every second while a run is being\n"
    "written). A folder that is not a run is listed as skipped; no file outside the\n"
    "folders given is served. It listens on this machine only unless --host says\n"
    "otherwise (for another machine: an SSH tunnel, ssh -L 8090:127.0.0.1:8090 HOST).\n"
    "SIGTERM or SIGINT stops it with status 0.\n"
    "  qkv board runs --port 8090     # then open http://127.0.0.1:8090/\n";

typedef struct board_args {
    char *dirs[QKV_CLI_MAX_LIST];
    int n_dirs;
    const char *host;
    long port;
} board_args;

static int parse_args(board_args *a, int argc, char **argv)
{
    const qkv_cli_opt rows[] = {
        {"RUN_DIR", QKV_CLI_LIST, a->dirs, "RUN_DIR|RUNS_PARENT", .count = &a->n_dirs},
        {"--port", QKV_CLI_INT, &a->port, "N", "the TCP port to listen on (default 8090; 0: a free one, printed)",
         .lo = 0, .hi = 65535},
        {"--host", QKV_CLI_STRING, &a->host, "ADDR",
         "the address to listen on (default 127.0.0.1, this machine only;\n0.0.0.0: every IPv4 address, ::: every one)"},
    };
    const qkv_cli_spec spec = {"board", ABOUT, NULL, rows, QKV_CLI_N(rows)};
    return qkv_cli_parse(&spec, argc, argv);
}

/* The folders given, resolved; an error names one that does not exist or is not a folder. */
static int resolve_dirs(board_ctx *b, const board_args *a)
{
    const char *def = "runs";
    int n = a->n_dirs ? a->n_dirs : 1;
    if (n > BOARD_MAX_ROOTS)
        return qkv_fail_reportf("at most %d folders", BOARD_MAX_ROOTS);
    for (int i = 0; i < n; i++) {
        const char *d = a->n_dirs ? a->dirs[i] : def;
        char real[PATH_MAX];
        if (!realpath(d, real))
            return qkv_fail_reportf("%s: no such folder (give run folders, or folders of runs)", d);
        b->roots[b->n_roots++] = strdup(real);
    }
    return 0;
}

static void free_dirs(board_ctx *b)
{
    for (int i = 0; i < b->n_roots; i++)
        free(b->roots[i]);
}

int qkv_cmd_board(int argc, char **argv)
{
    board_args a = {.host = "127.0.0.1", .port = 8090};
    int usage = parse_args(&a, argc, argv);
    if (usage >= 0)
        return usage;
    if (!qkv_http_available())
        return qkv_fail_reportf("this qkv was built without libmicrohttpd: install it (Debian: "
                                "apt-get install libmicrohttpd-dev), then run cmake and build again");
    static board_ctx b;
    int rc = resolve_dirs(&b, &a);
    if (rc) {
        free_dirs(&b);
        return rc;
    }
    /* SIGINT and SIGTERM are taken by sigwait: blocked before the server's threads start */
    sigset_t stop;
    sigemptyset(&stop);
    sigaddset(&stop, SIGINT);
    sigaddset(&stop, SIGTERM);
    pthread_sigmask(SIG_BLOCK, &stop, NULL);
    qkv_http_options o = {.host = a.host, .port = (int)a.port, .threads = 4, .max_body = 4096, .timeout = 30,
                          .max_queue = 256, .same_origin = true};
    qkv_error err;
    qkv_http_server *server = qkv_http_start(&o, board_handle, &b, &err);
    if (!server) {
        free_dirs(&b);
        return qkv_fail_report(&err);
    }
    bool v6 = strchr(a.host, ':') != NULL;
    fprintf(stderr, "qkv board: listening on http://%s%s%s:%d/ (SIGTERM or Ctrl-C stops)\n", v6 ? "[" : "", a.host,
            v6 ? "]" : "", qkv_http_port(server));
    int sig = 0;
    sigwait(&stop, &sig);
    fprintf(stderr, "qkv board: %s: stopping\n", sig == SIGINT ? "SIGINT" : "SIGTERM");
    qkv_http_stop(server, 5);
    free_dirs(&b);
    fprintf(stderr, "qkv board: stopped\n");
    return 0;
}
