/* A character-level word encoder (a character CNN, as in Santos & Zadrozny 2014 and Ma & Hovy
 * 2016): each word's character ids (framed by begin/end-of-word markers, see data/features.h)
 *   -> character embeddings [C, char_dim]
 *   -> 1-D convolution of width char_width inside each word, zero-padded at its ends
 *      (qkv_packed_windows, then a linear map to char_filters channels) -> ReLU
 *   -> max over the word's characters [T, char_filters]
 *   -> linear projection to d_model, added to the word's feature embeddings by the network.
 * It gives a word never seen in training a vector built from its spelling.
 *
 * Parameter names (HDF5 datasets of a checkpoint, and the PyTorch port's names):
 *   chars.embed   [n_chars, char_dim]
 *   chars.conv.w  [char_filters, char_width * char_dim]   (torch Conv1d weight [F, D, W]
 *                 transposed to [F, W, D] and flattened: column k·D + d is tap k, channel d)
 *   chars.conv.b  [char_filters]
 *   chars.proj.w  [d_model, char_filters]                 (no bias) */
#ifndef QKV_CHAR_CNN_H
#define QKV_CHAR_CNN_H

#include <stdint.h>

#include "lib/param.h"
#include "lib/packed.h"
#include "lib/tape.h"

typedef struct qkv_char_cnn_config {
    int n_chars;       /* character vocabulary size (UNK and the markers included) */
    int char_dim;      /* character embedding size */
    int char_filters;  /* convolution channels */
    int char_width;    /* convolution width in characters, odd */
    int d_model;       /* output size */
} qkv_char_cnn_config;

typedef struct qkv_char_cnn {
    qkv_char_cnn_config cfg;
    qkv_tensor *embed, *conv_w, *conv_b, *proj_w;
} qkv_char_cnn;

/* Adds the parameters to ps under "chars.*" and initialises them from rng: embeddings N(0, 1),
 * convolution and projection Xavier uniform, convolution bias 0. Errors: a size < 1, an even
 * width, a parameter that cannot be added. */
int qkv_char_cnn_create(qkv_char_cnn *c, qkv_params *ps, qkv_rng *rng, const qkv_char_cnn_config *cfg,
                        qkv_error *err);

/* Word vectors [words.n, d_model] from the character ids chars [qkv_packed_rows(words)]
 * (each in 0..n_chars-1) packed by words (lib/packed.h; every word non-empty). NULL when the
 * tape failed. */
qkv_tensor *qkv_char_cnn_forward(qkv_tape *tp, const qkv_char_cnn *c, const int32_t *chars, qkv_packed words);

#endif
