/* Attention with linear biases, ALiBi (Press, Smith & Lewis 2022, "Train short, test long"), a
 * score bias of attention (lib/ops/score_bias.h): head h adds −m_h·|i − j| to the score of
 * query i and key j (before normalization, after the scale; no parameters, so nothing flows
 * back). The paper's decoder biases only keys j <= i; qkv's encoder is bidirectional, so the
 * bias is symmetric in i − j (keys on either side decay alike; with model.attn_causal it is the
 * paper's form). The slopes are the paper's geometric sequence m_h = 2^(−8h/n), h = 1..n for n
 * heads. When n is not a power of two, as in the paper's reference code: with
 * c = 2^floor(log2 n), the first c heads take the slopes for c heads and the other n − c heads
 * take the odd-numbered slopes for 2c heads, 2^(−8(2k−1)/(2c)), k = 1..n − c. Softmax only. */
#ifndef QKV_ALIBI_H
#define QKV_ALIBI_H

#include "lib/ops/score_bias.h"

/* The slope m of head h (0-based, 0 <= h < n_heads, n_heads >= 1), as above. */
double qkv_alibi_slope(int h, int n_heads);

extern const qkv_score_bias_kind qkv_alibi_kind;

#endif
