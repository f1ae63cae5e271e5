/* The attention op's checks of its inputs (lib/ops/attention_impl.h), before anything is
 * computed: shapes, options and score biases, and the sentences' lengths against a grid. */
#include "lib/ops/attention_impl.h"
#include "lib/ops/ops.h"

#include <math.h>

/* Checks shapes and options (the sentences are checked by qkv_tape_packed); returns false
 * after failing the tape. */
bool attn_check_inputs(qkv_tape *tp, qkv_tensor *x, const qkv_attention_proj *proj, const qkv_score_bias *biases,
                       int n_biases, const qkv_attention_opts *opts)
{
    char s1[64], s2[64];
    static const char *wn[3] = {"w_q", "w_k", "w_v"}, *bn[3] = {"b_q", "b_k", "b_v"};
    qkv_tensor *w[3] = {proj->w_q, proj->w_k, proj->w_v}, *bias[3] = {proj->b_q, proj->b_k, proj->b_v};
    if (x->rank != 2)
        return qkv_tape_fail(tp, "attention: x must be [T, d_model], got %s", qkv_shape_str(x, s1, sizeof s1)), false;
    int D = x->shape[1];
    if (opts->n_heads < 1 || D % opts->n_heads != 0)
        return qkv_tape_fail(tp, "attention: n_heads %d does not divide d_model %d", opts->n_heads, D), false;
    for (int k = 0; k < 3; k++) {
        if (w[k]->rank != 2 || w[k]->shape[0] != D || w[k]->shape[1] != D)
            return qkv_tape_fail(tp, "attention: %s is %s, expected [%d, %d] for x %s", wn[k],
                                 qkv_shape_str(w[k], s1, sizeof s1), D, D, qkv_shape_str(x, s2, sizeof s2)), false;
        if (bias[k] && bias[k]->size != (size_t)D)
            return qkv_tape_fail(tp, "attention: %s has %zu elements, d_model is %d", bn[k], bias[k]->size, D), false;
    }
    if (opts->window < 0)
        return qkv_tape_fail(tp, "attention: window %d is negative", opts->window), false;
    if (n_biases < 0 || n_biases > QKV_ATTN_MAX_BIASES)
        return qkv_tape_fail(tp, "attention: %d score biases, at most %d", n_biases, QKV_ATTN_MAX_BIASES), false;
    char msg[200];
    int learned = 0;
    for (int m = 0; m < n_biases; m++) {
        if (biases[m].kind->check(&biases[m], opts->n_heads, opts->normalize == QKV_ATTN_SOFTMAX, msg, sizeof msg))
            return qkv_tape_fail(tp, "attention: %s", msg), false;
        learned += biases[m].param != NULL;
    }
    if (7 + learned > QKV_MAX_INPUTS) /* x, the projections and the learned biases are the node's inputs */
        return qkv_tape_fail(tp, "attention: %d learned score biases, at most %d", learned, QKV_MAX_INPUTS - 7), false;
    if ((unsigned)opts->kernel >= QKV_ATTN_KERNEL_COUNT || opts->tiled_above < 0)
        return qkv_tape_fail(tp, "attention: kernel %d or tiled_above %d is not valid", (int)opts->kernel,
                             opts->tiled_above), false;
    if (!(opts->dropout >= 0 && opts->dropout < 1))
        return qkv_tape_fail(tp, "attention: dropout %g is outside [0, 1)", opts->dropout), false;
    if (opts->rope_base != 0 && (!(opts->rope_base > 0) || !isfinite(opts->rope_base) || (D / opts->n_heads) % 2))
        return qkv_tape_fail(tp, "attention: rope needs a positive finite base (got %g) and an even d_head (got %d)",
                             opts->rope_base, D / opts->n_heads), false;
    if (opts->rope_2d && opts->rope_base > 0 && (!qkv_grid_is_2d(opts->grid) || (D / opts->n_heads) % 4))
        return qkv_tape_fail(tp, "attention: 2-D rope needs a 2-D grid (got %d x %d) and d_head a multiple of 4 "
                             "(got %d)", opts->grid.rows, opts->grid.cols, D / opts->n_heads), false;
    return true;
}

/* With rope_2d or a score bias on a grid, every sentence has the grid's length; returns false
 * after failing the tape. */
bool attn_check_grid_lengths(qkv_tape *tp, qkv_packed sent, const qkv_score_bias *biases, int n_biases,
                             const qkv_attention_opts *opts)
{
    qkv_grid g = {0};
    if (opts->rope_2d && opts->rope_base > 0)
        g = opts->grid;
    for (int m = 0; m < n_biases; m++)
        if (qkv_grid_is_2d(biases[m].grid))
            g = biases[m].grid;
    for (int b = 0; qkv_grid_is_2d(g) && b < sent.n; b++)
        if (qkv_packed_len(sent, b) != qkv_grid_len(g))
            return qkv_tape_fail(tp, "attention: sentence %d has %d tokens, the grid %d x %d (+%d) has %d", b,
                                 qkv_packed_len(sent, b), g.rows, g.cols, g.n_prefix, qkv_grid_len(g)), false;
    return true;
}
