/* A stack of bidirectional LSTM layers over a packed batch (lib/ops/lstm.c), as PyTorch's
 * nn.LSTM(d_in, hidden, num_layers=n_layers, bidirectional=True, dropout=dropout) run on each
 * sentence alone (or on a PackedSequence): layer l reads the [T, 2·hidden] output of layer
 * l-1 (layer 0 reads x [T, d_in]); dropout between layers, not after the last.
 *
 * Parameter names under a prefix (e.g. "encoder.lstm"), one-to-one with nn.LSTM's:
 *   <prefix>.weight_ih_l<l>[_reverse]   [4·hidden, in_l]   in_0 = d_in, else 2·hidden
 *   <prefix>.weight_hh_l<l>[_reverse]   [4·hidden, hidden]
 *   <prefix>.bias_ih_l<l>[_reverse], <prefix>.bias_hh_l<l>[_reverse]   [4·hidden]
 * Initialised as nn.LSTM: every value U(-1/sqrt(hidden), 1/sqrt(hidden)). */
#ifndef QKV_NN_LSTM_H
#define QKV_NN_LSTM_H

#include "lib/ops/ops.h"
#include "lib/param.h"

#define QKV_LSTM_MAX_LAYERS 64

typedef struct qkv_bilstm {
    int n_layers, d_in, hidden;
    double dropout;
    qkv_tensor *w_ih[QKV_LSTM_MAX_LAYERS][2], *w_hh[QKV_LSTM_MAX_LAYERS][2];
    qkv_tensor *b_ih[QKV_LSTM_MAX_LAYERS][2], *b_hh[QKV_LSTM_MAX_LAYERS][2];
} qkv_bilstm;

/* Adds the parameters (names above). Errors: n_layers outside 1..QKV_LSTM_MAX_LAYERS, d_in or
 * hidden < 1, dropout outside [0, 1), a parameter that cannot be added. */
int qkv_bilstm_create(qkv_bilstm *m, qkv_params *ps, qkv_rng *rng, const char *prefix, int n_layers, int d_in,
                      int hidden, double dropout, qkv_error *err);

/* y [T, 2·hidden] for x [T, d_in]; NULL when the tape failed. */
qkv_tensor *qkv_bilstm_forward(qkv_tape *tp, const qkv_bilstm *m, qkv_tensor *x, qkv_packed sentences);

#endif
