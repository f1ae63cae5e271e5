#include "lib/threads.h"

#include <cblas.h>
#include <omp.h>

int qkv_set_threads(int n)
{
    if (n <= 0)
        n = omp_get_num_procs();
    omp_set_num_threads(n);
    openblas_set_num_threads(n);
    return n;
}
