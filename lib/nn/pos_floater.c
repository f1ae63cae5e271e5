/* Positional kind floater, additive: PE(p) = the solution at time p·Δt of a learned ODE
 * (FLOATER, lib/nn/floater.h), any length. See lib/nn/positional.h. */
#include "lib/nn/positional.h"

static int floater_create(qkv_positional *pos, qkv_params *ps, qkv_rng *rng, const char *prefix, qkv_error *err)
{
    return qkv_floater_create(&pos->floater, ps, rng, prefix, pos->d_model, err);
}

/* The ODE solved up to the longest sentence; NULL (no PE) for an empty batch. */
static qkv_tensor *floater_pe(qkv_tape *tp, const qkv_positional *pos, int longest)
{
    return longest > 0 ? qkv_floater_positions(tp, &pos->floater, longest) : NULL;
}

const qkv_pos_desc qkv_pos_floater = {
    .name = "floater",
    .group = QKV_POS_ADDITIVE,
    .params = "",
    .create = floater_create,
    .pe = floater_pe,
    .draw = qkv_pos_draw_additive,
    .draws = "PE(p) by dimension; the cosine of PE(i) and PE(j)",
};
