/* SIGINT (Ctrl-C), SIGTERM and SIGHUP (the terminal closed) during `qkv train`: the first one asks
 * the training loop to stop after the current step, save checkpoints/last.h5 and say how to
 * resume; a second SIGINT or SIGTERM ends the process at once (a further SIGHUP does not: a
 * closed terminal may send it twice, and it is not the user asking again). A SIGHUP ignored when
 * the process started (nohup) stays ignored. Checkpoints are written to a temporary file and
 * renamed, so a save that the second signal cuts short leaves the last checkpoint whole (the
 * next run removes the temporary file).
 *
 * The signals are taken by a thread of their own (sigwait), never by a thread that computes:
 * oneDNN 2.x's JIT sgemm kernels (Debian 12 ships 2.6) point the stack pointer into a heap
 * workspace while they run, so a handler that ran on such a thread would write its signal frame
 * over the heap. qkv_interrupts_start blocks the signals in the calling thread before it starts
 * any other, so that the threads it starts later (OpenMP's, MPI's) inherit the block. */
#ifndef QKV_TRAIN_INTERRUPT_H
#define QKV_TRAIN_INTERRUPT_H

#include <signal.h>
#include <stdbool.h>

enum { QKV_N_INTERRUPTS = 3 };

typedef struct qkv_interrupts {
    bool caught;                            /* the handlers are installed */
    struct sigaction old[QKV_N_INTERRUPTS]; /* the dispositions of SIGINT, SIGTERM, SIGHUP before */
} qkv_interrupts;

/* Blocks SIGINT, SIGTERM and SIGHUP in the calling thread and starts the thread that takes them:
 * until qkv_interrupts_catch, each ends the process as if it had not been blocked. Call it
 * once, first thing in the command, before a thread is started. Returns 0, or -1 (errno) when no
 * thread could be started (the signals then stay as they were). */
int qkv_interrupts_start(void);

/* From now on the first SIGINT, SIGTERM or SIGHUP is caught (and an earlier one forgotten) when on; off:
 * nothing is caught. A handler is installed as well, for threads that the process had before
 * qkv_interrupts_start (OpenBLAS starts its pool before main) or when it was never called. */
void qkv_interrupts_catch(qkv_interrupts *in, bool on);

/* Puts back the dispositions from before qkv_interrupts_catch: the signals end the process. */
void qkv_interrupts_restore(qkv_interrupts *in);

/* The number of the signal caught since qkv_interrupts_catch (SIGINT, SIGTERM or SIGHUP), 0: none. */
int qkv_interrupted(void);

/* "SIGINT", "SIGTERM", "SIGHUP" for those signals ("a signal" for another). */
const char *qkv_interrupt_name(int signo);

#endif
