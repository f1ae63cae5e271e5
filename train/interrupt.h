/* SIGINT (Ctrl-C) and SIGTERM during `qkv train`: the first one asks the training loop to stop
 * after the current step, save checkpoints/last.h5 and say how to resume; a second one ends the
 * process at once. Checkpoints are written to a temporary file and renamed, so a save that the
 * second signal cuts short leaves the last checkpoint whole (the next run removes the temporary
 * file). */
#ifndef QKV_TRAIN_INTERRUPT_H
#define QKV_TRAIN_INTERRUPT_H

#include <signal.h>
#include <stdbool.h>

typedef struct qkv_interrupts {
    bool caught;             /* the handlers are installed */
    struct sigaction old[2]; /* the dispositions of SIGINT and SIGTERM before */
} qkv_interrupts;

/* Installs the handlers (and forgets an earlier signal) when on; off: nothing is caught. */
void qkv_interrupts_catch(qkv_interrupts *in, bool on);

/* Puts back the dispositions from before qkv_interrupts_catch. */
void qkv_interrupts_restore(qkv_interrupts *in);

/* The number of the signal caught since qkv_interrupts_catch (SIGINT or SIGTERM), 0: none. */
int qkv_interrupted(void);

#endif
