/* qkv config [CONFIG] [--set section.key=value]... | qkv config --doc */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "train/fail.h"
#include "train/cli/cli.h"
#include "train/cli/commands.h"
#include "api/run_config.h"

static const char ABOUT[] =
    "Checks CONFIG and prints it resolved: every key, defaults filled in, paths absolute\n"
    "(without CONFIG: the defaults). A path key (data.train, data.dev, ...) naming a file\n"
    "that cannot be read is an error (exit 1, after the config is printed).\n";

/* Every PATH key of cfg (data.train, data.dev, ...) that names a file which cannot be read:
 * one line each on stderr ("CONFIG: data.dev: PATH: cannot open: ..."); the count. */
static int missing_paths(const qkv_run_config *cfg, const char *config)
{
    int n = 0;
    for (int k = 0; k < QKV_RUN_SCHEMA_LEN; k++) {
        const qkv_cfg_key *key = &QKV_RUN_SCHEMA[k];
        const char *value = (const char *)cfg + key->offset;
        if (key->type != QKV_CFG_PATH || !value[0] || access(value, R_OK) == 0)
            continue;
        fprintf(stderr, "qkv config: %s: %s.%s: %s: cannot open: %s\n", config, key->section, key->name, value,
                strerror(errno));
        n++;
    }
    return n;
}

int qkv_cmd_config(int argc, char **argv)
{
    qkv_cli_config cc = {0};
    bool doc = false;
    const qkv_cli_opt rows[] = {
        QKV_CLI_CONFIG_ROWS(&cc, false),
        {"--doc", QKV_CLI_FLAG, &doc, NULL,
         "print the reference of every key as markdown instead\n(configs/README.md holds the same table)"},
    };
    const qkv_cli_spec spec = {"config", ABOUT, NULL, rows, QKV_CLI_N(rows)};
    int usage = qkv_cli_parse(&spec, argc, argv);
    if (usage >= 0)
        return usage;
    qkv_error err;
    int status = 0;
    if (doc) {
        status = qkv_config_doc(QKV_RUN_SCHEMA, QKV_RUN_SCHEMA_LEN, stdout, &err);
        if (!status)
            fputs("\nRelations between keys, checked after loading (api/config_schema.c):\n\n", stdout);
        status = status || qkv_config_doc_rules(QKV_RUN_RULES, QKV_RUN_RULES_LEN, stdout, &err);
    } else {
        qkv_run_config cfg;
        char *text = NULL, note[1024] = "";
        /* Without CONFIG: the defaults (and overrides), shown even where they do not make a
         * complete run yet (no data.train). */
        status = (cc.path ? qkv_run_config_load_noted(cc.path, cc.overrides, cc.n_overrides, &cfg, note, sizeof note,
                                                      &err)
                          : qkv_config_load(NULL, QKV_RUN_SCHEMA, QKV_RUN_SCHEMA_LEN, &cfg, cc.overrides,
                                            cc.n_overrides, &err)) ||
                 qkv_config_dump(QKV_RUN_SCHEMA, QKV_RUN_SCHEMA_LEN, &cfg, &text, &err);
        if (!status && note[0])
            fprintf(stderr, "qkv: note: %s\n", note);
        if (!status)
            fputs(text, stdout);
        free(text);
        if (!status && cc.path && missing_paths(&cfg, cc.path))
            return 1;
    }
    if (status)
        qkv_fail_report(&err);
    return status ? 1 : 0;
}
