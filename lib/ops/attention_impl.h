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
    bool batched;                /* the blocks run as batched products (attn_batched) */
    qkv_real *heads;             /* batched: the forward's head-major Q, K, V, each [B · H, n, d_head] */
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

/* Query i's scores for its keys a .. e-1 in row[0 .. e-a) (w, W, n: its sentence's window, band
 * width and length; blk: the block's start in the bands): adds the score biases, normalizes,
 * stores P (and dropout(P), drawing from rng) in the bands; row then holds the P that
 * multiplies V. */
void attn_finish_row(const attn_saved *sv, int h, int i, int w, int W, int n, int a, int e, qkv_real *row,
                     size_t blk, qkv_rng *rng);
/* dS of query i (head h) for its keys key0 + a .. key0 + e - 1 from dP: p[j], pd[j] (dropout(P),
 * or NULL), g[j] (dP, changed in place by the dropout) and row[j] (dS, written) for j in a .. e-1;
 * adds the learned score biases' gradients into dbias[m] (NULL: none). */
void attn_score_grad_row(const attn_saved *sv, int h, int i, int key0, int a, int e, const qkv_real *p,
                         const qkv_real *pd, qkv_real *g, qkv_real *row, qkv_real *const *dbias);

/* (lib/ops/attention_batched.c) Whether the blocks run batched: qkv_attention_batch_blocks, at
 * least 2 sentences, all of one length n >= 2, each query seeing the whole sentence (window n - 1:
 * a band as wide as the sentence is not enough, a window of 3 in 5 words is not whole), the
 * stored kernel, not causal (needs sv's window and tiled). */
bool attn_batched(const attn_saved *sv);
/* The forward pass of all blocks batched: writes O [T, D] (and the bands of P, dropout(P) as
 * the per-block path does). work: attn_batched_forward_work(sv) elements, which begin with the
 * head-major Q, K and V that the backward pass reads (sv->heads = work). */
size_t attn_batched_forward_work(const attn_saved *sv);
void attn_batched_forward(const attn_saved *sv, qkv_real *o, qkv_real *work);
/* The backward pass of all blocks batched: adds into dqkv [T, 3D] and the learned score biases'
 * per-block gradients dbias_all[m] (per_head[m] values a block; NULL: none). work:
 * attn_batched_backward_work(sv) elements. */
size_t attn_batched_backward_work(const attn_saved *sv);
void attn_batched_backward(const attn_saved *sv, const qkv_real *dout, qkv_real *dqkv, qkv_real *work,
                           qkv_real *const *dbias_all, const size_t *per_head);

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
