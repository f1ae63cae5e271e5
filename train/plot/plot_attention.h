/* Heatmaps of attention weights P for one sentence (rows = queries, columns = keys), labelled
 * with the words, as a gnuplot script (the weights inline as datablocks) and an image. One head,
 * or every head of the layer in a grid; a parser's arc probabilities as one more panel. Keys a query does not see (outside the window, or
 * after it when causal) are masked: grey cells, and -1 in the script's datablocks. */
#ifndef QKV_PLOT_ATTENTION_H
#define QKV_PLOT_ATTENTION_H

#include "lib/ops/attention.h"
#include "lib/error.h"

typedef struct qkv_attention_plot {
    const qkv_attention_weights *w; /* from qkv_network_logits(..., keep_layer, keep) */
    int sentence;                   /* index b in w */
    int n_words;                    /* the sentence's length */
    const char *const *words;       /* [n_words] labels of keys and queries */
    const char *const *tags;        /* [n_words] predicted tags for the query labels, or NULL */
    int layer;                      /* for the titles */
    int head;                       /* 0 .. n_heads - 1, or -1: every head in a grid */
    int width, height;              /* the image in pixels; 0: sized to the sentence */
    const double *arcs;             /* [n_words, n_words + 1] a parser's head probabilities (column 0 ROOT,
                                       j word j), drawn as one more panel; NULL: none */
} qkv_attention_plot;

/* Writes the script beside image (.png or .svg) and runs gnuplot. Unless ap gives a size, the
 * image grows with the sentence: cells of 28 pixels for up to 12
 * words, shrinking to 14 pixels from 68 words on, room for every label. Errors (err): bad head or sentence index, image
 * extension, the script not writable, gnuplot missing (script written) or failing. */
int qkv_plot_attention(const qkv_attention_plot *ap, const char *image, qkv_error *err);

/* The heads a plot of w's layer draws, h0 .. h1 - 1: head alone (0 .. n_heads - 1), or every
 * head (head -1). Errors: any other head (naming the layer's heads). Shared with
 * train/plot/plot_attention_image.c. */
int qkv_attention_plot_heads(const qkv_attention_weights *w, int head, int *h0, int *h1, qkv_error *err);

#endif
