/* The training loop of `qkv train`. */
#ifndef QKV_TRAINER_H
#define QKV_TRAINER_H

#include "train/dist.h"
#include "train/run_folder.h"
#include "train/tfevents.h"
#include "api/session.h"

typedef struct qkv_trainer_opts {
    const char *run_dir;      /* holds config.yaml, metrics.tsv, checkpoints/ */
    const char *program;      /* the qkv command as run, for the resume hint; NULL: "qkv" */
    const char *resume;       /* checkpoint to continue from, or NULL */
    long stop_at_step;        /* > 0: save and stop after this step, as if interrupted (the
                                 schedule is that of the whole run); 0: run to the end */
    const qkv_run_plan *plan; /* what to do with run_dir (qkv_run_plan_make), carried out once
                                 the trainer is ready: nothing is written before */
    qkv_dist *dist;           /* this process's rank of a data-parallel job (train/dist.h): only
                                 rank 0 writes files and progress; NULL: a single process */
    qkv_tfevents *events;     /* zeroed by the caller: with log.tensorboard, rank 0 opens the
                                 run's event file here and leaves it open for the caller's last
                                 images; the caller then closes it (qkv_tfevents_close, which does
                                 nothing when it was never opened). NULL: the trainer's own file,
                                 closed when it returns */
} qkv_trainer_opts;

enum { QKV_TRAIN_STOPPED = 3 };

/* Trains the session's model (config, data and model already built; with opts->resume the
 * session's featurizer came from that checkpoint). Prints progress to stderr. Returns 0 when
 * the run is complete, QKV_TRAIN_STOPPED after opts->stop_at_step, or 1 after printing an
 * error (e.g. a NaN loss: the message names the step; the last good checkpoint stays). A
 * SIGINT or SIGTERM (single process) lets the current step finish, saves last.h5 as a stop
 * at that step would and returns 128 + the signal's number (130, 143); a second one ends
 * the process at once. */
int qkv_trainer_run(qkv_session *s, const qkv_trainer_opts *opts);

#endif
