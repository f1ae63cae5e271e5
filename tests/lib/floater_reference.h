/* FLOATER's ODE (lib/nn/floater.h) solved in plain double precision, for the tests that check
 * the library's unrolled solver against it (test_floater.c, test_pos_kinds.c). */
#ifndef QKV_TEST_FLOATER_REFERENCE_H
#define QKV_TEST_FLOATER_REFERENCE_H

#include <math.h>

#include "lib/nn/floater.h"

static double gelu(double x) { return 0.5 * x * (1 + erf(x / sqrt(2))); }

/* out [d_model] = h(t, p) = w2 · gelu(w1 p + t·w_t + b1) + b2. */
static void h_ref(const qkv_floater *f, double t, const double *p, double *out)
{
    int D = f->d_model, H = QKV_FLOATER_HIDDEN;
    double z[QKV_FLOATER_HIDDEN];
    for (int j = 0; j < H; j++) {
        z[j] = f->b1->data[j] + t * f->w_t->data[j];
        for (int c = 0; c < D; c++)
            z[j] += f->w1->data[j * D + c] * p[c];
        z[j] = gelu(z[j]);
    }
    for (int c = 0; c < D; c++) {
        out[c] = f->b2->data[c];
        for (int j = 0; j < H; j++)
            out[c] += f->w2->data[c * H + j] * z[j];
    }
}

/* pe [n, d_model] = p(i·Δt), i = 0 .. n − 1: classical RK4, one step of Δt per position, from
 * p(0) = p0. d_model <= 64. */
static void floater_reference(const qkv_floater *f, int n, double *pe)
{
    int D = f->d_model;
    double p[64], k[4][64], tmp[64], dt = QKV_FLOATER_DT;
    for (int c = 0; c < D; c++)
        p[c] = f->p0->data[c];
    for (int i = 0; i < n; i++) {
        for (int c = 0; c < D; c++)
            pe[i * D + c] = p[c];
        double t = i * dt;
        h_ref(f, t, p, k[0]);
        for (int s = 1; s < 4; s++) {
            double a = s == 3 ? dt : dt / 2;
            for (int c = 0; c < D; c++)
                tmp[c] = p[c] + a * k[s - 1][c];
            h_ref(f, t + a, tmp, k[s]);
        }
        for (int c = 0; c < D; c++)
            p[c] += dt / 6 * (k[0][c] + 2 * k[1][c] + 2 * k[2][c] + k[3][c]);
    }
}

#endif
