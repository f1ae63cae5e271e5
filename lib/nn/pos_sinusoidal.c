/* Positional kind sinusoidal (Vaswani et al. 2017, section 3.5), additive:
 *   PE(p, 2i) = sin(p / 10000^(2i / d_model)), PE(p, 2i+1) = cos(same angle),
 * any length, odd d_model included; no parameters. See lib/nn/positional.h. */
#include "lib/nn/positional.h"

#include <math.h>

void qkv_sinusoidal(int p, int d_model, qkv_real *pe)
{
    for (int c = 0; c < d_model; c++) {
        int two_i = c - c % 2;
        double angle = (double)p / pow(10000.0, (double)two_i / (double)d_model);
        pe[c] = (qkv_real)(c % 2 == 0 ? sin(angle) : cos(angle));
    }
}

/* A constant table [longest, d_model] on the tape; NULL (no PE) for an empty batch. */
static qkv_tensor *sinusoidal_pe(qkv_tape *tp, const qkv_positional *pos, int longest)
{
    if (longest < 1)
        return NULL;
    int D = pos->d_model;
    qkv_tensor *pe = qkv_tape_tensor2(tp, longest, D);
    if (!pe)
        return NULL;
    for (int p = 0; p < longest; p++)
        qkv_sinusoidal(p, D, pe->data + (size_t)p * D);
    return pe;
}

const qkv_pos_desc qkv_pos_sinusoidal = {
    .name = "sinusoidal",
    .group = QKV_POS_ADDITIVE,
    .params = "",
    .pe = sinusoidal_pe,
    .draw = qkv_pos_draw_additive,
    .draws = "PE(p) by dimension; the cosine of PE(i) and PE(j)",
};
