/* A small config schema and a scratch directory for the config tests (header only). The tests
 * run inside a fresh mkdtemp directory so that messages read "config.yaml:LINE:COL: ...". */
#ifndef QKV_TEST_CONFIG_FIXTURE_H
#define QKV_TEST_CONFIG_FIXTURE_H

#include "testutil.h"

#include <limits.h>
#include <stdbool.h>
#include <sys/stat.h>
#include <unistd.h>

#include "lib/io/config.h"

typedef struct {
    int d_model, n_heads;
    double dropout;
    char dir[QKV_CFG_STR_MAX];
    bool shuffle;
    int max_len;
    int steps;
    double lr;
    int schedule;
    double beta;
    int offset;
    char name[QKV_CFG_STR_MAX];
} test_cfg;

static const char *const schedules[] = {"constant", "linear", "cosine", NULL};

#define KEY(sec, nm, ty, field, lo, hi, ch, dflt, doc) \
    {sec, nm, ty, offsetof(test_cfg, field), lo, hi, ch, dflt, doc, sizeof(((test_cfg *)0)->field), NULL, 0}

static const qkv_cfg_key schema[] = {
    KEY("model", "d_model", QKV_CFG_INT, d_model, 1, 65536, NULL, "64", "width of the model"),
    KEY("model", "n_heads", QKV_CFG_INT, n_heads, 1, 64, NULL, "4", "attention heads"),
    KEY("model", "dropout", QKV_CFG_REAL, dropout, 0, 1, NULL, "0.1", "dropout probability"),
    KEY("data", "dir", QKV_CFG_PATH, dir, 0, 0, NULL, "data", "corpus folder | relative to the config"),
    KEY("data", "shuffle", QKV_CFG_BOOL, shuffle, 0, 0, NULL, "true", "shuffle each epoch"),
    KEY("data", "max_len", QKV_CFG_INT, max_len, 1, INT_MAX, NULL, "128", "longest sentence"),
    KEY("train", "steps", QKV_CFG_INT, steps, 1, INT_MAX, NULL, "1000", "optimizer steps"),
    KEY("optim", "lr", QKV_CFG_REAL, lr, 0, INFINITY, NULL, "1e-3", "peak learning rate"),
    KEY("optim", "schedule", QKV_CFG_ENUM, schedule, 0, 0, schedules, "linear", "decay after warmup"),
    KEY("optim", "beta", QKV_CFG_REAL, beta, -INFINITY, INFINITY, NULL, "0.9", "any finite number"),
    KEY("log", "offset", QKV_CFG_INT, offset, INT_MIN, 10, NULL, "-5", "at most 10"),
    KEY("log", "name", QKV_CFG_STRING, name, 0, 0, NULL, "run", "run name"),
};
#define N_KEYS ((int)(sizeof schema / sizeof schema[0]))

static char fx_dir[PATH_MAX];     /* the scratch directory, canonical */
static char fx_old_cwd[PATH_MAX];
static char fx_files[64][PATH_MAX];
static int fx_n_files;

/* Writes text to path (relative to the scratch directory) and remembers it for cleanup. */
static inline void fx_write(const char *path, const char *text)
{
    FILE *f = fopen(path, "wb");
    if (!f)
        fail_msg("cannot write %s", path);
    fwrite(text, 1, strlen(text), f);
    fclose(f);
    for (int i = 0; i < fx_n_files; i++)
        if (!strcmp(fx_files[i], path))
            return;
    assert_true(fx_n_files < 64);
    snprintf(fx_files[fx_n_files++], PATH_MAX, "%s", path);
}

static inline int fx_setup(void **state)
{
    (void)state;
    char tmpl[] = "/tmp/qkv_config_test_XXXXXX";
    if (!getcwd(fx_old_cwd, sizeof fx_old_cwd) || !mkdtemp(tmpl) || !realpath(tmpl, fx_dir) || chdir(fx_dir))
        return -1;
    if (mkdir("sub", 0700) || mkdir("sub/deeper", 0700))
        return -1;
    return 0;
}

static inline int fx_teardown(void **state)
{
    (void)state;
    for (int i = fx_n_files - 1; i >= 0; i--)
        unlink(fx_files[i]);
    rmdir("sub/deeper");
    rmdir("sub");
    if (chdir(fx_old_cwd))
        return -1;
    return rmdir(fx_dir);
}

/* Loads text as config.yaml (in the scratch directory) with the overrides; returns the status. */
static inline int fx_load_text(const char *text, test_cfg *cfg, char *const *overrides, int n_overrides, qkv_error *err)
{
    memset(cfg, 0, sizeof *cfg);
    fx_write("config.yaml", text);
    return qkv_config_load("config.yaml", schema, N_KEYS, cfg, overrides, n_overrides, err);
}

/* Asserts that loading text (with the overrides) fails with exactly the message expected. */
static inline void fx_expect_error(const char *text, char *const *overrides, int n_overrides, const char *expected)
{
    test_cfg cfg;
    qkv_error err = {0};
    int status = fx_load_text(text, &cfg, overrides, n_overrides, &err);
    if (status != QKV_ERR)
        fail_msg("loading\n%s\nsucceeded; expected the error\n%s", text, expected);
    if (strcmp(err.msg, expected))
        fail_msg("loading\n%s\ngave the error\n  %s\nexpected\n  %s", text, err.msg, expected);
}

static inline void fx_load_ok(const char *text, test_cfg *cfg, char *const *overrides, int n_overrides)
{
    qkv_error err = {0};
    if (fx_load_text(text, cfg, overrides, n_overrides, &err))
        fail_msg("loading\n%s\nfailed: %s", text, err.msg);
}

#endif
