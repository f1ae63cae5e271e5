/* qkv synth [--sentences N] [--seed S]: the built-in synthetic corpus as CoNLL-U on stdout. */
#include <limits.h>
#include <stdio.h>

#include "data/synthetic.h"
#include "train/cli/cli.h"
#include "train/cli/commands.h"

static const char ABOUT[] =
    "Writes N sentences of qkv's synthetic tagging corpus, drawn from seed S, as CoNLL-U on\n"
    "standard output: the data of a config with data.source: synthetic (e.g.\n"
    "tests/train/synthetic.yaml).\n";

int qkv_cmd_synth(int argc, char **argv)
{
    long n = 1000, seed = 1;
    const qkv_cli_opt rows[] = {
        {"--sentences", QKV_CLI_INT, &n, "N", "sentences to write (default 1000)", .lo = 1, .hi = INT_MAX},
        {"--seed", QKV_CLI_INT, &seed, "S", "seed of the corpus (default 1)", .lo = 0, .hi = LONG_MAX},
    };
    const qkv_cli_spec spec = {"synth", ABOUT, NULL, rows, QKV_CLI_N(rows)};
    int usage = qkv_cli_parse(&spec, argc, argv);
    if (usage >= 0)
        return usage;
    qkv_error err;
    if (qkv_synth_write(stdout, (int)n, (uint64_t)seed, &err) || fflush(stdout)) {
        fprintf(stderr, "qkv: %s\n", err.msg);
        return 1;
    }
    return 0;
}
