/* Positional encodings: forward and backward. See lib/positional.h. */
#include "lib/positional.h"

#include <limits.h>
#include <math.h>
#include <string.h>

void qkv_sinusoidal(int p, int d_model, qkv_real *pe)
{
    for (int c = 0; c < d_model; c++) {
        int two_i = c - c % 2;
        double angle = (double)p / pow(10000.0, (double)two_i / (double)d_model);
        pe[c] = (qkv_real)(c % 2 == 0 ? sin(angle) : cos(angle));
    }
}

int qkv_positional_create(qkv_positional *pos, qkv_pos_kind kind, int d_model, int max_len, bool scale_input,
                          qkv_params *ps, qkv_rng *rng, const char *prefix, qkv_error *err)
{
    memset(pos, 0, sizeof *pos);
    if (d_model < 1)
        return qkv_fail(err, "%s: d_model %d must be positive", prefix, d_model);
    if (kind != QKV_POS_NONE && kind != QKV_POS_SINUSOIDAL && kind != QKV_POS_LEARNED)
        return qkv_fail(err, "%s: unknown positional encoding kind %d", prefix, (int)kind);
    pos->kind = kind;
    pos->d_model = d_model;
    pos->max_len = max_len;
    pos->scale_input = scale_input;
    if (kind == QKV_POS_LEARNED) {
        if (max_len < 1)
            return qkv_fail(err, "%s: learned positions need max_len >= 1, got %d", prefix, max_len);
        pos->table = qkv_params_add(ps, err, 2, (int[]){max_len, d_model}, "%s.table", prefix);
        if (!pos->table)
            return QKV_ERR;
        qkv_params_of(ps, pos->table)->no_weight_decay = true;
        qkv_init_normal(pos->table, rng, 0.02);
    }
    return QKV_OK;
}

typedef struct {
    const int32_t *offsets;
    int n_sentences;
    int last_row;       /* learned: the highest table row used (max_len - 1 when clamped) */
    qkv_real scale;
} pos_saved;

/* The table row of position p: p itself, or the last row when clamping past the table. */
static inline int table_row(int p, int last_row) { return p < last_row ? p : last_row; }

static void positional_backward(qkv_tape *tp, qkv_node *node)
{
    const pos_saved *s = node->saved;
    qkv_tensor *x = node->in[0], *table = node->in[1], *y = node->out;
    int D = qkv_cols(x);
    qkv_real *dx = qkv_grad(tp, x), *dt = qkv_grad(tp, table);
    if (dx)
        for (size_t k = 0; k < x->size; k++)
            dx[k] += s->scale * y->grad[k];
    if (dt)
        for (int b = 0; b < s->n_sentences; b++)
            for (int t = s->offsets[b]; t < s->offsets[b + 1]; t++) {
                qkv_real *row = dt + (size_t)table_row(t - s->offsets[b], s->last_row) * D;
                const qkv_real *g = y->grad + (size_t)t * D;
                for (int c = 0; c < D; c++)
                    row[c] += g[c];
            }
}

qkv_tensor *qkv_positional_apply(qkv_tape *tp, const qkv_positional *pos, qkv_tensor *x,
                                 const int32_t *offsets, int n_sentences)
{
    if (tp->failed)
        return NULL;
    char sx[64];
    int D = pos->d_model;
    if (x->rank != 2 || x->shape[1] != D)
        return qkv_tape_fail(tp, "positional: x is %s, expected [T, %d]", qkv_shape_str(x, sx, sizeof sx), D);
    int T = x->shape[0];
    if (n_sentences < 0 || !offsets || offsets[0] != 0 || offsets[n_sentences] != T)
        return qkv_tape_fail(tp, "positional: offsets of %d sentences must run from 0 to T = %d", n_sentences, T);
    for (int b = 0; b < n_sentences; b++) {
        int n = offsets[b + 1] - offsets[b];
        if (n < 0)
            return qkv_tape_fail(tp, "positional: offsets decrease at sentence %d", b);
        if (pos->kind == QKV_POS_LEARNED && n > pos->max_len && !pos->clamp_overflow)
            return qkv_tape_fail(tp, "positional: sentence %d has %d tokens, longer than max_len %d of the "
                                 "learned position table", b, n, pos->max_len);
    }
    qkv_tensor *y = qkv_tape_like(tp, x);
    if (!y)
        return NULL;
    qkv_real scale = pos->scale_input ? (qkv_real)sqrt((double)D) : 1;
    int last_row = pos->kind == QKV_POS_LEARNED && pos->clamp_overflow ? pos->max_len - 1 : INT_MAX;
    for (size_t k = 0; k < x->size; k++)
        y->data[k] = scale * x->data[k];
    if (pos->kind != QKV_POS_NONE) {
        int longest = 0;
        for (int b = 0; b < n_sentences; b++)
            if (offsets[b + 1] - offsets[b] > longest)
                longest = offsets[b + 1] - offsets[b];
        const qkv_real *pe = pos->kind == QKV_POS_LEARNED ? pos->table->data : NULL;
        if (pos->kind == QKV_POS_SINUSOIDAL) { /* the table up to the longest sentence */
            qkv_real *sin_table = qkv_tape_alloc(tp, ((size_t)longest * D + 1) * sizeof(qkv_real));
            if (!sin_table)
                return NULL;
            for (int p = 0; p < longest; p++)
                qkv_sinusoidal(p, D, sin_table + (size_t)p * D);
            pe = sin_table;
        }
        for (int b = 0; b < n_sentences; b++)
            for (int t = offsets[b]; t < offsets[b + 1]; t++) {
                qkv_real *row = y->data + (size_t)t * D;
                const qkv_real *e = pe + (size_t)table_row(t - offsets[b], last_row) * D;
                for (int c = 0; c < D; c++)
                    row[c] += e[c];
            }
    }
    qkv_tensor *inputs[2] = {x, pos->kind == QKV_POS_LEARNED ? pos->table : NULL};
    qkv_node *node = qkv_tape_record(tp, "positional", positional_backward, y, 2, inputs);
    if (node) {
        pos_saved *s = qkv_tape_alloc(tp, sizeof *s);
        int32_t *off = qkv_tape_alloc(tp, (size_t)(n_sentences + 1) * sizeof *off);
        if (!s || !off)
            return NULL;
        memcpy(off, offsets, (size_t)(n_sentences + 1) * sizeof *off);
        s->offsets = off;
        s->n_sentences = n_sentences;
        s->scale = scale;
        s->last_row = last_row;
        node->saved = s;
    }
    return y;
}
