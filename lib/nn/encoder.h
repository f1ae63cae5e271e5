/* A Transformer encoder block over a packed batch (Vaswani et al. 2017; pre-LN placement as in
 * Xiong et al. 2020, "On layer normalization in the Transformer architecture").
 *
 *   pre-LN (norm_first):  h = x + Dropout(MHA(LN1(x)));   y = h + Dropout(FFN(LN2(h)))
 *   post-LN:              h = LN1(x + Dropout(MHA(x)));   y = LN2(h + Dropout(FFN(h)))
 *   FFN(z) = act(z w1^T + b1) w2^T + b2,  w1 [d_ff, d_model], w2 [d_model, d_ff], act relu|gelu
 *
 * x and y are [T, d_model], the tokens of a packed batch of sentences (lib/packed.h).
 *
 * Parameter names under a prefix (e.g. "encoder.layers.0") and their PyTorch
 * nn.TransformerEncoderLayer counterparts (batch_first=True; norm_first=True for pre-LN):
 *   <prefix>.attn.w_q, .w_k, .w_v   self_attn.in_proj_weight rows [0,d), [d,2d), [2d,3d)
 *   <prefix>.attn.b_q, .b_k, .b_v   self_attn.in_proj_bias, same split
 *   <prefix>.attn.w_o, .b_o         self_attn.out_proj.weight, .bias
 *   <prefix>.ln1.gain, .bias        norm1.weight, norm1.bias
 *   <prefix>.ffn.w1, .b1            linear1.weight, linear1.bias
 *   <prefix>.ffn.w2, .b2            linear2.weight, linear2.bias
 *   <prefix>.ln2.gain, .bias        norm2.weight, norm2.bias
 * PyTorch also applies dropout after the FFN activation; qkv applies `dropout` on the two
 * residual branches only (equal when dropout = 0). */
#ifndef QKV_ENCODER_H
#define QKV_ENCODER_H

#include "lib/nn/mha.h"
#include "lib/ops/ops.h"

typedef enum { QKV_FFN_RELU = 0, QKV_FFN_GELU = 1, QKV_FFN_ACTIVATION_COUNT } qkv_ffn_activation;
/* "relu", "gelu" (index = value), then NULL. */
extern const char *const QKV_FFN_ACTIVATION_NAMES[];

typedef struct qkv_encoder_opts {
    int d_model, d_ff;
    qkv_attention_opts attn;       /* n_heads, window, causal, normalize, attention dropout */
    bool attn_bias;                /* biases b_q, b_k, b_v, b_o */
    qkv_ffn_activation activation; /* relu (default) or gelu (erf form, PyTorch's default) */
    bool norm_first;               /* true: pre-LN; false: post-LN (as PyTorch's norm_first) */
    double dropout;                /* on the residual branches; identity when tp->no_grad */
    double ln_eps;                 /* 0: 1e-5, PyTorch's default */
} qkv_encoder_opts;

typedef struct qkv_encoder_block {
    qkv_encoder_opts opts;
    qkv_mha attn;
    qkv_tensor *ln1_gain, *ln1_bias, *ln2_gain, *ln2_bias; /* [d_model] */
    qkv_tensor *w1, *b1;                                   /* [d_ff, d_model], [d_ff] */
    qkv_tensor *w2, *b2;                                   /* [d_model, d_ff], [d_model] */
} qkv_encoder_block;

/* Adds the block's parameters under `prefix` (names above): weights Xavier uniform, biases 0,
 * layer-norm gains 1. Errors (err): n_heads does not divide d_model, d_model or d_ff < 1,
 * dropout outside [0, 1), a parameter that cannot be added. */
int qkv_encoder_block_create(qkv_encoder_block *blk, qkv_params *ps, qkv_rng *rng, const char *prefix,
                             const qkv_encoder_opts *opts, qkv_error *err);

/* y [T, d_model] for x [T, d_model]; keep (may be NULL) receives the attention weights. */
qkv_tensor *qkv_encoder_block_forward(qkv_tape *tp, const qkv_encoder_block *blk, qkv_tensor *x,
                                      qkv_packed sentences, qkv_attention_weights *keep);

#endif
