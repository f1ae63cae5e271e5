/* Time per element of the row kernels of lib/vmath.h on one thread: the softmax's
 * exp(x - m) with its sum, GELU (erf form, with a bias) and its gradient (into du and db), at
 * row lengths 16, 50 (an image's patches), 200 and 1,000, each kernel the processor runs, and
 * the ratio of each kernel's time to the portable one's (the reference, in the same run).
 * Every kernel works on the same rows; the checksums printed beside must agree to about 1e-6.
 *
 * Usage: bench_vmath [--min-seconds S]   (default 0.3 per cell) */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "lib/vmath.h"

enum { ROWS = 64, MAX_N = 1000 };

typedef enum { OP_SOFTMAX_EXP, OP_GELU, OP_GELU_GRAD, OP_COUNT } op;
static const char *const OP_NAMES[] = {"exp(x - m) + sum", "gelu(u + b)", "gelu'(u + b) into du, db"};

static double now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

/* One pass of op over ROWS rows of n; returns a checksum. x is refilled from src for the
 * in-place exp. */
static double pass(qkv_vmath_kernel k, op o, int n, const float *src, float *x, const float *b, float *y,
                   float *du, float *db)
{
    double sum = 0;
    for (int r = 0; r < ROWS; r++) {
        const float *s = src + (size_t)r * n;
        float *xr = x + (size_t)r * n;
        if (o == OP_SOFTMAX_EXP) {
            memcpy(xr, s, (size_t)n * sizeof *xr);
            sum += qkv_expf_shift_sum_with(k, xr, n, 0.0f);
        } else if (o == OP_GELU) {
            qkv_gelu_erff_with(k, s, b, y + (size_t)r * n, n);
            sum += y[(size_t)r * n] + y[(size_t)r * n + n - 1];
        } else {
            qkv_gelu_erff_grad_with(k, s, b, s, du + (size_t)r * n, db, n);
            sum += du[(size_t)r * n] + du[(size_t)r * n + n - 1];
        }
    }
    return sum;
}

/* Nanoseconds per element of op with kernel k at length n (repeating for min_s seconds). */
static double time_cell(qkv_vmath_kernel k, op o, int n, double min_s, double *checksum)
{
    static float src[ROWS * MAX_N], x[ROWS * MAX_N], y[ROWS * MAX_N], du[ROWS * MAX_N], b[MAX_N], db[MAX_N];
    for (int i = 0; i < ROWS * n; i++)
        src[i] = -(float)((i * 7919) % 1000) / 100.0f + (o == OP_SOFTMAX_EXP ? 0.0f : 5.0f);
    for (int j = 0; j < n; j++)
        b[j] = (float)(j % 7) * 0.1f - 0.3f, db[j] = 0;
    memset(du, 0, sizeof du);
    *checksum = pass(k, o, n, src, x, b, y, du, db);
    long reps = 0;
    double t0 = now(), t;
    do {
        pass(k, o, n, src, x, b, y, du, db);
        reps++;
        t = now() - t0;
    } while (t < min_s);
    return t / ((double)reps * ROWS * n) * 1e9;
}

int main(int argc, char **argv)
{
    double min_s = 0.3;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--min-seconds") && i + 1 < argc) {
            min_s = atof(argv[++i]);
        } else {
            fprintf(stderr, "usage: bench_vmath [--min-seconds S]\n");
            return 2;
        }
    }
    const int lens[] = {16, 50, 200, 1000};
    printf("lib/vmath.h kernels, one thread, ns per element (ratio: portable / kernel; checksum)\n");
    printf("%-26s %5s", "op", "n");
    for (int k = 0; k < QKV_VMATH_KERNEL_COUNT; k++)
        if (qkv_vmath_available((qkv_vmath_kernel)k))
            printf(" %28s", QKV_VMATH_KERNEL_NAMES[k]);
    printf("\n");
    for (int o = 0; o < OP_COUNT; o++)
        for (size_t li = 0; li < sizeof lens / sizeof lens[0]; li++) {
            printf("%-26s %5d", OP_NAMES[o], lens[li]);
            double base = 0;
            for (int k = 0; k < QKV_VMATH_KERNEL_COUNT; k++) {
                if (!qkv_vmath_available((qkv_vmath_kernel)k))
                    continue;
                double cs, ns = time_cell((qkv_vmath_kernel)k, (op)o, lens[li], min_s, &cs);
                if (k == QKV_VMATH_PORTABLE)
                    base = ns;
                printf("   %6.3f (%5.2fx; %11.6g)", ns, base / ns, cs);
            }
            printf("\n");
        }
    printf("chosen by the library on this processor: %s\n", QKV_VMATH_KERNEL_NAMES[qkv_vmath_chosen()]);
    return 0;
}
