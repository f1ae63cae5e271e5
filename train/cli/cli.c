#include "train/cli/cli.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

bool qkv_cli_option(int argc, char **argv, int *i, const char *name, const char **value, bool *bad)
{
    const char *arg = argv[*i];
    size_t n = strlen(name);
    if (strncmp(arg, name, n) != 0)
        return false;
    if (arg[n] == '=') {
        *value = arg + n + 1;
        return true;
    }
    if (arg[n] != '\0')
        return false;
    if (*i + 1 >= argc) {
        fprintf(stderr, "qkv: %s needs a value\n", name);
        *bad = true;
        return true;
    }
    *value = argv[++*i];
    return true;
}

bool qkv_cli_long(const char *cmd, const char *opt, const char *value, long lo, long hi, long *out)
{
    char *end;
    errno = 0;
    long v = strtol(value, &end, 10);
    if (!*value || *end || errno || v < lo || v > hi) {
        fprintf(stderr, "qkv %s: %s takes a whole number from %ld to %ld, got '%s'\n", cmd, opt, lo, hi, value);
        return false;
    }
    *out = v;
    return true;
}

void qkv_cli_config_arg(qkv_cli_config *c, const char *cmd, int argc, char **argv, int *i, bool *bad)
{
    const char *value;
    if (qkv_cli_option(argc, argv, i, "--set", &value, bad)) {
        if (*bad)
            return;
        if (c->n_overrides == QKV_CLI_MAX_SET) {
            fprintf(stderr, "qkv %s: more than %d --set options\n", cmd, QKV_CLI_MAX_SET);
            *bad = true;
            return;
        }
        c->overrides[c->n_overrides++] = (char *)value;
    } else if (argv[*i][0] == '-' && argv[*i][1]) {
        fprintf(stderr, "qkv %s: unknown option '%s'\n", cmd, argv[*i]);
        *bad = true;
    } else if (!c->path) {
        c->path = argv[*i];
    } else {
        fprintf(stderr, "qkv %s: one CONFIG only, got '%s' and '%s'\n", cmd, c->path, argv[*i]);
        *bad = true;
    }
}

void qkv_cli_positional(const char *cmd, const char *arg, const char **slots[], int n_slots, bool *bad)
{
    if (arg[0] == '-' && arg[1]) {
        fprintf(stderr, "qkv %s: unknown option '%s'\n", cmd, arg);
        *bad = true;
        return;
    }
    for (int k = 0; k < n_slots; k++)
        if (!*slots[k]) {
            *slots[k] = arg;
            return;
        }
    fprintf(stderr, "qkv %s: unexpected argument '%s'\n", cmd, arg);
    *bad = true;
}

bool qkv_cli_is_help(const char *arg) { return !strcmp(arg, "--help") || !strcmp(arg, "-h"); }

int qkv_mkdirs(const char *path)
{
    char buf[4096];
    size_t len = strlen(path);
    if (len == 0 || len >= sizeof buf) {
        errno = ENAMETOOLONG;
        return -1;
    }
    memcpy(buf, path, len + 1);
    for (char *p = buf + 1; *p; p++) {
        if (*p != '/')
            continue;
        *p = '\0';
        if (mkdir(buf, 0777) && errno != EEXIST)
            return -1;
        *p = '/';
    }
    if (mkdir(buf, 0777) && errno != EEXIST)
        return -1;
    struct stat st;
    if (stat(buf, &st) || !S_ISDIR(st.st_mode)) {
        errno = ENOTDIR;
        return -1;
    }
    return 0;
}
