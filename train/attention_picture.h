/* The attention picture of a model of words: the model run on one sentence of its session's dev
 * set, alone in its batch and without dropout, and the attention weights P of one layer drawn
 * as heatmaps (train/plot/plot_attention.h), the queries labelled with the words and the tags
 * the model predicts (a parser: the labels of its predicted arcs, and one more panel with the
 * probability of each candidate head). `qkv attention --sentence` draws its sentence with it,
 * and `qkv train` the first dev sentence into RUN_DIR/plots/attention.png after each epoch
 * (log.plot_attention). */
#ifndef QKV_ATTENTION_PICTURE_H
#define QKV_ATTENTION_PICTURE_H

#include "api/session.h"

/* The most words of the sentence qkv train draws after each epoch: a heatmap stays legible. */
#define QKV_ATTENTION_PICTURE_WORDS 30

typedef struct qkv_attention_picture {
    int max_words;     /* the first sentence of s->dev of 1 .. max_words words is drawn */
    int layer;         /* encoder block, 0 .. n_layers - 1 */
    int head;          /* 0 .. n_heads - 1, or -1: every head of the layer in a grid */
    int width, height; /* the image in pixels; 0: sized to the sentence */
} qkv_attention_picture;

/* Draws the picture of s's model (a transformer encoder over words) into image (.png or .svg,
 * its gnuplot script beside it). Errors (err): no dev sentence of 1 .. max_words words (naming
 * the dev set), the model's, out of memory, those of qkv_plot_attention (a bad head, gnuplot
 * missing or failing). */
int qkv_attention_picture_draw(qkv_session *s, const qkv_attention_picture *p, const char *image, qkv_error *err);

#endif
