/* Learning-rate schedule; the formula is in lib/optim/schedule.h. */
#include "lib/optim/schedule.h"

#include <math.h>

const char *const QKV_LR_DECAY_NAMES[] = {"none", "linear", "cosine", NULL};
_Static_assert(sizeof QKV_LR_DECAY_NAMES / sizeof QKV_LR_DECAY_NAMES[0] == QKV_LR_DECAY_COUNT + 1,
               "one name per qkv_lr_decay");

int qkv_lr_schedule_check(const qkv_lr_schedule *s, qkv_error *err)
{
    if ((unsigned)s->decay >= QKV_LR_DECAY_COUNT)
        return qkv_fail(err, "learning-rate decay %d is not none, linear or cosine", (int)s->decay);
    if (!(isfinite(s->lr) && s->lr > 0))
        return qkv_fail(err, "lr = %g, must be finite and > 0", s->lr);
    if (s->warmup_steps < 0)
        return qkv_fail(err, "warmup_steps = %ld, must be >= 0", s->warmup_steps);
    if (s->decay == QKV_LR_NONE)
        return QKV_OK;
    if (!(s->min_lr >= 0 && s->min_lr <= s->lr))
        return qkv_fail(err, "min_lr = %g, must be in [0, lr = %g]", s->min_lr, s->lr);
    if (s->total_steps <= s->warmup_steps)
        return qkv_fail(err, "total_steps = %ld, must be greater than warmup_steps = %ld for %s decay",
                        s->total_steps, s->warmup_steps, QKV_LR_DECAY_NAMES[s->decay]);
    return QKV_OK;
}

double qkv_lr_at(const qkv_lr_schedule *s, long t)
{
    long w = s->warmup_steps;
    if (t <= 0)
        return w > 0 ? 0.0 : s->lr;
    if (t <= w)
        return s->lr * (double)t / (double)w;
    if (s->decay == QKV_LR_NONE)
        return s->lr;
    if (t >= s->total_steps)
        return s->min_lr;
    double p = (double)(t - w) / (double)(s->total_steps - w);
    double f = s->decay == QKV_LR_LINEAR ? 1.0 - p : 0.5 * (1.0 + cos(M_PI * p));
    return s->min_lr + (s->lr - s->min_lr) * f;
}
