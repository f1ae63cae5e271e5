/* The pictures a run draws into RUN_DIR/plots/ as it trains (trainer_internal.h): the loss
 * plot, and the attention picture with its image in the event file. */
#include <stdio.h>

#include "lib/profile.h"
#include "train/attention_picture.h"
#include "train/plot/plot_metrics.h"
#include "train/task_report.h"
#include "train/trainer_internal.h"

/* Redraws RUN_DIR/plots/loss.png (log.plot). A failure is a warning, once, never an error. */
static void refresh_loss(trainer *t)
{
    qkv_error err;
    fflush(t->metrics.f);
    if (qkv_plot_run_loss(t->opts->run_dir, t->s->cfg.log.plot_log_loss, t->plot_path, sizeof t->plot_path, &err)) {
        qkv_trainer_clear_progress(t);
        fprintf(stderr, "qkv: warning: no loss plot (log.plot: false turns it off): %s\n", err.msg);
        t->plot_failed = true;
        t->plot_path[0] = '\0';
    }
}

/* Whether the run draws its attention picture: log.plot_attention, a transformer over words
 * (the task's report row says words) and a dev set to take the sentence from. */
static bool draws_attention(const trainer *t)
{
    const qkv_session *s = t->s;
    return s->cfg.log.plot_attention && s->has_dev && qkv_task_report_of(s)->epoch_attention &&
           s->model.cfg.encoder_kind == QKV_ENCODER_TRANSFORMER && qkv_network_n_layers(&s->model) > 0;
}

/* Redraws RUN_DIR/plots/attention.png: every attention head of the last layer on the first dev
 * sentence of at most QKV_ATTENTION_PICTURE_WORDS words, with the parameters that are
 * evaluated (the average, when there is one); with log.tensorboard also the image
 * "plots/attention" of the event file at this step. Once per step; a failure is a warning,
 * once, never an error. */
static void refresh_attention(trainer *t)
{
    if (t->attention_failed || !draws_attention(t) || t->attention_step == t->st.step)
        return;
    qkv_session *s = t->s;
    char image[4300];
    snprintf(image, sizeof image, "%s/plots/attention.png", t->opts->run_dir);
    qkv_attention_picture p = {QKV_ATTENTION_PICTURE_WORDS, qkv_network_n_layers(&s->model) - 1, -1, 0, 0};
    bool swap = t->st.ema && !t->st.ema->swapped;
    if (swap)
        qkv_ema_swap(t->st.ema, qkv_network_params(&s->model));
    qkv_error err;
    int failed = qkv_attention_picture_draw(s, &p, image, &err);
    if (swap)
        qkv_ema_swap(t->st.ema, qkv_network_params(&s->model));
    if (!failed && t->metrics.tb)
        failed = qkv_tfevents_image(t->metrics.tb, "plots/attention", t->st.step, image, &err);
    if (failed) {
        qkv_trainer_clear_progress(t);
        fprintf(stderr, "qkv: warning: no attention picture (log.plot_attention: false turns it off): %s\n", err.msg);
        t->attention_failed = true;
        return;
    }
    t->attention_step = t->st.step;
}

void qkv_trainer_refresh_plots(trainer *t)
{
    if (!t->s->cfg.log.plot || t->plot_failed || !t->writer)
        return;
    QKV_PROFILE_SCOPE("plots", QKV_PROF_WHOLE);
    refresh_loss(t);
    if (!t->plot_failed)
        refresh_attention(t);
}
