/* When work is worth OpenMP threads: the one place for the thresholds and for the form of a
 * parallel loop. An OpenMP region costs microseconds, and far more on a loaded machine, so small
 * work runs on the calling thread. Element loops count elements (QKV_PARALLEL_MIN,
 * QKV_PARALLEL_MIN_EXP), products count multiply-adds (qkv_parallel_threads).
 *
 * Small loops must not enter a parallel region at all, not even one with a false if()
 * clause: libgomp then still builds a one-thread team, and when team sizes alternate
 * (a 1-thread region after a 2-thread one) it mallocs a new team every time, which breaks
 * the training loop's no-malloc guarantee (measured by tests/lib/test_optim_nomalloc.c and
 * tests/lib/test_ops_nomalloc.c). A one-thread team is never reused either, so with
 * OMP_NUM_THREADS=1 every parallel region mallocs. So the test is a plain C `if`: enough work
 * and more than one thread. The loops below make that test; a loop whose one-thread form is
 * another call (lib/ops/conv2d.c: one call over all images) writes it itself. */
#ifndef QKV_PARALLEL_H
#define QKV_PARALLEL_H

#include <omp.h>
#include <stdbool.h>
#include <stddef.h>

/* Loops over fewer elements than this run on the calling thread. */
#define QKV_PARALLEL_MIN ((size_t)32768)
/* The same for loops with an exp, erf or tanh per element (tens of cycles each: threads pay off
 * at fewer elements than for a plain add). */
#define QKV_PARALLEL_MIN_EXP (QKV_PARALLEL_MIN / 8)

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

#define QKV_PRAGMA_(...) _Pragma(#__VA_ARGS__)

/* Runs the statements `...` for the index i of type `type` over [0, n): shared among nth
 * OpenMP threads (`omp parallel for`, schedule `sched`: static or dynamic) when nth > 1, else
 * on the calling thread outside any parallel region. For loops whose iterations write disjoint
 * memory (rows, sentences, images, blocks). A `#pragma` line cannot stand in a macro's
 * argument: an inner loop of the statements takes _Pragma("omp simd"). */
#define QKV_FOR_THREADS(nth, sched, type, i, n, ...)                                             \
    do {                                                                                         \
        const int qkv_nth_ = (nth);                                                              \
        const type qkv_end_ = (n);                                                               \
        if (qkv_nth_ > 1) {                                                                      \
            QKV_PRAGMA_(omp parallel for schedule(sched) num_threads(qkv_nth_))                  \
            for (type i = 0; i < qkv_end_; i++)                                                  \
            {                                                                                    \
                __VA_ARGS__                                                                      \
            }                                                                                    \
        } else {                                                                                 \
            for (type i = 0; i < qkv_end_; i++) {                                                \
                __VA_ARGS__                                                                      \
            }                                                                                    \
        }                                                                                        \
    } while (0)

/* QKV_FOR_THREADS on all threads (static schedule) when the bool `par` holds (the caller's
 * threshold, e.g. x->size >= QKV_PARALLEL_MIN), else on the calling thread. */
#define QKV_FOR_ROWS(type, i, n, par, ...)                                                       \
    QKV_FOR_THREADS((par) ? omp_get_max_threads() : 1, static, type, i, n, __VA_ARGS__)

/* Runs the statements `...` for the size_t index j over [0, n): over all OpenMP threads
 * (static schedule) when `par` holds and more than one thread is available, else serially;
 * both forms are `omp simd`, so iterations must be independent. The result of each iteration
 * does not depend on the number of threads. */
#define QKV_FOR_ELEMENTS_IF(j, n, par, ...)                                                      \
    do {                                                                                         \
        const size_t qkv_n_ = (n);                                                               \
        if ((par) && omp_get_max_threads() > 1) {                                                \
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

/* QKV_FOR_ELEMENTS_IF run in parallel when n >= QKV_PARALLEL_MIN (n is evaluated twice). */
#define QKV_FOR_ELEMENTS(j, n, ...) QKV_FOR_ELEMENTS_IF(j, n, (n) >= QKV_PARALLEL_MIN, __VA_ARGS__)

#endif
