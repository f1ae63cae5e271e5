/* Multi-head self-attention layer (Vaswani et al. 2017, section 3.2.2): the parameters w_q,
 * w_k, w_v, w_o (PyTorch's [out, in] layout), optional biases and relative position biases,
 * applied through the attention op (lib/ops/attention.h) and its output projection. */
#ifndef QKV_NN_MHA_H
#define QKV_NN_MHA_H

#include "lib/ops/attention.h"

/* A multi-head self-attention layer: parameters plus options. Biases may be NULL. */
typedef struct qkv_mha {
    qkv_tensor *w_q, *w_k, *w_v, *w_o; /* [d_model, d_model] */
    qkv_tensor *b_q, *b_k, *b_v, *b_o; /* [d_model] or NULL */
    qkv_tensor *rel_bias;              /* [n_heads, 2·rel_clip + 1] or NULL */
    qkv_tensor *pos_param;             /* a learned opts.pos_bias's values [n_heads, n_learned], or NULL */
    qkv_attention_opts opts;
} qkv_mha;

/* Creates "<prefix>.w_q", ".w_k", ".w_v", ".w_o" (Xavier uniform, Glorot & Bengio 2010) and,
 * when bias, ".b_q", ".b_k", ".b_v", ".b_o" (zeros) in ps; with opts->rel_clip > 0 also
 * ".rel_bias" (zeros: training starts from plain attention); with a learned opts->pos_bias
 * (its kind's n_learned, lib/ops/score_bias.h) ".<its param_name>" [n_heads, n_learned(clip)],
 * initialized by the kind (zeros without init). Fails (err) when n_heads does not
 * divide d_model or a parameter cannot be added. */
int qkv_mha_create(qkv_mha *m, qkv_params *ps, qkv_rng *rng, const char *prefix, int d_model,
                   const qkv_attention_opts *opts, bool bias, qkv_error *err);

/* Y [T, d_model] = qkv_attention(...) w_o^T + b_o: two tape nodes ("attention",
 * "attention_out"). The score biases, in this order: the relative biases (when opts.rel_clip
 * != 0 or rel_bias is set; lib/ops/rel_bias.h), then opts.pos_bias (with pos_param,
 * opts.pos_bias_clip and opts.grid), then the 2-D window (opts.window_2d > 0,
 * lib/ops/grid_bias.h; without prefix tokens and with opts.window 0 the band is narrowed to the
 * keys within window_2d·(cols + 1) of the query, which holds the whole 2-D window). Both projections are
 * row-stable (lib/gemm_rows.h). */
qkv_tensor *qkv_mha_forward(qkv_tape *tp, const qkv_mha *m, qkv_tensor *x, qkv_packed sentences,
                            qkv_attention_weights *keep);

#endif
