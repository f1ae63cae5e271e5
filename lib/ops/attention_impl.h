/* Private to the attention op (lib/ops/attention.c, attention_tiled.c, attention_check.c): the state one
 * call saves for its backward pass, the bands of a block, and the tiled kernel's two block
 * functions. See lib/ops/attention.h for the formulas and shapes. */
#ifndef QKV_ATTENTION_IMPL_H
#define QKV_ATTENTION_IMPL_H

#include "lib/ops/attention.h"

typedef struct {
    int d_model, n_heads, d_head, total;
    qkv_real scale;
    double dropout;              /* > 0 only when masks were drawn */
    bool causal;
    qkv_attn_normalize normalize;
    qkv_packed sentences;      /* arena copy: B = sentences.n */
    int *width, *window;         /* [B] */
    bool *tiled;                 /* [B]: sentence b runs the tiled kernel (no stored P) */
    size_t *block;               /* [B · H] start of block in p / pd (stored blocks) */
    qkv_real *qkv;               /* [T, 3D] */
    qkv_real *w_cat;             /* [3D, D] */
    qkv_real *p;                 /* bands of P (stored blocks) */
    qkv_real *pd;                /* bands of dropout(P), or NULL */
    qkv_real *lse;               /* [T, H]: log Σ_j exp(S_ij) of each query and head (tiled
                                    softmax blocks), or NULL */
    const uint64_t *seeds;       /* [B · H] dropout keys of the blocks, or NULL */
    size_t scratch;              /* elements of one scratch tile */
    int nthreads;                /* for the blocks: qkv_parallel_threads of their products */
    const qkv_score_bias *bias;  /* arena copy of the score biases [n_bias], added in order */
    int n_bias;
    double rope_base;            /* > 0: Q and K in qkv are rotated (lib/ops/rope.h) */
    bool rope_2d;                /* the rotation is the 2-D one over grid */
    qkv_grid grid;
} attn_saved;

/* The keys query i sees: lo(i) .. hi(i) (lib/ops/attention.c explains the bands). */
static inline int attn_key_lo(int i, int w) { return i - w > 0 ? i - w : 0; }
static inline int attn_key_hi(int i, int w, int n, bool causal)
{
    if (causal)
        return i;
    return i + w < n - 1 ? i + w : n - 1;
}

/* Query rows and keys of one tile of the tiled kernel; its scratch in elements. */
#define ATTN_TILED_ROWS 32
#define ATTN_TILED_KEYS 64
#define ATTN_TILED_FWD_SCRATCH ((size_t)ATTN_TILED_ROWS * ATTN_TILED_KEYS)
#define ATTN_TILED_BWD_SCRATCH ((size_t)3 * ATTN_TILED_ROWS * ATTN_TILED_KEYS + 2 * ATTN_TILED_ROWS)

/* Forward of block (b, h) by the tiled kernel: writes O_h of sentence b into o [T, D] and,
 * for softmax, the rows' log-sum-exp into sv->lse. st: scratch of ATTN_TILED_FWD_SCRATCH. */
void attn_tiled_forward(const attn_saved *sv, int b, int h, qkv_real *o, qkv_real *st);
/* Backward of block (b, h) by the tiled kernel: recomputes the scores tile by tile and adds
 * into dqkv [T, 3D] and the learned score biases' per-block gradients dbias. o, dout: the
 * node's output and its gradient [T, D]. st: scratch of ATTN_TILED_BWD_SCRATCH. */
void attn_tiled_backward(const attn_saved *sv, int b, int h, const qkv_real *o, const qkv_real *dout,
                         qkv_real *dqkv, qkv_real *st, qkv_real *const *dbias);

/* (lib/ops/attention_check.c) Checks x, the projections, the options and the score biases
 * (the sentences are checked by qkv_tape_packed); false after failing the tape. */
bool attn_check_inputs(qkv_tape *tp, qkv_tensor *x, const qkv_attention_proj *proj, const qkv_score_bias *biases,
                       int n_biases, const qkv_attention_opts *opts);
/* (lib/ops/attention_check.c) With rope_2d or a score bias on a grid, every sentence has the
 * grid's length; false after failing the tape. */
bool attn_check_grid_lengths(qkv_tape *tp, qkv_packed sent, const qkv_score_bias *biases, int n_biases,
                             const qkv_attention_opts *opts);

#endif
