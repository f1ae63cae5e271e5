/* The dev evaluations of a training run (train/trainer_internal.h): a metrics row, the log line,
 * best.h5 when better, early stopping. */
#include "train/trainer_internal.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "api/session.h"
#include "api/task.h"
#include "train/dist.h"
#include "train/evaluate.h"
#include "train/metrics.h"
#include "train/seg_eval.h"
#include "train/span_eval.h"
#include "lib/optim/schedule.h"
#include "lib/profile.h"

/* ": upos 95.10%, xpos 94.20%, ...; mean 94.65%" for a model of several heads. */
static void heads_text(const trainer *t, const qkv_eval_result *res, double score, char *buf, size_t cap)
{
    size_t n = (size_t)snprintf(buf, cap, " (");
    for (int h = 0; h < res->n_outputs && n < cap; h++)
        n += (size_t)snprintf(buf + n, cap - n, "%s%s %.2f%%", h ? ", " : "", QKV_TAG_FIELD_NAMES[t->s->fz.columns[h]],
                              100 * res->head_accuracy[h]);
    if (n < cap)
        snprintf(buf + n, cap - n, "; selection score %.2f%%)", 100 * score);
}

void qkv_trainer_metric_columns(trainer *t)
{
    qkv_metrics *m = &t->metrics;
    const qkv_session *s = t->s;
    const char *task = qkv_session_task(s)->name;
    bool spans = qkv_tags_are_spans(&s->fz);
    int n_outputs = qkv_featurizer_n_columns(&s->fz);
    bool attachment = qkv_network_scored_by(&s->model, QKV_SCORE_ATTACHMENT); /* UAS and LAS */
    if (attachment)
        snprintf(m->score_name, sizeof m->score_name, "las");
    else if (!strcmp(task, "frames"))
        snprintf(m->score_name, sizeof m->score_name, "frame_accuracy");
    else if (qkv_session_task(s)->segments)
        snprintf(m->score_name, sizeof m->score_name, "char_accuracy");
    else if (!strcmp(task, "words") && !spans)
        snprintf(m->score_name, sizeof m->score_name, "accuracy_%s", QKV_TAG_FIELD_NAMES[s->fz.columns[0]]);
    else
        snprintf(m->score_name, sizeof m->score_name, "accuracy");
    m->n_extra = 0;
    static const char *const NAMES[] = {"uas", "span_precision", "span_recall", "span_f1", "tokens_f1", "sentences_f1"};
    bool has[] = {attachment, spans, spans, spans, t->dev_st.n_chars > 0, t->dev_st.n_chars > 0};
    for (int k = 0; k < 6; k++)
        if (has[k])
            snprintf(m->extra_names[m->n_extra++], QKV_METRICS_NAME_LEN, "%s", NAMES[k]);
    for (int h = 1; h < n_outputs && m->n_extra < QKV_METRICS_MAX_EXTRA; h++)
        snprintf(m->extra_names[m->n_extra++], QKV_METRICS_NAME_LEN, "accuracy_%s", QKV_TAG_FIELD_NAMES[s->fz.columns[h]]);
}

/* The values of the further score columns (qkv_trainer_metric_columns' order) of res. */
static void metric_extras(const trainer *t, const qkv_eval_result *res, double *out)
{
    const qkv_session *s = t->s;
    const qkv_span_eval *sp = res->spans;
    int n = 0;
    if (qkv_network_scored_by(&s->model, QKV_SCORE_ATTACHMENT))
        out[n++] = res->uas;
    if (qkv_tags_are_spans(&s->fz)) {
        out[n++] = sp ? sp->precision : NAN;
        out[n++] = sp ? sp->recall : NAN;
        out[n++] = sp ? sp->f1 : NAN;
    }
    if (t->dev_st.n_chars > 0) {
        out[n++] = res->has_segments ? res->seg_tokens.f1 : NAN;
        out[n++] = res->has_segments ? res->seg_sentences.f1 : NAN;
    }
    for (int h = 1; n < t->metrics.n_extra; h++)
        out[n++] = h < res->n_outputs ? res->head_accuracy[h] : NAN;
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
                 qkv_eval_add_segments(&res, &t->s->fz, &t->s->seg_lexicon, &t->s->dev, &t->dev_st, &err);
    if (status) {
        qkv_trainer_clear_progress(t);
        if (err.sentence >= 0) /* about one sentence: its file and line */
            qkv_session_name_sentence(&t->s->dev_c, &err);
        fprintf(stderr, "qkv: evaluating %s: %s\n", qkv_corpus_name(&t->s->dev_c), err.msg);
        qkv_eval_result_free(&res);
        return 1;
    }
    double elapsed = qkv_trainer_now() - t->t_start;
    const qkv_span_eval *sp = res.spans;
    double extra[QKV_METRICS_MAX_EXTRA];
    metric_extras(t, &res, extra);
    qkv_metrics_row(&t->metrics, (qkv_metrics_at){t->st.step, epoch_label, "dev"},
                    &(qkv_metrics_values){res.loss, res.accuracy, qkv_lr_at(&t->sched, t->st.step), res.tokens_per_sec,
                                          elapsed, extra});
    /* the score train.select_by follows (span F1 needs span tags: the config check) */
    bool by_f1 = qkv_select_by_span_f1(&t->s->cfg, &t->s->fz);
    double score = by_f1 && sp ? sp->f1 : qkv_eval_selection_accuracy(&res, &t->s->cfg);
    bool better = score > t->st.best_accuracy;
    qkv_trainer_clear_progress(t);
    char spans_text[256] = "";
    if (sp)
        snprintf(spans_text, sizeof spans_text, ", span F1 %.2f (P %.2f%%, R %.2f%%)", 100 * sp->f1,
                 100 * sp->precision, 100 * sp->recall);
    else if (res.has_segments)
        snprintf(spans_text, sizeof spans_text, " of characters, Tokens F1 %.2f, Sentences F1 %.2f,",
                 100 * res.seg_tokens.f1, 100 * res.seg_sentences.f1);
    else if (res.n_outputs > 1)
        heads_text(t, &res, score, spans_text, sizeof spans_text);
    if (t->writer && res.pred_arcs)
        fprintf(stderr, "epoch %d step %ld: dev UAS %.2f%% LAS %.2f%%%s loss %.4f%s\n", epoch_label, t->st.step,
                100 * res.uas, 100 * res.accuracy, spans_text, res.loss, better ? " (best so far)" : "");
    else if (t->writer)
        fprintf(stderr, "epoch %d step %ld: dev accuracy %.2f%%%s loss %.4f%s\n", epoch_label, t->st.step,
                100 * res.accuracy, spans_text, res.loss, better ? " (best so far)" : "");
    double accuracy = score;
    qkv_eval_result_free(&res);
    if (better) {
        t->st.best_accuracy = accuracy;
        t->st.best_step = t->st.step;
        t->st.bad_evals = 0;
        if (t->s->cfg.checkpoint.keep_best && qkv_trainer_save(t, t->best_path))
            return 1;
    } else if (++t->st.bad_evals >= t->s->cfg.train.patience && t->s->cfg.train.patience > 0) {
        if (t->writer)
            fprintf(stderr, "no better dev %s in %d evaluations: stopping early\n", qkv_trainer_select_name(t->s),
                    t->st.bad_evals);
        *stop = true;
    }
    return 0;
}

/* Dev evaluation (of the parameter average when there is one): a metrics row, best.h5 when
 * better; sets *stop when patience runs out. */
int qkv_trainer_evaluate_dev(trainer *t, int epoch_label, bool *stop)
{
    if (!t->s->has_dev || t->last_eval_step == t->st.step)
        return 0;
    if (t->st.ema)
        qkv_ema_swap(t->st.ema, qkv_network_params(&t->s->model));
    int status = evaluate_params(t, epoch_label, stop);
    if (t->st.ema)
        qkv_ema_swap(t->st.ema, qkv_network_params(&t->s->model));
    return status;
}

