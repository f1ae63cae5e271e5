/* Small helpers shared by the subcommands: option matching and error printing. */
#ifndef QKV_CLI_H
#define QKV_CLI_H

#include <stdbool.h>

/* argv[*i] is `--name VALUE` or `--name=VALUE`: sets *value, advances *i past it and returns
 * true. A missing VALUE prints an error and sets *bad. */
bool qkv_cli_option(int argc, char **argv, int *i, const char *name, const char **value, bool *bad);
/* argv[i] is --help or -h. */
bool qkv_cli_is_help(const char *arg);
/* mkdir -p; returns 0 or -1 with errno. */
int qkv_mkdirs(const char *path);

#endif
