/* When work is worth OpenMP threads: the one place for the thresholds. An OpenMP region costs
 * microseconds, and far more on a loaded machine, so small work runs on the calling thread.
 * Element loops count elements (QKV_PARALLEL_MIN; the ops in lib/ops/ use it in their `if`
 * clauses, see lib/ops/op_util.h), products count multiply-adds (qkv_parallel_threads).
 *
 * Small element loops must not enter a parallel region at all, not even one with a false if()
 * clause: libgomp then still builds a one-thread team, and when team sizes alternate
 * (a 1-thread region after a 2-thread one) it mallocs a new team every time, which breaks
 * the training loop's no-malloc guarantee (measured by tests/lib/test_optim_nomalloc.c).
 * A one-thread team is never reused either, so with OMP_NUM_THREADS=1 every parallel region
 * mallocs. So the test is a plain C `if`: enough elements and more than one thread. */
#ifndef QKV_PARALLEL_H
#define QKV_PARALLEL_H

#include <omp.h>
#include <stdbool.h>
#include <stddef.h>

/* Loops over fewer elements than this run on the calling thread. */
#define QKV_PARALLEL_MIN ((size_t)32768)

/* Products (GEMMs, the attention blocks) of fewer multiply-adds than this run on one thread. */
#define QKV_PARALLEL_MIN_MADDS 1048576.0

/* Threads worth using for work of `madds` multiply-adds: 1 below QKV_PARALLEL_MIN_MADDS, else
 * omp_get_max_threads(). */
static inline int qkv_parallel_threads(double madds)
{
    return madds < QKV_PARALLEL_MIN_MADDS ? 1 : omp_get_max_threads();
}

/* True when a loop over n elements should be split over threads. */
static inline bool qkv_parallel_worth(size_t n)
{
    return n >= QKV_PARALLEL_MIN && omp_get_max_threads() > 1;
}

/* Runs the statements `...` for the size_t index j over [0, n): over all OpenMP threads
 * (static schedule) when qkv_parallel_worth(n), else serially; both forms are `omp simd`, so
 * iterations must be independent. The result of each iteration does not depend on the
 * number of threads. */
#define QKV_FOR_ELEMENTS(j, n, ...)                                                              \
    do {                                                                                         \
        size_t qkv_n_ = (n);                                                                     \
        if (qkv_parallel_worth(qkv_n_)) {                                                        \
            _Pragma("omp parallel for simd schedule(static)") for (size_t j = 0; j < qkv_n_; j++) \
            {                                                                                    \
                __VA_ARGS__                                                                      \
            }                                                                                    \
        } else {                                                                                 \
            _Pragma("omp simd") for (size_t j = 0; j < qkv_n_; j++)                              \
            {                                                                                    \
                __VA_ARGS__                                                                      \
            }                                                                                    \
        }                                                                                        \
    } while (0)

#endif
