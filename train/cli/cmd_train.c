/* qkv train CONFIG [--set section.key=value]... [--out RUN_DIR] [--resume CHECKPOINT] [--profile] */
#include <errno.h>
#include <libgen.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "lib/profile.h"
#include "lib/gemm/backend.h"
#include "lib/threads.h"
#include "train/cli/command.h"
#include "train/cli/cli.h"
#include "train/cli/commands.h"
#include "train/evaluate.h"
#include "train/interrupt.h"
#include "train/profile_table.h"
#include "train/report.h"
#include "train/seg_eval.h"
#include "train/span_eval.h"
#include "train/task_report.h"
#include "train/run_folder.h"
#include "train/train_state.h"
#include "train/trainer.h"

static const char ABOUT[] = "Trains a tagger as CONFIG (YAML) says. Every key and its default: configs/README.md.\n";

static const char NOTES[] =
    "Without --force, qkv never writes into a folder holding a run other than the one it continues.\n";

/* A data file of the config that cannot be opened: prints where its path came from (the
 * config's text or --set, and the environment variables in it) and how to get the data (UD or
 * WNUT 2017), and returns 1. Checked before anything is read, so a missing dev file is told at once. */
static int missing_data(const qkv_session *s, const qkv_cli_config *cc)
{
    const qkv_data_section *d = &s->cfg.data;
    if (d->source != QKV_SOURCE_FILES)
        return 0;
    for (int k = 0; k < 2; k++) {
        const char *key = k ? "dev" : "train", *path = k ? d->dev : d->train;
        if (!path[0] || access(path, R_OK) == 0)
            continue;
        int e = errno;
        fprintf(stderr, "qkv: data.%s: %s: cannot open: %s\n", key, path, strerror(e));
        qkv_run_config scratch;
        qkv_error err;
        char written[QKV_CFG_STR_MAX], set[64];
        if (e != ENOENT || qkv_config_load_written(cc->path, QKV_RUN_SCHEMA, QKV_RUN_SCHEMA_LEN, &scratch,
                                                   cc->overrides, cc->n_overrides, "data", key, written,
                                                   sizeof written, &err))
            return 1;
        snprintf(set, sizeof set, "data.%s=", key);
        bool from_set = false;
        for (int i = 0; i < cc->n_overrides; i++)
            from_set = from_set || !strncmp(cc->overrides[i], set, strlen(set));
        const char *base = strrchr(path, '/') ? strrchr(path, '/') + 1 : path;
        fprintf(stderr, "qkv: %s gives data.%s as \"%s\"", from_set ? "--set" : cc->path, key, written);
        char first[128] = "";
        for (const char *p = strstr(written, "${"); p; p = strstr(p + 2, "${")) {
            char var[128];
            size_t n = strcspn(p + 2, ":}");
            snprintf(var, sizeof var, "%.*s", (int)(n < sizeof var ? n : sizeof var - 1), p + 2);
            const char *value = getenv(var);
            fprintf(stderr, "%s %s %s%s", first[0] ? "," : " and", var, value && *value ? "is " : "is not set",
                    value && *value ? value : "");
            if (!first[0])
                snprintf(first, sizeof first, "%s", var);
        }
        if (first[0])
            fprintf(stderr, ": set %s to the folder that holds %s", first, base);
        else
            fprintf(stderr, ": give the file's path in the config or with --set data.%s=FILE", key);
        if (!strcmp(first, "QKV_WNUT17_DIR"))
            fprintf(stderr, ". To download WNUT 2017: data/fetch-wnut17.sh DIR, then export QKV_WNUT17_DIR=DIR\n");
        else if (!strcmp(first, "QKV_SPEECH_DIR"))
            fprintf(stderr, ". To make the speech corpora: configs/speech/make-corpus.sh (into build/speech), or "
                            "configs/speech/make-corpus.sh DIR, then export QKV_SPEECH_DIR=DIR\n");
        else
            fprintf(stderr, ". To download a UD treebank: data/fetch-ud.sh TREEBANK DIR, e.g. data/fetch-ud.sh "
                            "UD_English-EWT DIR%s%s%s\n",
                    first[0] ? ", then export " : "", first, first[0] ? "=DIR" : "");
        return 1;
    }
    return 0;
}

/* Default run folder: runs/<config file name without .yaml>. */
static void default_run_dir(const char *config, char *out, size_t len)
{
    char copy[4096];
    snprintf(copy, sizeof copy, "%s", config);
    char *name = basename(copy);
    char *dot = strrchr(name, '.');
    if (dot && dot != name)
        *dot = '\0';
    snprintf(out, len, "runs/%s", name);
}

/* The options of qkv train. */
typedef struct train_args {
    const char *out, *resume;
    long stop_at_step;
    qkv_cli_config cc;
    bool force, profile;
} train_args;

/* One `qkv train`: its options, session, rank and run folder. */
typedef struct train_run {
    train_args a;
    qkv_session s;
    qkv_dist dist; /* one rank of a job under mpirun or srun, else a single process */
    bool writer;   /* rank 0: prints and writes */
    char run_dir[4096];
    qkv_run_plan plan;
} train_run;

/* Parses argv into a; returns -1 (go on) or the exit status. */
static int parse_args(train_args *a, int argc, char **argv)
{
    const qkv_cli_opt rows[] = {
        QKV_CLI_CONFIG_ROWS(&a->cc, true),
        {"--out", QKV_CLI_STRING, &a->out, "RUN_DIR",
         "run folder (default: runs/<config name>; with --resume, the run\n"
         "folder of CHECKPOINT); it receives config.yaml (resolved, its\n"
         "first line names the run), metrics.tsv, checkpoints/{last,best}.h5"},
        {"--resume", QKV_CLI_STRING, &a->resume, "CHECKPOINT",
         "continue a run from a checkpoint with the run's config (e.g.\n"
         "qkv train RUN/config.yaml --resume RUN/checkpoints/last.h5): the\n"
         "result is bit for bit that of the uninterrupted run (with\n"
         "train.threads: 1). Into a new --out folder: a branch of the run"},
        {"--stop-at-step", QKV_CLI_INT, &a->stop_at_step, "N",
         "save checkpoints/last.h5 and stop after step N, as if\n"
         "interrupted (the learning-rate schedule is the whole run's)",
         .lo = 1, .hi = LONG_MAX},
        {"--force", QKV_CLI_FLAG, &a->force, NULL,
         "write into a RUN_DIR that holds another run (or another config,\n"
         "or a later part of CHECKPOINT's run): what is not CHECKPOINT's\n"
         "history is removed first (config.yaml, metrics.tsv, the\n"
         "checkpoints and plots of the other run; never CHECKPOINT)"},
        QKV_PROFILE_OPTION_ROW(&a->profile),
    };
    const qkv_cli_spec spec = {"train", ABOUT, NOTES, rows, QKV_CLI_N(rows)};
    int usage = qkv_cli_parse(&spec, argc, argv);
    if (usage >= 0)
        return usage;
    if (a->out && !*a->out)
        return qkv_cli_usage_error(&spec, "--out needs a folder name");
    return -1;
}

/* The run folder: --out, else CHECKPOINT's run folder with --resume, else runs/<config name>. */
static int choose_run_dir(train_run *r)
{
    qkv_error err;
    if (r->a.out)
        snprintf(r->run_dir, sizeof r->run_dir, "%s", r->a.out);
    else if (r->a.resume && qkv_run_folder_of_checkpoint(r->a.resume, r->run_dir, sizeof r->run_dir, &err)) {
        fprintf(stderr, "qkv train: %s\n", err.msg);
        return 1;
    } else if (!r->a.resume)
        default_run_dir(r->a.cc.path, r->run_dir, sizeof r->run_dir);
    return 0;
}

/* The config, the checkpoint to resume from, what to do with the run folder and whether the
 * data files open. Nothing is written before the checkpoint, the run folder, the data and the
 * model are known to be usable: a refused or failed start leaves no folder behind. */
static int check_start(train_run *r)
{
    qkv_error err;
    const qkv_cli_config *cc = &r->a.cc;
    if (qkv_session_config(&r->s, cc->path, cc->overrides, cc->n_overrides, &err))
        return qkv_fail_report(&err);
    if (r->s.config_note[0] && r->writer)
        fprintf(stderr, "qkv: note: %s\n", r->s.config_note);
    qkv_set_threads(r->s.cfg.train.threads);
    if (qkv_gemm_set_backend(r->s.cfg.train.gemm, &err) || qkv_gemm_set_precision(r->s.cfg.train.precision, &err))
        return qkv_fail_report(&err);
    const char *resume = r->a.resume;
    if (resume && (qkv_checkpoint_check_resumable(resume, &err) || qkv_checkpoint_load_vocab(resume, &r->s, &err)))
        return qkv_fail_reportf("--resume: %s", err.msg);
    if (qkv_run_plan_make(&r->plan, r->run_dir, cc->path, resume, r->a.force, &r->s, &err))
        return qkv_fail_report(&err);
    return missing_data(&r->s, cc);
}

/* The training and dev data, then the model: drawn from train.seed, or for a resumed run
 * allocated only (its parameters all come from its checkpoint). */
static int load_data_and_model(train_run *r)
{
    qkv_error err;
    int prof = qkv_profile_begin("data loading", QKV_PROF_WHOLE);
    int failed = qkv_session_data(&r->s, true, &err);
    qkv_profile_end(prof);
    if (failed)
        return qkv_fail_report(&err);
    if (r->writer)
        qkv_report_warnings(&r->s);
    prof = qkv_profile_begin("model init", QKV_PROF_WHOLE);
    failed = r->a.resume ? qkv_session_model_to_load(&r->s, 0, &err)
                         : qkv_session_model(&r->s, (uint64_t)r->s.cfg.train.seed, &err);
    qkv_profile_end(prof);
    if (failed)
        return qkv_fail_reportf("model: %s", err.msg);
    return 0;
}

/* The data and model lines (rank 0). */
static void print_summary(const train_run *r)
{
    if (!r->writer)
        return;
    const qkv_session *s = &r->s;
    if (qkv_task_report_of(s)->train_summary) {
        qkv_task_report_of(s)->train_summary(s, r->run_dir);
        return;
    }
    /* counts without the sentences data.max_train_len leaves out */
    long train_words = (long)(qkv_dataset_n_words(&s->train) - qkv_dataset_n_left_out_words(&s->train));
    const char *sent = qkv_session_task(s)->sentence_unit, *word = qkv_session_task(s)->word_unit;
    fprintf(stderr, "train: %s, %d %s, %ld %s; dev: %s, %d %s, %d %s\n", qkv_corpus_name(&s->train_c),
            qkv_dataset_n_batchable(&s->train), sent, train_words, word,
            s->has_dev ? qkv_corpus_name(&s->dev_c) : "none", s->has_dev ? qkv_dataset_n_batchable(&s->dev) : 0,
            sent, s->has_dev ? qkv_dataset_n_words(&s->dev) : 0, word);
    fprintf(stderr, "model: %zu parameters, %d feature kinds, %d tags; run folder %s\n",
            qkv_params_count(qkv_network_params(&s->model)), qkv_featurizer_n_features(&s->fz),
            qkv_featurizer_n_tags(&s->fz), r->run_dir);
    if (qkv_featurizer_n_columns(&s->fz) > 1) {
        fprintf(stderr, "heads:");
        for (int h = 0; h < qkv_featurizer_n_columns(&s->fz); h++)
            fprintf(stderr, " %s (%d classes, loss weight %g)", QKV_TAG_FIELD_NAMES[s->fz.columns[h]],
                    qkv_featurizer_n_classes(&s->fz, h), qkv_network_head(&s->model, h)->loss_weight);
        fprintf(stderr, "\n");
    }
    char summary[256];
    qkv_session_encoder_summary(s, summary, sizeof summary);
    if (summary[0])
        fprintf(stderr, "%s\n", summary);
}

/* train.select_by: span_f1 needs span tags. */
static int check_select_by(const train_run *r)
{
    if (r->s.cfg.train.select_by == QKV_SELECT_SPAN_F1 && !qkv_tags_are_spans(&r->s.fz))
        return qkv_fail_reportf("train.select_by is span_f1 but the training tags are not all span tags (O, B-, I-, "
                                "E-, S- and a type); use accuracy or auto");
    return 0;
}

/* log.plot: RUN_DIR/plots/confusion.png of res, the scores of checkpoint ckpt (the picture's
 * title: what), and with log.tensorboard (events open) the image "plots/confusion" of the event
 * file at that checkpoint's step. A failure is a warning. */
static void draw_confusion(const train_run *r, const qkv_session *best, const qkv_eval_result *res, const char *ckpt,
                           const char *what, qkv_tfevents *events)
{
    char png[4300], id[64];
    long step;
    qkv_error err;
    snprintf(png, sizeof png, "%s/plots/confusion.png", r->run_dir);
    if (qkv_cmd_plot_confusion(best, res, what, png, &err)) {
        fprintf(stderr, "qkv: warning: no confusion plot: %s\n", err.msg);
        return;
    }
    printf("\nconfusion plot: %s\n", png);
    if (events->f && (qkv_checkpoint_run_info(ckpt, id, sizeof id, &step, &err) ||
                      qkv_tfevents_image(events, "plots/confusion", step, png, &err)))
        fprintf(stderr, "qkv: warning: no confusion image in the TensorBoard events: %s\n", err.msg);
}

/* Final report: the kept model on dev (best.h5; last.h5 when no evaluation of this run's folder
 * beat the best one, e.g. a run resumed into a new folder), its confusion picture into events
 * too. */
static int final_report(const train_run *r, qkv_tfevents *events)
{
    char path[4200];
    qkv_error err;
    snprintf(path, sizeof path, "%s/checkpoints/best.h5", r->run_dir);
    if (!r->s.cfg.checkpoint.keep_best || access(path, R_OK) != 0)
        snprintf(path, sizeof path, "%s/checkpoints/last.h5", r->run_dir);
    int prof = qkv_profile_begin("dev evaluation", QKV_PROF_WHOLE);
    qkv_session best;
    qkv_session_init(&best);
    qkv_eval_result res;
    memset(&res, 0, sizeof res);
    qkv_seg_text st = {0};
    int failed = qkv_checkpoint_load_model(path, &best, &err) ||
                 qkv_evaluate(&best, &r->s.dev, r->s.cfg.data.batch_tokens, &res, &err) ||
                 qkv_eval_add_spans(&res, &best.fz, &r->s.dev_c, &r->s.dev, &err) ||
                 qkv_eval_add_ud_tags(&res, &best, &r->s.dev_c, &err) ||
                 qkv_seg_eval_read(&r->s, r->s.cfg.data.dev, &st, &err) ||
                 qkv_eval_add_segments(&res, &best.fz, &best.seg_lexicon, &r->s.dev, &st, &err);
    qkv_seg_free(&st);
    qkv_profile_end(prof);
    if (failed) {
        if (err.sentence >= 0) /* about one sentence: its file and line */
            qkv_session_name_sentence(&r->s.dev_c, &err);
        qkv_fail_report(&err);
    } else {
        char what[4400];
        snprintf(what, sizeof what, "%s on %s", path, qkv_corpus_name(&r->s.dev_c));
        qkv_cmd_report(&best, what, &res, false, false);
        const qkv_task_report *task = qkv_task_report_of(&best);
        if (task->confusion_plot && r->s.cfg.log.plot && r->writer)
            draw_confusion(r, &best, &res, path, what, events);
        if (task->scores_after && task->scores_after(&best, &r->s, stdout, &err))
            failed = qkv_fail_report(&err);
    }
    qkv_eval_result_free(&res);
    qkv_session_free(&best);
    return failed ? 1 : 0;
}

/* The path of the loss plot, when log.plot drew one. */
static void print_plot_path(const train_run *r)
{
    char path[4200];
    snprintf(path, sizeof path, "%s/plots/loss.png", r->run_dir);
    if (access(path, R_OK) == 0)
        printf("\nloss plot: %s\n", path);
}

/* Trains, then reports: returns the exit status. */
static int train_and_report(train_run *r)
{
    qkv_tfevents events = {0}; /* log.tensorboard: open until the report's pictures are in */
    qkv_trainer_opts topts = {r->run_dir, qkv_program, r->a.resume, r->a.stop_at_step, &r->plan, &r->dist, &events};
    int status = qkv_trainer_run(&r->s, &topts);
    if (status == 0 && r->s.has_dev && r->writer)
        status = final_report(r, &events);
    if (status == 0 && r->s.cfg.log.plot && r->writer)
        print_plot_path(r);
    qkv_error err;
    if (qkv_tfevents_close(&events, &err))
        fprintf(stderr, "qkv: warning: %s\n", err.msg);
    /* stopped by --stop-at-step or with nothing left to train: 0; by a signal (last.h5 saved): 128 + it */
    return status == QKV_TRAIN_STOPPED ? 0 : status;
}

int qkv_cmd_train(int argc, char **argv)
{
    double wall_start = qkv_profile_clock();
    train_run r;
    memset(&r, 0, sizeof r);
    int usage = parse_args(&r.a, argc, argv);
    if (usage >= 0)
        return usage;
    if (r.a.profile)
        qkv_profile_start();
    /* before any thread: SIGINT, SIGTERM and SIGHUP go to a thread of their own (train/interrupt.h) */
    if (qkv_interrupts_start())
        fprintf(stderr, "qkv train: warning: cannot start the signal thread (%s); Ctrl-C may damage a run "
                        "computing on oneDNN\n", strerror(errno));
    qkv_session_init(&r.s);
    qkv_error err;
    if (qkv_dist_init(&r.dist, &err)) {
        fprintf(stderr, "qkv train: %s\n", err.msg);
        return 1;
    }
    r.writer = qkv_dist_writer(&r.dist);
    int status = 1;
    if (!choose_run_dir(&r) && !check_start(&r) && !load_data_and_model(&r)) {
        print_summary(&r);
        if (!check_select_by(&r))
            status = train_and_report(&r);
    }
    qkv_session_free(&r.s);
    if (r.a.profile && status == 0 && r.writer)
        qkv_profile_print(stderr, "qkv train", wall_start);
    if (status == 1)
        qkv_dist_abort(&r.dist, status); /* a failed rank ends the whole job */
    qkv_dist_finalize(&r.dist);
    return status;
}
