/* oneDNN's sgemm kernels generated ahead of the first product; see lib/gemm/warm_up.h. */
#include "lib/gemm/warm_up.h"

#include "lib/blas.h"

#if defined(QKV_HAVE_ONEDNN) && !QKV_REAL_IS_DOUBLE

#include <omp.h>
#include <pthread.h>

/* Products of each transposition, beta 0 and 1, a large one and ones with a small side: together
 * they reach the sgemm kernels oneDNN generates for this processor. Their inputs are zeros. */
static void *warm_up(void *arg)
{
    (void)arg;
    omp_set_num_threads(1); /* this thread's setting only: no second OpenMP team */
    static const int shapes[][3] = {{256, 256, 64}, {8, 128, 128}, {128, 8, 128}, {128, 128, 8}};
    static float a[256 * 256], b[256 * 256], c[256 * 256];
    for (size_t s = 0; s < sizeof shapes / sizeof *shapes; s++)
        for (int t = 0; t < 8; t++) {
            int m = shapes[s][0], n = shapes[s][1], k = shapes[s][2];
            bool ta = t & 1, tb = t & 2;
            dnnl_sgemm(ta ? 'T' : 'N', tb ? 'T' : 'N', m, n, k, 1, a, ta ? m : k, b, tb ? k : n, (t & 4) ? 1 : 0, c,
                       n);
        }
    return NULL;
}

static pthread_once_t once = PTHREAD_ONCE_INIT;
static pthread_t thread;
static bool started;

static void start(void)
{
    started = pthread_create(&thread, NULL, warm_up, NULL) == 0; /* else the first product makes them */
}

void qkv_gemm_warm_up(void)
{
    if (qkv_gemm_onednn && !qkv_gemm_bf16_on)
        pthread_once(&once, start);
}

void qkv_gemm_warm_up_wait(void)
{
    if (started) {
        pthread_join(thread, NULL);
        started = false;
    }
}

#else

void qkv_gemm_warm_up(void) {}
void qkv_gemm_warm_up_wait(void) {}

#endif
