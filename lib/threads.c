#include "lib/threads.h"

#include <cblas.h>
#include <omp.h>

int qkv_set_threads(int n)
{
    if (n <= 0)
        n = omp_get_num_procs();
    omp_set_num_threads(n);
    /* One thread pool: OpenBLAS stays single-threaded and the products split their rows over
     * OpenMP threads (lib/gemm_rows.h). With both pools active, OpenBLAS's spinning workers
     * and OpenMP's took turns on the same cores: 2 threads trained 7x slower than 1. */
    openblas_set_num_threads(1);
    return n;
}

int qkv_threads(void)
{
    return omp_get_max_threads();
}
