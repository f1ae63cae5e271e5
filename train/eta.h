/* The time left of a training run, as `qkv train` prints it in each log row ("eta"). */
#ifndef QKV_TRAIN_ETA_H
#define QKV_TRAIN_ETA_H

#include <stddef.h>

/* Seconds left until the run stops: the steps from step to its last step at the pace of the
 * steps this process has trained. start_step: the step the process began at (0, or the
 * checkpoint's step after --resume: steps done before it took no time of this process);
 * elapsed: seconds since then; total_steps: the schedule's steps; stop_at_step > 0: the run
 * stops there when it is earlier (--stop-at-step), 0: at total_steps. 0 when no step was
 * trained yet or the last step is reached. */
double qkv_eta_seconds(double elapsed, long start_step, long step, long total_steps, long stop_at_step);

/* seconds (rounded; negative as 0) as "M:SS", or "H:MM:SS" from an hour, into buf. */
void qkv_format_duration(double seconds, char *buf, size_t len);

#endif
