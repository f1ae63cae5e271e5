/* qkv synth [--sentences N] [--seed S]: the built-in synthetic corpus as CoNLL-U on stdout. */
#include <limits.h>
#include <stdio.h>

#include "data/synthetic.h"
#include "train/cli/cli.h"
#include "train/cli/commands.h"

static const char USAGE[] =
    "usage: qkv synth [--sentences N] [--seed S]\n"
    "\n"
    "Writes N sentences (default 1000) of qkv's synthetic tagging corpus, drawn from seed S\n"
    "(default 1), as CoNLL-U on standard output: the data of a config with\n"
    "data.source: synthetic (e.g. tests/train/synthetic.yaml).\n";

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
            bad = bad || !qkv_cli_long("synth", "--sentences", value, 1, INT_MAX, &n);
        } else if (qkv_cli_option(argc, argv, &i, "--seed", &value, &bad)) {
            bad = bad || !qkv_cli_long("synth", "--seed", value, 0, LONG_MAX, &seed);
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
