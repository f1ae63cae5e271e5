#include "train/eta.h"

#include <stdio.h>

double qkv_eta_seconds(double elapsed, long start_step, long step, long total_steps, long stop_at_step)
{
    long last = stop_at_step > 0 && stop_at_step < total_steps ? stop_at_step : total_steps;
    if (step <= start_step || step >= last)
        return 0;
    return elapsed / (double)(step - start_step) * (double)(last - step);
}

void qkv_format_duration(double seconds, char *buf, size_t len)
{
    long s = seconds < 0 ? 0 : (long)(seconds + 0.5);
    if (s >= 3600)
        snprintf(buf, len, "%ld:%02ld:%02ld", s / 3600, s / 60 % 60, s % 60);
    else
        snprintf(buf, len, "%ld:%02ld", s / 60, s % 60);
}
