/* Small helpers shared by the subcommands: option matching and error printing. */
#ifndef QKV_CLI_H
#define QKV_CLI_H

#include <stdbool.h>

/* argv[*i] is `--name VALUE` or `--name=VALUE`: sets *value, advances *i past it and returns
 * true. A missing VALUE prints an error and sets *bad. */
bool qkv_cli_option(int argc, char **argv, int *i, const char *name, const char **value, bool *bad);
/* Takes an argument that no option of the command took: an unknown option (starts with '-',
 * not "-" alone) or one positional argument too many is an error (printed, *bad set);
 * otherwise arg fills the first NULL of slots[0 .. n_slots-1] (e.g. CHECKPOINT, then FILE). */
void qkv_cli_positional(const char *cmd, const char *arg, const char **slots[], int n_slots, bool *bad);
/* argv[i] is --help or -h. */
bool qkv_cli_is_help(const char *arg);
/* value is a whole number in [lo, hi]: sets *out and returns true; else prints
 * "qkv CMD: OPT takes a whole number from LO to HI, got 'VALUE'" and returns false. */
bool qkv_cli_long(const char *cmd, const char *opt, const char *value, long lo, long hi, long *out);

#define QKV_CLI_MAX_SET 256

/* The config part of a command line: CONFIG and its --set section.key=value overrides. */
typedef struct qkv_cli_config {
    const char *path;
    char *overrides[QKV_CLI_MAX_SET];
    int n_overrides;
} qkv_cli_config;

/* Takes argv[*i] when it is --set (advancing *i past its value) or the CONFIG argument; any
 * other option, or a second CONFIG, is an error (printed, *bad set). Call it for every argument
 * the command's own options do not take. */
void qkv_cli_config_arg(qkv_cli_config *c, const char *cmd, int argc, char **argv, int *i, bool *bad);

/* mkdir -p; returns 0 or -1 with errno. */
int qkv_mkdirs(const char *path);

#endif
