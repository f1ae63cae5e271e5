/* qkv config [CONFIG] [--set section.key=value]... | qkv config --doc */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "train/cli/cli.h"
#include "train/cli/commands.h"
#include "train/run_config.h"

static const char USAGE[] =
    "usage: qkv config [CONFIG] [--set section.key=value]...\n"
    "       qkv config --doc\n"
    "\n"
    "Checks CONFIG and prints it resolved: every key, defaults filled in, paths absolute\n"
    "(without CONFIG: the defaults). --doc prints the reference of every key as markdown\n"
    "(configs/README.md holds the same table).\n";

int qkv_cmd_config(int argc, char **argv)
{
    qkv_cli_config cc = {0};
    bool bad = false, doc = false;
    for (int i = 1; i < argc && !bad; i++) {
        if (qkv_cli_is_help(argv[i])) {
            fputs(USAGE, stdout);
            return 0;
        } else if (!strcmp(argv[i], "--doc")) {
            doc = true;
        } else {
            qkv_cli_config_arg(&cc, "config", argc, argv, &i, &bad);
        }
    }
    if (bad) {
        fputs(USAGE, stderr);
        return 2;
    }
    qkv_error err;
    int status = 0;
    if (doc) {
        status = qkv_config_doc(QKV_RUN_SCHEMA, QKV_RUN_SCHEMA_LEN, stdout, &err);
    } else {
        qkv_run_config cfg;
        char *text = NULL;
        /* Without CONFIG: the defaults (and overrides), shown even where they do not make a
         * complete run yet (no data.train). */
        status = (cc.path ? qkv_run_config_load(cc.path, cc.overrides, cc.n_overrides, &cfg, &err)
                          : qkv_config_load(NULL, QKV_RUN_SCHEMA, QKV_RUN_SCHEMA_LEN, &cfg, cc.overrides,
                                            cc.n_overrides, &err)) ||
                 qkv_config_dump(QKV_RUN_SCHEMA, QKV_RUN_SCHEMA_LEN, &cfg, &text, &err);
        if (!status)
            fputs(text, stdout);
        free(text);
    }
    if (status)
        fprintf(stderr, "qkv: %s\n", err.msg);
    return status ? 1 : 0;
}
