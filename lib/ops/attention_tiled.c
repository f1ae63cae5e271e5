/* The tiled kernel of attention: exact attention whose memory grows linearly with the sentence
 * length (Rabe & Staats 2021, "Self-attention does not need O(n²) memory"; Dao et al. 2022,
 * "FlashAttention", with the order of loops of Dao 2023, FlashAttention-2: query tiles outer,
 * key tiles inner). Forward, then backward. See lib/ops/attention.h for the formulas.
 *
 * A block (sentence, head) is processed ATTN_TILED_ROWS query rows at a time; the keys these
 * rows see (a contiguous range: the band) are visited ATTN_TILED_KEYS at a time. For one tile
 * of scores S [r, c] = Q K^T · scale + Σ_m b_m (the score biases added row by row over the keys
 * each row sees) the forward pass keeps, per query row, the running maximum m and the running
 * sum l of exp(S − m) (online softmax, Milakov & Gimelshein 2018): a new tile with maximum m'
 * multiplies l and the row's partial output by exp(m − m') before adding its own terms. After
 * the last tile O = O / l, and the row's log-sum-exp L = m + log l is saved ([T, H] in all).
 * Nothing of size n × n is stored.
 *
 * The backward pass recomputes each tile's scores and P = exp(S − L) from the saved L; with
 * D_i = dO_i · O_i (= Σ_j P_ij dP_ij, also through dropout), dS = P ⊙ (dP − D_i). For relu
 * attention P = relu(S) / n_visible_keys needs no statistics at all. Dropout: key j of query i
 * is dropped when qkv_rng_uniform_at(key of the block, i · n + j) < p (lib/rng.h), a pure
 * function of its position, so that the backward pass draws the same mask again. The stored
 * kernel draws its masks from a sequential generator instead: with dropout the two kernels
 * give different (equally distributed) masks. */
#include "lib/ops/attention_impl.h"
#include "lib/blas.h"
#include "lib/rng.h"
#include "lib/vmath.h"

#include <math.h>
#include <string.h>

#define BR ATTN_TILED_ROWS
#define BC ATTN_TILED_KEYS

/* Block (b, h): its length, window and head columns of Q, K, V (rows of stride ld = 3D). */
typedef struct {
    int n, w, dh, ld, D;
    size_t row0;
    const qkv_real *qh, *kh, *vh;
    uint64_t key; /* dropout key */
} tblock;

static tblock block_of(const attn_saved *sv, int b, int h)
{
    tblock t;
    t.n = qkv_packed_len(sv->sentences, b);
    t.w = sv->window[b];
    t.dh = sv->d_head;
    t.D = sv->d_model;
    t.ld = 3 * t.D;
    t.row0 = (size_t)sv->sentences.offsets[b];
    t.qh = sv->qkv + t.row0 * t.ld + (size_t)h * t.dh;
    t.kh = t.qh + t.D;
    t.vh = t.qh + 2 * t.D;
    t.key = sv->seeds ? sv->seeds[(size_t)b * sv->n_heads + h] : 0;
    return t;
}

/* True when key j of query i is dropped. */
static inline bool dropped(const tblock *t, int i, int j, double p)
{
    return qkv_rng_uniform_at(t->key, (uint64_t)i * (uint64_t)t->n + (uint64_t)j) < p;
}

/* The tile's scores s [r, c] of queries i0 .. i0 + r − 1 and keys c0 .. c0 + c − 1: Q K^T ·
 * scale plus the score biases over the keys each row sees, 0 elsewhere. range[2·rr],
 * range[2·rr + 1]: the seen keys a .. e − 1 of row rr, relative to c0 (a == e: none). */
static void tile_scores(const attn_saved *sv, const tblock *t, int h, int i0, int r, int c0, int c, qkv_real *s,
                        int *range)
{
    qkv_gemm(false, true, r, c, t->dh, sv->scale, t->qh + (size_t)i0 * t->ld, t->ld, t->kh + (size_t)c0 * t->ld,
             t->ld, 0, s, c);
    for (int rr = 0; rr < r; rr++) {
        int i = i0 + rr, a = attn_key_lo(i, t->w) - c0, e = attn_key_hi(i, t->w, t->n, sv->causal) + 1 - c0;
        a = a > 0 ? a : 0;
        e = e < c ? e : c;
        if (e < a)
            e = a;
        range[2 * rr] = a;
        range[2 * rr + 1] = e;
        qkv_real *row = s + (size_t)rr * c;
        for (int j = 0; j < a; j++)
            row[j] = 0;
        for (int j = e; j < c; j++)
            row[j] = 0;
        for (int m = 0; m < sv->n_bias && e > a; m++)
            sv->bias[m].kind->add(&sv->bias[m], h, sv->n_heads, i, c0 + a, c0 + e, row + a);
    }
}

/* Softmax row of a forward tile: row[a .. e) = exp(S − m') with m' the new running maximum;
 * rescales the running sum *l and the row's partial output o [dh] by exp(m − m'). */
static void online_softmax_row(qkv_real *row, int a, int e, qkv_real *m, qkv_real *l, qkv_real *o, int dh)
{
    qkv_real mx = row[a];
    for (int j = a + 1; j < e; j++)
        mx = row[j] > mx ? row[j] : mx;
    qkv_real m_new = mx > *m ? mx : *m;
    if (isinf(m_new)) { /* no key of the row visible yet (every score so far −inf): nothing to add */
        for (int j = a; j < e; j++)
            row[j] = 0;
        return;
    }
    qkv_real corr = isinf(*m) ? 0 : qkv_rexp(*m - m_new), sum = qkv_exp_shift_sum(row + a, e - a, m_new);
    *l = *l * corr + sum;
    *m = m_new;
    if (corr != 1)
        for (int k = 0; k < dh; k++)
            o[k] *= corr;
}

/* Forward of the query rows i0 .. i0 + r − 1 of a block: oh holds their outputs (stride D). */
static void forward_rows(const attn_saved *sv, const tblock *t, int h, int i0, int r, qkv_real *oh, qkv_real *s)
{
    qkv_real m[BR], l[BR];
    int range[2 * BR];
    bool softmax = sv->normalize == QKV_ATTN_SOFTMAX;
    qkv_real keep_scale = (qkv_real)(1.0 / (1.0 - sv->dropout));
    for (int rr = 0; rr < r; rr++) {
        m[rr] = -INFINITY;
        l[rr] = 0;
        memset(oh + (size_t)(i0 + rr) * t->D, 0, (size_t)t->dh * sizeof(qkv_real));
    }
    int klo = attn_key_lo(i0, t->w), khi = attn_key_hi(i0 + r - 1, t->w, t->n, sv->causal) + 1;
    for (int c0 = klo; c0 < khi; c0 += BC) {
        int c = khi - c0 < BC ? khi - c0 : BC;
        tile_scores(sv, t, h, i0, r, c0, c, s, range);
        for (int rr = 0; rr < r; rr++) {
            int i = i0 + rr, a = range[2 * rr], e = range[2 * rr + 1];
            qkv_real *row = s + (size_t)rr * c;
            if (a == e)
                continue;
            if (softmax)
                online_softmax_row(row, a, e, &m[rr], &l[rr], oh + (size_t)i * t->D, t->dh);
            else {
                qkv_real inv = (qkv_real)1 / (qkv_real)(attn_key_hi(i, t->w, t->n, sv->causal) + 1 -
                                                        attn_key_lo(i, t->w));
                for (int j = a; j < e; j++)
                    row[j] = row[j] > 0 ? row[j] * inv : 0;
            }
            for (int j = a; sv->dropout > 0 && j < e; j++)
                row[j] = dropped(t, i, c0 + j, sv->dropout) ? 0 : row[j] * keep_scale;
        }
        qkv_gemm(false, false, r, t->dh, c, 1, s, c, t->vh + (size_t)c0 * t->ld, t->ld, 1, oh + (size_t)i0 * t->D,
                 t->D);
    }
    for (int rr = 0; softmax && rr < r; rr++) {
        qkv_real *oi = oh + (size_t)(i0 + rr) * t->D, inv = (qkv_real)1 / l[rr];
        for (int k = 0; k < t->dh; k++)
            oi[k] *= inv;
        if (sv->lse)
            sv->lse[(t->row0 + (size_t)(i0 + rr)) * sv->n_heads + h] = m[rr] + (qkv_real)log((double)l[rr]);
    }
}

void attn_tiled_forward(const attn_saved *sv, int b, int h, qkv_real *o, qkv_real *st)
{
    tblock t = block_of(sv, b, h);
    qkv_real *oh = o + t.row0 * t.D + (size_t)h * t.dh;
    for (int i0 = 0; i0 < t.n; i0 += BR)
        forward_rows(sv, &t, h, i0, t.n - i0 < BR ? t.n - i0 : BR, oh, st);
}

/* The tile's P [r, c] in s (which holds its scores): exp(S − L_i) for softmax, relu(S) /
 * n_visible_keys(i) for relu, 0 outside the seen keys. */
static void tile_probs(const attn_saved *sv, const tblock *t, int h, int i0, int r, int c, qkv_real *s,
                       const int *range)
{
    for (int rr = 0; rr < r; rr++) {
        int i = i0 + rr, a = range[2 * rr], e = range[2 * rr + 1];
        qkv_real *row = s + (size_t)rr * c;
        if (sv->normalize == QKV_ATTN_SOFTMAX) {
            qkv_real L = sv->lse[(t->row0 + (size_t)i) * sv->n_heads + h];
            qkv_exp_shift_sum(row + a, e - a, L);
        } else {
            qkv_real inv = (qkv_real)1 / (qkv_real)(attn_key_hi(i, t->w, t->n, sv->causal) + 1 - attn_key_lo(i, t->w));
            for (int j = a; j < e; j++)
                row[j] = row[j] > 0 ? row[j] * inv : 0;
        }
    }
}

/* s [r, c] = dS of the tile, in place of P, from dp = the gradient of the used P (dropout(P)):
 * dS = P ⊙ (dP − D_i) for softmax, dP / n_visible_keys where S > 0 for relu. pd: dropout(P)
 * (== s without dropout), whose zeros mark the dropped keys. Then the learned score biases'
 * gradients from dS. */
static void tile_dscores(const attn_saved *sv, const tblock *t, int h, int i0, int r, int c0, int c, qkv_real *s,
                         const qkv_real *pd, const qkv_real *dp, const qkv_real *dsum, const int *range,
                         qkv_real *const *dbias)
{
    qkv_real keep_scale = (qkv_real)(1.0 / (1.0 - sv->dropout));
    for (int rr = 0; rr < r; rr++) {
        int i = i0 + rr, a = range[2 * rr], e = range[2 * rr + 1];
        qkv_real *row = s + (size_t)rr * c;
        const qkv_real *g = dp + (size_t)rr * c, *pdr = pd + (size_t)rr * c;
        if (sv->normalize == QKV_ATTN_SOFTMAX)
            for (int j = a; j < e; j++) {
                qkv_real gj = sv->dropout > 0 ? (pdr[j] != 0 ? g[j] * keep_scale : 0) : g[j];
                row[j] = row[j] * (gj - dsum[rr]);
            }
        else {
            qkv_real inv = (qkv_real)1 / (qkv_real)(attn_key_hi(i, t->w, t->n, sv->causal) + 1 - attn_key_lo(i, t->w));
            for (int j = a; j < e; j++) {
                qkv_real gj = sv->dropout > 0 ? (pdr[j] != 0 ? g[j] * keep_scale : 0) : g[j];
                row[j] = row[j] > 0 ? gj * inv : 0;
            }
        }
        for (int m = 0; m < sv->n_bias && e > a; m++) /* the biases entered the scores unscaled */
            if (dbias[m])
                sv->bias[m].kind->backward(&sv->bias[m], h, i, c0 + a, c0 + e, row + a, dbias[m]);
    }
}

/* Backward of the query rows i0 .. i0 + r − 1 of a block: adds into dqh, dkh, dvh (the block's
 * head columns of dQKV, stride ld). doh, oh: the rows' dO and O (stride D). st: scratch. */
static void backward_rows(const attn_saved *sv, const tblock *t, int h, int i0, int r, const qkv_real *oh,
                          const qkv_real *doh, qkv_real *dqh, qkv_real *st, qkv_real *const *dbias)
{
    qkv_real *dkh = dqh + t->D, *dvh = dqh + 2 * t->D;
    qkv_real *s = st, *dp = st + (size_t)BR * BC, *pd = sv->dropout > 0 ? dp + (size_t)BR * BC : s;
    qkv_real dsum[BR]; /* D_i = dO_i · O_i */
    int range[2 * BR];
    qkv_real keep_scale = (qkv_real)(1.0 / (1.0 - sv->dropout));
    for (int rr = 0; rr < r; rr++) {
        const qkv_real *oi = oh + (size_t)(i0 + rr) * t->D, *gi = doh + (size_t)(i0 + rr) * t->D;
        qkv_real acc = 0;
        for (int k = 0; k < t->dh; k++)
            acc += oi[k] * gi[k];
        dsum[rr] = acc;
    }
    int klo = attn_key_lo(i0, t->w), khi = attn_key_hi(i0 + r - 1, t->w, t->n, sv->causal) + 1;
    for (int c0 = klo; c0 < khi; c0 += BC) {
        int c = khi - c0 < BC ? khi - c0 : BC;
        tile_scores(sv, t, h, i0, r, c0, c, s, range);
        tile_probs(sv, t, h, i0, r, c, s, range);
        if (sv->dropout > 0)
            for (int rr = 0; rr < r; rr++)
                for (int j = 0; j < c; j++) {
                    size_t at = (size_t)rr * c + (size_t)j;
                    pd[at] = s[at] != 0 && !dropped(t, i0 + rr, c0 + j, sv->dropout) ? s[at] * keep_scale : 0;
                }
        /* dV [c, dh] += dropout(P)^T dO;  dP [r, c] = dO V^T */
        qkv_gemm(true, false, c, t->dh, r, 1, pd, c, doh + (size_t)i0 * t->D, t->D, 1, dvh + (size_t)c0 * t->ld,
                 t->ld);
        qkv_gemm(false, true, r, c, t->dh, 1, doh + (size_t)i0 * t->D, t->D, t->vh + (size_t)c0 * t->ld, t->ld, 0,
                 dp, c);
        tile_dscores(sv, t, h, i0, r, c0, c, s, pd, dp, dsum, range, dbias);
        /* dQ [r, dh] += dS K · scale;  dK [c, dh] += dS^T Q · scale */
        qkv_gemm(false, false, r, t->dh, c, sv->scale, s, c, t->kh + (size_t)c0 * t->ld, t->ld, 1,
                 dqh + (size_t)i0 * t->ld, t->ld);
        qkv_gemm(true, false, c, t->dh, r, sv->scale, s, c, t->qh + (size_t)i0 * t->ld, t->ld, 1,
                 dkh + (size_t)c0 * t->ld, t->ld);
    }
}

void attn_tiled_backward(const attn_saved *sv, int b, int h, const qkv_real *o, const qkv_real *dout,
                         qkv_real *dqkv, qkv_real *st, qkv_real *const *dbias)
{
    tblock t = block_of(sv, b, h);
    const qkv_real *oh = o + t.row0 * t.D + (size_t)h * t.dh, *doh = dout + t.row0 * t.D + (size_t)h * t.dh;
    qkv_real *dqh = dqkv + t.row0 * t.ld + (size_t)h * t.dh;
    for (int i0 = 0; i0 < t.n; i0 += BR)
        backward_rows(sv, &t, h, i0, t.n - i0 < BR ? t.n - i0 : BR, oh, doh, dqh, st, dbias);
}
