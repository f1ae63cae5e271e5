/* Forward + backward time of one multi-head self-attention layer (d_model 256, 4 heads, with
 * biases, float) on a single sequence of n = 256, 1k, 4k, 16k tokens, whole-sentence
 * attention (window 0) and a band of window 32. Prints time per token: with window 32 it must
 * stay flat in n; with window 0 it grows with n.
 *
 * Memory: the stored kernel (the default) keeps the attention weights P for backward,
 * n · min(n, 2w + 1) floats per head. A cell whose P would exceed --max-p-gib (default 2) is
 * skipped with a note (16k tokens, window 0 needs 4 GiB for 4 heads). --kernel tiled runs the
 * tiled kernel instead (lib/ops/attention.h: no P kept, no cell skipped); --d-model and
 * --lens change the layer's width and the sequence lengths.
 *
 * Usage: bench_attention [--max-p-gib G] [--min-seconds S] [--kernel stored|tiled] [--d-model D]
 *                        [--lens N,N,...]   (threads: OMP_NUM_THREADS) */
#include <cblas.h>
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "lib/nn/mha.h"

/* GFLOP/s of one large sgemm on the same machine in the same run, for scale. */
static double sgemm_probe(void)
{
    const int n = 1024;
    float *a = calloc((size_t)n * n, sizeof *a), *b = calloc((size_t)n * n, sizeof *b), *c = calloc((size_t)n * n, sizeof *c);
    for (size_t i = 0; i < (size_t)n * n; i++) {
        a[i] = (float)(i % 13) * 1e-3f;
        b[i] = (float)(i % 7) * 1e-3f;
    }
    cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasTrans, n, n, n, 1, a, n, b, n, 0, c, n);
    struct timespec t0, t1;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    const int reps = 10;
    for (int r = 0; r < reps; r++)
        cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasTrans, n, n, n, 1, a, n, b, n, 0, c, n);
    clock_gettime(CLOCK_MONOTONIC, &t1);
    free(a);
    free(b);
    free(c);
    double dt = (double)(t1.tv_sec - t0.tv_sec) + 1e-9 * (double)(t1.tv_nsec - t0.tv_nsec);
    return 2.0 * n * n * (double)n * reps / dt / 1e9;
}

static double clock_s(clockid_t id)
{
    struct timespec ts;
    clock_gettime(id, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}
static double now(void) { return clock_s(CLOCK_MONOTONIC); }

int main(int argc, char **argv)
{
    double max_p_gib = 2.0, min_seconds = 1.0;
    int d_model = 256, n_lens = 4, lens[16] = {256, 1024, 4096, 16384};
    qkv_attn_kernel kernel = QKV_ATTN_KERNEL_STORED;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--max-p-gib") == 0 && i + 1 < argc)
            max_p_gib = atof(argv[++i]);
        else if (strcmp(argv[i], "--min-seconds") == 0 && i + 1 < argc)
            min_seconds = atof(argv[++i]);
        else if (strcmp(argv[i], "--kernel") == 0 && i + 1 < argc && (!strcmp(argv[i + 1], "stored") ||
                                                                       !strcmp(argv[i + 1], "tiled")))
            kernel = strcmp(argv[++i], "tiled") == 0 ? QKV_ATTN_KERNEL_TILED : QKV_ATTN_KERNEL_STORED;
        else if (strcmp(argv[i], "--d-model") == 0 && i + 1 < argc && atoi(argv[i + 1]) >= 4)
            d_model = atoi(argv[++i]);
        else if (strcmp(argv[i], "--lens") == 0 && i + 1 < argc) {
            char *p = argv[++i];
            for (n_lens = 0; n_lens < 16 && *p; n_lens++) {
                lens[n_lens] = (int)strtol(p, &p, 10);
                if (lens[n_lens] < 1 || (*p && *p++ != ','))
                    return fprintf(stderr, "%s: --lens takes positive lengths separated by commas\n", argv[0]), 2;
            }
        } else {
            fprintf(stderr, "usage: %s [--max-p-gib G] [--min-seconds S] [--kernel stored|tiled] [--d-model D] "
                            "[--lens N,N,...]\n", argv[0]);
            return 2;
        }
    }
    const int n_heads = 4, windows[2] = {0, 32};
    printf("attention layer fwd+bwd, d_model %d, %d heads, float, %d OpenMP threads, %s kernel\n", d_model, n_heads,
           omp_get_max_threads(), QKV_ATTN_KERNEL_NAMES[kernel]);
    printf("sgemm probe (1024^3, OpenBLAS %d threads): %.1f GFLOP/s\n", openblas_get_num_threads(), sgemm_probe());
    printf("(wall-clock times; cpu ms = CPU time of all threads, which a loaded machine inflates less)\n");
    printf("%8s %7s %12s %12s %14s %9s %12s\n", "n", "window", "forward ms", "fwd+bwd ms", "us per token", "GFLOP/s",
           "cpu ms");
    for (int wi = 0; wi < 2; wi++)
        for (int li = 0; li < n_lens; li++) {
            int n = lens[li], w = windows[wi];
            int width = (w == 0 || 2 * w + 1 >= n) ? n : 2 * w + 1;
            double p_gib = (double)n * width * n_heads * sizeof(qkv_real) / (1024.0 * 1024 * 1024);
            if (kernel == QKV_ATTN_KERNEL_STORED && p_gib > max_p_gib) {
                printf("%8d %7d   skipped: P needs %.1f GiB > --max-p-gib %.1f\n", n, w, p_gib, max_p_gib);
                continue;
            }
            qkv_params ps;
            qkv_params_init(&ps);
            qkv_rng rng;
            qkv_rng_seed(&rng, 1);
            qkv_error err;
            qkv_mha m;
            qkv_attention_opts opts = {.n_heads = n_heads, .window = w, .kernel = kernel};
            qkv_tensor *x = qkv_params_add(&ps, &err, 2, (int[]){n, d_model}, "x");
            if (!x || qkv_mha_create(&m, &ps, &rng, "attn", d_model, &opts, true, &err) != QKV_OK) {
                fprintf(stderr, "bench_attention: %s\n", err.msg);
                return 1;
            }
            qkv_init_normal(x, &rng, 1.0);
            int32_t off[2] = {0, n};
            qkv_real *dy = malloc((size_t)n * d_model * sizeof *dy);
            for (size_t i = 0; i < (size_t)n * d_model; i++)
                dy[i] = (qkv_real)(qkv_rng_uniform(&rng) - 0.5);
            qkv_tape tp;
            qkv_tape_init(&tp, 0);
            double t_fwd = 0, t_all = 0, t_cpu = 0;
            int reps = 0;
            for (int it = 0;; it++) { /* iteration 0 warms up (arena growth, BLAS threads) */
                qkv_tape_reset(&tp);
                double t0 = now(), c0 = clock_s(CLOCK_PROCESS_CPUTIME_ID);
                qkv_tensor *y = qkv_mha_forward(&tp, &m, x, (qkv_packed){1, off}, NULL);
                double t1 = now();
                if (!y || qkv_backward_from(&tp, y, dy) != QKV_OK) {
                    fprintf(stderr, "bench_attention: %s\n", tp.err.msg);
                    return 1;
                }
                double t2 = now(), c2 = clock_s(CLOCK_PROCESS_CPUTIME_ID);
                if (it > 0) {
                    t_fwd += t1 - t0;
                    t_all += t2 - t0;
                    t_cpu += c2 - c0;
                    reps++;
                }
                if (reps >= 3 && t_all >= min_seconds)
                    break;
            }
            /* projections 24 n d^2 (forward 8, backward 16); scores and P V over the visible
             * band 12 n W d_model (forward 4, backward 8) */
            double flops = 24.0 * n * d_model * d_model + 12.0 * n * width * d_model;
            printf("%8d %7d %12.2f %12.2f %14.2f %9.1f %12.2f\n", n, w, 1e3 * t_fwd / reps, 1e3 * t_all / reps,
                   1e6 * t_all / reps / n, flops / (t_all / reps) / 1e9, 1e3 * t_cpu / reps);
            fflush(stdout);
            qkv_tape_free(&tp);
            free(dy);
            qkv_params_free(&ps);
        }
    return 0;
}
