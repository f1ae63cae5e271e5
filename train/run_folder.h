/* The run folder of `qkv train` and what may be written into it.
 *
 * A run folder holds the files of one run: config.yaml (the resolved config; its first line,
 * "# qkv run ID ...", names the run), metrics.tsv, checkpoints/last.h5 and best.h5 (each with
 * the run's ID in /train/run_id), plots/loss.png, plots/loss.gp and plots/attention.png,
 * plots/attention.gp (train/attention_picture.h), plots/confusion.png, plots/confusion.gp (an
 * image classifier's), and its TensorBoard event files (train/tfevents.h; they do not make a
 * folder hold a run, but --force removes them with it). A run is identified by its
 * ID, a random 64-bit number (16 hex digits) drawn when it starts. Two runs of the same config
 * and seed are still two runs.
 *
 * What `qkv train` may do with a folder (decided before anything is read or written):
 *   no --resume   the folder holds no run files: a new run starts there. Otherwise refused,
 *                 unless --force.
 *   --resume CKPT the folder (default: the one CKPT sits in, RUN/checkpoints/CKPT) holds
 *                 - no run files: a new run, a branch of CKPT's run, starts there (its
 *                   metrics.tsv begins after CKPT's step; config.yaml names the run it came
 *                   from);
 *                 - CKPT's own run (same ID) with the same config (execution-only keys aside:
 *                   train.threads, log.*, checkpoint.every_steps) and no checkpoint later than
 *                   CKPT's step in last.h5: the run continues; metrics rows after CKPT's step
 *                   are dropped (the resumed run writes them again);
 *                 - anything else (another run, a run without an ID, CKPT's run with another
 *                   config, or with a last.h5 later than CKPT): refused, unless --force.
 *   --force       what the folder holds that is not CKPT's history is removed first: for
 *                 another run (or another config) all its run files (never CKPT itself), and a
 *                 new run starts; for CKPT's own run with a later last.h5, the metrics rows
 *                 after CKPT's step and a best.h5 saved after it, and the run continues.
 * Neither --force nor anything else lets a run's files replace its inputs: its data files
 * (train/cli/output_file.h), and the config file given, which only a run continuing in its own
 * folder from that folder's config.yaml rewrites. */
#ifndef QKV_RUN_FOLDER_H
#define QKV_RUN_FOLDER_H

#include <stdbool.h>

#include "lib/error.h"
#include "api/session.h"
#include "train/train_state.h" /* QKV_RUN_ID_LEN */

typedef enum {
    QKV_RUN_NEW,      /* a new run in a folder without run files */
    QKV_RUN_CONTINUE, /* CKPT's own run continues */
    QKV_RUN_REPLACE,  /* --force: the folder's run files are removed, a new run starts */
    QKV_RUN_REWIND,   /* --force: CKPT's own run continues; its history after CKPT is removed */
} qkv_run_action;

typedef struct qkv_run_plan {
    char dir[4096];                      /* the run folder */
    const char *config;                  /* the config file given, or NULL */
    const char *resume;                  /* the checkpoint resumed from, or NULL */
    long resume_step;                    /* its /train/step (resume only) */
    qkv_run_action action;
    char id[QKV_RUN_ID_LEN + 1];         /* the run written: a new ID, or the continued run's */
    char parent[QKV_RUN_ID_LEN + 1];     /* a new run from --resume: CKPT's run ("" unknown) */
} qkv_run_plan;

/* The run folder --resume CKPT continues in by default: RUN for RUN/checkpoints/CKPT. Errors:
 * CKPT is not in a folder named checkpoints (the message asks for --out). */
int qkv_run_folder_of_checkpoint(const char *ckpt, char *dir, size_t len, qkv_error *err);

/* Decides what `qkv train` does with folder dir (see above) for a run of session s's config
 * (s->cfg, s->config_text, read from the file config), resuming from resume (NULL: a fresh
 * run), with --force or not. Reads only. Errors: a refusal (naming the folder, what it holds,
 * and --out/--force), a checkpoint or config.yaml that cannot be read, dir not a folder; and,
 * --force or not, dir/config.yaml being the file config (under any name, a link too) when it
 * would be replaced: always, except for a run that continues in dir from a config.yaml whose
 * first line names that run (qkv train RUN/config.yaml --resume RUN/checkpoints/last.h5). */
int qkv_run_plan_make(qkv_run_plan *p, const char *dir, const char *config, const char *resume, bool force,
                      const qkv_session *s, qkv_error *err);

/* Carries the plan out, once everything else is ready: creates dir/checkpoints, removes what
 * --force replaces (saying so on stderr), writes config.yaml (the run's ID line and the
 * resolved config). Errors: a folder or file that cannot be made, written or removed. */
int qkv_run_folder_prepare(const qkv_run_plan *p, const qkv_session *s, qkv_error *err);

#endif
