/* Multi-head self-attention over a packed batch (Vaswani et al. 2017, "Attention is all you
 * need", section 3.2), with truncated (banded) and causal attention and a relu alternative to
 * softmax. One token per row.
 *
 * Packed batch: X [T, d_model] holds the tokens of B sentences end to end; the sentences
 * (lib/packed.h: B = sentences.n, offsets [B + 1], offsets[B] = T) give sentence b as rows
 * offsets[b] .. offsets[b+1]-1. No token attends across sentences; no padding exists.
 *
 * Per sentence b (n tokens) and head h (d_head = d_model / n_heads columns):
 *   Q = X w_q^T + b_q, K = X w_k^T + b_k, V = X w_v^T + b_v     (one GEMM over all T rows)
 *   S = Q_h K_h^T · scale [+ Σ_m b_m(h, i, j)]                    [n, n], only the band
 *   P = softmax(S) row by row (max-shifted), or relu(S) / n_visible_keys(i)
 *   O_h = dropout(P) V_h;   Y = concat_h(O_h) w_o^T + b_o            [T, d_model]
 * Query i sees key j when |i - j| <= window (window 0: the whole sentence) and, if causal,
 * j <= i. The b_m are the call's list of score biases (lib/ops/score_bias.h: its kinds),
 * added in list order in the kernel, no n×n bias tensor. With rope_base > 0 the rows of Q and
 * K are rotated by their position in the sentence right after the projection (RoPE,
 * lib/ops/rope.h; with rope_2d by their row and column on opts->grid). Only the band is computed and stored: time and memory per (sentence, head)
 * grow as n · min(n, 2·window + 1).
 *
 * Backward: dS = P ⊙ (dP − rowsum(P ⊙ dP)) per row for softmax (O(n) per row); for relu
 * dS = [S > 0] ⊙ dP / n_visible_keys. Blocks (sentence, head) run in parallel with OpenMP;
 * within a block the products use BLAS single-threaded on tiles of query rows. The stored
 * kernel keeps P for the backward pass; the tiled kernel (opts->kernel) keeps only each row's
 * log-sum-exp and recomputes the scores, so that a block's memory is linear in n. */
#ifndef QKV_ATTENTION_H
#define QKV_ATTENTION_H

#include <stdint.h>

#include "lib/ops/score_bias.h"
#include "lib/param.h"
#include "lib/packed.h"
#include "lib/tape.h"

typedef enum { QKV_ATTN_SOFTMAX = 0, QKV_ATTN_RELU = 1, QKV_ATTN_NORMALIZE_COUNT } qkv_attn_normalize;
/* "softmax", "relu" (index = value), then NULL: the spelling of configs and messages. */
extern const char *const QKV_ATTN_NORMALIZE_NAMES[];

/* How a block (sentence, head) keeps what its backward pass needs. stored: P of the band
 * (n · min(n, 2·window + 1) values per block, twice with dropout). tiled: only the rows'
 * log-sum-exp; the backward pass recomputes the scores tile by tile (lib/ops/attention_tiled.c;
 * memory linear in n). auto: tiled for the blocks whose band is wider than tiled_above keys
 * (a whole sentence of n tokens: n keys; a window w: at most 2w + 1, whose stored P is already
 * linear in n), stored for the others. The two agree up to float rounding, except that with dropout they draw different
 * masks (the tiled kernel's are counter-based, a function of (block, i, j)). */
typedef enum { QKV_ATTN_KERNEL_STORED = 0, QKV_ATTN_KERNEL_TILED = 1, QKV_ATTN_KERNEL_AUTO = 2, QKV_ATTN_KERNEL_COUNT } qkv_attn_kernel;
/* "stored", "tiled", "auto" (index = value), then NULL. */
extern const char *const QKV_ATTN_KERNEL_NAMES[];

typedef struct qkv_attention_opts {
    int n_heads;                  /* must divide d_model */
    double scale;                 /* 0: 1 / sqrt(d_head) */
    int window;                   /* 0: whole sentence; else |i - j| <= window */
    bool causal;                  /* j <= i */
    qkv_attn_normalize normalize; /* softmax (default) or relu */
    double dropout;               /* on P, in [0, 1); identity when tp->no_grad */
    int rel_clip;                 /* > 0: the layer's relative position biases for offsets -R .. R
                                     (lib/ops/rel_bias.h; lib/nn/mha.h adds them to the list) */
    double rope_base;             /* > 0: rotary embedding of q and k (lib/ops/rope.h); d_head even */
    const qkv_score_bias_kind *pos_bias; /* the score bias of the positional kind (set by
                                     qkv_positional_attention, lib/nn/positional.h), or NULL; a
                                     learned one (kind->n_learned) is the layer's parameter
                                     (lib/nn/mha.h) */
    int pos_bias_clip;            /* pos_bias's clip (2-D relative biases: R) */
    bool rope_2d;                 /* with rope_base > 0: the axial 2-D rotation over grid
                                     (lib/ops/rope.h, qkv_rope_rotate_2d) instead of the 1-D one */
    int window_2d;                /* > 0: 2-D local attention, grid tokens see grid keys within
                                     ±window_2d rows and columns (lib/ops/grid_bias.h, local2d;
                                     lib/nn/mha.h adds it to the list) */
    qkv_grid grid;                /* the 2-D layout of every sentence (lib/grid.h), for rope_2d
                                     and the 2-D score biases; rows 0: none */
    qkv_attn_kernel kernel;       /* stored (0, the default), tiled or auto (see above) */
    int tiled_above;              /* auto: blocks whose band is wider than this many keys are tiled */
} qkv_attention_opts;

/* Attention weights P of one forward pass, kept for inspection (e.g. heatmaps). The arrays
 * live in the tape's arena: valid until the next qkv_tape_reset(). Read with
 * qkv_attention_weight(). P is stored before dropout. A call that keeps them runs the stored
 * kernel for every block, whatever opts->kernel says. */
typedef struct qkv_attention_weights {
    qkv_packed sentences;   /* copy of the batch's */
    int n_heads;
    const int *width;         /* [sentences.n]: band width W of each sentence */
    const int *window;        /* [sentences.n]: effective window (n - 1 when whole sentence) */
    const size_t *block;      /* [sentences.n * n_heads]: start of block (b, h) in p */
    const qkv_real *p;        /* per block [n, W]: row i holds keys s(i) .. s(i) + W - 1 */
    bool causal;              /* the layer's opts->causal */
} qkv_attention_weights;

/* P[i][j] of sentence b, head h (0 for a key that query i does not see). */
double qkv_attention_weight(const qkv_attention_weights *w, int b, int h, int i, int j);
/* True when query i of sentence b sees key j: |i - j| <= window and, if causal, j <= i. A
 * weight of 0 from a seen key is a real 0 (e.g. of relu attention); an unseen key is masked. */
bool qkv_attention_sees(const qkv_attention_weights *w, int b, int i, int j);

/* Blocks (sentence, head) whose band is at most this many keys wide (a window of +-4 gives 9;
 * a whole sentence of n words gives n) are computed without BLAS, query by query over the
 * visible keys only; wider ones in BLAS tiles of 32 queries. Default 16. The two kernels agree
 * up to float rounding; tests set it to 0 (tiles only) or INT_MAX (direct only) to check both. */
extern int qkv_attention_direct_max_width;
/* When every sentence of a batch has the same length and each query sees all of it (window 0 or
 * at least the length minus one, not causal, the stored kernel), the blocks' products run
 * batched over all blocks (lib/ops/attention_batched.c; images). Default true; the two paths
 * agree up to float rounding, with the same dropout masks; tests set it false to compare them. */
extern bool qkv_attention_batch_blocks;
/* Forward passes that ran batched since the process started (for the tests). */
extern _Atomic long qkv_attention_batched_passes;

/* The projections of the attention core: w_q, w_k, w_v [d_model, d_model] (PyTorch's [out,
 * in]) and biases b_q, b_k, b_v [d_model] (each bias may be NULL). */
typedef struct qkv_attention_proj {
    qkv_tensor *w_q, *w_k, *w_v, *b_q, *b_k, *b_v;
} qkv_attention_proj;

/* The attention core without the output projection:
 *   O [T, d_model] = concat_h(dropout(normalize(Q_h K_h^T · scale + Σ_m b_m)) V_h),
 * Q/K/V from x [T, d_model] by proj, the score biases biases [n_biases] (lib/ops/score_bias.h;
 * n_biases <= QKV_ATTN_MAX_BIASES; may be NULL when 0). `keep` (may be NULL) receives P.
 * One tape node "attention". Errors (on the tape): n_heads does not divide d_model (naming
 * both), shapes, sentences not covering x, a score bias that does not fit (its kind's check,
 * e.g. rel_bias missing or of the wrong shape), a kernel out of range or a negative
 * tiled_above, a sentence whose length is not the grid's when rope_2d or a score bias uses
 * the grid. */
qkv_tensor *qkv_attention(qkv_tape *tp, qkv_tensor *x, qkv_packed sentences, const qkv_attention_proj *proj,
                          const qkv_score_bias *biases, int n_biases, const qkv_attention_opts *opts,
                          qkv_attention_weights *keep);

/* Output projection of the attention core: y [T, d_model] = o [T, d_model] · w_o^T + b_o,
 * w_o [d_model, d_model], b_o [d_model] or NULL. Row-stable (lib/gemm_rows.h): a row's result
 * does not depend on the other rows of the batch. One tape node "attention_out". Tape errors:
 * w_o or b_o of the wrong shape. */
qkv_tensor *qkv_attention_out(qkv_tape *tp, qkv_tensor *o, qkv_tensor *w_o, qkv_tensor *b_o);

#endif
