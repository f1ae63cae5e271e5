/* GEMM probe for tests/reference/bench.py (not a test): the GFLOP/s that each backend of float
 * products this build has reaches on this machine with a given thread count, for a square
 * product and for the shapes of a tagger's projections:
 *   openblas  OpenBLAS's cblas_sgemm (float);
 *   onednn    oneDNN's dnnl_sgemm (float; builds with oneDNN);
 *   bf16      qkv's bf16 products (lib/gemm/bf16.h: A and B converted to bf16 on every call,
 *             which is counted, then oneDNN's matmul with float accumulation; builds with oneDNN).
 *
 *   usage: bench_sgemm_probe THREADS [SECONDS_PER_SHAPE [BACKENDS [SHAPES [CLOCK]]]]
 *     BACKENDS: a comma-separated list of the names above, or "all" (the default: every one
 *     the build has; a name the build lacks is an error);
 *     SHAPES: MxNxK,... (default 1024x1024x1024,1000x512x128,1000x1024x256,1000x384x128);
 *     CLOCK: wall (the default: GFLOP/s of elapsed time) or cpu (GFLOP/s per second of the
 *     process's CPU time, all threads summed: with THREADS 1, a comparison of the backends that
 *     other jobs on the machine disturb much less than the wall clock).
 *   prints lines "BACKEND M N K GFLOP/s" (C [M, N] = A [M, K] B [K, N], 2·M·N·K FLOPs each),
 *   backends in the order above, shapes in the given order. */
#include <cblas.h>
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "lib/gemm/backend.h"
#include "lib/gemm/bf16.h"
#ifdef QKV_HAVE_ONEDNN
#include <dnnl.h>
#endif

enum { OPENBLAS, ONEDNN, BF16, N_BACKENDS };
static const char *const NAMES[N_BACKENDS] = {"openblas", "onednn", "bf16"};

static clockid_t clock_id = CLOCK_MONOTONIC;

static double now(void)
{
    struct timespec ts;
    clock_gettime(clock_id, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static void product(int backend, int m, int n, int k, const float *a, const float *b, float *c)
{
    switch (backend) {
    case OPENBLAS:
        cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, m, n, k, 1, a, k, b, n, 0, c, n);
        break;
#ifdef QKV_HAVE_ONEDNN
    case ONEDNN:
        dnnl_sgemm('N', 'N', m, n, k, 1, a, k, b, n, 0, c, n);
        break;
#endif
    default:
        qkv_gemm_bf16(false, false, m, n, k, 1, a, k, b, n, 0, c, n);
    }
}

static double probe(int backend, int m, int n, int k, double seconds)
{
    float *a = malloc(sizeof(float) * (size_t)m * k), *b = malloc(sizeof(float) * (size_t)k * n),
          *c = malloc(sizeof(float) * (size_t)m * n);
    if (!a || !b || !c) {
        fprintf(stderr, "bench_sgemm_probe: out of memory\n");
        exit(1);
    }
    for (size_t i = 0; i < (size_t)m * k; i++)
        a[i] = (float)(i % 7) * 0.1f;
    for (size_t i = 0; i < (size_t)k * n; i++)
        b[i] = (float)(i % 5) * 0.1f;
    product(backend, m, n, k, a, b, c); /* warm-up (and oneDNN's primitives made) */
    long reps = 0;
    double t0 = now(), t;
    do {
        product(backend, m, n, k, a, b, c);
        reps++;
    } while ((t = now() - t0) < seconds);
    free(a);
    free(b);
    free(c);
    return 2.0 * m * n * k * (double)reps / t * 1e-9;
}

/* Which backends to run: "all" or a list of names; exits on a name this build lacks. */
static void chosen(const char *list, int *on)
{
    for (int i = 0; i < N_BACKENDS; i++)
        on[i] = !strcmp(list, "all") && (i == OPENBLAS || qkv_gemm_have_onednn());
    if (!strcmp(list, "all"))
        return;
    char buf[256];
    snprintf(buf, sizeof buf, "%s", list);
    for (char *s = strtok(buf, ","); s; s = strtok(NULL, ",")) {
        int i = 0;
        while (i < N_BACKENDS && strcmp(s, NAMES[i]))
            i++;
        if (i == N_BACKENDS || (i != OPENBLAS && !qkv_gemm_have_onednn())) {
            fprintf(stderr, "bench_sgemm_probe: backend '%s' %s\n", s,
                    i == N_BACKENDS ? "unknown (openblas, onednn, bf16, all)" : "needs a build with oneDNN");
            exit(2);
        }
        on[i] = 1;
    }
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        fprintf(stderr, "usage: bench_sgemm_probe THREADS [SECONDS_PER_SHAPE [BACKENDS [SHAPES [CLOCK]]]]\n");
        return 2;
    }
    int threads = atoi(argv[1]), on[N_BACKENDS];
    double seconds = argc > 2 ? atof(argv[2]) : 1.0;
    chosen(argc > 3 ? argv[3] : "all", on);
    if (argc > 5 && strcmp(argv[5], "wall") && strcmp(argv[5], "cpu")) {
        fprintf(stderr, "bench_sgemm_probe: clock '%s': wall or cpu\n", argv[5]);
        return 2;
    }
    if (argc > 5 && !strcmp(argv[5], "cpu"))
        clock_id = CLOCK_PROCESS_CPUTIME_ID;
    openblas_set_num_threads(threads);
    omp_set_num_threads(threads); /* oneDNN's threads (its OpenMP runtime) */
    int shapes[32][3], n_shapes = 0;
    char buf[512];
    snprintf(buf, sizeof buf, "%s", argc > 4 ? argv[4] : "1024x1024x1024,1000x512x128,1000x1024x256,1000x384x128");
    for (char *s = strtok(buf, ","); s && n_shapes < 32; s = strtok(NULL, ",")) {
        int *d = shapes[n_shapes];
        if (sscanf(s, "%dx%dx%d", &d[0], &d[1], &d[2]) != 3 || d[0] < 1 || d[1] < 1 || d[2] < 1) {
            fprintf(stderr, "bench_sgemm_probe: shape '%s' is not MxNxK\n", s);
            return 2;
        }
        n_shapes++;
    }
    for (int bi = 0; bi < N_BACKENDS; bi++)
        for (int i = 0; on[bi] && i < n_shapes; i++)
            printf("%s %d %d %d %.1f\n", NAMES[bi], shapes[i][0], shapes[i][1], shapes[i][2],
                   probe(bi, shapes[i][0], shapes[i][1], shapes[i][2], seconds));
    return qkv_gemm_bf16_fallbacks() ? 1 : 0;
}
