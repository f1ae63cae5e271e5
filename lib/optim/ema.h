/* An exponential moving average of the parameters (Polyak & Juditsky 1992 averaging in its
 * exponential form, as TensorFlow's ExponentialMovingAverage): after optimizer update t,
 *   avg = d_t · avg + (1 - d_t) · param,   d_t = min(decay, (1 + t) / (10 + t)),
 * so the early average is not dominated by the initial values. Evaluating with the averaged
 * parameters usually gives a smoother, slightly better model than the last update.
 * The average lives in one buffer with every parameter's values end to end, in the order of
 * the qkv_params it was made for. */
#ifndef QKV_EMA_H
#define QKV_EMA_H

#include "lib/param.h"

typedef struct qkv_ema {
    double decay;        /* in (0, 1) */
    size_t size;         /* scalars in all parameters */
    qkv_real *avg;       /* [size] */
    bool swapped;        /* true between qkv_ema_swap calls: the params hold the average */
} qkv_ema;

/* Starts the average at the parameters' current values. Errors: decay outside (0, 1), out of
 * memory. */
int qkv_ema_init(qkv_ema *e, const qkv_params *ps, double decay, qkv_error *err);
void qkv_ema_free(qkv_ema *e);

/* One update after optimizer step `step` (1 for the first). */
void qkv_ema_update(qkv_ema *e, const qkv_params *ps, long step);

/* Exchanges the parameters' values with the average (call twice to get back): evaluation and
 * checkpoints run on the average in between. */
void qkv_ema_swap(qkv_ema *e, qkv_params *ps);

#endif
