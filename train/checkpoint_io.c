/* What a qkv checkpoint holds (all readable with h5py, see lib/io/store.h for the format):
 *   /params/<name>                   model parameters, float32, PyTorch [out, in] shapes
 *   /optim/<param name>/<slot>       optimizer state (exp_avg, exp_avg_sq or momentum_buffer)
 *   /optim/step                      optimizer updates done
 *   /train/{step,epoch,batch_pos,best_step,bad_evals,log_steps,log_tokens,log_loss_tokens}  int64
 *   /train/{best_accuracy,log_loss_sum}                                      float64
 *                                    log_loss_sum / log_loss_tokens: the token-weighted
 *                                    training loss since the last log row
 *   /train/rng, /train/epoch_rng     4 x uint64 xoshiro256** states
 *   /train/run_id                    the run's ID, 16 hex digits (train/run_folder.h)
 *   /train/raw_params/<name>         with train.ema_decay > 0: the last update's parameters
 *                                    (/params then holds their moving average)
 *   /vocab/features                  names of the feature kinds, in model order
 *   /vocab/<feature>, /vocab/tags    vocabularies (UTF-8 strings in id order, each NUL-ended, as uint8)
 *   /vocab/chars                     the character vocabulary (model.char_dim > 0 only)
 *   /vocab/tags.<column>             the classes of each tag column after the first (data.tags a list)
 *   /config                          the resolved YAML config
 * best.h5 (saved without the optimizer) has only /train/run_id and /train/step of /train, and no
 * /optim; an export (api/model_file.h) has no /optim and no /train. Only last.h5 resumes. */
#include "train/train_state.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/io/store.h"

/* The run and step a checkpoint is from (qkv_checkpoint_run_info reads them back). */
static int write_run_info(qkv_store_writer *w, const qkv_train_state *st, qkv_error *err)
{
    if (qkv_store_write_i64(w, "/train/step", st->step, err))
        return QKV_ERR;
    return st->run_id[0] ? qkv_store_write_text(w, "/train/run_id", st->run_id, err) : QKV_OK;
}

/* What --resume needs besides the parameters and the run info. */
static int write_state(qkv_store_writer *w, const qkv_optimizer *opt, const qkv_train_state *st, qkv_error *err)
{
    const qkv_params *ps = opt->ps;
    for (int i = 0; i < ps->n; i++)
        for (int k = 0; k < qkv_optim_n_slots(opt); k++) {
            char path[256];
            snprintf(path, sizeof path, "/optim/%s/%s", ps->items[i]->name, qkv_optim_slot_name(opt, k));
            const qkv_tensor *t = &ps->items[i]->t;
            if (qkv_store_write_real(w, path, t->rank, t->shape, qkv_optim_slot(opt, i, k), err))
                return QKV_ERR;
        }
    if (qkv_store_write_i64(w, "/optim/step", opt->step, err) || qkv_store_write_i64(w, "/train/epoch", st->epoch, err) ||
        qkv_store_write_i64(w, "/train/batch_pos", st->batch_pos, err) ||
        qkv_store_write_i64(w, "/train/best_step", st->best_step, err) ||
        qkv_store_write_i64(w, "/train/bad_evals", st->bad_evals, err) ||
        qkv_store_write_i64(w, "/train/log_steps", st->log_steps, err) ||
        qkv_store_write_i64(w, "/train/log_tokens", st->log_tokens, err) ||
        qkv_store_write_f64(w, "/train/best_accuracy", st->best_accuracy, err) ||
        qkv_store_write_f64(w, "/train/log_loss_sum", st->log_loss.sum, err) ||
        qkv_store_write_i64(w, "/train/log_loss_tokens", st->log_loss.tokens, err) ||
        qkv_store_write_u64_array(w, "/train/rng", 4, st->rng.s, err) ||
        qkv_store_write_u64_array(w, "/train/epoch_rng", 4, st->epoch_rng.s, err) ||
        (st->ranks > 0 && qkv_store_write_i64(w, "/train/ranks", st->ranks, err)))
        return QKV_ERR;
    if (st->ema) {
        if (!st->ema->swapped)
            return qkv_fail(err, "checkpoint: the parameter average must be swapped in before saving");
        size_t at = 0;
        for (int i = 0; i < ps->n; i++) {
            char path[256];
            snprintf(path, sizeof path, "/train/raw_params/%s", ps->items[i]->name);
            const qkv_tensor *t = &ps->items[i]->t;
            if (qkv_store_write_real(w, path, t->rank, t->shape, st->ema->avg + at, err))
                return QKV_ERR;
            at += t->size;
        }
    }
    return QKV_OK;
}

int qkv_checkpoint_save(const char *path, const qkv_session *s, const qkv_session *segmenter,
                        const qkv_optimizer *opt, const qkv_train_state *st, qkv_error *err)
{
    qkv_store_writer *w;
    if (qkv_store_create(path, &w, err))
        return QKV_ERR;
    if (qkv_model_file_write(w, s, err) || (segmenter && qkv_model_file_write_segmenter(w, segmenter, err)) ||
        (st && write_run_info(w, st, err)) ||
        (opt && st && write_state(w, opt, st, err))) {
        qkv_store_abort(w);
        return QKV_ERR;
    }
    return qkv_store_commit(w, err);
}

int qkv_checkpoint_run_info(const char *path, char *run_id, size_t len, long *step, qkv_error *err)
{
    qkv_store_reader *r;
    if (qkv_store_open(path, &r, err))
        return QKV_ERR;
    snprintf(run_id, len, "%s", "");
    *step = -1;
    int status = QKV_OK;
    if (qkv_store_has(r, "/train/run_id")) {
        char *text = NULL;
        status = qkv_store_read_text(r, "/train/run_id", &text, err);
        if (status == QKV_OK)
            snprintf(run_id, len, "%s", text);
        free(text);
    }
    int64_t v = -1;
    if (status == QKV_OK && qkv_store_has(r, "/train/step"))
        status = qkv_store_read_i64(r, "/train/step", &v, err);
    *step = (long)v;
    qkv_store_close(r);
    return status;
}

/* /params was read into the parameters: with an average, it becomes the average and the
 * parameters take /train/raw_params. */
static int load_raw_params(const qkv_store_reader *r, const qkv_params *ps, qkv_ema *ema, qkv_error *err)
{
    char path[256];
    bool has_raw = qkv_store_has(r, "/train/raw_params");
    if (has_raw != (ema != NULL))
        return qkv_fail(err, has_raw ? "it was saved with a parameter average (train.ema_decay > 0); resume with the same "
                                       "train.ema_decay"
                                     : "it has no parameter average; train.ema_decay must be 0 to resume from it");
    if (!ema)
        return QKV_OK;
    size_t at = 0;
    for (int i = 0; i < ps->n; i++) {
        qkv_tensor *t = &ps->items[i]->t;
        memcpy(ema->avg + at, t->data, t->size * sizeof *t->data);
        snprintf(path, sizeof path, "/train/raw_params/%s", ps->items[i]->name);
        if (qkv_store_read_real(r, path, t->rank, t->shape, t->data, err))
            return QKV_ERR;
        at += t->size;
    }
    ema->swapped = false;
    return QKV_OK;
}

/* The run config saved in the checkpoint into *saved (malloc'd; the caller frees it). */
static int read_saved_config(const qkv_store_reader *r, qkv_run_config **saved, qkv_error *err)
{
    char *text = NULL;
    *saved = NULL;
    if (qkv_store_read_text(r, "/config", &text, err))
        return QKV_ERR;
    *saved = malloc(sizeof **saved);
    int status = *saved ? qkv_run_config_parse(text, "/config", *saved, err) : qkv_fail(err, "out of memory");
    free(text);
    return status;
}

/* A checkpoint holds the parameters of one kind of encoder: resuming with another is an error
 * that names both (rather than a missing parameter name). */
static int check_same_encoder(const qkv_run_config *saved, const qkv_session *s, qkv_error *err)
{
    if (saved->model.encoder_kind != s->cfg.model.encoder_kind)
        return qkv_fail(err, "it was saved with model.encoder: %s; this run has model.encoder: %s (a checkpoint "
                             "resumes only with the encoder it was trained with)",
                        QKV_ENCODER_KIND_NAMES[saved->model.encoder_kind],
                        QKV_ENCODER_KIND_NAMES[s->cfg.model.encoder_kind]);
    return QKV_OK;
}

/* The parameters of r's /params into the model of s. When their shapes differ and so do model
 * keys of the saved config and the run's, the error names those keys ("model.d_model 32 vs 64")
 * rather than every tensor. */
static int read_params(const qkv_store_reader *r, const qkv_run_config *saved, qkv_session *s, qkv_error *err)
{
    if (qkv_store_read_params(r, "/params", qkv_network_params(&s->model), err) == QKV_OK)
        return QKV_OK;
    char keys[700];
    if (qkv_config_differences(QKV_RUN_SCHEMA, QKV_RUN_SCHEMA_LEN, "model", saved, &s->cfg, keys, sizeof keys) == 0)
        return QKV_ERR;
    return qkv_fail(err, "its model has another shape than this run's: %s (the checkpoint's value first; a run "
                         "resumes with the model keys it was saved with)", keys);
}

/* Only a checkpoint with the optimizer state (last.h5) resumes. */
static int resumable(const qkv_store_reader *r, qkv_error *err)
{
    if (qkv_store_has(r, "/optim"))
        return QKV_OK;
    return qkv_fail(err, "it holds only a model's weights (%s), not the optimizer and training state a run resumes "
                         "from: resume from the run's checkpoints/last.h5",
                    qkv_store_has(r, "/train") ? "a best.h5" : "an exported model");
}

int qkv_checkpoint_check_resumable(const char *path, qkv_error *err)
{
    qkv_store_reader *r;
    if (qkv_store_open(path, &r, err))
        return QKV_ERR;
    int status = resumable(r, err);
    qkv_store_close(r);
    return status ? qkv_fail_prefix(err, "%s", path) : QKV_OK;
}

int qkv_checkpoint_load_training(const char *path, qkv_session *s, qkv_optimizer *opt, qkv_train_state *st,
                                 qkv_error *err)
{
    qkv_store_reader *r;
    if (qkv_store_open(path, &r, err))
        return QKV_ERR;
    qkv_params *ps = qkv_network_params(&s->model);
    qkv_run_config *saved = NULL;
    int status = resumable(r, err);
    if (status == QKV_OK)
        status = read_saved_config(r, &saved, err);
    if (status == QKV_OK)
        status = check_same_encoder(saved, s, err);
    if (status == QKV_OK)
        status = read_params(r, saved, s, err);
    free(saved);
    char *text = NULL;
    if (status == QKV_OK && qkv_store_read_text(r, "/config", &text, err) == QKV_OK &&
        strcmp(text, s->config_text) != 0)
        fprintf(stderr, "qkv: warning: %s was saved with another config; resuming with the one given "
                        "(compare its /config with the run folder's config.yaml)\n", path);
    free(text);
    for (int i = 0; status == QKV_OK && i < ps->n; i++)
        for (int k = 0; status == QKV_OK && k < qkv_optim_n_slots(opt); k++) {
            char dataset[256];
            snprintf(dataset, sizeof dataset, "/optim/%s/%s", ps->items[i]->name, qkv_optim_slot_name(opt, k));
            const qkv_tensor *t = &ps->items[i]->t;
            status = qkv_store_read_real(r, dataset, t->rank, t->shape, qkv_optim_slot(opt, i, k), err);
        }
    int64_t v[7];
    if (status == QKV_OK)
        status = qkv_store_read_i64(r, "/optim/step", &v[0], err);
    if (status == QKV_OK)
        opt->step = (long)v[0];
    const char *ints[] = {"/train/step", "/train/epoch", "/train/batch_pos", "/train/best_step",
                          "/train/bad_evals", "/train/log_steps", "/train/log_tokens"};
    for (int i = 0; status == QKV_OK && i < 7; i++)
        status = qkv_store_read_i64(r, ints[i], &v[i], err);
    if (status == QKV_OK) {
        st->step = (long)v[0];
        st->epoch = (int)v[1];
        st->batch_pos = (int)v[2];
        st->best_step = (long)v[3];
        st->bad_evals = (int)v[4];
        st->log_steps = (long)v[5];
        st->log_tokens = (long)v[6];
        status = qkv_store_read_f64(r, "/train/best_accuracy", &st->best_accuracy, err);
    }
    if (status == QKV_OK)
        status = qkv_store_read_f64(r, "/train/log_loss_sum", &st->log_loss.sum, err);
    if (status == QKV_OK && !qkv_store_has(r, "/train/log_loss_tokens")) {
        /* a qkv before token-weighted losses summed batch means here: the window restarts */
        fprintf(stderr, "qkv: warning: %s is from an older qkv: the first training loss logged after resuming "
                        "covers only the resumed steps\n", path);
        st->log_loss = (qkv_loss_meter){0, 0};
    } else if (status == QKV_OK) {
        int64_t tokens = 0;
        status = qkv_store_read_i64(r, "/train/log_loss_tokens", &tokens, err);
        st->log_loss.tokens = tokens;
    }
    if (status == QKV_OK)
        status = qkv_store_read_u64_array(r, "/train/rng", 4, st->rng.s, err);
    if (status == QKV_OK)
        status = qkv_store_read_u64_array(r, "/train/epoch_rng", 4, st->epoch_rng.s, err);
    if (status == QKV_OK && qkv_store_has(r, "/train/ranks")) {
        int64_t ranks = 0;
        status = qkv_store_read_i64(r, "/train/ranks", &ranks, err);
        st->ranks = (int)ranks;
    }
    if (status == QKV_OK)
        status = load_raw_params(r, ps, st->ema, err);
    if (status)
        qkv_fail_prefix(err, "%s", path);
    qkv_store_close(r);
    return status;
}
