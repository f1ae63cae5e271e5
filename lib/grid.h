/* The 2-D layout of the tokens of an image (pixels or patches, row-major), for 2-D positions,
 * 2-D local attention and 2-D convolution.
 *
 * Each sequence of a packed batch (lib/packed.h) is then n_prefix tokens that have no place on
 * the grid (e.g. a [CLS] token; 0 or 1) followed by rows · cols grid tokens: token t >= n_prefix
 * of a sequence sits at row (t - n_prefix) / cols and column (t - n_prefix) % cols. rows = 0
 * means a 1-D input (words, speech frames): no grid. */
#ifndef QKV_GRID_H
#define QKV_GRID_H

#include <stdbool.h>

typedef struct qkv_grid {
    int rows, cols; /* tokens per column and per row; 0, 0: no grid */
    int n_prefix;   /* tokens before the grid in each sequence */
} qkv_grid;

static inline bool qkv_grid_is_2d(qkv_grid g) { return g.rows > 0 && g.cols > 0; }

/* The tokens of one sequence: n_prefix + rows · cols. */
static inline int qkv_grid_len(qkv_grid g) { return g.n_prefix + g.rows * g.cols; }

/* Row and column of token t of a sequence (n_prefix <= t < qkv_grid_len(g)). */
static inline int qkv_grid_row(qkv_grid g, int t) { return (t - g.n_prefix) / g.cols; }
static inline int qkv_grid_col(qkv_grid g, int t) { return (t - g.n_prefix) % g.cols; }

#endif
