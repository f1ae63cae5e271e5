/* Learning-rate schedule: linear warmup, then no decay (constant), linear decay or cosine decay.
 *
 * A pure function of the step t, counted from 1: t = 1 is the first optimizer update (so a
 * trainer passes o->step + 1, i.e. the step about to be taken). With W = warmup_steps,
 * T = total_steps, lr = the peak rate and lr_min = min_lr:
 *
 *   t <= 0                    0 when W > 0, else lr (no update has step 0; defined for safety)
 *   1 <= t <= W   (warmup)    lr · t / W           (linear from 0 at t = 0; lr/W at t = 1, lr at t = W)
 *   t > W, none (constant)    lr
 *   W < t < T, linear         lr_min + (lr − lr_min) · (1 − p)
 *   W < t < T, cosine         lr_min + (lr − lr_min) · (1 + cos(π p)) / 2   (Loshchilov & Hutter 2017,
 *                                                                           SGDR, one cycle, no restart)
 *                             with p = (t − W) / (T − W), the fraction of the decay done
 *   t >= T, linear or cosine  lr_min                (reached exactly at t = T, held beyond)
 *
 * Unlike schedulers that are stepped after the update (e.g. Hugging Face's
 * get_linear_schedule_with_warmup, whose first update uses lr 0), no update here has rate 0
 * unless lr_min is 0 and t >= T. */
#ifndef QKV_SCHEDULE_H
#define QKV_SCHEDULE_H

#include "lib/error.h"

typedef enum { QKV_LR_NONE, QKV_LR_LINEAR, QKV_LR_COSINE, QKV_LR_DECAY_COUNT } qkv_lr_decay;
/* "none", "linear", "cosine" (index = value), then NULL. */
extern const char *const QKV_LR_DECAY_NAMES[];

typedef struct qkv_lr_schedule {
    qkv_lr_decay decay;
    double lr;           /* peak rate, reached at the end of warmup; > 0 */
    double min_lr;       /* final rate of a decay; 0 <= min_lr <= lr (unused with no decay) */
    long warmup_steps;   /* >= 0; 0 = no warmup */
    long total_steps;    /* the step at which a decay reaches min_lr; > warmup_steps (unused with no decay) */
} qkv_lr_schedule;

/* Checks the fields above; errors name the field and its value. */
int qkv_lr_schedule_check(const qkv_lr_schedule *s, qkv_error *err);

/* The learning rate of update t (t = 1 for the first), by the formula above. */
double qkv_lr_at(const qkv_lr_schedule *s, long t);

#endif
