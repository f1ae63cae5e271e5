/* Differentiable ops. Each takes the tape it records on, returns a new arena tensor, or NULL
 * when the tape has failed (bad shapes set tp->err; see lib/tape.h). Shapes use the code's
 * row convention (one token per row, see docs/reference/model.md, "Notation"). Each op family
 * lives in one file of lib/ops/, read in execution order: the forward, then its backward.
 *
 * "matrix" below means the tensor viewed as [rows, cols] with cols = its last dimension. */
#ifndef QKV_OPS_H
#define QKV_OPS_H

#include <stdint.h>

#include "lib/grid.h"
#include "lib/packed.h"
#include "lib/tape.h"

/* --- lib/ops/linear.c -------------------------------------------------------------------- */
/* y = x w^T + b. x [N, in], w [out, in] (PyTorch's Linear layout), b [out] or NULL -> [N, out].
 * Products through OpenBLAS sgemm/dgemm. */
qkv_tensor *qkv_linear(qkv_tape *tp, qkv_tensor *x, qkv_tensor *w, qkv_tensor *b);
/* c = op(a) op(b), op(m) = m^T when the flag is set. a, b rank 2 -> [M, N]. */
qkv_tensor *qkv_matmul(qkv_tape *tp, qkv_tensor *a, qkv_tensor *b, bool trans_a, bool trans_b);

/* --- lib/ops/elementwise.c --------------------------------------------------------------- */
/* a + b, same shape. */
qkv_tensor *qkv_add(qkv_tape *tp, qkv_tensor *a, qkv_tensor *b);
/* x + b broadcast over rows: x matrix [N, C], b [C]. */
qkv_tensor *qkv_add_bias(qkv_tape *tp, qkv_tensor *x, qkv_tensor *b);
/* a ⊙ b (element-wise), same shape. */
qkv_tensor *qkv_mul(qkv_tape *tp, qkv_tensor *a, qkv_tensor *b);
/* s · x for a constant s. */
qkv_tensor *qkv_scale(qkv_tape *tp, qkv_tensor *x, double s);

/* --- lib/ops/activation.c ---------------------------------------------------------------- */
qkv_tensor *qkv_relu(qkv_tape *tp, qkv_tensor *x);
typedef enum { QKV_GELU_ERF, QKV_GELU_TANH } qkv_gelu_form;
/* GELU (Hendrycks & Gimpel 2016): erf form x·Φ(x), or the tanh approximation
 * 0.5·x·(1 + tanh(sqrt(2/π)(x + 0.044715 x³))), as PyTorch's approximate='tanh'. */
qkv_tensor *qkv_gelu(qkv_tape *tp, qkv_tensor *x, qkv_gelu_form form);
/* gelu(u + b) with the bias broadcast over rows, in one pass: u matrix [N, C] (a qkv_linear
 * without its bias), b [C] -> [N, C]. The values of qkv_add_bias then qkv_gelu; the backward
 * recomputes u + b rather than keeping it. Tape errors: b not of C elements, an unknown form. */
qkv_tensor *qkv_bias_gelu(qkv_tape *tp, qkv_tensor *u, qkv_tensor *b, qkv_gelu_form form);

/* --- lib/ops/norm.c ---------------------------------------------------------------------- */
/* Layer norm over the last dimension (Ba et al. 2016): (x - mean) / sqrt(var + eps) ⊙ gain
 * + bias, as PyTorch's layer_norm: biased variance (divide by C), eps added to the variance
 * inside the square root. x matrix [N, C], gain and bias [C] (either may be NULL) -> [N, C].
 * Errors: gain/bias size != C, eps < 0 or not finite. With eps = 0 a constant row gives NaN. */
qkv_tensor *qkv_layer_norm(qkv_tape *tp, qkv_tensor *x, qkv_tensor *gain, qkv_tensor *bias, double eps);
/* The residual add and the layer norm after it in one pass over the rows: h = x + a (x, a of
 * one shape, a matrix [N, C]), y = qkv_layer_norm(h, gain, bias, eps) -> y [N, C]; h into *sum
 * when sum is not NULL (the residual stream of a pre-LN block). The same values, errors and
 * gradients as qkv_add then qkv_layer_norm (the tape records those two nodes). */
qkv_tensor *qkv_add_layer_norm(qkv_tape *tp, qkv_tensor *x, qkv_tensor *a, qkv_tensor *gain, qkv_tensor *bias,
                               double eps, qkv_tensor **sum);
/* qkv_add_layer_norm of x and dropout(a, p): h = x + dropout(a), the dropout folded into the
 * same pass (no tensor for dropout(a)); the values, mask draws, errors and gradients of
 * qkv_dropout then qkv_add_layer_norm (p outside [0, 1) fails the tape; no_grad or p = 0: no
 * dropout). The tape records an add_dropout node and the layer_norm node. */
qkv_tensor *qkv_add_dropout_layer_norm(qkv_tape *tp, qkv_tensor *x, qkv_tensor *a, double p, qkv_tensor *gain,
                                       qkv_tensor *bias, double eps, qkv_tensor **sum);

/* --- lib/ops/softmax.c ------------------------------------------------------------------- */
/* Softmax over each row (the last dimension), max-shifted: softmax([1000, 1000]) = [0.5, 0.5].
 * Each row needs a finite maximum (a row of -inf gives NaN, as PyTorch). */
qkv_tensor *qkv_softmax(qkv_tape *tp, qkv_tensor *x);
/* Log-softmax over each row, max-shifted: log_softmax([1000, 0]) = [0, -1000]. */
qkv_tensor *qkv_log_softmax(qkv_tape *tp, qkv_tensor *x);

/* --- lib/ops/embedding.c ----------------------------------------------------------------- */
/* Rows of table [V, D] picked by ids [n] -> [n, D], n >= 1. An id outside 0..V-1 fails the
 * tape (the message names the id, its position and V). Backward adds into the used rows of
 * table->grad only. The ids are copied: the caller may reuse its array before backward. */
qkv_tensor *qkv_embedding(qkv_tape *tp, qkv_tensor *table, const int32_t *ids, int n);

/* --- lib/ops/dropout.c ------------------------------------------------------------------- */
/* Inverted dropout: each element is zeroed with probability p, survivors scaled by 1/(1-p).
 * Random numbers from tp->rng; the identity (and no random draw) when tp->no_grad or p == 0:
 * then x itself is returned, not a copy. Tape errors: p outside [0, 1); tp->rng NULL when a
 * mask must be drawn. */
qkv_tensor *qkv_dropout(qkv_tape *tp, qkv_tensor *x, double p);
/* The residual add with dropout on its branch in one pass: y = x + dropout(a, p), x and a of
 * one shape; the values, mask draws, errors and gradients of qkv_dropout(a) then qkv_add (one
 * tape node, add_dropout; no dropout tensor). no_grad or p = 0: qkv_add(x, a). */
qkv_tensor *qkv_add_dropout(qkv_tape *tp, qkv_tensor *x, qkv_tensor *a, double p);

/* --- lib/ops/loss.c ---------------------------------------------------------------------- */
/* Mean cross-entropy of logits [N, C] against targets [N] (class index, or < 0 = ignored),
 * over the rows not ignored -> scalar [1]. All rows ignored: loss 0, gradient 0 (never NaN).
 * A target >= C fails the tape. Computed by max-shifted log-sum-exp; the targets are copied. */
qkv_tensor *qkv_cross_entropy(qkv_tape *tp, qkv_tensor *logits, const int32_t *targets);
/* The same with label smoothing (Szegedy et al. 2016, section 7): each kept row's target is
 * (1 - smoothing) on its class plus smoothing / C on each of the C classes, so a row's loss is
 * (1 - ε)(-log p_t) - (ε / C) Σ_k log p_k (PyTorch's cross_entropy(label_smoothing=ε)).
 * smoothing in [0, 1), else the tape fails; 0 is qkv_cross_entropy bit for bit. */
qkv_tensor *qkv_cross_entropy_smoothed(qkv_tape *tp, qkv_tensor *logits, const int32_t *targets, double smoothing);

/* --- lib/ops/reduce.c -------------------------------------------------------------------- */
/* Sum / mean of all elements -> scalar [1]. */
qkv_tensor *qkv_sum(qkv_tape *tp, qkv_tensor *x);
qkv_tensor *qkv_mean(qkv_tape *tp, qkv_tensor *x);

/* --- lib/ops/packed.c ------------------------------------------------------------------ */
/* Segments (lib/packed.h, e.g. the characters of each word of a batch) packed end to end in
 * the rows of one matrix; n_seg below is segments.n. Both ops copy the offsets: the caller may
 * reuse its array at once. Used for the character CNN word encoder of Santos & Zadrozny 2014 /
 * Ma & Hovy 2016. */

/* Convolution windows within segments ("im2col"): x [C, D] -> [C, width·D], width odd >= 1,
 * h = width / 2. Row c of the result is x rows c-h, ..., c+h concatenated in that order, a
 * row that lies outside c's own segment replaced by D zeros. qkv_linear of the result with
 * w [F, width·D] is therefore a zero-padded 1-D convolution of width `width` that never mixes
 * two segments (empty segments are allowed and contribute no rows). Tape errors: width even
 * or < 1, x not a matrix, segments not covering x's rows (lib/packed.h). */
qkv_tensor *qkv_packed_windows(qkv_tape *tp, qkv_tensor *x, qkv_packed segments, int width);

/* Max-pool over each segment's rows: x [C, F] -> [n_seg, F], row s = the column-wise maximum
 * of segment s. Backward sends dy[s, f] to the row holding the maximum (the first such row on
 * ties, as torch.max; a NaN counts as the maximum). Tape errors: an empty segment, x not a
 * matrix, segments not covering x's rows. */
qkv_tensor *qkv_packed_max(qkv_tape *tp, qkv_tensor *x, qkv_packed segments);

/* --- lib/ops/positional.c --------------------------------------------------------------- */
/* Positions added to a packed batch of sentences (lib/packed.h):
 *   y[t] = scale · x[t] + pe[row(t)],  row(t) = position of token t inside its sentence,
 * or the last row of pe for positions past it when clamp is set. x [T, D]; pe [rows, D] is a
 * learned table (its gradient: the sum of dy over the tokens that used each row) or a constant
 * one (sinusoidal, lib/nn/positional.h); NULL: y = scale · x. One tape node "positional".
 * Tape errors: x or pe of the wrong shape, sentences not covering x, a sentence longer than the
 * rows of pe without clamp (naming the sentence, its length and the rows). */
qkv_tensor *qkv_add_positions(qkv_tape *tp, qkv_tensor *x, qkv_packed sentences, qkv_real scale,
                              qkv_tensor *pe, bool clamp);

/* --- lib/ops/lstm.c --------------------------------------------------------------------- */
/* LSTM recurrence over a packed batch of sentences (lib/packed.h), gates i, f, g, o as
 * PyTorch's nn.LSTM: gx [T, 4h] is the input projection x w_ih^T + b_ih of one direction
 * (qkv_linear), w_hh [4h, h], b_hh [4h] (may be NULL). With gx_rev, w_hh_rev (b_hh_rev may be
 * NULL) a second direction runs each sentence from its last token to its first. Every sentence
 * starts from zero state. -> [T, h] (one direction) or [T, 2h]: columns 0..h-1 forward, h..2h-1
 * reverse (nn.LSTM's bidirectional output). One GEMM [n_t, h] x [h, 4h] per time step over the
 * n_t sentences still running. Tape errors: shapes other than these, reverse weights without
 * gx_rev, sentences not covering gx's rows (empty sentences are allowed). */
qkv_tensor *qkv_lstm(qkv_tape *tp, qkv_tensor *gx, qkv_tensor *w_hh, qkv_tensor *b_hh, qkv_tensor *gx_rev,
                     qkv_tensor *w_hh_rev, qkv_tensor *b_hh_rev, qkv_packed sentences);

/* --- lib/ops/conv.c --------------------------------------------------------------------- */
/* 1-D convolution along the tokens of each sentence of a packed batch, zeros beyond each
 * sentence's ends (nothing crosses sentences): x [T, in], w [out, in, k] (PyTorch's Conv1d
 * layout), k odd, b [out] or NULL -> [T, out]; output row t is centred on token t, taps
 * dilation apart (nn.Conv1d with padding = dilation·(k-1)/2 on each sentence alone). Tape
 * errors: shapes other than these, k even, dilation < 1, sentences not covering x's rows. */
qkv_tensor *qkv_conv1d(qkv_tape *tp, qkv_tensor *x, qkv_tensor *w, qkv_tensor *b, qkv_packed sentences,
                       int dilation);
/* --- lib/ops/conv2d.c ------------------------------------------------------------------- */
/* Images of a packed batch: n images, each grid.rows · grid.cols consecutive rows of x
 * (lib/grid.h, row-major; grid.n_prefix must be 0), channels the columns.
 * The output grid of a k × k window moved by stride over a grid padded by `padding` on every
 * side: rows' = (rows + 2·padding − k) / stride + 1, likewise cols' (n_prefix 0); rows 0 when
 * the window does not fit or an argument is out of range. */
qkv_grid qkv_conv2d_grid(qkv_grid in, int k, int stride, int padding);

/* 2-D convolution (nn.Conv2d(in, out, k, stride, padding) on each image alone, zero padding):
 *   y[b, oy, ox, o] = b[o] + Σ_c Σ_ky Σ_kx w[o, c, ky, kx] · x[b, oy·stride − padding + ky,
 *                                                                 ox·stride − padding + kx, c]
 * x [n·rows·cols, in], w [out, in, k, k] (PyTorch's layout), b [out] or NULL -> y [n·rows'·cols',
 * out], the output grid in *out_grid (may be NULL). Tape errors: shapes other than these, a grid
 * that is not 2-D or has prefix tokens, stride < 1, padding outside [0, k), a window larger
 * than the padded grid. */
qkv_tensor *qkv_conv2d(qkv_tape *tp, qkv_tensor *x, qkv_tensor *w, qkv_tensor *b, int n, qkv_grid grid, int stride,
                       int padding, qkv_grid *out_grid);

typedef enum { QKV_POOL_MAX = 0, QKV_POOL_AVG, QKV_POOL_COUNT } qkv_pool;
/* "max", "avg" (index = value), then NULL. */
extern const char *const QKV_POOL_NAMES[];

/* 2-D pooling of each channel over k × k windows (as qkv_conv2d, without weights): max
 * (nn.MaxPool2d: padding never wins; backward to the first maximum in window order) or avg
 * (nn.AvgPool2d with count_include_pad=False: the mean over the window's pixels inside the
 * image). x [n·rows·cols, C] -> [n·rows'·cols', C]. Tape errors: as qkv_conv2d, an unknown
 * mode. */
qkv_tensor *qkv_pool2d(qkv_tape *tp, qkv_tensor *x, int n, qkv_grid grid, int k, int stride, int padding,
                       qkv_pool mode, qkv_grid *out_grid);

/* --- lib/ops/crf.c ----------------------------------------------------------------------- */
/* Linear-chain CRF over a packed batch of sentences (lib/packed.h, no empty sentence).
 * emissions [T, K]; transitions [K, K] with transitions[i][j] = the score of tag i followed by
 * tag j; start [K] (first tag), end [K] (last tag). A mask entry false forbids that transition,
 * first tag or last tag (a NULL mask or NULL member: all allowed). */
typedef struct qkv_crf_mask {
    const bool *transitions; /* [K * K], row-major like transitions */
    const bool *start, *end; /* [K] */
} qkv_crf_mask;
/* Summed negative log-likelihood of the gold tags [T] over the sentences -> scalar [1]:
 * Σ_b (log Z_b - log Z_gold,b) by the forward algorithm in log space, in double. A gold tag < 0
 * is unknown and marginalised (Z_gold sums the paths through the known tags). Backward: the
 * forward-backward marginals of all paths minus those of the gold paths. The tags are copied.
 * Tape errors: bad shapes, a tag >= K, bad sentences, a sentence with no allowed path or whose
 * known gold tags need a forbidden transition (tp->err.sentence: its index b in sentences). */
qkv_tensor *qkv_crf_nll(qkv_tape *tp, qkv_tensor *emissions, qkv_tensor *transitions, qkv_tensor *start,
                        qkv_tensor *end, qkv_packed sentences, const int32_t *tags, const qkv_crf_mask *mask);
/* Viterbi decoding (not differentiable): the highest-scoring allowed path of each sentence into
 * path [T] (ties: the lower tag index). Errors: bad shapes or sentences, out of memory, a
 * sentence with no allowed path (err->sentence: its index in sentences). */
int qkv_crf_viterbi(const qkv_tensor *emissions, const qkv_tensor *transitions, const qkv_tensor *start,
                    const qkv_tensor *end, qkv_packed sentences, const qkv_crf_mask *mask, int32_t *path,
                    qkv_error *err);
/* qkv_crf_viterbi, except that a sentence with no allowed path is decoded without the mask
 * (its best path over all transitions) instead of failing: unconstrained [B] (may be NULL)
 * receives 1 for such a sentence and 0 for the others, *n_unconstrained their number. Errors:
 * bad shapes or sentences, out of memory. */
int qkv_crf_viterbi_fallback(const qkv_tensor *emissions, const qkv_tensor *transitions, const qkv_tensor *start,
                             const qkv_tensor *end, qkv_packed sentences, const qkv_crf_mask *mask, int32_t *path,
                             uint8_t *unconstrained, int *n_unconstrained, qkv_error *err);
/* Per-token marginals of the CRF (not differentiable): probs [T, K] (double) receives
 * p(y_t = j | sentence) = exp(α[t][j] + β[t][j] - log Z) by the forward-backward algorithm (the
 * recursions above, under the mask; each row sums to 1). A sentence with no allowed path: with
 * unconstrained [B] (may be NULL) its marginals without the mask, flagged 1 there (0 for the
 * others); without, the error (err->sentence: its index). Errors: bad shapes or sentences, out
 * of memory. */
int qkv_crf_marginals(const qkv_tensor *emissions, const qkv_tensor *transitions, const qkv_tensor *start,
                      const qkv_tensor *end, qkv_packed sentences, const qkv_crf_mask *mask, double *probs,
                      uint8_t *unconstrained, qkv_error *err);

#endif
