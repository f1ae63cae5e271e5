#include "train/run_folder.h"

#include <dirent.h>
#include <errno.h>
#include <libgen.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "api/run_config.h"
#include "train/cli/output_file.h"
#include "train/files.h"
#include "train/tfevents.h"

/* The files a run writes, relative to its folder (what --force removes, with its event files). */
static const char *const RUN_FILES[] = {"config.yaml",         "metrics.tsv",        "checkpoints/last.h5",
                                        "checkpoints/best.h5", "plots/loss.png",     "plots/loss.gp",
                                        "plots/attention.png", "plots/attention.gp", "plots/confusion.png",
                                        "plots/confusion.gp"};
enum { F_CONFIG, F_METRICS, F_LAST, F_BEST, N_RUN_FILES = (int)(sizeof RUN_FILES / sizeof RUN_FILES[0]) };

/* config.yaml's first line: ID_LINE, the ID, then words for the reader. */
static const char ID_LINE[] = "# qkv run ";

/* What a folder holds. */
typedef struct folder {
    bool has[N_RUN_FILES], any;
    char id[QKV_RUN_ID_LEN + 1]; /* its run's ID; "" unknown */
    long last_step, best_step;   /* of checkpoints/last.h5 and best.h5; -1: none or unreadable */
} folder;

static void run_file(const char *dir, int k, char *out, size_t len) { snprintf(out, len, "%s/%s", dir, RUN_FILES[k]); }

static bool is_hex(char c) { return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'); }

static bool is_id(const char *s, size_t n)
{
    if (n != QKV_RUN_ID_LEN)
        return false;
    for (size_t i = 0; i < n; i++)
        if (!is_hex(s[i]))
            return false;
    return true;
}

/* The ID on the first line of config.yaml at path into id ("" when there is none), and that
 * line, with its newline, into line (len bytes; "" when there is no ID or it is too long). */
static void config_id(const char *path, char *id, char *line, size_t len)
{
    char buf[512] = "";
    FILE *f = fopen(path, "r");
    if (f) {
        if (!fgets(buf, sizeof buf, f))
            buf[0] = '\0';
        fclose(f);
    }
    const char *p = buf + sizeof ID_LINE - 1;
    bool ok = !strncmp(buf, ID_LINE, sizeof ID_LINE - 1) && strlen(p) > QKV_RUN_ID_LEN &&
              is_id(p, QKV_RUN_ID_LEN) && !is_hex(p[QKV_RUN_ID_LEN]);
    memcpy(id, p, ok ? QKV_RUN_ID_LEN : 0);
    id[ok ? QKV_RUN_ID_LEN : 0] = '\0';
    if (line)
        snprintf(line, len, "%s", ok && strchr(buf, '\n') && strlen(buf) < len ? buf : "");
}

static int scan_folder(const char *dir, folder *fo, qkv_error *err)
{
    memset(fo, 0, sizeof *fo);
    fo->last_step = fo->best_step = -1;
    struct stat st;
    if (stat(dir, &st) != 0)
        return errno == ENOENT ? QKV_OK
                               : qkv_fail(err, "%s: cannot look into the run folder: %s", dir, strerror(errno));
    if (!S_ISDIR(st.st_mode))
        return qkv_fail(err, "%s is not a folder: give --out a folder for the run", dir);
    char path[4200];
    for (int k = 0; k < N_RUN_FILES; k++) {
        run_file(dir, k, path, sizeof path);
        fo->has[k] = access(path, F_OK) == 0;
        fo->any = fo->any || fo->has[k];
    }
    if (fo->has[F_CONFIG]) {
        run_file(dir, F_CONFIG, path, sizeof path);
        config_id(path, fo->id, NULL, 0);
    }
    /* A checkpoint that cannot be read tells nothing: its step stays -1. */
    for (int k = F_LAST; k <= F_BEST; k++) {
        char id[64];
        long step;
        qkv_error ignored;
        run_file(dir, k, path, sizeof path);
        if (!fo->has[k] || qkv_checkpoint_run_info(path, id, sizeof id, &step, &ignored))
            continue;
        *(k == F_LAST ? &fo->last_step : &fo->best_step) = step;
        if (!fo->id[0] && is_id(id, strlen(id)))
            memcpy(fo->id, id, sizeof fo->id);
    }
    return QKV_OK;
}

/* "config.yaml, metrics.tsv, ..." of the run files present. */
static void list_files(const folder *fo, char *out, size_t len)
{
    size_t n = 0;
    out[0] = '\0';
    for (int k = 0; k < N_RUN_FILES && n < len; k++)
        if (fo->has[k])
            n += (size_t)snprintf(out + n, len - n, "%s%s", n ? ", " : "", RUN_FILES[k]);
}

static void new_id(char *id)
{
    uint64_t v;
    if (getrandom(&v, sizeof v, 0) != (ssize_t)sizeof v) {
        struct timespec ts;
        clock_gettime(CLOCK_REALTIME, &ts);
        v = ((uint64_t)ts.tv_sec << 30) ^ (uint64_t)ts.tv_nsec ^ ((uint64_t)getpid() << 44);
    }
    snprintf(id, QKV_RUN_ID_LEN + 1, "%016llx", (unsigned long long)v);
}

/* Keys that change how a run is executed or reported, not what it computes: copied from one
 * config to the other before comparing. */
static void same_execution(qkv_run_config *to, const qkv_run_config *from)
{
    to->train.threads = from->train.threads;
    to->train.gemm = from->train.gemm;
    to->log = from->log;
    to->checkpoint.every_steps = from->checkpoint.every_steps;
}

/* The keys in which the config at path differs from cfg, as "train.seed: 1 in the run, 2
 * given, ..." into out ("" when none). Errors: the file cannot be loaded as a config. */
static int config_differences(const char *path, const qkv_run_config *cfg, char *out, size_t len, qkv_error *err)
{
    qkv_run_config old, now = *cfg;
    out[0] = '\0';
    if (qkv_run_config_load(path, NULL, 0, &old, err))
        return QKV_ERR;
    same_execution(&now, &old);
    char *a = NULL, *b = NULL;
    if (qkv_config_dump(QKV_RUN_SCHEMA, QKV_RUN_SCHEMA_LEN, &old, &a, err) ||
        qkv_config_dump(QKV_RUN_SCHEMA, QKV_RUN_SCHEMA_LEN, &now, &b, err)) {
        free(a);
        return QKV_ERR;
    }
    /* Both dumps list every key of the schema in the same order: "section:" lines, then
     * "  key: value" lines. */
    char section[64] = "";
    size_t used = 0;
    int n_diff = 0;
    for (const char *pa = a, *pb = b; *pa && *pb;) {
        size_t la = strcspn(pa, "\n"), lb = strcspn(pb, "\n");
        if (pa[0] != ' ') {
            snprintf(section, sizeof section, "%.*s", (int)(la && pa[la - 1] == ':' ? la - 1 : la), pa);
        } else if (la != lb || memcmp(pa, pb, la)) {
            size_t key = strcspn(pa, ":"), kb = strcspn(pb, ":");
            const char *va = pa + key + 2, *vb = pb + kb + 2;
            if (n_diff < 4 && used < len)
                used += (size_t)snprintf(out + used, len - used, "%s%s.%.*s: %.*s in the run, %.*s given",
                                         n_diff ? ", " : "", section, (int)(key - 2), pa + 2,
                                         (int)(pa + la - va), va, (int)(pb + lb - vb), vb);
            n_diff++;
        }
        pa += la + (pa[la] == '\n');
        pb += lb + (pb[lb] == '\n');
    }
    if (n_diff > 4 && used < len)
        snprintf(out + used, len - used, " and %d more", n_diff - 4);
    free(a);
    free(b);
    return QKV_OK;
}

/* The folder part of path into out ("." when it has none). */
static void folder_of(const char *path, char *out, size_t len)
{
    char copy[4096];
    snprintf(copy, sizeof copy, "%s", path);
    snprintf(out, len, "%s", dirname(copy));
}

static bool named_checkpoints(const char *dir)
{
    char copy[4096];
    snprintf(copy, sizeof copy, "%s", dir);
    return !strcmp(basename(copy), "checkpoints");
}

int qkv_run_folder_of_checkpoint(const char *ckpt, char *dir, size_t len, qkv_error *err)
{
    char parent[4096], real[PATH_MAX];
    if (access(ckpt, R_OK) != 0)
        return qkv_fail(err, "--resume %s: %s", ckpt, strerror(errno));
    folder_of(ckpt, parent, sizeof parent); /* e.g. runs/B/checkpoints */
    if (named_checkpoints(parent)) {
        folder_of(parent, dir, len);
        return QKV_OK;
    }
    if (realpath(parent, real) && named_checkpoints(real)) { /* e.g. ./last.h5 inside checkpoints/ */
        folder_of(real, dir, len);
        return QKV_OK;
    }
    return qkv_fail(err, "--resume %s: the checkpoint is not in a run folder's checkpoints/, so the run folder to "
                         "continue in is unknown: name it with --out RUN_DIR",
                    ckpt);
}

/* --resume: the checkpoint's step (p->resume_step) and run (p->parent). */
static int read_resume_info(qkv_run_plan *p, const char *resume, qkv_error *err)
{
    char ckpt_id[64] = "";
    if (qkv_checkpoint_run_info(resume, ckpt_id, sizeof ckpt_id, &p->resume_step, err))
        return qkv_fail_prefix(err, "--resume");
    if (p->resume_step < 0)
        return qkv_fail(err, "--resume %s: the checkpoint has no training state (/train/step): it was saved "
                             "for inference and cannot be resumed",
                        resume);
    if (is_id(ckpt_id, strlen(ckpt_id)))
        memcpy(p->parent, ckpt_id, sizeof p->parent);
    return QKV_OK;
}

/* A new run into a folder that holds one (files): replaced with --force, else an error. */
static int plan_over_run(qkv_run_plan *p, const char *dir, const char *files, bool force, qkv_error *err)
{
    p->action = QKV_RUN_REPLACE;
    if (force)
        return QKV_OK;
    char last[4200];
    snprintf(last, sizeof last, "%s/checkpoints/last.h5", dir);
    if (access(last, R_OK) != 0) /* stopped before its first checkpoint: nothing to continue */
        return qkv_fail(err, "%s already holds a run (%s) with no checkpoint to continue: choose another --out, "
                             "or replace it with --force",
                        dir, files);
    return qkv_fail(err, "%s already holds a run (%s): choose another --out, continue it with --resume %s, or "
                         "replace it with --force",
                    dir, files, last);
}

/* A resume into a folder that holds another run than the checkpoint's: replaced with --force. */
static int plan_over_other_run(qkv_run_plan *p, const folder *fo, const char *files, bool force, qkv_error *err)
{
    p->action = QKV_RUN_REPLACE;
    if (force)
        return QKV_OK;
    char what[128];
    if (fo->id[0])
        snprintf(what, sizeof what, "another run: run %s", fo->id);
    else
        snprintf(what, sizeof what, "the files of a run without a qkv run ID");
    return qkv_fail(err, "%s holds %s (%s), and %s is of %s%s: resuming there would mix two runs. Continue "
                         "the checkpoint's own run in its folder (the default for RUN/checkpoints/*.h5), "
                         "branch into a new folder with --out NEW_DIR, or replace what %s holds with --force",
                    p->dir, what, files, p->resume, p->parent[0] ? "run " : "a run without an ID", p->parent, p->dir);
}

/* A resume into the checkpoint's own run: continued when its config is the one given and it
 * goes no further than the checkpoint, else replaced or rewound with --force. */
static int plan_own_run(qkv_run_plan *p, const folder *fo, const qkv_session *s, bool force, qkv_error *err)
{
    const char *dir = p->dir, *resume = p->resume;
    char diff[1024] = "", path[4200];
    run_file(dir, F_CONFIG, path, sizeof path);
    if (fo->has[F_CONFIG] && config_differences(path, &s->cfg, diff, sizeof diff, err))
        return qkv_fail_prefix(err, "comparing the config given with the run's");
    if (diff[0]) {
        p->action = QKV_RUN_REPLACE;
        if (force)
            return QKV_OK;
        return qkv_fail(err, "%s differs from the config given (%s): resuming there would continue run %s "
                             "with another config. Resume with the run's own config (qkv train %s --resume %s), "
                             "branch into a new folder with --out NEW_DIR, or start over in %s with --force",
                        path, diff, fo->id, path, resume, dir);
    }
    snprintf(p->id, sizeof p->id, "%s", fo->id);
    p->parent[0] = '\0';
    p->action = QKV_RUN_CONTINUE;
    if (fo->last_step <= p->resume_step)
        return QKV_OK;
    p->action = QKV_RUN_REWIND;
    if (force)
        return QKV_OK;
    return qkv_fail(err, "%s holds run %s up to step %ld (checkpoints/last.h5), and %s is its step %ld: resuming "
                         "there would drop the run's history after step %ld. Branch into a new folder with --out "
                         "NEW_DIR, or drop that history with --force (the metrics rows after step %ld and a "
                         "best.h5 saved after it are removed)",
                    dir, fo->id, fo->last_step, resume, p->resume_step, p->resume_step, p->resume_step);
}

static bool same_file(const char *a, const char *b)
{
    struct stat sa, sb;
    return a && b && stat(a, &sa) == 0 && stat(b, &sb) == 0 && sa.st_dev == sb.st_dev && sa.st_ino == sb.st_ino;
}

/* The run's config.yaml is never the config file the run was given (p->config, under any name)
 * unless the run continues there and that file is its own record (its first line names the
 * run): a new run, or --force, would replace it with the resolved config and lose the user's
 * file. Errors: the refusal, naming the file. */
static int check_config_input(const qkv_run_plan *p, qkv_error *err)
{
    char path[4200], id[QKV_RUN_ID_LEN + 1];
    run_file(p->dir, F_CONFIG, path, sizeof path);
    if (!same_file(path, p->config))
        return QKV_OK;
    char named[4300] = "";
    if (strcmp(path, p->config) != 0)
        snprintf(named, sizeof named, " (%s)", p->config);
    if (p->action == QKV_RUN_CONTINUE || p->action == QKV_RUN_REWIND) {
        config_id(path, id, NULL, 0);
        if (!strcmp(id, p->id))
            return QKV_OK;
        return qkv_fail(err, "%s is the input config%s, and its first line does not name run %s: continuing the run "
                             "there would replace it with the run's resolved config; give another --out",
                        path, named, p->id);
    }
    return qkv_fail(err, "%s is the input config%s: writing the run's config would replace it; give another --out",
                    path, named);
}

/* What qkv_run_plan_make decides, before the input config is checked. */
static int plan_make(qkv_run_plan *p, const char *dir, const char *resume, bool force, const qkv_session *s,
                     qkv_error *err)
{
    memset(p, 0, sizeof *p);
    snprintf(p->dir, sizeof p->dir, "%s", dir);
    p->resume = resume;
    p->resume_step = -1;
    folder fo;
    if (scan_folder(dir, &fo, err))
        return QKV_ERR;
    if (resume && read_resume_info(p, resume, err))
        return QKV_ERR;
    p->action = QKV_RUN_NEW;
    new_id(p->id);
    if (!fo.any)
        return QKV_OK;
    char files[256];
    list_files(&fo, files, sizeof files);
    if (!resume)
        return plan_over_run(p, dir, files, force, err);
    if (!fo.id[0] || strcmp(fo.id, p->parent) != 0)
        return plan_over_other_run(p, &fo, files, force, err);
    return plan_own_run(p, &fo, s, force, err);
}

int qkv_run_plan_make(qkv_run_plan *p, const char *dir, const char *config, const char *resume, bool force,
                      const qkv_session *s, qkv_error *err)
{
    int status = plan_make(p, dir, resume, force, s, err);
    p->config = config;
    /* before a refusal that would suggest --force */
    if (check_config_input(p, err))
        return QKV_ERR;
    return status;
}

static int remove_file(const char *path, qkv_error *err)
{
    if (unlink(path) && errno != ENOENT)
        return qkv_fail(err, "%s: cannot remove: %s", path, strerror(errno));
    return QKV_OK;
}

/* The TensorBoard event files in dir (QKV_TFEVENTS_PREFIX...): removed, their number into *n.
 * Errors: dir cannot be listed, or a file cannot be removed. */
static int remove_event_files(const char *dir, int *n, qkv_error *err)
{
    DIR *d = opendir(dir);
    if (!d)
        return qkv_fail(err, "%s: cannot list the run folder: %s", dir, strerror(errno));
    char path[4600];
    int status = QKV_OK;
    *n = 0;
    for (struct dirent *e; status == QKV_OK && (e = readdir(d));) {
        if (strncmp(e->d_name, QKV_TFEVENTS_PREFIX, sizeof QKV_TFEVENTS_PREFIX - 1) != 0)
            continue;
        snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
        status = remove_file(path, err);
        *n += status == QKV_OK;
    }
    closedir(d);
    return status;
}

/* --force: the run files of what the folder held (never the checkpoint resumed from), and its
 * event files, which TensorBoard would show as one run with the new run's. */
static int remove_run_files(const qkv_run_plan *p, qkv_error *err)
{
    char path[4200], removed[512] = "";
    size_t n = 0;
    for (int k = 0; k < N_RUN_FILES; k++) {
        run_file(p->dir, k, path, sizeof path);
        if (access(path, F_OK) != 0 || same_file(path, p->resume))
            continue;
        if (remove_file(path, err))
            return QKV_ERR;
        if (n < sizeof removed)
            n += (size_t)snprintf(removed + n, sizeof removed - n, "%s%s", n ? ", " : "", RUN_FILES[k]);
    }
    int events = 0;
    if (remove_event_files(p->dir, &events, err))
        return QKV_ERR;
    if (events && n < sizeof removed)
        n += (size_t)snprintf(removed + n, sizeof removed - n, "%s%d event file%s", n ? ", " : "", events,
                              events > 1 ? "s" : "");
    if (n)
        fprintf(stderr, "--force: removed the run files of %s (%s)\n", p->dir, removed);
    return QKV_OK;
}

/* --force on an earlier checkpoint of the folder's run: a best.h5 saved after it goes (the
 * metrics rows after it are dropped when metrics.tsv is opened). */
static int remove_later_history(const qkv_run_plan *p, qkv_error *err)
{
    char path[4200], id[64];
    long step;
    qkv_error ignored;
    run_file(p->dir, F_BEST, path, sizeof path);
    if (access(path, F_OK) == 0 && !same_file(path, p->resume) &&
        qkv_checkpoint_run_info(path, id, sizeof id, &step, &ignored) == QKV_OK && step > p->resume_step) {
        if (remove_file(path, err))
            return QKV_ERR;
        fprintf(stderr, "--force: removed %s (step %ld)\n", path, step);
    }
    fprintf(stderr, "--force: the history of run %s after step %ld is dropped\n", p->id, p->resume_step);
    return QKV_OK;
}

/* No run file is one of the run's data files (every PATH key of its config: data.train, data.dev,
 * ...) under any name, a symbolic or a hard link: the one rule of train/cli/output_file.h, which
 * --force does not lift. */
static int check_inputs(const qkv_run_plan *p, const qkv_session *s, qkv_error *err)
{
    const char *inputs[QKV_RUN_SCHEMA_LEN];
    int n = 0;
    for (int k = 0; k < QKV_RUN_SCHEMA_LEN; k++)
        if (QKV_RUN_SCHEMA[k].type == QKV_CFG_PATH) {
            const char *value = (const char *)&s->cfg + QKV_RUN_SCHEMA[k].offset;
            if (value[0])
                inputs[n++] = value;
        }
    char path[4200];
    for (int k = 0; k < N_RUN_FILES; k++) {
        run_file(p->dir, k, path, sizeof path);
        if (qkv_output_check(NULL, path, inputs, n, true, true, err))
            return qkv_fail_prefix(err, "run folder %s", p->dir);
    }
    return QKV_OK;
}

int qkv_run_folder_prepare(const qkv_run_plan *p, const qkv_session *s, qkv_error *err)
{
    char path[4200];
    if (check_inputs(p, s, err) || check_config_input(p, err))
        return QKV_ERR;
    snprintf(path, sizeof path, "%s/checkpoints", p->dir);
    if (qkv_mkdirs(path))
        return qkv_fail(err, "%s: cannot create the run folder: %s", path, strerror(errno));
    if ((p->action == QKV_RUN_REPLACE && remove_run_files(p, err)) ||
        (p->action == QKV_RUN_REWIND && remove_later_history(p, err)))
        return QKV_ERR;
    /* The ID line: kept as it was for a run that continues (it may say where the run began). */
    char line[512] = "", id[QKV_RUN_ID_LEN + 1];
    run_file(p->dir, F_CONFIG, path, sizeof path);
    if (p->action == QKV_RUN_CONTINUE || p->action == QKV_RUN_REWIND) {
        config_id(path, id, line, sizeof line);
        if (strcmp(id, p->id) != 0)
            line[0] = '\0';
    }
    if (!line[0] && p->resume)
        snprintf(line, sizeof line, "%s%s, started from step %ld of run %s (%.300s)\n", ID_LINE, p->id,
                 p->resume_step, p->parent[0] ? p->parent : "without an ID", p->resume);
    else if (!line[0])
        snprintf(line, sizeof line, "%s%s: the resolved config of this run (the line names the run)\n", ID_LINE,
                 p->id);
    FILE *f = fopen(path, "w");
    bool ok = f && fputs(line, f) != EOF && fputs(s->config_text, f) != EOF;
    int e = errno;
    if (f && fclose(f) && ok) {
        ok = false;
        e = errno;
    }
    if (!ok)
        return qkv_fail(err, "%s: cannot write: %s", path, strerror(e));
    return QKV_OK;
}
