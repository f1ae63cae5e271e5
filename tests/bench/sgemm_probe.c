/* sgemm probe for tests/reference/bench.py (not a test): the GFLOP/s that OpenBLAS's
 * cblas_sgemm reaches on this machine with a given thread count, for a square product and
 * for the shapes of a tagger's projections.
 *
 *   usage: bench_sgemm_probe THREADS [SECONDS_PER_SHAPE]
 *   prints lines "sgemm M N K GFLOP/s" (C [M, N] = A [M, K] B [K, N], 2·M·N·K FLOPs each). */
#include <cblas.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static double probe(int m, int n, int k, double seconds)
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
    cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, m, n, k, 1, a, k, b, n, 0, c, n); /* warm-up */
    long reps = 0;
    double t0 = now(), t;
    do {
        cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, m, n, k, 1, a, k, b, n, 0, c, n);
        reps++;
    } while ((t = now() - t0) < seconds);
    free(a);
    free(b);
    free(c);
    return 2.0 * m * n * k * (double)reps / t * 1e-9;
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        fprintf(stderr, "usage: bench_sgemm_probe THREADS [SECONDS_PER_SHAPE]\n");
        return 2;
    }
    int threads = atoi(argv[1]);
    double seconds = argc > 2 ? atof(argv[2]) : 1.0;
    openblas_set_num_threads(threads);
    static const int shapes[][3] = {{1024, 1024, 1024}, {1000, 512, 128}, {1000, 1024, 256}, {1000, 384, 128}};
    for (size_t i = 0; i < sizeof shapes / sizeof shapes[0]; i++)
        printf("sgemm %d %d %d %.1f\n", shapes[i][0], shapes[i][1], shapes[i][2],
               probe(shapes[i][0], shapes[i][1], shapes[i][2], seconds));
    return 0;
}
