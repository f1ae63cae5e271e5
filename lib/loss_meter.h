/* A token-weighted mean of a loss over several batches. qkv_cross_entropy gives each batch's
 * mean over its tokens (rows with a target >= 0); averaging those means would weigh a token
 * by 1 / (its batch's size), so the same data would report another loss for another batch
 * size. A meter adds each batch mean times its token count instead:
 *     mean = Σ_batches mean_b · n_b / Σ_batches n_b = Σ_tokens loss / tokens.
 * Header only; sums in double. */
#ifndef QKV_LOSS_METER_H
#define QKV_LOSS_METER_H

#include <math.h>
#include <stdint.h>

typedef struct qkv_loss_meter {
    double sum;     /* Σ over tokens of the loss (Σ_b mean_b · n_b) */
    int64_t tokens; /* tokens counted */
} qkv_loss_meter;

/* The tokens qkv_cross_entropy averages over: targets[0..n-1] that are >= 0. */
static inline int64_t qkv_loss_tokens(const int32_t *targets, int n)
{
    int64_t count = 0;
    for (int i = 0; i < n; i++)
        count += targets[i] >= 0;
    return count;
}

/* Adds a batch whose loss is batch_mean over `tokens` tokens. */
static inline void qkv_loss_meter_add(qkv_loss_meter *m, double batch_mean, int64_t tokens)
{
    m->sum += batch_mean * (double)tokens;
    m->tokens += tokens;
}

/* The mean over every token added; NaN when none was. */
static inline double qkv_loss_meter_mean(const qkv_loss_meter *m)
{
    return m->tokens > 0 ? m->sum / (double)m->tokens : NAN;
}

#endif
