#include "train/eta.h"

double qkv_eta_seconds(double elapsed, long start_step, long step, long total_steps, long stop_at_step)
{
    long last = stop_at_step > 0 && stop_at_step < total_steps ? stop_at_step : total_steps;
    if (step <= start_step || step >= last)
        return 0;
    return elapsed / (double)(step - start_step) * (double)(last - step);
}
