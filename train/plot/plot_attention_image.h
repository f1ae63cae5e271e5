/* Where one query of an image attends (`qkv attention --image`): the image, then one panel per
 * head with the image in grey and the head's attention weights P[query, key] over the grid's
 * keys laid over it (each key a cell of patch x patch pixels, red, its opacity the weight over
 * the largest weight of that head), the query's cell circled. The weights to the prefix token
 * ([CLS]) have no place on the grid: each panel's title gives that weight. A gnuplot script with
 * the pixels and weights inline (datablocks) is written beside the image. */
#ifndef QKV_PLOT_ATTENTION_IMAGE_H
#define QKV_PLOT_ATTENTION_IMAGE_H

#include <stdint.h>

#include "lib/error.h"
#include "lib/grid.h"
#include "lib/ops/attention.h"

typedef struct qkv_attention_image_plot {
    const qkv_attention_weights *w; /* of a batch whose sequence 0 is the image */
    qkv_grid grid;                  /* the model's: n_prefix tokens, then rows x cols cells */
    int patch;                      /* pixels per cell side (1: a token per pixel) */
    int rows, cols, channels;       /* the image in pixels: rows = grid.rows * patch */
    const uint8_t *pixels;          /* [rows, cols, channels], 0..255; channel 0 (or 0..2 as RGB) is drawn */
    int query;                      /* the query token of the sequence: 0..n_prefix-1 or a grid cell */
    int layer;                      /* for the titles */
    int head;                       /* 0 .. n_heads - 1, or -1: every head in a grid */
    const char *caption;            /* the first title line, e.g. the file, image and predicted class */
    int width, height;              /* the picture in pixels; 0: about 300 pixels a panel */
} qkv_attention_image_plot;

/* Writes the script beside image (.png or .svg) and runs gnuplot. Errors (err): the image
 * extension, a head, query or grid that does not fit w, the script not writable, gnuplot
 * missing (script written) or failing. */
int qkv_plot_attention_image(const qkv_attention_image_plot *ap, const char *image, qkv_error *err);

#endif
