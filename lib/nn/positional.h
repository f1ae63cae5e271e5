/* Positional encodings added to the token representations of a packed batch.
 *
 *   y[t] = x[t] · (scale_input ? sqrt(d_model) : 1) + PE(p(t))
 *
 * where p(t) is the position of token t inside its own sentence (restarting at 0 for every
 * sentence of the packed batch, see lib/segments.h). Kinds:
 *   none        PE = 0 (only the optional scaling applies)
 *   sinusoidal  PE(p, 2i) = sin(p / 10000^(2i / d_model)), PE(p, 2i+1) = cos(same angle)
 *               (Vaswani et al. 2017, section 3.5), any length, odd d_model included
 *   learned     PE(p) = row p of a [max_len, d_model] parameter "<prefix>.table"
 *               (a sentence longer than max_len is a tape error naming both numbers, unless
 *               overflow is clamp: then positions p >= max_len use row max_len - 1, so
 *               every word past the table shares the last learned position)
 *   floater     PE(p) = the solution at time p·Δt of a learned ODE (FLOATER, lib/nn/floater.h),
 *               any length
 *   rope, alibi PE = 0 here: they act inside attention (qkv_attention_opts rope_base, alibi;
 *               the model sets them from the kind), as do the relative biases (rel_clip). */
#ifndef QKV_POSITIONAL_H
#define QKV_POSITIONAL_H

#include <stdint.h>

#include "lib/nn/floater.h"
#include "lib/param.h"
#include "lib/segments.h"
#include "lib/tape.h"

typedef enum {
    QKV_POS_NONE = 0,
    QKV_POS_SINUSOIDAL,
    QKV_POS_LEARNED,
    QKV_POS_ROPE,    /* in attention: rotary q and k (lib/ops/rope.h); PE = 0 here */
    QKV_POS_ALIBI,   /* in attention: linear score biases (lib/ops/alibi.h); PE = 0 here */
    QKV_POS_FLOATER, /* PE from a learned ODE (lib/nn/floater.h) */
    QKV_POS_COUNT
} qkv_pos_kind;
/* "none", "sinusoidal", "learned", "rope", "alibi", "floater" (index = value), then NULL. */
extern const char *const QKV_POS_KIND_NAMES[];

/* Learned positions, a sentence longer than max_len: an error, or clamp (see above). */
typedef enum { QKV_POS_OVERFLOW_ERROR = 0, QKV_POS_OVERFLOW_CLAMP, QKV_POS_OVERFLOW_COUNT } qkv_pos_overflow;
/* "error", "clamp" (index = value), then NULL. */
extern const char *const QKV_POS_OVERFLOW_NAMES[];

typedef struct qkv_positional {
    qkv_pos_kind kind;
    int d_model;
    int max_len;        /* learned: rows of the table */
    bool scale_input;   /* multiply x by sqrt(d_model) first */
    qkv_pos_overflow overflow; /* learned, clamp: PE(p) = row min(p, max_len - 1) instead of an
                                  error; error after qkv_positional_create, set it afterwards */
    qkv_tensor *table;  /* learned: [max_len, d_model] parameter; else NULL */
    qkv_floater floater; /* floater: its parameters */
} qkv_positional;

/* Fills pe [d_model] with the sinusoidal encoding of position p (computed in double). */
void qkv_sinusoidal(int p, int d_model, qkv_real *pe);

/* Sets up pos; for `learned` adds the parameter "<prefix>.table" [max_len, d_model] to ps,
 * initialized N(0, 0.02^2); for `floater` the ODE's parameters (lib/nn/floater.h). Errors (err): d_model < 1, learned with max_len < 1, a parameter
 * that cannot be added. rng is used only for `learned` and `floater`. */
int qkv_positional_create(qkv_positional *pos, qkv_pos_kind kind, int d_model, int max_len, bool scale_input,
                          qkv_params *ps, qkv_rng *rng, const char *prefix, qkv_error *err);

/* y [T, d_model] = x · s + PE(position in sentence). x [T, d_model], sentences packed as in
 * lib/segments.h. One tape node "positional" (gradients to x and to the table).
 * Tape errors: x not [T, d_model], sentences not covering x, a sentence longer than max_len
 * (learned, overflow error). */
qkv_tensor *qkv_positional_apply(qkv_tape *tp, const qkv_positional *pos, qkv_tensor *x, qkv_segments sentences);

#endif
