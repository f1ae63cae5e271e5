/* The stored kernel's blocks as batched products, when every sentence of the batch has the same
 * length n and sees all of it (images: 50 patches an image, every one attending to all). Then
 * each block's Q K^T, P V and their gradients are [n, n] and [n, d_head] products of the same
 * shape, thousands of them in a batch, each too small to be worth a call of its own: the heads'
 * columns are copied into head-major arrays [B · H, n, d_head] and each product runs once over
 * all blocks (lib/gemm/batch.h). The rows between the products (score biases, softmax or relu,
 * dropout, P stored in the bands) are the per-block path's own functions, in the same order, so
 * that the dropout masks and every row's arithmetic are the same; only the products' summation
 * order differs. See lib/ops/attention.h for the formulas. */
#include "lib/ops/attention_impl.h"
#include "lib/gemm/batch.h"
#include "lib/parallel.h"

#include <string.h>

bool qkv_attention_batch_blocks = true;
_Atomic long qkv_attention_batched_passes;

bool attn_batched(const attn_saved *sv)
{
    int B = sv->sentences.n, n = B > 0 ? qkv_packed_len(sv->sentences, 0) : 0;
    if (!qkv_attention_batch_blocks || B < 2 || n < 2 || sv->causal)
        return false;
    for (int b = 0; b < B; b++)
        if (qkv_packed_len(sv->sentences, b) != n || sv->tiled[b] || sv->window[b] != n - 1) /* whole */
            return false;
    return true;
}

/* Copies (add: adds) between the head columns col0 + h · d_head of rows [T, ld] and the
 * head-major [B · H, n, d_head]: to_heads from rows into heads, else from heads into rows. */
static void move_heads(const attn_saved *sv, qkv_real *rows, int ld, int col0, qkv_real *heads, bool to_heads,
                       bool add)
{
    const int B = sv->sentences.n, H = sv->n_heads, dh = sv->d_head, n = qkv_packed_len(sv->sentences, 0);
    const size_t per = (size_t)n * dh;
    QKV_FOR_THREADS(qkv_parallel_worth((size_t)B * n * H * dh) ? omp_get_max_threads() : 1, static, int, b, B, {
        for (int h = 0; h < H; h++)
            for (int i = 0; i < n; i++) {
                qkv_real *r = rows + (size_t)(sv->sentences.offsets[b] + i) * ld + col0 + (size_t)h * dh;
                qkv_real *x = heads + ((size_t)b * H + h) * per + (size_t)i * dh;
                if (to_heads) /* loops, not memcpy: a call for a few tens of floats costs more */
                    _Pragma("omp simd") for (int c = 0; c < dh; c++) x[c] = r[c];
                else if (!add)
                    _Pragma("omp simd") for (int c = 0; c < dh; c++) r[c] = x[c];
                else
                    _Pragma("omp simd") for (int c = 0; c < dh; c++) r[c] += x[c];
            }
    });
}

size_t attn_batched_forward_work(const attn_saved *sv)
{
    int n = qkv_packed_len(sv->sentences, 0);
    return (size_t)4 * sv->total * sv->d_model + (size_t)sv->sentences.n * sv->n_heads * n * n;
}

void attn_batched_forward(const attn_saved *sv, qkv_real *o, qkv_real *work)
{
    const int B = sv->sentences.n, H = sv->n_heads, dh = sv->d_head, D = sv->d_model, BH = B * H;
    const int n = qkv_packed_len(sv->sentences, 0);
    const size_t heads = (size_t)sv->total * D;
    qkv_real *q = work, *k = q + heads, *v = k + heads, *oh = v + heads, *s = oh + heads;
    qkv_attention_batched_passes++;
    move_heads(sv, sv->qkv, 3 * D, 0, q, true, false);
    move_heads(sv, sv->qkv, 3 * D, D, k, true, false);
    move_heads(sv, sv->qkv, 3 * D, 2 * D, v, true, false);
    qkv_gemm_batch(BH, false, true, n, n, dh, sv->scale, q, k, s); /* S = scale · Q K^T */
    QKV_FOR_THREADS(sv->nthreads, dynamic, int, blk, BH, {
        qkv_rng rng;
        if (sv->dropout > 0)
            qkv_rng_seed(&rng, sv->seeds[blk]);
        size_t at = sv->block ? sv->block[blk] : 0;
        for (int i = 0; i < n; i++)
            attn_finish_row(sv, blk % H, i, n - 1, n, n, 0, n, s + ((size_t)blk * n + i) * n, at, &rng);
    });
    qkv_gemm_batch(BH, false, false, n, dh, n, 1, s, v, oh); /* O = P V */
    move_heads(sv, o, D, 0, oh, false, false);
}

size_t attn_batched_backward_work(const attn_saved *sv)
{
    int n = qkv_packed_len(sv->sentences, 0);
    return (size_t)4 * sv->total * sv->d_model + (size_t)2 * sv->sentences.n * sv->n_heads * n * n;
}

void attn_batched_backward(const attn_saved *sv, const qkv_real *dout, qkv_real *dqkv, qkv_real *work,
                           qkv_real *const *dbias_all, const size_t *per_head)
{
    const int B = sv->sentences.n, H = sv->n_heads, dh = sv->d_head, D = sv->d_model, BH = B * H;
    const int n = qkv_packed_len(sv->sentences, 0);
    const size_t heads = (size_t)sv->total * D, nn = (size_t)n * n;
    const qkv_real *q = sv->heads, *k = q + heads, *v = k + heads; /* the forward's copies */
    qkv_real *dout_h = work, *dq = dout_h + heads, *dk = dq + heads, *dv = dk + heads;
    qkv_real *dp = dv + heads, *ds = dp + (size_t)BH * nn;
    move_heads(sv, (qkv_real *)dout, D, 0, dout_h, true, false);
    const qkv_real *pused = sv->pd ? sv->pd : sv->p; /* [B · H, n, n]: the bands of whole sentences */
    qkv_gemm_batch(BH, true, false, n, dh, n, 1, pused, dout_h, dv); /* dV = P^T dO */
    qkv_gemm_batch(BH, false, true, n, n, dh, 1, dout_h, v, dp);     /* dP = dO V^T */
    QKV_FOR_THREADS(sv->nthreads, dynamic, int, blk, BH, {
        qkv_real *db[QKV_ATTN_MAX_BIASES];
        for (int m = 0; m < sv->n_bias; m++)
            db[m] = dbias_all[m] ? dbias_all[m] + (size_t)blk * per_head[m] : NULL;
        for (int i = 0; i < n; i++) {
            size_t at = (size_t)blk * nn + (size_t)i * n;
            attn_score_grad_row(sv, blk % H, i, 0, 0, n, sv->p + at, sv->pd ? sv->pd + at : NULL, dp + at, ds + at,
                                db);
        }
    });
    qkv_gemm_batch(BH, false, false, n, dh, n, sv->scale, ds, k, dq); /* dQ = scale · dS K */
    qkv_gemm_batch(BH, true, false, n, dh, n, sv->scale, ds, q, dk);  /* dK = scale · dS^T Q */
    move_heads(sv, dqkv, 3 * D, 0, dq, false, true);
    move_heads(sv, dqkv, 3 * D, D, dk, false, true);
    move_heads(sv, dqkv, 3 * D, 2 * D, dv, false, true);
}
