/* What the parts of the training loop (train/trainer.c, train/trainer_eval.c) share: the state
 * of one run. Not a public interface: train/trainer.h is. */
#ifndef QKV_TRAIN_TRAINER_INTERNAL_H
#define QKV_TRAIN_TRAINER_INTERNAL_H

#include <stdbool.h>
#include <time.h>

#include "api/run_iter.h"
#include "api/segmenter.h"
#include "data/segment.h"
#include "lib/optim/optim.h"
#include "lib/optim/schedule.h"
#include "models/network_rows.h"
#include "train/dist.h"
#include "train/dropout_streams.h"
#include "train/metrics.h"
#include "train/tfevents.h"
#include "train/train_state.h"
#include "train/trainer.h"

typedef struct trainer {
    qkv_session *s;
    const qkv_trainer_opts *opts;
    qkv_optimizer opt;
    qkv_ema ema;              /* used when st.ema points to it (train.ema_decay > 0) */
    qkv_lr_schedule sched;
    qkv_train_state st;
    qkv_rng shuffle;          /* plans epochs; st.epoch_rng is its state before the current plan */
    qkv_metrics metrics;
    qkv_run_iter it;          /* the training set's batch plan (one epoch), batch and tape */
    qkv_network_rows rows;     /* the embedding rows of the step's batch: zeroing, lazy update */
    long total_steps;
    long last_eval_step;      /* no second evaluation of the same parameters */
    long last_save_step;      /* nor a second last.h5 of them */
    double t_start, t_log;
    long start_step;          /* the step this process began training at (after a resume: its checkpoint's) */
    bool progress_bar;
    char last_path[4200], best_path[4200];
    char plot_path[4300];     /* the loss plot (qkv train prints its path at the end) */
    bool plot_failed;         /* warned once: no more attempts */
    long attention_step;      /* the step plots/attention.png was last drawn at (0: not yet) */
    bool attention_failed;    /* warned once: no more attention pictures */
    qkv_dist single, *dist;   /* data parallelism (train/dist.h); single: a one-process world */
    bool writer;              /* rank 0: writes files, prints progress */
    qkv_train_streams streams; /* counter-based dropout of the current batch */
    qkv_seg_text dev_st;      /* a segmenter's dev characters, for its Tokens and Sentences F1 */
    int stop_signo;           /* the signal every rank stops on (stop_signal), 0: none */
    qkv_tokenizer seg;        /* data.segmenter, saved into every checkpoint when has_seg */
    bool has_seg;
    qkv_tfevents tb;          /* log.tensorboard without opts->events: the run's event file
                                 (t->metrics.tb points here, or to opts->events) */
} trainer;

/* Monotonic seconds. */
static inline double qkv_trainer_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* Clears the progress bar before a line of text (when it is drawn). */
void qkv_trainer_clear_progress(trainer *t);
/* Saves path (last_path or best_path) on rank 0: 0, or 1 after printing the error. */
int qkv_trainer_save(trainer *t, const char *path);
/* Rank 0, log.plot: redraws RUN_DIR/plots/loss.png, and plots/attention.png once per step
 * (log.plot_attention; its image into the event file with log.tensorboard). A failure is a
 * warning, once; no error (trainer_plots.c). */
void qkv_trainer_refresh_plots(trainer *t);
/* Dev evaluation (of the parameter average when there is one): a metrics row, best.h5 when
 * better; sets *stop when patience runs out. 0, or 1 after printing the error. */
int qkv_trainer_evaluate_dev(trainer *t, int epoch_label, bool *stop);
/* What best.h5 is chosen by, as the progress lines name it: "span F1", "LAS" (a parser), "selection
 * score" (several heads) or "accuracy". */
const char *qkv_trainer_select_name(const qkv_session *s);
/* Names t->metrics' score columns for what the run's dev evaluations measure (train/metrics.h):
 * column 5 (head 0's score) and the run's further scores. */
void qkv_trainer_metric_columns(trainer *t);

#endif
