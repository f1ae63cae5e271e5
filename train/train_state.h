/* Where a training run stands: everything besides parameters and optimizer moments that a
 * checkpoint must hold for a resumed run to continue bit for bit. */
#ifndef QKV_TRAIN_STATE_H
#define QKV_TRAIN_STATE_H

#include "lib/optim/ema.h"
#include "lib/loss_meter.h"
#include "lib/optim/optim.h"
#include "lib/rng.h"
#include "api/model_file.h"
#include "api/session.h"

/* A run's ID: 16 hex digits (train/run_folder.h). */
#define QKV_RUN_ID_LEN 16

typedef struct qkv_train_state {
    long step;             /* optimizer updates done */
    int epoch;             /* current epoch, from 0 */
    int batch_pos;         /* next batch of the epoch's plan */
    qkv_rng rng;           /* dropout and word dropout */
    qkv_rng epoch_rng;     /* the shuffling rng as it was before planning the current epoch */
    double best_accuracy;  /* best dev score of train.select_by so far, accuracy or span F1 (-1: none yet) */
    long best_step;
    int bad_evals;         /* evaluations since the best one (early stopping) */
    qkv_loss_meter log_loss; /* training loss since the last log row, token-weighted */
    long log_steps, log_tokens;
    qkv_ema *ema;          /* train.ema_decay > 0: the parameter average (NULL: none) */
    char run_id[QKV_RUN_ID_LEN + 1]; /* the run's ID, saved as /train/run_id ("": none) */
    int ranks;             /* processes of the data-parallel run that saved it, /train/ranks (0: not
                              recorded, a qkv before MPI) */
} qkv_train_state;

/* Writes a checkpoint of the session's model, vocabularies and config (api/model_file.h) and,
 * when segmenter is not NULL, that segmenter under /segmenter (data.segmenter), with
 * st not NULL the run's ID and step, and with opt and st not NULL the optimizer and training
 * state (what --resume reads; best.h5 is saved without them), atomically (temp file + rename) at path. With an
 * average (st->ema), the caller has swapped it in (qkv_ema_swap): /params holds the average,
 * the model users evaluate, and /train/raw_params/<name> the last update's values (from the
 * swapped-out buffer), which training continues from. */
int qkv_checkpoint_save(const char *path, const qkv_session *s, const qkv_session *segmenter,
                        const qkv_optimizer *opt, const qkv_train_state *st, qkv_error *err);

/* The run a checkpoint belongs to: its /train/run_id into run_id (len bytes; "" when it has
 * none: saved without training state or by a qkv before run IDs) and its /train/step into
 * *step (-1 when none). Errors: the file cannot be opened as a checkpoint (naming it). */
int qkv_checkpoint_run_info(const char *path, char *run_id, size_t len, long *step, qkv_error *err);

/* Whether --resume can continue from path: an error "PATH: it holds only a model's weights
 * (a best.h5 | an exported model) ...: resume from the run's checkpoints/last.h5" when the file
 * has no optimizer state; errors of opening it. */
int qkv_checkpoint_check_resumable(const char *path, qkv_error *err);

/* For --resume: parameters, optimizer state and training state into an already built
 * session and optimizer (shapes are checked; a mismatch names the dataset). A file without
 * /optim (best.h5, an export) is an error saying to resume from last.h5. With st->ema the
 * average comes from /params and the parameters from /train/raw_params; a checkpoint with an
 * average resumed without one, or the reverse, is an error. */
int qkv_checkpoint_load_training(const char *path, qkv_session *s, qkv_optimizer *opt, qkv_train_state *st,
                                 qkv_error *err);

#endif
