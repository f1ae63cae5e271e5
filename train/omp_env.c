/* OpenMP's wait policy for the qkv command; see train/omp_env.h. */
#include "train/omp_env.h"

#include <stdlib.h>
#include <unistd.h>

void qkv_omp_env_setup(char **argv)
{
    if (getenv("OMP_WAIT_POLICY") || getenv("GOMP_SPINCOUNT"))
        return; /* the user chose; also true after our own re-exec */
    if (setenv("GOMP_SPINCOUNT", QKV_GOMP_SPINCOUNT, 1) != 0)
        return;
    execv("/proc/self/exe", argv);
    /* exec failed (no /proc?): carry on with libgomp's default policy */
}
