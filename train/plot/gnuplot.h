/* Running gnuplot on a script that qkv writes beside the image it draws, so that a user can
 * edit the script and rerun it (`gnuplot loss.gp`). Used by `qkv plot`, `qkv attention` and
 * the end-of-epoch loss plot of `qkv train`. gnuplot 5.2 or later (Debian: gnuplot-nox). */
#ifndef QKV_GNUPLOT_H
#define QKV_GNUPLOT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "lib/error.h"

typedef enum { QKV_IMAGE_PNG, QKV_IMAGE_SVG } qkv_image_kind;

/* The image kind from the file name's extension (.png or .svg, any case). Errors: another
 * extension (naming the file). */
int qkv_image_kind_of(const char *path, qkv_image_kind *kind, qkv_error *err);

/* An image size "WIDTHxHEIGHT" in pixels, each 16..20000 (e.g. "960x720"): sets *width and
 * *height and returns true; false for anything else. */
bool qkv_image_size_parse(const char *text, int *width, int *height);

/* The script path for an image: the image path with its extension replaced by ".gp". */
void qkv_gnuplot_script_path(const char *image, char *out, size_t len);

/* Writes s as a gnuplot double-quoted string literal (backslash and " escaped). */
void qkv_gnuplot_quote(FILE *f, const char *s);
/* The same for a tic label, which gnuplot reads as a format: '%' is doubled. */
void qkv_gnuplot_quote_tic(FILE *f, const char *s);

/* Writes the `set terminal ...` and `set output ...` lines for an image of width x height
 * pixels (svg: the same size in its units). */
void qkv_gnuplot_terminal(FILE *f, qkv_image_kind kind, const char *image, int width, int height);

/* An absolute form of path (the current folder prepended when relative), for scripts that
 * can be rerun from anywhere. */
void qkv_path_absolute(const char *path, char *out, size_t len);

/* True when an executable `gnuplot` is on PATH. */
bool qkv_gnuplot_available(void);

/* Runs `gnuplot SCRIPT` (fork and exec, no shell) and waits for it. gnuplot's messages go to
 * standard error. Errors: gnuplot not on PATH (the message names the script, which is
 * already written, and the Debian package gnuplot-nox), gnuplot failing (its exit status). */
int qkv_gnuplot_run(const char *script, qkv_error *err);

/* Writes a script's text to f: for an image of kind at image and the script at script (both
 * absolute paths, as qkv_gnuplot_draw gives them; the script names itself in its "rerun with"
 * comment); ctx is the caller's. */
typedef void qkv_gnuplot_writer(FILE *f, qkv_image_kind kind, const char *image, const char *script,
                                const void *ctx);

/* Draws image (.png or .svg, of kind): writes the script beside its absolute form
 * (qkv_gnuplot_script_path) with write, then runs gnuplot on it (qkv_gnuplot_run). Errors: the
 * script not writable (naming it), those of qkv_gnuplot_run. */
int qkv_gnuplot_draw(const char *image, qkv_image_kind kind, qkv_gnuplot_writer *write, const void *ctx,
                     qkv_error *err);

#endif
