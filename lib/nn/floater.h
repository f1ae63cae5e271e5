/* FLOATER positions (Liu, Yu, Dhillon & Hsieh 2020, "Learning to encode position for
 * Transformer with continuous dynamical model"): the encoding of position i is p(i·Δt), the
 * solution of the ODE
 *   dp/dt = h(t, p),   h(t, p) = w2 · gelu(w1 p + t·w_t + b1) + b2,   p(0) = p0 (learned),
 * h a one-hidden-layer network of QKV_FLOATER_HIDDEN units (GELU, erf form), p in R^d_model.
 * Solved by classical fixed-step RK4, one step of Δt = QKV_FLOATER_DT between consecutive
 * positions, unrolled on the tape so that the autograd differentiates through the solver
 * (discretise-then-optimise); no table and no maximum length: a batch solves up to its
 * longest sentence. The encoding is added to the input only (lib/nn/positional.h), not
 * re-injected in every block as the paper does.
 *
 * Parameters under a prefix (e.g. "pos"): <prefix>.p0 [1, d_model], .w1 [H, d_model], .b1 [H],
 * .w_t [H], .w2 [d_model, H], .b2 [d_model], H = QKV_FLOATER_HIDDEN. */
#ifndef QKV_FLOATER_H
#define QKV_FLOATER_H

#include "lib/param.h"
#include "lib/tape.h"

#define QKV_FLOATER_HIDDEN 32
#define QKV_FLOATER_DT 0.1

typedef struct qkv_floater {
    int d_model;
    qkv_tensor *p0, *w1, *b1, *w_t, *w2, *b2;
} qkv_floater;

/* Adds the parameters above to ps: p0 N(0, 0.02^2) (as a learned table's rows), w1 and w2
 * Xavier uniform, w_t N(0, 1), biases 0. Errors (err): d_model < 1, a parameter that cannot be
 * added. */
int qkv_floater_create(qkv_floater *f, qkv_params *ps, qkv_rng *rng, const char *prefix, int d_model,
                       qkv_error *err);

/* The encodings of positions 0 .. n−1 as a tape tensor [n, d_model] (row i = p(i·Δt)), n >= 1;
 * about 30 small tape nodes per position. NULL when the tape has failed. */
qkv_tensor *qkv_floater_positions(qkv_tape *tp, const qkv_floater *f, int n);

#endif
