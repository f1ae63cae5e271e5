#include "train/trainer.h"
#include "train/trainer_internal.h"

#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "lib/io/store.h"
#include "lib/ops/ops.h"
#include "lib/optim/optim.h"
#include "lib/optim/schedule.h"
#include "lib/profile.h"
#include "models/network_rows.h"
#include "train/dropout_streams.h"
#include "train/eta.h"
#include "train/evaluate.h"
#include "train/interrupt.h"
#include "train/metrics.h"
#include "train/report.h"
#include "api/run_iter.h"
#include "api/task.h"
#include "train/seg_eval.h"
#include "train/span_eval.h"
#include "train/train_state.h"
#include "train/fail.h"



void qkv_trainer_clear_progress(trainer *t)
{
    if (t->progress_bar)
        fputs("\r\033[K", stderr);
}

static void draw_progress(trainer *t)
{
    if (!t->progress_bar)
        return;
    int width = 30, done = (int)(width * (double)t->st.step / (double)t->total_steps);
    char bar[64];
    for (int i = 0; i < width; i++)
        bar[i] = i < done ? '=' : (i == done ? '>' : ' ');
    bar[width] = '\0';
    fprintf(stderr, "\r[%s] %ld/%ld steps, epoch %d", bar, t->st.step, t->total_steps, t->st.epoch + 1);
    fflush(stderr);
}

int qkv_trainer_save(trainer *t, const char *path)
{
    qkv_error err;
    if (!t->writer)
        return 0;
    if (path == t->last_path) {
        if (t->last_save_step == t->st.step)
            return 0; /* already saved at this step */
        t->last_save_step = t->st.step;
    }
    /* With an average, checkpoints hold it as /params (the caller may have swapped it in). */
    bool swap = t->st.ema && !t->st.ema->swapped;
    if (swap)
        qkv_ema_swap(t->st.ema, qkv_network_params(&t->s->model));
    int prof = qkv_profile_begin("checkpoint writing", QKV_PROF_WHOLE);
    /* best.h5 is the model only (no optimizer state: a run resumes from last.h5) */
    int status = qkv_checkpoint_save(path, t->s, t->has_seg ? &t->seg.s : NULL,
                                     path == t->best_path ? NULL : &t->opt, &t->st, &err);
    qkv_profile_end(prof);
    if (swap)
        qkv_ema_swap(t->st.ema, qkv_network_params(&t->s->model));
    if (status) {
        qkv_trainer_clear_progress(t);
        qkv_fail_report(&err);
        return 1;
    }
    return 0;
}

static void log_row(trainer *t, int epoch_label)
{
    double now = qkv_trainer_now(), elapsed = now - t->t_start;
    double loss = qkv_loss_meter_mean(&t->st.log_loss);
    double lr = qkv_lr_at(&t->sched, t->st.step);
    double tps = (double)t->st.log_tokens / fmax(now - t->t_log, 1e-9);
    qkv_metrics_row(&t->metrics, (qkv_metrics_at){t->st.step, epoch_label, "train"},
                    &(qkv_metrics_values){loss, NAN, lr, tps, elapsed, NULL});
    char el[32], eta[32];
    qkv_format_duration(elapsed, el, sizeof el);
    qkv_format_duration(qkv_eta_seconds(elapsed, t->start_step, t->st.step, t->total_steps, t->opts->stop_at_step), eta,
                    sizeof eta);
    qkv_trainer_clear_progress(t);
    if (t->writer)
        fprintf(stderr, "epoch %d step %ld/%ld loss %.4f lr %.3g %.0f %s/s elapsed %s eta %s\n", epoch_label,
            t->st.step, t->total_steps, loss, lr, tps, qkv_session_task(t->s)->rate_unit, el,
            eta);
    t->st.log_loss = (qkv_loss_meter){0, 0};
    t->st.log_steps = 0;
    t->st.log_tokens = 0;
    t->t_log = now;
}

/* The training loss of batch b on t's tape: head 0's (qkv_network_gold_loss), or with several
 * heads the weighted sum of every head's against its column's gold classes and the batch's
 * gold arcs (qkv_network_heads_loss); targets smoothed by train.label_smoothing. */
static qkv_tensor *batch_loss(trainer *t, const qkv_batch *b, qkv_error *err)
{
    qkv_network *m = &t->s->model;
    if (qkv_network_n_outputs(m) == 1) {
        qkv_tensor *logits = qkv_run_iter_logits(&t->it, m, -1, NULL, err);
        qkv_gold gold = {qkv_batch_tags(b), qkv_batch_arcs(b), t->s->cfg.train.label_smoothing};
        return qkv_network_gold_loss(&t->it.tp, m, logits, t->it.in.sentences, &gold);
    }
    const int32_t *tags[QKV_NETWORK_MAX_HEADS];
    for (int i = 0; i < qkv_network_n_outputs(m); i++)
        tags[i] = qkv_batch_column_tags(b, i);
    qkv_tensor *hidden = qkv_run_iter_hidden(&t->it, m, err);
    return qkv_network_heads_loss(&t->it.tp, m, hidden, t->it.in.sentences, tags, qkv_batch_arcs(b),
                                 t->s->cfg.train.label_smoothing, NULL);
}

/* Batch b augmented as the task does it (api/task.h: the images task's random crops and flips,
 * data.augment) under the step's key; nothing for the other tasks. The dev set is never
 * augmented (evaluation does not come here). */
static int augment_batch(const trainer *t, qkv_batch *b, uint64_t key, qkv_error *err)
{
    const qkv_task_desc *task = qkv_session_task(t->s);
    return task->augment ? task->augment(t->s, b, key, err) : QKV_OK;
}

/* The batch's loss into *value and its gradients; an error names the sentence (file:line). */
static int loss_backward(trainer *t, qkv_batch *b, double *value)
{
    qkv_error err;
    qkv_tensor *loss = batch_loss(t, b, &err);
    if (!loss || qkv_backward(&t->it.tp, loss)) {
        qkv_trainer_clear_progress(t);
        err = t->it.tp.err; /* about one sentence of the batch: its file and line */
        if (err.sentence >= 0 && err.sentence < qkv_batch_n_sent(b)) {
            err.sentence = qkv_batch_sent_id(b, err.sentence);
            qkv_session_name_sentence(&t->s->train_c, &err);
        }
        fprintf(stderr, "qkv: step %ld: %s\n", t->st.step + 1, err.msg);
        return 1;
    }
    *value = loss->data[0];
    return 0;
}

/* One optimizer step on batch i of the current plan. Returns 0, or 1 after printing an error. */
static int train_step(trainer *t, int i)
{
    qkv_session *s = t->s;
    qkv_params *params = qkv_network_params(&s->model);
    qkv_batch *b = &t->it.batch;
    qkv_error err;
    if (qkv_run_iter_fill(&t->it, i, &err)) {
        qkv_fail_report(&err);
        return 1;
    }
    /* Random masks of this step from counter-based streams: the same whatever rank computes a
     * sentence (train/dropout_streams.h). */
    int prof = qkv_profile_begin("data", QKV_PROF_PHASE);
    uint64_t key = qkv_rng_key((uint64_t)s->cfg.train.seed * 2 + 1, (uint64_t)t->st.step);
    qkv_batch_word_dropout(b, &s->fz, s->cfg.train.word_dropout, qkv_rng_key(key, 0));
    int failed = augment_batch(t, b, qkv_rng_key(key, 2), &err) ||
                 qkv_train_streams_set(&t->streams, b, qkv_rng_key(key, 1), &err);
    qkv_profile_end(prof);
    if (failed) {
        qkv_fail_report(&err);
        return 1;
    }
    qkv_dist_counts c = {0, qkv_loss_tokens(qkv_batch_tags(b), qkv_batch_n_tokens(b)), qkv_batch_n_tokens(b)};
    if (qkv_batch_n_sent(b) > 0 && loss_backward(t, b, &c.loss)) /* a rank's share of a batch may be empty */
        return 1;
    /* After the allreduce every rank holds the gradient of the whole batch's rows: zeroing and
     * the lazy update (optim.sparse_embeddings) need their union, as one process collects it. */
    qkv_network_rows_collect(&t->rows, &s->model, &t->it.in);
    prof = t->dist->size > 1 ? qkv_profile_begin("allreduce", QKV_PROF_PHASE) : -1; /* no row for one process */
    failed = qkv_dist_union_rows(t->dist, t->rows.sets, t->rows.n, &err) ||
             qkv_dist_allreduce_grads(t->dist, params, t->rows.sets, t->rows.param, t->rows.n, &c, &err);
    qkv_profile_end(prof);
    double value = c.loss;
    int64_t scored = c.scored, words = c.words;
    if (failed) {
        fprintf(stderr, "qkv: step %ld: %s\n", t->st.step + 1, err.msg);
        return 1;
    }
    prof = qkv_profile_begin("clip grad norm", QKV_PROF_PHASE);
    /* measured only: the optimizer step below reads the gradients scaled (one pass for both) */
    double norm = qkv_clip_grad_norm(params, 0);
    qkv_profile_end(prof);
    if (!isfinite(value) || !isfinite(norm)) {
        qkv_trainer_clear_progress(t);
        fprintf(stderr, "qkv: step %ld: the %s is %s; stopping. Try a lower optim.lr or train.clip_grad_norm. %s%s\n",
                t->st.step + 1, isfinite(value) ? "gradient norm" : "loss",
                isnan(isfinite(value) ? norm : value) ? "NaN" : "infinite",
                t->last_save_step >= 0 ? "The last good checkpoint is " : "No checkpoint was saved before it.",
                t->last_save_step >= 0 ? t->last_path : "");
        return 1;
    }
    t->st.step++;
    prof = qkv_profile_begin("optimizer step", QKV_PROF_PHASE);
    qkv_optim_step_scaled(&t->opt, qkv_lr_at(&t->sched, t->st.step),
                          qkv_clip_scale(norm, s->cfg.train.clip_grad_norm));
    qkv_profile_end(prof);
    if (t->st.ema) {
        prof = qkv_profile_begin("ema update", QKV_PROF_PHASE);
        qkv_ema_update(t->st.ema, params, t->st.step);
        qkv_profile_end(prof);
    }
    prof = qkv_profile_begin("zero grad", QKV_PROF_PHASE);
    qkv_network_rows_zero_grad(&t->rows, &s->model);
    qkv_profile_end(prof);
    qkv_loss_meter_add(&t->st.log_loss, value, scored);
    t->st.log_steps++;
    t->st.log_tokens += words;
    return 0;
}

/* The trainer's fields before anything is built: rank, seeds, checkpoint paths. */
static void init_fields(trainer *t, qkv_session *s, const qkv_trainer_opts *opts)
{
    const qkv_run_config *c = &s->cfg;
    t->s = s;
    t->opts = opts;
    t->single.size = 1;
    t->dist = opts->dist ? opts->dist : &t->single;
    t->writer = qkv_dist_writer(t->dist);
    t->st.best_accuracy = -1;
    t->last_eval_step = t->last_save_step = -1;
    qkv_rng_seed(&t->st.rng, (uint64_t)c->train.seed * 2 + 1);
    qkv_rng_seed(&t->shuffle, (uint64_t)c->train.seed * 2);
    snprintf(t->last_path, sizeof t->last_path, "%s/checkpoints/last.h5", opts->run_dir);
    snprintf(t->best_path, sizeof t->best_path, "%s/checkpoints/best.h5", opts->run_dir);
}

/* The optimizer, the embedding rows it updates, and the parameter average (train.ema_decay). */
static int init_optimizer(trainer *t)
{
    qkv_error err;
    const qkv_run_config *c = &t->s->cfg;
    qkv_params *params = qkv_network_params(&t->s->model);
    if (qkv_optim_init(&t->opt, params, &c->optim.optimizer, &err))
        return qkv_fail_reportf("optim: %s", err.msg);
    if (qkv_network_rows_init(&t->rows, &t->s->model, &err) ||
        (c->optim.sparse_embeddings && qkv_network_rows_lazy(&t->rows, &t->opt, &err)))
        return qkv_fail_reportf("optim: %s", err.msg);
    if (c->train.ema_decay > 0) {
        if (qkv_ema_init(&t->ema, params, c->train.ema_decay, &err))
            return qkv_fail_reportf("train.ema_decay: %s", err.msg);
        t->st.ema = &t->ema;
    }
    return 0;
}

/* The training set's batches, and from them the run's length (t->total_steps). */
static int init_batches(trainer *t)
{
    qkv_error err;
    const qkv_run_config *c = &t->s->cfg;
    if (qkv_run_iter_init(&t->it, &t->s->train, c->data.batch_tokens, false, &err))
        return qkv_fail_report(&err);
    t->it.tp.rng = &t->st.rng;
    t->it.tp.streams = &t->streams.ds;
    /* One plan tells the steps per epoch (every plan of the same data has as many batches, of
     * the same sizes: the buffers fit every epoch). */
    qkv_rng probe = t->shuffle;
    if (qkv_run_iter_plan(&t->it, &probe, &err))
        return qkv_fail_report(&err);
    t->total_steps = (long)qkv_run_iter_n_batches(&t->it) * c->train.epochs;
    if (c->train.max_steps > 0 && c->train.max_steps < t->total_steps)
        t->total_steps = c->train.max_steps;
    return 0;
}

/* The learning-rate schedule over the whole run (a warmup as long as the run is cut, with a warning). */
static int init_schedule(trainer *t)
{
    qkv_error err;
    const qkv_run_config *c = &t->s->cfg;
    t->sched = c->optim.schedule;
    t->sched.lr = c->optim.optimizer.lr;
    if (t->sched.warmup_steps >= t->total_steps) { /* the schedule needs a step after the warmup */
        if (t->sched.warmup_steps > 0)
            fprintf(stderr,
                    "qkv: warning: optim.warmup_steps is %ld but the whole run has %ld steps: the warmup is cut to "
                    "%ld steps, so the learning rate rises %.1f times as fast as configured to optim.lr %g, reached "
                    "at step %ld (set optim.warmup_steps below %ld, e.g. to about a tenth of the run)\n",
                    t->sched.warmup_steps, t->total_steps, t->total_steps - 1,
                    (double)t->sched.warmup_steps / (double)(t->total_steps > 1 ? t->total_steps - 1 : 1),
                    t->sched.lr, t->total_steps > 1 ? t->total_steps - 1 : 1, t->total_steps);
        t->sched.warmup_steps = t->total_steps - 1;
    }
    t->sched.total_steps = t->total_steps;
    if (qkv_lr_schedule_check(&t->sched, &err))
        return qkv_fail_reportf("optim: %s", err.msg);
    return 0;
}

/* --resume: the optimizer and training state from the checkpoint. Returns 0, 1 after an error,
 * or QKV_TRAIN_STOPPED when the run is already complete. */
static int resume(trainer *t)
{
    qkv_error err;
    const qkv_run_config *c = &t->s->cfg;
    const char *path = t->opts->resume;
    if (qkv_checkpoint_load_training(path, t->s, &t->opt, &t->st, &err))
        return qkv_fail_reportf("--resume: %s", err.msg);
    t->shuffle = t->st.epoch_rng;
    bool patience_out = c->train.patience > 0 && t->st.bad_evals >= c->train.patience;
    if (t->st.step >= t->total_steps || t->st.epoch >= c->train.epochs || patience_out) {
        if (t->writer)
            fprintf(stderr, "qkv: %s: the run is already complete (step %ld of %ld%s): nothing to do, nothing written\n",
                path, t->st.step, t->total_steps, patience_out ? ", stopped early" : "");
        return QKV_TRAIN_STOPPED;
    }
    if (t->writer)
        fprintf(stderr, "resuming from %s at step %ld (epoch %d, batch %d)\n", path, t->st.step, t->st.epoch + 1,
                t->st.batch_pos);
    if (t->writer && t->st.ranks > 0 && t->st.ranks != t->dist->size)
        fprintf(stderr, "the checkpoint was saved by %d process(es), this run has %d: the batches and random "
                "masks do not depend on the number, so the run continues the same model (sums in another "
                "order: equal up to float rounding, not bit for bit)\n", t->st.ranks, t->dist->size);
    return 0;
}

/* Rank 0, once everything is ready: the run folder made (or cleared, --force), stale temporary
 * files of interrupted saves removed, metrics.tsv opened (kept up to step keep; -1: new). */
static int prepare_run_folder(trainer *t, long keep)
{
    qkv_error err;
    snprintf(t->st.run_id, sizeof t->st.run_id, "%s", t->opts->plan->id);
    if (qkv_run_folder_prepare(t->opts->plan, t->s, &err))
        return qkv_fail_report(&err);
    /* Saves interrupted by a kill leave "<name>.tmp-<pid>" (up to the size of a checkpoint). */
    for (int k = 0; k < 2; k++) {
        int removed = 0;
        const char *p = k ? t->best_path : t->last_path;
        if (qkv_store_remove_stale(p, &removed, &err))
            fprintf(stderr, "qkv: warning: %s\n", err.msg);
        else if (removed)
            fprintf(stderr, "removed %d temporary file(s) of an interrupted save of %s\n", removed, p);
    }
    qkv_trainer_metric_columns(t);
    if (qkv_metrics_open(&t->metrics, t->opts->run_dir, keep, &err))
        return qkv_fail_report(&err);
    if (t->s->cfg.log.tensorboard) {
        qkv_tfevents *tb = t->opts->events ? t->opts->events : &t->tb;
        if (qkv_tfevents_open(tb, t->opts->run_dir, keep, &err))
            return qkv_fail_report(&err);
        t->metrics.tb = tb;
    }
    qkv_progress progress = t->s->cfg.log.progress;
    t->progress_bar = progress == QKV_PROGRESS_ON || (progress == QKV_PROGRESS_AUTO && isatty(STDERR_FILENO));
    return 0;
}

/* data.segmenter: the segmenter every checkpoint of the run carries. */
static int load_segmenter(trainer *t)
{
    qkv_session_init(&t->seg.s);
    const char *path = t->s->cfg.data.segmenter;
    if (!path[0])
        return 0;
    qkv_error err;
    if (qkv_session_task(t->s)->segments)
        return qkv_fail_reportf("data.segmenter %s: this run trains a segmenter; name it in a tagger's config", path);
    if (qkv_tokenizer_load(&t->seg, path, NULL, &err))
        return qkv_fail_reportf("data.segmenter: %s", err.msg);
    t->has_seg = true;
    return 0;
}

static int setup(trainer *t, qkv_session *s, const qkv_trainer_opts *opts)
{
    init_fields(t, s, opts);
    if (load_segmenter(t))
        return 1;
    if (init_optimizer(t) || init_batches(t) || init_schedule(t))
        return 1;
    qkv_error err;
    if (s->has_dev && qkv_seg_eval_read(s, s->cfg.data.dev, &t->dev_st, &err))
        return qkv_fail_report(&err);
    long keep = -1;
    if (opts->resume) {
        int status = resume(t);
        if (status)
            return status;
        keep = t->st.step;
    }
    t->st.ranks = t->dist->size;
    if (t->dist->size > 1 && t->writer)
        fprintf(stderr, "data-parallel: %d ranks, each a share of every batch of %d words\n", t->dist->size,
                s->cfg.data.batch_tokens);
    /* Every rank has checked what it reads before rank 0 alone writes (a barrier). */
    double ready = 0;
    qkv_dist_sum(t->dist, &ready, 1);
    if (!t->writer)
        return 0;
    /* Everything is ready: now the run folder is made (or cleared, --force) and written. */
    return prepare_run_folder(t, keep);
}

static void teardown(trainer *t)
{
    qkv_metrics_close(&t->metrics);
    qkv_error err;
    if (t->metrics.tb == &t->tb && qkv_tfevents_close(&t->tb, &err))
        fprintf(stderr, "qkv: warning: %s\n", err.msg);
    t->metrics.tb = NULL;
    qkv_run_iter_free(&t->it);
    qkv_optim_free(&t->opt);
    qkv_network_rows_free(&t->rows);
    qkv_ema_free(&t->ema);
    qkv_train_streams_free(&t->streams);
    qkv_seg_free(&t->dev_st);
    qkv_tokenizer_free(&t->seg); /* initialised by setup's load_segmenter */
}

/* The signal (SIGINT or SIGTERM) that stops the run after this step, 0: none. With several
 * ranks, one that any rank caught (mpirun passes a signal on to each rank in its own time, and
 * `kill` may reach one of them only), agreed at every step so that all ranks stop at the same
 * step and meet in the same collective calls: rank 0 saves, none waits for a rank that left. */
static int stop_signal(trainer *t)
{
    return t->stop_signo = qkv_dist_max_int(t->dist, qkv_interrupted());
}

/* After --stop-at-step or a SIGINT or SIGTERM, with last.h5 saved: how to continue. Returns
 * QKV_TRAIN_STOPPED, or 128 + the signal's number. */
static int stopped(trainer *t)
{
    qkv_trainer_clear_progress(t);
    /* No rank leaves before rank 0 has saved: mpirun ends the whole job when one rank exits
     * with a signal's status, which would cut rank 0's save short. */
    qkv_dist_max_int(t->dist, 0);
    int signo = t->stop_signo;
    const char *qkv = t->opts->program ? t->opts->program : "qkv";
    if (signo) {
        if (t->writer)
            fprintf(stderr, "interrupted by %s after step %ld: saved %s; continue with: %s train %s/config.yaml "
                    "--resume %s\n", qkv_interrupt_name(signo), t->st.step, t->last_path, qkv,
                    t->opts->run_dir, t->last_path);
        return 128 + signo;
    }
    if (t->writer)
        fprintf(stderr, "stopped after step %ld as asked; continue with: %s train %s/config.yaml --resume %s\n",
                t->st.step, qkv, t->opts->run_dir, t->last_path);
    return QKV_TRAIN_STOPPED;
}

static int run_epochs(trainer *t)
{
    qkv_session *s = t->s;
    const qkv_run_config *c = &s->cfg;
    qkv_error err;
    bool stop = false;
    t->t_start = t->t_log = qkv_trainer_now();
    t->start_step = t->st.step;
    while (!stop && t->st.epoch < c->train.epochs && t->st.step < t->total_steps) {
        /* The plan is a function of the shuffling rng before it: saved for an exact resume. */
        t->st.epoch_rng = t->shuffle;
        if (qkv_dist_plan(t->dist, &t->it, &t->shuffle, &err)) {
            qkv_fail_report(&err);
            return 1;
        }
        int n_batches = qkv_run_iter_n_batches(&t->it);
        for (int i = t->st.batch_pos; i < n_batches && t->st.step < t->total_steps && !stop; i++) {
            if (train_step(t, i))
                return 1;
            t->st.batch_pos = i + 1;
            if (t->st.step % c->log.every_steps == 0)
                log_row(t, t->st.epoch + 1);
            draw_progress(t);
            if (c->train.eval_every > 0 && t->st.step % c->train.eval_every == 0 &&
                qkv_trainer_evaluate_dev(t, t->st.epoch + 1, &stop))
                return 1;
            if (c->checkpoint.every_steps > 0 && t->st.step % c->checkpoint.every_steps == 0 &&
                qkv_trainer_save(t, t->last_path))
                return 1;
            if (t->st.step == t->opts->stop_at_step || stop_signal(t))
                break;
        }
        if (t->st.batch_pos == n_batches) {
            /* Epoch done: the state moves to the next epoch before any checkpoint is written. */
            t->st.epoch++;
            t->st.batch_pos = 0;
            t->st.epoch_rng = t->shuffle; /* what plans the next epoch */
            if (c->train.eval_every == 0 && qkv_trainer_evaluate_dev(t, t->st.epoch, &stop))
                return 1;
            qkv_trainer_refresh_plots(t);
        }
        if (qkv_trainer_save(t, t->last_path))
            return 1;
        if (t->st.step == t->opts->stop_at_step || stop_signal(t))
            return stopped(t);
    }
    if (t->st.log_steps)
        log_row(t, t->st.epoch + (t->st.batch_pos > 0));
    /* A run cut short by max_steps still ends with an evaluation of its last parameters. */
    if (qkv_trainer_evaluate_dev(t, t->st.epoch + (t->st.batch_pos > 0), &stop) || qkv_trainer_save(t, t->last_path))
        return 1;
    qkv_trainer_refresh_plots(t);
    qkv_trainer_clear_progress(t);
    return 0;
}

const char *qkv_trainer_select_name(const qkv_session *s)
{
    if (qkv_select_by_span_f1(&s->cfg, &s->fz))
        return "span F1";
    if (qkv_network_scored_by(&s->model, QKV_SCORE_ATTACHMENT))
        return "LAS";
    return qkv_network_n_outputs(&s->model) > 1 ? "selection score" : "accuracy";
}

int qkv_trainer_run(qkv_session *s, const qkv_trainer_opts *opts)
{
    trainer t;
    memset(&t, 0, sizeof t);
    int status = setup(&t, s, opts);
    if (status == 0) {
        /* every rank: stop_signal makes them agree on the step */
        qkv_interrupts in;
        qkv_interrupts_catch(&in, true);
        status = run_epochs(&t);
        qkv_interrupts_restore(&in);
    }
    if (status == 0 && t.writer && t.st.best_accuracy >= 0)
        fprintf(stderr, "done: %ld steps in %.1f s; best dev %s %.2f%s at step %ld\n", t.st.step,
                qkv_trainer_now() - t.t_start, qkv_trainer_select_name(s), 100 * t.st.best_accuracy,
                qkv_select_by_span_f1(&s->cfg, &s->fz) ? "" : "%", t.st.best_step);
    else if (status == 0 && t.writer)
        fprintf(stderr, "done: %ld steps in %.1f s (no dev set: nothing evaluated); model in %s\n", t.st.step,
                qkv_trainer_now() - t.t_start, t.last_path);
    if ((status == 0 || status == QKV_TRAIN_STOPPED) && t.writer)
        qkv_dist_print_summary(t.dist);
    teardown(&t);
    return status;
}
