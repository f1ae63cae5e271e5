/* Bidirectional LSTM stack: composition of qkv_linear (the input projection of all tokens, one
 * GEMM per direction) and qkv_lstm (the recurrence). See lib/nn/lstm.h. */
#include "lib/nn/lstm.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

int qkv_bilstm_create(qkv_bilstm *m, qkv_params *ps, qkv_rng *rng, const char *prefix, int n_layers, int d_in,
                      int hidden, double dropout, qkv_error *err)
{
    memset(m, 0, sizeof *m);
    if (n_layers < 1 || n_layers > QKV_LSTM_MAX_LAYERS)
        return qkv_fail(err, "%s: %d layers, expected 1..%d", prefix, n_layers, QKV_LSTM_MAX_LAYERS);
    if (d_in < 1 || hidden < 1)
        return qkv_fail(err, "%s: input size %d and hidden size %d must be positive", prefix, d_in, hidden);
    if (!(dropout >= 0 && dropout < 1))
        return qkv_fail(err, "%s: dropout %g is outside [0, 1)", prefix, dropout);
    *m = (qkv_bilstm){.n_layers = n_layers, .d_in = d_in, .hidden = hidden, .dropout = dropout};
    const double bound = 1.0 / sqrt((double)hidden);
    for (int l = 0; l < n_layers; l++)
        for (int d = 0; d < 2; d++) {
            const char *sfx = d ? "_reverse" : "";
            int in = l == 0 ? d_in : 2 * hidden, g = 4 * hidden;
            qkv_tensor **t[4] = {&m->w_ih[l][d], &m->w_hh[l][d], &m->b_ih[l][d], &m->b_hh[l][d]};
            const char *kind[4] = {"weight_ih", "weight_hh", "bias_ih", "bias_hh"};
            int shapes[4][2] = {{g, in}, {g, hidden}, {g, 0}, {g, 0}};
            for (int k = 0; k < 4; k++) {
                *t[k] = qkv_params_add(ps, err, k < 2 ? 2 : 1, shapes[k], "%s.%s_l%d%s", prefix, kind[k], l, sfx);
                if (!*t[k])
                    return QKV_ERR;
                qkv_init_uniform(*t[k], rng, bound);
            }
        }
    return QKV_OK;
}

qkv_tensor *qkv_bilstm_forward(qkv_tape *tp, const qkv_bilstm *m, qkv_tensor *x, qkv_packed sentences)
{
    for (int l = 0; l < m->n_layers && x; l++) {
        if (l > 0)
            x = qkv_dropout(tp, x, m->dropout);
        qkv_tensor *gf = qkv_linear(tp, x, m->w_ih[l][0], m->b_ih[l][0]);
        qkv_tensor *gb = gf ? qkv_linear(tp, x, m->w_ih[l][1], m->b_ih[l][1]) : NULL;
        x = gb ? qkv_lstm(tp, gf, m->w_hh[l][0], m->b_hh[l][0], gb, m->w_hh[l][1], m->b_hh[l][1], sentences) : NULL;
    }
    return x;
}
