/* Thread count for OpenMP loops and OpenBLAS products together, so they do not fight. */
#ifndef QKV_THREADS_H
#define QKV_THREADS_H

/* n <= 0: all cores. Returns the count in use. OpenMP gets n threads; OpenBLAS gets one (the
 * ops split products over OpenMP threads themselves, see lib/gemm_rows.h). */
int qkv_set_threads(int n);

/* The OpenMP thread count the ops run on (what qkv_set_threads set last). */
int qkv_threads(void);

#endif
