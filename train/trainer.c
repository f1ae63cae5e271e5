#include "train/trainer.h"

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
#include "models/tagger_rows.h"
#include "train/dropout_streams.h"
#include "train/eta.h"
#include "train/evaluate.h"
#include "train/interrupt.h"
#include "train/metrics.h"
#include "train/plot/plot_metrics.h"
#include "train/report.h"
#include "api/run_iter.h"
#include "train/seg_eval.h"
#include "train/span_eval.h"
#include "train/train_state.h"
#include "train/fail.h"

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
    qkv_tagger_rows rows;     /* the embedding rows of the step's batch: zeroing, lazy update */
    long total_steps;
    long last_eval_step;      /* no second evaluation of the same parameters */
    long last_save_step;      /* nor a second last.h5 of them */
    double t_start, t_log;
    long start_step;          /* the step this process began training at (after a resume: its checkpoint's) */
    bool progress_bar;
    char last_path[4200], best_path[4200];
    char plot_path[4300];     /* the loss plot (qkv train prints its path at the end) */
    bool plot_failed;         /* warned once: no more attempts */
    qkv_dist single, *dist;   /* data parallelism (train/dist.h); single: a one-process world */
    bool writer;              /* rank 0: writes files, prints progress */
    qkv_train_streams streams; /* counter-based dropout of the current batch */
    qkv_seg_text dev_st;      /* a segmenter's dev characters, for its Tokens and Sentences F1 */
    int stop_signo;           /* the signal every rank stops on (stop_signal), 0: none */
} trainer;

static double now_seconds(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static void format_duration(double seconds, char *buf, size_t len)
{
    long s = seconds < 0 ? 0 : (long)(seconds + 0.5);
    if (s >= 3600)
        snprintf(buf, len, "%ld:%02ld:%02ld", s / 3600, s / 60 % 60, s % 60);
    else
        snprintf(buf, len, "%ld:%02ld", s / 60, s % 60);
}

static void clear_progress(trainer *t)
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

static int save(trainer *t, const char *path)
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
        qkv_ema_swap(t->st.ema, qkv_tagger_params(&t->s->model));
    int prof = qkv_profile_begin("checkpoint writing", QKV_PROF_WHOLE);
    /* best.h5 is the model only (no optimizer state: a run resumes from last.h5) */
    int status = qkv_checkpoint_save(path, t->s, path == t->best_path ? NULL : &t->opt, &t->st, &err);
    qkv_profile_end(prof);
    if (swap)
        qkv_ema_swap(t->st.ema, qkv_tagger_params(&t->s->model));
    if (status) {
        clear_progress(t);
        qkv_fail_report(&err);
        return 1;
    }
    return 0;
}

/* One dev evaluation of the parameters as they are now; see evaluate_dev. */
static int evaluate_params(trainer *t, int epoch_label, bool *stop)
{
    t->last_eval_step = t->st.step;
    qkv_eval_result res;
    qkv_error err;
    int prof = qkv_profile_begin("dev evaluation", QKV_PROF_WHOLE);
    /* each rank its share of the dev batches, then the counts summed (train/dist.h) */
    int status = qkv_evaluate_shard(t->s, &t->s->dev, t->s->cfg.data.batch_tokens, t->dist->rank, t->dist->size,
                                    &res, &err) ||
                 qkv_dist_reduce_eval(t->dist, &res, qkv_dataset_n_words(&t->s->dev), &err);
    qkv_profile_end(prof);
    if (!status)
        status = qkv_eval_add_spans(&res, &t->s->fz, &t->s->dev_c, &t->s->dev, &err) ||
                 qkv_eval_add_segments(&res, &t->s->fz, &t->s->dev, &t->dev_st, &err);
    if (status) {
        clear_progress(t);
        if (err.sentence >= 0) /* about one sentence: its file and line */
            qkv_session_name_sentence(&t->s->dev_c, &err);
        fprintf(stderr, "qkv: evaluating %s: %s\n", qkv_corpus_name(&t->s->dev_c), err.msg);
        qkv_eval_result_free(&res);
        return 1;
    }
    double elapsed = now_seconds() - t->t_start;
    const qkv_span_eval *sp = res.spans;
    double prf[3] = {sp ? sp->precision : 0, sp ? sp->recall : 0, sp ? sp->f1 : 0};
    qkv_metrics_row(&t->metrics, t->st.step, epoch_label, "dev", res.loss, res.accuracy,
                    qkv_lr_at(&t->sched, t->st.step), res.tokens_per_sec, elapsed, sp ? prf : NULL);
    /* the score train.select_by follows (span F1 needs span tags: the config check) */
    bool by_f1 = qkv_select_by_span_f1(&t->s->cfg, &t->s->fz);
    double score = by_f1 && sp ? sp->f1 : res.accuracy;
    bool better = score > t->st.best_accuracy;
    clear_progress(t);
    char spans_text[96] = "";
    if (sp)
        snprintf(spans_text, sizeof spans_text, ", span F1 %.2f (P %.2f%%, R %.2f%%)", 100 * sp->f1,
                 100 * sp->precision, 100 * sp->recall);
    else if (res.has_segments)
        snprintf(spans_text, sizeof spans_text, " of characters, Tokens F1 %.2f, Sentences F1 %.2f,",
                 100 * res.seg_tokens.f1, 100 * res.seg_sentences.f1);
    if (t->writer)
        fprintf(stderr, "epoch %d step %ld: dev accuracy %.2f%%%s loss %.4f%s\n", epoch_label, t->st.step,
                100 * res.accuracy, spans_text, res.loss, better ? " (best so far)" : "");
    double accuracy = score;
    qkv_eval_result_free(&res);
    if (better) {
        t->st.best_accuracy = accuracy;
        t->st.best_step = t->st.step;
        t->st.bad_evals = 0;
        if (t->s->cfg.checkpoint.keep_best && save(t, t->best_path))
            return 1;
    } else if (++t->st.bad_evals >= t->s->cfg.train.patience && t->s->cfg.train.patience > 0) {
        if (t->writer)
            fprintf(stderr, "no better dev %s in %d evaluations: stopping early\n",
                    qkv_select_by_span_f1(&t->s->cfg, &t->s->fz) ? "span F1" : "accuracy", t->st.bad_evals);
        *stop = true;
    }
    return 0;
}

/* Dev evaluation (of the parameter average when there is one): a metrics row, best.h5 when
 * better; sets *stop when patience runs out. */
static int evaluate_dev(trainer *t, int epoch_label, bool *stop)
{
    if (!t->s->has_dev || t->last_eval_step == t->st.step)
        return 0;
    if (t->st.ema)
        qkv_ema_swap(t->st.ema, qkv_tagger_params(&t->s->model));
    int status = evaluate_params(t, epoch_label, stop);
    if (t->st.ema)
        qkv_ema_swap(t->st.ema, qkv_tagger_params(&t->s->model));
    return status;
}

/* Redraws RUN_DIR/plots/loss.png (log.plot). A failure is a warning, once, never an error. */
static void refresh_plot(trainer *t)
{
    if (!t->s->cfg.log.plot || t->plot_failed || !t->writer)
        return;
    qkv_error err;
    fflush(t->metrics.f);
    QKV_PROFILE_SCOPE("plots", QKV_PROF_WHOLE);
    if (qkv_plot_run_loss(t->opts->run_dir, t->s->cfg.log.plot_log_loss, t->plot_path, sizeof t->plot_path, &err)) {
        clear_progress(t);
        fprintf(stderr, "qkv: warning: no loss plot (log.plot: false turns it off): %s\n", err.msg);
        t->plot_failed = true;
        t->plot_path[0] = '\0';
    }
}

static void log_row(trainer *t, int epoch_label)
{
    double now = now_seconds(), elapsed = now - t->t_start;
    double loss = qkv_loss_meter_mean(&t->st.log_loss);
    double lr = qkv_lr_at(&t->sched, t->st.step);
    double tps = (double)t->st.log_tokens / fmax(now - t->t_log, 1e-9);
    qkv_metrics_row(&t->metrics, t->st.step, epoch_label, "train", loss, NAN, lr, tps, elapsed, NULL);
    char el[32], eta[32];
    format_duration(elapsed, el, sizeof el);
    format_duration(qkv_eta_seconds(elapsed, t->start_step, t->st.step, t->total_steps, t->opts->stop_at_step), eta,
                    sizeof eta);
    clear_progress(t);
    if (t->writer)
        fprintf(stderr, "epoch %d step %ld/%ld loss %.4f lr %.3g %.0f %s/s elapsed %s eta %s\n", epoch_label,
            t->st.step, t->total_steps, loss, lr, tps, t->s->cfg.data.task == QKV_TASK_SEGMENT ? "char" : "tok", el,
            eta);
    t->st.log_loss = (qkv_loss_meter){0, 0};
    t->st.log_steps = 0;
    t->st.log_tokens = 0;
    t->t_log = now;
}

/* One optimizer step on batch i of the current plan. Returns 0, or 1 after printing an error. */
static int train_step(trainer *t, int i)
{
    qkv_session *s = t->s;
    qkv_params *params = qkv_tagger_params(&s->model);
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
    int failed = qkv_train_streams_set(&t->streams, b, qkv_rng_key(key, 1), &err);
    qkv_profile_end(prof);
    if (failed) {
        qkv_fail_report(&err);
        return 1;
    }
    double value = 0;
    int64_t scored = qkv_loss_tokens(qkv_batch_tags(b), qkv_batch_n_tokens(b)), words = qkv_batch_n_tokens(b);
    if (qkv_batch_n_sent(b) > 0) { /* a rank's share of a batch may be empty */
        qkv_tensor *logits = qkv_run_iter_logits(&t->it, &s->model, -1, NULL, &err);
        qkv_tensor *loss = qkv_tagger_loss(&t->it.tp, &s->model, logits, t->it.in.sentences, qkv_batch_tags(b));
        if (!loss || qkv_backward(&t->it.tp, loss)) {
            clear_progress(t);
            err = t->it.tp.err; /* about one sentence of the batch: its file and line */
            if (err.sentence >= 0 && err.sentence < qkv_batch_n_sent(b)) {
                err.sentence = qkv_batch_sent_id(b, err.sentence);
                qkv_session_name_sentence(&s->train_c, &err);
            }
            fprintf(stderr, "qkv: step %ld: %s\n", t->st.step + 1, err.msg);
            return 1;
        }
        value = loss->data[0];
    }
    /* After the allreduce every rank holds the gradient of the whole batch's rows: zeroing and
     * the lazy update (optim.sparse_embeddings) need their union, as one process collects it. */
    qkv_tagger_rows_collect(&t->rows, &s->model, &t->it.in);
    prof = t->dist->size > 1 ? qkv_profile_begin("allreduce", QKV_PROF_PHASE) : -1; /* no row for one process */
    failed = qkv_dist_union_rows(t->dist, t->rows.sets, t->rows.n, &err) ||
             qkv_dist_allreduce_grads(t->dist, params, t->rows.sets, t->rows.param, t->rows.n, &value, &scored,
                                      &words, &err);
    qkv_profile_end(prof);
    if (failed) {
        fprintf(stderr, "qkv: step %ld: %s\n", t->st.step + 1, err.msg);
        return 1;
    }
    prof = qkv_profile_begin("clip grad norm", QKV_PROF_PHASE);
    double norm = qkv_clip_grad_norm(params, s->cfg.train.clip_grad_norm);
    qkv_profile_end(prof);
    if (!isfinite(value) || !isfinite(norm)) {
        clear_progress(t);
        fprintf(stderr, "qkv: step %ld: the %s is %s; stopping. Try a lower optim.lr or train.clip_grad_norm. %s%s\n",
                t->st.step + 1, isfinite(value) ? "gradient norm" : "loss",
                isnan(isfinite(value) ? norm : value) ? "NaN" : "infinite",
                t->last_save_step >= 0 ? "The last good checkpoint is " : "No checkpoint was saved before it.",
                t->last_save_step >= 0 ? t->last_path : "");
        return 1;
    }
    t->st.step++;
    prof = qkv_profile_begin("optimizer step", QKV_PROF_PHASE);
    qkv_optim_step(&t->opt, qkv_lr_at(&t->sched, t->st.step));
    qkv_profile_end(prof);
    if (t->st.ema) {
        prof = qkv_profile_begin("ema update", QKV_PROF_PHASE);
        qkv_ema_update(t->st.ema, params, t->st.step);
        qkv_profile_end(prof);
    }
    prof = qkv_profile_begin("zero grad", QKV_PROF_PHASE);
    qkv_tagger_rows_zero_grad(&t->rows, &s->model);
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
    qkv_params *params = qkv_tagger_params(&t->s->model);
    if (qkv_optim_init(&t->opt, params, &c->optim.optimizer, &err))
        return qkv_fail_reportf("optim: %s", err.msg);
    if (qkv_tagger_rows_init(&t->rows, &t->s->model, &err) ||
        (c->optim.sparse_embeddings && qkv_tagger_rows_lazy(&t->rows, &t->opt, &err)))
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
    if (qkv_metrics_open(&t->metrics, t->opts->run_dir, keep, &err))
        return qkv_fail_report(&err);
    qkv_progress progress = t->s->cfg.log.progress;
    t->progress_bar = progress == QKV_PROGRESS_ON || (progress == QKV_PROGRESS_AUTO && isatty(STDERR_FILENO));
    return 0;
}

static int setup(trainer *t, qkv_session *s, const qkv_trainer_opts *opts)
{
    init_fields(t, s, opts);
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
    qkv_run_iter_free(&t->it);
    qkv_optim_free(&t->opt);
    qkv_tagger_rows_free(&t->rows);
    qkv_ema_free(&t->ema);
    qkv_train_streams_free(&t->streams);
    qkv_seg_free(&t->dev_st);
}

/* The signal (SIGINT or SIGTERM) that stops the run after this step, 0: none. With several
 * ranks, one that any rank caught (mpirun passes a signal on to each rank in its own time, and
 * `kill` may reach one of them only), agreed at every step so that all ranks stop at the same
 * step and meet in the same collective calls: rank 0 saves, none waits for a rank that left. */
static int stop_signal(trainer *t)
{
    t->stop_signo = qkv_dist_max_int(t->dist, qkv_interrupted());
    return t->stop_signo;
}

/* After --stop-at-step or a SIGINT or SIGTERM, with last.h5 saved: how to continue. Returns
 * QKV_TRAIN_STOPPED, or 128 + the signal's number. */
static int stopped(trainer *t)
{
    clear_progress(t);
    int signo = t->stop_signo;
    if (signo) {
        if (t->writer)
            fprintf(stderr, "interrupted by %s after step %ld: saved %s; continue with: qkv train %s/config.yaml "
                    "--resume %s\n", signo == SIGINT ? "SIGINT" : "SIGTERM", t->st.step, t->last_path,
                    t->opts->run_dir, t->last_path);
        return 128 + signo;
    }
    if (t->writer)
        fprintf(stderr, "stopped after step %ld as asked; continue with: qkv train %s/config.yaml --resume %s\n",
                t->st.step, t->opts->run_dir, t->last_path);
    return QKV_TRAIN_STOPPED;
}

static int run_epochs(trainer *t)
{
    qkv_session *s = t->s;
    const qkv_run_config *c = &s->cfg;
    qkv_error err;
    bool stop = false;
    t->t_start = t->t_log = now_seconds();
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
                evaluate_dev(t, t->st.epoch + 1, &stop))
                return 1;
            if (c->checkpoint.every_steps > 0 && t->st.step % c->checkpoint.every_steps == 0 &&
                save(t, t->last_path))
                return 1;
            if (t->st.step == t->opts->stop_at_step || stop_signal(t))
                break;
        }
        if (t->st.batch_pos == n_batches) {
            /* Epoch done: the state moves to the next epoch before any checkpoint is written. */
            t->st.epoch++;
            t->st.batch_pos = 0;
            t->st.epoch_rng = t->shuffle; /* what plans the next epoch */
            if (c->train.eval_every == 0 && evaluate_dev(t, t->st.epoch, &stop))
                return 1;
            refresh_plot(t);
        }
        if (save(t, t->last_path))
            return 1;
        if (t->st.step == t->opts->stop_at_step || stop_signal(t))
            return stopped(t);
    }
    if (t->st.log_steps)
        log_row(t, t->st.epoch + (t->st.batch_pos > 0));
    /* A run cut short by max_steps still ends with an evaluation of its last parameters. */
    if (evaluate_dev(t, t->st.epoch + (t->st.batch_pos > 0), &stop) || save(t, t->last_path))
        return 1;
    refresh_plot(t);
    clear_progress(t);
    return 0;
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
                now_seconds() - t.t_start, qkv_select_by_span_f1(&s->cfg, &s->fz) ? "span F1" : "accuracy",
                100 * t.st.best_accuracy, qkv_select_by_span_f1(&s->cfg, &s->fz) ? "" : "%", t.st.best_step);
    else if (status == 0 && t.writer)
        fprintf(stderr, "done: %ld steps in %.1f s (no dev set: nothing evaluated); model in %s\n", t.st.step,
                now_seconds() - t.t_start, t.last_path);
    if ((status == 0 || status == QKV_TRAIN_STOPPED) && t.dist->reduce_steps > 0 && t.writer) {
        double per_step = t.dist->reduced_values / (double)(t.dist->reduce_steps > 0 ? t.dist->reduce_steps : 1);
        fprintf(stderr, "data-parallel: %d ranks; the gradient allreduce took %.2f s on rank 0, %.0f values (%.2f MB) "
                "a step on average\n", t.dist->size, t.dist->reduce_seconds, per_step,
                per_step * (double)sizeof(qkv_real) / 1e6);
    }
    teardown(&t);
    return status;
}
