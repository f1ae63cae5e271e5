/* Multi-head self-attention over a packed batch: forward, then backward.
 * See lib/ops/attention.h for the formulas and shapes.
 *
 * Layout. QKV [T, 3·d_model] holds q | k | v of each token in one row (one GEMM over all rows
 * against w_cat = [w_q; w_k; w_v], [3·d_model, d_model]). Head h of Q is the column range
 * h·d_head .. (h+1)·d_head-1, of K the same plus d_model, of V plus 2·d_model.
 *
 * Bands. In a sentence of n tokens with effective window w (n - 1 for "whole sentence"), query
 * i sees keys lo(i) .. hi(i), lo(i) = max(0, i - w), hi(i) = min(n - 1, i + w) (i if causal).
 * P is stored per (sentence, head) block as [n, W], W = min(n, 2w + 1); row i holds keys
 * s(i) .. s(i) + W - 1 with s(i) = clamp(i - w, 0, n - W), zero where a key is not seen.
 *
 * Tiles. A block is processed TILE query rows at a time: the rows i0 .. i1-1 need keys
 * lo(i0) .. hi(i1-1), a contiguous range of kw <= W + TILE keys, so S, P V, and all backward
 * products are BLAS calls on [TILE, kw] tiles (thread-private scratch). Blocks run in parallel
 * (OpenMP, dynamic schedule). In the forward pass a block whose band is at most
 * qkv_attention_direct_max_width keys wide skips the tiles: each query's scores and output are
 * computed over its visible keys only, without BLAS (block_forward_direct); the backward pass
 * always uses the tiles. The projections are split by rows over OpenMP threads too, and
 * OpenBLAS runs single-threaded throughout: one thread pool (lib/gemm_rows.h).
 *
 * Kernels. The above is the stored kernel. The blocks of the sentences that plan_blocks marks
 * tiled (opts->kernel) run lib/ops/attention_tiled.c instead, forward and backward; the
 * projections, the dropout keys and the score biases' gradient sums are shared. A batch whose
 * sentences all have one length, each query seeing the whole sentence (images), runs the stored
 * kernel's products batched over all blocks (lib/ops/attention_batched.c), its rows through the
 * same functions. */
#include "lib/ops/attention_impl.h"
#include "lib/blas.h"
#include "lib/gemm_rows.h"
#include "lib/ops/ops.h"
#include "lib/ops/rope.h"
#include "lib/parallel.h"
#include "lib/vmath.h"

#include <math.h>
#include <omp.h>
#include <stdlib.h>
#include <string.h>

#define TILE 32

const char *const QKV_ATTN_NORMALIZE_NAMES[] = {"softmax", "relu", NULL};
const char *const QKV_ATTN_KERNEL_NAMES[] = {"stored", "tiled", "auto", NULL};
_Static_assert(sizeof QKV_ATTN_KERNEL_NAMES / sizeof QKV_ATTN_KERNEL_NAMES[0] == QKV_ATTN_KERNEL_COUNT + 1,
               "one name per qkv_attn_kernel");
_Static_assert(sizeof QKV_ATTN_NORMALIZE_NAMES / sizeof QKV_ATTN_NORMALIZE_NAMES[0] == QKV_ATTN_NORMALIZE_COUNT + 1,
               "one name per qkv_attn_normalize");

static inline int band_start(int i, int w, int W, int n)
{
    int s = i - w;
    if (s > n - W)
        s = n - W;
    return s > 0 ? s : 0;
}

double qkv_attention_weight(const qkv_attention_weights *w, int b, int h, int i, int j)
{
    int n = qkv_packed_len(w->sentences, b), W = w->width[b], win = w->window[b];
    int s = band_start(i, win, W, n);
    if (j < s || j >= s + W)
        return 0.0;
    return (double)w->p[w->block[(size_t)b * w->n_heads + h] + (size_t)i * W + (size_t)(j - s)];
}

bool qkv_attention_sees(const qkv_attention_weights *w, int b, int i, int j)
{
    int n = qkv_packed_len(w->sentences, b), win = w->window[b];
    return i >= 0 && i < n && j >= attn_key_lo(i, win) && j <= attn_key_hi(i, win, n, w->causal);
}

/* Normalizes row[a .. e) in place: softmax (max-shifted) or relu(x) / (e - a). */
static void normalize_row(qkv_real *row, int a, int e, qkv_attn_normalize how)
{
    if (how == QKV_ATTN_RELU) {
        qkv_real inv = (qkv_real)1 / (qkv_real)(e - a);
        for (int j = a; j < e; j++)
            row[j] = row[j] > 0 ? row[j] * inv : 0;
        return;
    }
    qkv_softmax_row(row + a, e - a);
}

/* Band row [W] = zeros, with len values at off. */
static inline void put_band_row(qkv_real *band, int W, int off, const qkv_real *values, int len)
{
    memset(band, 0, (size_t)off * sizeof(qkv_real));
    memcpy(band + off, values, (size_t)len * sizeof(qkv_real));
    memset(band + off + len, 0, (size_t)(W - off - len) * sizeof(qkv_real));
}

int qkv_attention_direct_max_width = 16;

/* sum_c a[c] b[c] over n: eight partial sums, so that the compiler can vectorize the loop. */
static inline qkv_real dot(const qkv_real *a, const qkv_real *b, int n)
{
    qkv_real acc[8] = {0}, tail = 0;
    int c = 0;
    for (; c + 8 <= n; c += 8)
        for (int l = 0; l < 8; l++)
            acc[l] += a[c + l] * b[c + l];
    for (; c < n; c++)
        tail += a[c] * b[c];
    return ((acc[0] + acc[1]) + (acc[2] + acc[3])) + ((acc[4] + acc[5]) + (acc[6] + acc[7])) + tail;
}

void attn_finish_row(const attn_saved *sv, int h, int i, int w, int W, int n, int a, int e, qkv_real *row,
                     size_t blk, qkv_rng *rng)
{
    for (int m = 0; m < sv->n_bias; m++)
        sv->bias[m].kind->add(&sv->bias[m], h, sv->n_heads, i, a, e, row);
    normalize_row(row, 0, e - a, sv->normalize);
    size_t at = blk + (size_t)i * W;
    int off = a - band_start(i, w, W, n);
    if (sv->p)
        put_band_row(sv->p + at, W, off, row, e - a);
    if (sv->dropout > 0) {
        qkv_real keep_scale = (qkv_real)(1.0 / (1.0 - sv->dropout));
        for (int j = 0; j < e - a; j++)
            row[j] = qkv_rng_uniform(rng) < sv->dropout ? 0 : row[j] * keep_scale;
        put_band_row(sv->pd + at, W, off, row, e - a);
    }
}

/* Forward of block (b, h) without BLAS, one query at a time over its visible keys only: for
 * bands of width <= qkv_attention_direct_max_width, where a tile of TILE queries would compute
 * mostly masked scores, or a BLAS call would cost more than its few products. qh, kh, vh, oh:
 * the block's head columns (as in block_forward); row: scratch of >= W elements. */
static void block_forward_direct(const attn_saved *sv, int h, int n, int w, int W, const qkv_real *qh,
                                 const qkv_real *kh, const qkv_real *vh, qkv_real *oh, size_t blk, qkv_real *row,
                                 qkv_rng *rng)
{
    int D = sv->d_model, dh = sv->d_head, ld = 3 * D;
    for (int i = 0; i < n; i++) {
        int a = attn_key_lo(i, w), e = attn_key_hi(i, w, n, sv->causal) + 1;
        const qkv_real *qi = qh + (size_t)i * ld;
        for (int j = a; j < e; j++)
            row[j - a] = sv->scale * dot(qi, kh + (size_t)j * ld, dh);
        attn_finish_row(sv, h, i, w, W, n, a, e, row, blk, rng);
        qkv_real *oi = oh + (size_t)i * D;
        memset(oi, 0, (size_t)dh * sizeof(qkv_real));
        for (int j = a; j < e; j++) { /* O_i += P_ij V_j */
            qkv_real pj = row[j - a];
            const qkv_real *vj = vh + (size_t)j * ld;
            for (int c = 0; c < dh; c++)
                oi[c] += pj * vj[c];
        }
    }
}

/* Forward of block (b, h): O_h of sentence b. st: scratch [TILE, kw]. */
static void block_forward(const attn_saved *sv, int b, int h, qkv_real *o, qkv_real *st,
                          uint64_t seed)
{
    int n = qkv_packed_len(sv->sentences, b), W = sv->width[b], w = sv->window[b];
    int D = sv->d_model, dh = sv->d_head, ld = 3 * D;
    const qkv_real *qh = sv->qkv + (size_t)sv->sentences.offsets[b] * ld + (size_t)h * dh;
    const qkv_real *kh = qh + D, *vh = qh + 2 * D;
    qkv_real *oh = o + (size_t)sv->sentences.offsets[b] * D + (size_t)h * dh;
    size_t blk = sv->block ? sv->block[(size_t)b * sv->n_heads + h] : 0;
    qkv_rng rng;
    if (sv->dropout > 0)
        qkv_rng_seed(&rng, seed);
    if (W <= qkv_attention_direct_max_width) {
        block_forward_direct(sv, h, n, w, W, qh, kh, vh, oh, blk, st, &rng);
        return;
    }
    for (int i0 = 0; i0 < n; i0 += TILE) {
        int i1 = i0 + TILE < n ? i0 + TILE : n, r = i1 - i0;
        int klo = attn_key_lo(i0, w), kw = attn_key_hi(i1 - 1, w, n, sv->causal) + 1 - klo;
        qkv_gemm(false, true, r, kw, dh, sv->scale, qh + (size_t)i0 * ld, ld, kh + (size_t)klo * ld, ld,
                 0, st, kw);
        for (int rr = 0; rr < r; rr++) {
            int i = i0 + rr, a = attn_key_lo(i, w) - klo, e = attn_key_hi(i, w, n, sv->causal) + 1 - klo;
            qkv_real *row = st + (size_t)rr * kw;
            for (int j = 0; j < a; j++)
                row[j] = 0;
            for (int j = e; j < kw; j++)
                row[j] = 0;
            attn_finish_row(sv, h, i, w, W, n, klo + a, klo + e, row + a, blk, &rng);
        }
        qkv_gemm(false, false, r, dh, kw, 1, st, kw, vh + (size_t)klo * ld, ld, 0, oh + (size_t)i0 * D, D);
    }
}

/* Whether a block of band width W runs the tiled kernel (keep: the weights are kept, which
 * only the stored kernel has). */
static bool runs_tiled(const qkv_attention_opts *opts, int W, bool keep)
{
    if (keep)
        return false;
    if (opts->kernel == QKV_ATTN_KERNEL_AUTO)
        return W > opts->tiled_above;
    return opts->kernel == QKV_ATTN_KERNEL_TILED;
}

/* The plan of the blocks: each sentence's window, band width and kernel, the scratch tile
 * size, the tiled softmax blocks' log-sum-exp, and when P is stored (store_p) the stored
 * blocks' band offsets and memory (with dropout, also for dropout(P)). Returns the work of the
 * blocks' products in multiply-adds, or < 0 when out of memory. */
static double plan_blocks(qkv_tape *tp, attn_saved *sv, const qkv_attention_opts *opts, bool store_p, bool drop,
                          bool keep)
{
    const int32_t *offsets = sv->sentences.offsets;
    int B = sv->sentences.n, H = sv->n_heads, window = opts->window;
    sv->width = qkv_tape_alloc(tp, (size_t)(B + 1) * sizeof *sv->width);
    sv->window = qkv_tape_alloc(tp, (size_t)(B + 1) * sizeof *sv->window);
    sv->tiled = qkv_tape_alloc(tp, (size_t)(B + 1) * sizeof *sv->tiled);
    if (!sv->width || !sv->window || !sv->tiled)
        return -1;
    size_t band_total = 0, scratch = 1;
    double work = 0;
    bool any_tiled = false;
    for (int b = 0; b < B; b++) {
        int n = offsets[b + 1] - offsets[b];
        int win = (window == 0 || window >= n) ? (n > 0 ? n - 1 : 0) : window;
        int W = 2 * win + 1 < n ? 2 * win + 1 : n;
        sv->window[b] = win;
        sv->width[b] = W;
        sv->tiled[b] = runs_tiled(opts, W, keep);
        any_tiled |= sv->tiled[b];
        if (!sv->tiled[b])
            band_total += (size_t)H * n * W;
        size_t kw = (size_t)(W + TILE < n ? W + TILE : n);
        if (!sv->tiled[b] && kw * TILE > scratch)
            scratch = kw * TILE;
        work += (double)n * (double)kw * sv->d_model;
    }
    if (any_tiled && scratch < (ATTN_TILED_BWD_SCRATCH + 1) / 2) /* the backward pass has two tiles */
        scratch = (ATTN_TILED_BWD_SCRATCH + 1) / 2;
    sv->scratch = (scratch + 15) & ~(size_t)15; /* separate threads' tiles by >= 64 bytes */
    if (any_tiled && sv->normalize == QKV_ATTN_SOFTMAX) {
        sv->lse = qkv_tape_alloc(tp, ((size_t)sv->total * H + 1) * sizeof(qkv_real));
        if (!sv->lse)
            return -1;
    }
    if (!store_p)
        return work;
    sv->block = qkv_tape_alloc(tp, ((size_t)B * H + 1) * sizeof *sv->block);
    sv->p = qkv_tape_alloc(tp, (band_total + 1) * sizeof(qkv_real));
    if (drop)
        sv->pd = qkv_tape_alloc(tp, (band_total + 1) * sizeof(qkv_real));
    if (!sv->block || !sv->p || (drop && !sv->pd))
        return -1;
    size_t at = 0;
    for (int b = 0; b < B; b++)
        for (int h = 0; h < H; h++) {
            sv->block[(size_t)b * H + h] = at;
            at += sv->tiled[b] ? 0 : (size_t)(offsets[b + 1] - offsets[b]) * sv->width[b];
        }
    return work;
}

/* The dropout seeds of the blocks [B · H], or NULL after failing the tape. With the tape's
 * dropout streams (lib/tape.h) counter-based: block (b, h) of sentence id s; else one seed per
 * block drawn from tp->rng in block order, so that the masks do not depend on threads. */
static uint64_t *block_seeds(qkv_tape *tp, int B, int H)
{
    uint64_t *seeds = qkv_tape_alloc(tp, ((size_t)B * H + 1) * sizeof *seeds);
    if (!seeds)
        return NULL;
    if (tp->streams) {
        qkv_dropout_streams *st = tp->streams;
        if (st->n_sent != B || !st->sent_ids)
            return qkv_tape_fail(tp, "attention: %d sentences but the tape's dropout streams have %d sentence ids", B,
                                 st->n_sent), NULL;
        uint64_t site_key = qkv_rng_key(st->key, st->site++);
        for (int b = 0; b < B; b++)
            for (int h = 0; h < H; h++)
                seeds[(size_t)b * H + h] = qkv_rng_key(qkv_rng_key(site_key, st->sent_ids[b]), (uint64_t)h);
    } else
        for (size_t k = 0; k < (size_t)B * H; k++)
            seeds[k] = qkv_rng_next(tp->rng);
    return seeds;
}

/* Rotates the D columns of each row of m (leading dimension 3D) by the layer's rope. */
static void rotate(const attn_saved *sv, qkv_real *m, bool inverse)
{
    int D = sv->d_model;
    if (sv->rope_2d)
        qkv_rope_rotate_2d(m, 3 * D, D, sv->n_heads, sv->sentences, sv->grid, sv->rope_base, inverse);
    else
        qkv_rope_rotate(m, 3 * D, D, sv->n_heads, sv->sentences, sv->rope_base, inverse);
}

/* QKV [T, 3D] = X [T, D] · w_cat^T + [b_q | b_k | b_v], then Q and K rotated (rope); fills
 * sv->w_cat. Returns false when out of memory. */
static bool project(qkv_tape *tp, attn_saved *sv, const qkv_tensor *x, const qkv_attention_proj *proj)
{
    int T = sv->total, D = sv->d_model;
    qkv_tensor *w[3] = {proj->w_q, proj->w_k, proj->w_v}, *bias[3] = {proj->b_q, proj->b_k, proj->b_v};
    sv->qkv = qkv_tape_alloc(tp, (size_t)T * 3 * D * sizeof(qkv_real) + 1);
    sv->w_cat = qkv_tape_alloc(tp, (size_t)3 * D * D * sizeof(qkv_real));
    int pthreads = qkv_parallel_threads(3.0 * T * D * D);
    qkv_real *rows_scratch = qkv_tape_alloc(tp, pthreads * QKV_GEMM_ROWS_SCRATCH(D, 3 * D) * sizeof(qkv_real));
    if (!sv->qkv || !sv->w_cat || !rows_scratch)
        return false;
    for (int k = 0; k < 3; k++)
        memcpy(sv->w_cat + (size_t)k * D * D, w[k]->data, (size_t)D * D * sizeof(qkv_real));
    bool any_bias = bias[0] || bias[1] || bias[2];
    if (any_bias)
        for (int t = 0; t < T; t++)
            for (int k = 0; k < 3; k++) {
                qkv_real *dst = sv->qkv + (size_t)t * 3 * D + (size_t)k * D;
                if (bias[k])
                    memcpy(dst, bias[k]->data, (size_t)D * sizeof(qkv_real));
                else
                    memset(dst, 0, (size_t)D * sizeof(qkv_real));
            }
    if (T > 0)
        qkv_gemm_rows_nt_par(pthreads, T, 3 * D, D, x->data, D, sv->w_cat, D, any_bias ? 1 : 0, sv->qkv, 3 * D,
                             rows_scratch);
    if (sv->rope_base > 0) /* rotate Q and K by position (lib/ops/rope.h) */
        for (int k = 0; k < 2; k++)
            rotate(sv, sv->qkv + (size_t)k * D, false);
    return true;
}

/* The saved state of one call: the options, the sentences and the score biases (copied). */
static attn_saved *saved_state(qkv_tape *tp, qkv_packed sent, int T, int D, const qkv_score_bias *biases,
                               int n_biases, const qkv_attention_opts *opts, bool drop)
{
    attn_saved *sv = qkv_tape_alloc(tp, sizeof *sv);
    qkv_score_bias *bias = qkv_tape_alloc(tp, (size_t)(n_biases + 1) * sizeof *bias);
    if (!sv || !bias)
        return NULL;
    memset(sv, 0, sizeof *sv);
    if (n_biases > 0)
        memcpy(bias, biases, (size_t)n_biases * sizeof *bias);
    sv->bias = bias;
    sv->n_bias = n_biases;
    sv->sentences = sent;
    sv->d_model = D;
    sv->n_heads = opts->n_heads;
    sv->d_head = D / opts->n_heads;
    sv->total = T;
    sv->scale = (qkv_real)(opts->scale != 0 ? opts->scale : 1.0 / sqrt((double)sv->d_head));
    sv->dropout = drop ? opts->dropout : 0;
    sv->causal = opts->causal;
    sv->normalize = opts->normalize;
    sv->rope_base = opts->rope_base;
    sv->rope_2d = opts->rope_2d;
    sv->grid = opts->grid;
    return sv;
}

static void attention_backward(qkv_tape *tp, qkv_node *node);

qkv_tensor *qkv_attention(qkv_tape *tp, qkv_tensor *x, qkv_packed sentences, const qkv_attention_proj *proj,
                          const qkv_score_bias *biases, int n_biases, const qkv_attention_opts *opts,
                          qkv_attention_weights *keep)
{
    QKV_PROFILE_SCOPE("attention", QKV_PROF_FWD);
    if (tp->failed || !attn_check_inputs(tp, x, proj, biases, n_biases, opts))
        return NULL;
    qkv_packed sent = qkv_tape_packed(tp, "attention", sentences, x, false);
    if (!sent.offsets || !attn_check_grid_lengths(tp, sent, biases, n_biases, opts))
        return NULL;
    int T = x->shape[0], D = x->shape[1], H = opts->n_heads, B = sent.n;
    bool drop = opts->dropout > 0 && !tp->no_grad;
    if (drop && !tp->rng && !tp->streams)
        return qkv_tape_fail(tp, "attention: dropout %g needs a random generator (tp->rng)", opts->dropout);
    qkv_tensor *o = qkv_tape_tensor2(tp, T, D);
    attn_saved *sv = o ? saved_state(tp, sent, T, D, biases, n_biases, opts, drop) : NULL;
    if (!sv)
        return NULL;
    qkv_tensor *inputs[QKV_MAX_INPUTS] = {x, proj->w_q, proj->w_k, proj->w_v, proj->b_q, proj->b_k, proj->b_v};
    int n_in = 7;
    for (int m = 0; m < n_biases; m++) /* the learned ones (attn_check_inputs counted them) */
        if (biases[m].param)
            inputs[n_in++] = biases[m].param;
    qkv_node *node = qkv_tape_record(tp, "attention", attention_backward, o, n_in, inputs);
    double work = plan_blocks(tp, sv, opts, node || keep || drop, drop, keep != NULL); /* dropout masks go to bands */
    if (work < 0)
        return NULL;
    int nthreads = qkv_parallel_threads(2 * work); /* the products Q K^T and P V of the blocks */
    sv->nthreads = nthreads;
    qkv_real *scratch_mem = qkv_tape_alloc(tp, (size_t)nthreads * sv->scratch * sizeof(qkv_real));
    uint64_t *seeds = drop ? block_seeds(tp, B, H) : NULL;
    if (!scratch_mem || (drop && !seeds))
        return NULL;
    sv->seeds = seeds;
    sv->batched = attn_batched(sv);
    qkv_real *batch_work = sv->batched ? qkv_tape_alloc(tp, attn_batched_forward_work(sv) * sizeof(qkv_real)) : NULL;
    if (sv->batched && !batch_work)
        return NULL;
    sv->heads = batch_work;
    int blas = qkv_blas_single();
    if (!project(tp, sv, x, proj))
        return qkv_blas_restore(blas), NULL;
    if (sv->batched)
        attn_batched_forward(sv, o->data, batch_work);
    else
        QKV_FOR_THREADS(nthreads, dynamic, int, blk, B * H, {
            qkv_real *st = scratch_mem + (size_t)omp_get_thread_num() * sv->scratch;
            if (sv->tiled[blk / H])
                attn_tiled_forward(sv, blk / H, blk % H, o->data, st);
            else
                block_forward(sv, blk / H, blk % H, o->data, st, seeds ? seeds[blk] : 0);
        });
    qkv_blas_restore(blas);
    if (node)
        node->saved = sv;
    if (keep)
        *keep = (qkv_attention_weights){sent, H, sv->width, sv->window, sv->block, sv->p, sv->causal};
    return o;
}

void attn_score_grad_row(const attn_saved *sv, int h, int i, int key0, int a, int e, const qkv_real *p,
                         const qkv_real *pd, qkv_real *g, qkv_real *row, qkv_real *const *dbias)
{
    if (pd) { /* through dropout: dP = dPd ⊙ mask / (1 - p) */
        qkv_real keep_scale = (qkv_real)(1.0 / (1.0 - sv->dropout));
        for (int j = a; j < e; j++)
            g[j] = pd[j] != 0 ? g[j] * keep_scale : 0;
    }
    if (sv->normalize == QKV_ATTN_SOFTMAX) {
        qkv_real dot = 0;
        for (int j = a; j < e; j++)
            dot += p[j] * g[j];
        for (int j = a; j < e; j++)
            row[j] = p[j] * (g[j] - dot);
    } else {
        qkv_real inv = (qkv_real)1 / (qkv_real)(e - a);
        for (int j = a; j < e; j++)
            row[j] = p[j] > 0 ? g[j] * inv : 0;
    }
    for (int m = 0; m < sv->n_bias; m++) /* the biases entered the scores unscaled */
        if (dbias[m])
            sv->bias[m].kind->backward(&sv->bias[m], h, i, key0 + a, key0 + e, row + a, dbias[m]);
}

/* Backward of block (b, h): adds into dQKV's rows of sentence b, head h. */
static void block_backward(const attn_saved *sv, int b, int h, const qkv_real *dout, qkv_real *dqkv,
                           qkv_real *st, qkv_real *dp, qkv_real *const *dbias)
{
    int n = qkv_packed_len(sv->sentences, b), W = sv->width[b], w = sv->window[b];
    int D = sv->d_model, dh = sv->d_head, ld = 3 * D;
    size_t row0 = (size_t)sv->sentences.offsets[b];
    const qkv_real *qh = sv->qkv + row0 * ld + (size_t)h * dh, *kh = qh + D, *vh = qh + 2 * D;
    qkv_real *dqh = dqkv + row0 * ld + (size_t)h * dh, *dkh = dqh + D, *dvh = dqh + 2 * D;
    const qkv_real *doh = dout + row0 * D + (size_t)h * dh;
    size_t blk = sv->block[(size_t)b * sv->n_heads + h];
    const qkv_real *pused = sv->pd ? sv->pd : sv->p; /* the P that multiplied V */
    for (int i0 = 0; i0 < n; i0 += TILE) {
        int i1 = i0 + TILE < n ? i0 + TILE : n, r = i1 - i0;
        int klo = attn_key_lo(i0, w), kw = attn_key_hi(i1 - 1, w, n, sv->causal) + 1 - klo;
        /* st = the used P of this tile, dense [r, kw] */
        for (int rr = 0; rr < r; rr++) {
            int i = i0 + rr, a = attn_key_lo(i, w) - klo, e = attn_key_hi(i, w, n, sv->causal) + 1 - klo;
            qkv_real *row = st + (size_t)rr * kw;
            int off = attn_key_lo(i, w) - band_start(i, w, W, n);
            memset(row, 0, (size_t)a * sizeof(qkv_real));
            memcpy(row + a, pused + blk + (size_t)i * W + off, (size_t)(e - a) * sizeof(qkv_real));
            memset(row + e, 0, (size_t)(kw - e) * sizeof(qkv_real));
        }
        /* dV [kw, dh] += P^T dO;  dP [r, kw] = dO V^T */
        qkv_gemm(true, false, kw, dh, r, 1, st, kw, doh + (size_t)i0 * D, D, 1, dvh + (size_t)klo * ld, ld);
        qkv_gemm(false, true, r, kw, dh, 1, doh + (size_t)i0 * D, D, vh + (size_t)klo * ld, ld, 0, dp, kw);
        /* st = dS, row by row */
        for (int rr = 0; rr < r; rr++) {
            int i = i0 + rr, a = attn_key_lo(i, w) - klo, e = attn_key_hi(i, w, n, sv->causal) + 1 - klo;
            int off = attn_key_lo(i, w) - band_start(i, w, W, n);
            const qkv_real *p = sv->p + blk + (size_t)i * W + off - a; /* p[j], j in a..e-1 */
            const qkv_real *pd = sv->pd ? sv->pd + blk + (size_t)i * W + off - a : NULL;
            attn_score_grad_row(sv, h, i, klo, a, e, p, pd, dp + (size_t)rr * kw, st + (size_t)rr * kw, dbias);
        }
        /* dQ [r, dh] += dS K · scale;  dK [kw, dh] += dS^T Q · scale */
        qkv_gemm(false, false, r, dh, kw, sv->scale, st, kw, kh + (size_t)klo * ld, ld, 1,
                 dqh + (size_t)i0 * ld, ld);
        qkv_gemm(true, false, kw, dh, r, sv->scale, st, kw, qh + (size_t)i0 * ld, ld, 1,
                 dkh + (size_t)klo * ld, ld);
    }
}

static void attention_backward(qkv_tape *tp, qkv_node *node)
{
    const attn_saved *sv = node->saved;
    qkv_tensor *x = node->in[0], *out = node->out;
    int T = sv->total, D = sv->d_model;
    qkv_real *dqkv = qkv_tape_alloc(tp, (size_t)T * 3 * D * sizeof(qkv_real));
    int nthreads = sv->nthreads;
    qkv_real *scratch = qkv_tape_alloc(tp, (size_t)nthreads * 2 * sv->scratch * sizeof(qkv_real));
    if (!dqkv || !scratch)
        return;
    memset(dqkv, 0, (size_t)T * 3 * D * sizeof(qkv_real));
    const qkv_real *dout = out->grad;
    int nblk = sv->sentences.n * sv->n_heads, blas = qkv_blas_single();
    /* Learned score biases: one partial gradient per block, summed in block order afterwards,
     * so that the result does not depend on which thread ran which block. */
    qkv_real *dbias_all[QKV_ATTN_MAX_BIASES] = {0}, *dbias[QKV_ATTN_MAX_BIASES] = {0};
    size_t per_head[QKV_ATTN_MAX_BIASES] = {0};
    for (int m = 0; m < sv->n_bias; m++) {
        const qkv_score_bias *sb = &sv->bias[m];
        dbias[m] = sb->kind->backward && sb->param ? qkv_grad(tp, sb->param) : NULL;
        if (!dbias[m])
            continue;
        per_head[m] = sb->param->size / (size_t)sv->n_heads;
        dbias_all[m] = qkv_tape_alloc(tp, ((size_t)nblk * per_head[m] + 1) * sizeof(qkv_real));
        if (!dbias_all[m])
            return;
        memset(dbias_all[m], 0, (size_t)nblk * per_head[m] * sizeof(qkv_real));
    }
    qkv_real *batch_work = sv->batched ? qkv_tape_alloc(tp, attn_batched_backward_work(sv) * sizeof(qkv_real)) : NULL;
    if (sv->batched && !batch_work) {
        qkv_blas_restore(blas);
        return;
    }
    if (sv->batched)
        attn_batched_backward(sv, dout, dqkv, batch_work, dbias_all, per_head);
    else
        QKV_FOR_THREADS(nthreads, dynamic, int, blk, nblk, {
            qkv_real *st = scratch + (size_t)omp_get_thread_num() * 2 * sv->scratch, *db[QKV_ATTN_MAX_BIASES];
            for (int m = 0; m < sv->n_bias; m++)
                db[m] = dbias_all[m] ? dbias_all[m] + (size_t)blk * per_head[m] : NULL;
            if (sv->tiled[blk / sv->n_heads])
                attn_tiled_backward(sv, blk / sv->n_heads, blk % sv->n_heads, out->data, dout, dqkv, st, db);
            else
                block_backward(sv, blk / sv->n_heads, blk % sv->n_heads, dout, dqkv, st, st + sv->scratch, db);
        });
    for (int m = 0; m < sv->n_bias; m++)
        for (int blk = 0; dbias[m] && blk < nblk; blk++)
            for (size_t k = 0; k < per_head[m]; k++)
                dbias[m][(size_t)(blk % sv->n_heads) * per_head[m] + k] += dbias_all[m][(size_t)blk * per_head[m] + k];
    if (sv->rope_base > 0) /* back through the rotation: the transposed one */
        for (int k = 0; k < 2; k++)
            rotate(sv, dqkv + (size_t)k * D, true);
    int pthreads = qkv_parallel_threads(3.0 * T * D * D);
    qkv_real *dx = qkv_grad(tp, x);
    if (dx && T > 0) /* dX [T, D] += dQKV [T, 3D] · w_cat [3D, D] */
        qkv_gemm_par(pthreads, false, false, T, D, 3 * D, 1, dqkv, 3 * D, sv->w_cat, D, 1, dx, D);
    for (int k = 0; k < 3; k++) {
        qkv_real *dw = qkv_grad(tp, node->in[1 + k]), *db = qkv_grad(tp, node->in[4 + k]);
        if (dw && T > 0) /* dW [D, D] += dQ^T [D, T] · X [T, D] */
            qkv_gemm_par(pthreads, true, false, D, D, T, 1, dqkv + (size_t)k * D, 3 * D, x->data, D, 1, dw, D);
        if (db)
            for (int t = 0; t < T; t++)
                for (int j = 0; j < D; j++)
                    db[j] += dqkv[(size_t)t * 3 * D + (size_t)k * D + j];
    }
    qkv_blas_restore(blas);
}
