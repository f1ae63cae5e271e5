/* qkv board: a local web page over run folders (train/cli/cmd_board.c). The server's routes
 * (board.c) answer the page (board_page.html), the list of runs and their pictures, a run's
 * config and its metrics.tsv rows from a byte offset on (board_runs.c, board_metrics.c). Every
 * answer is read from the folders at the time of the request: nothing is kept between
 * requests, so a run that grows, changes or disappears is seen as it is now. */
#ifndef QKV_BOARD_H
#define QKV_BOARD_H

#include <stdbool.h>
#include <stddef.h>

#include "train/http/http_buf.h"
#include "train/http/http_server.h"

#define BOARD_MAX_ROOTS 64

typedef struct board_ctx {
    char *roots[BOARD_MAX_ROOTS]; /* the given folders, resolved (realpath) */
    int n_roots;
} board_ctx;

/* The handler of every request (qkv_http_handler). */
void board_handle(void *ctx, const qkv_http_request *req, qkv_http_response *res);

/* The page: one HTML document with its CSS and script (board_page.html, built into qkv as this
 * array by embed.cmake). */
extern const char BOARD_PAGE[];

/* The runs under the folders and the folders skipped, as JSON (board_runs.c). */
void board_runs_json(const board_ctx *b, qkv_buf *out);

/* The folder of run id ("R" for the R-th given folder that is a run itself, "R/NAME" for its
 * subfolder NAME) into path: true when it is a run inside its given folder now. */
bool board_run_path(const board_ctx *b, const char *id, char *path, size_t len);

/* The file name (relative, a .png) of run id into path: true only when it is a regular file
 * whose real path lies inside the run's folder (no "..", no symlink out). */
bool board_file_path(const board_ctx *b, const char *id, const char *name, char *path, size_t len);

/* The run's config.yaml as JSON pairs of dotted keys and values (board_runs.c). false: none. */
bool board_config_json(const char *run, qkv_buf *out);

/* The complete rows of run/metrics.tsv from byte offset on, as JSON (board_metrics.c): the
 * header's columns when offset is 0 ("columns", and "labels": their display names, "las" ->
 * "LAS", "accuracy_upos" -> "UPOS accuracy", train/metrics.h), then n rows as one array per column ("data"; a number as
 * written, null for nan, a string for the split), the rows of whole lines with as many fields
 * as the header (a line being written is left for later), the offset after them; from 0 again
 * ("reset") when the file is shorter than offset or another file (inode ino; 0: unknown).
 * false: no metrics.tsv. */
bool board_metrics_json(const char *run, long long offset, unsigned long long ino, qkv_buf *out);

#endif
