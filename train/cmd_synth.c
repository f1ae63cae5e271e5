/* qkv synth [--sentences N] [--seed S]: the built-in synthetic corpus as CoNLL-U on stdout. */
#include <stdio.h>
#include <stdlib.h>

#include "data/synthetic.h"
#include "train/cli.h"
#include "train/commands.h"

static const char USAGE[] =
    "usage: qkv synth [--sentences N] [--seed S]\n"
    "\n"
    "Writes N sentences (default 1000) of qkv's synthetic tagging corpus, drawn from seed S\n"
    "(default 1), as CoNLL-U on standard output: the data of configs/quickstart.yaml.\n";

static bool parse_long(const char *value, long lo, long *out)
{
    char *end;
    *out = strtol(value, &end, 10);
    return *value && !*end && *out >= lo;
}

int qkv_cmd_synth(int argc, char **argv)
{
    long n = 1000, seed = 1;
    bool bad = false;
    for (int i = 1; i < argc && !bad; i++) {
        const char *value;
        if (qkv_cli_is_help(argv[i])) {
            fputs(USAGE, stdout);
            return 0;
        } else if (qkv_cli_option(argc, argv, &i, "--sentences", &value, &bad)) {
            if (!bad && !parse_long(value, 1, &n)) {
                fprintf(stderr, "qkv synth: --sentences takes a number >= 1, got '%s'\n", value);
                bad = true;
            }
        } else if (qkv_cli_option(argc, argv, &i, "--seed", &value, &bad)) {
            if (!bad && !parse_long(value, 0, &seed)) {
                fprintf(stderr, "qkv synth: --seed takes a number >= 0, got '%s'\n", value);
                bad = true;
            }
        } else {
            fprintf(stderr, "qkv synth: unexpected argument '%s'\n", argv[i]);
            bad = true;
        }
    }
    if (bad) {
        fputs(USAGE, stderr);
        return 2;
    }
    qkv_error err;
    if (qkv_synth_write(stdout, (int)n, (uint64_t)seed, &err) || fflush(stdout)) {
        fprintf(stderr, "qkv: %s\n", err.msg);
        return 1;
    }
    return 0;
}
