/* qkv synth [--sentences N] [--seed S] [--task grammar|ends|reach] [--min-len N] [--max-len N]
 * [--min-distance D] [--max-distance D]: a synthetic corpus as CoNLL-U on stdout. */
#include <limits.h>
#include <stdio.h>

#include "data/synth_tasks.h"
#include "data/synthetic.h"
#include "train/fail.h"
#include "train/cli/cli.h"
#include "train/cli/commands.h"

static const char ABOUT[] =
    "Writes N sentences of a synthetic tagging corpus, drawn from seed S, as CoNLL-U on\n"
    "standard output. --task grammar (the default) is qkv's English-like grammar, the data of a\n"
    "config with data.source: synthetic (e.g. tests/train/synthetic.yaml). The probe tasks\n"
    "(data/synth_tasks.h) use filler words w00..w49 that tell nothing of their tag:\n"
    "  ends   a word's tag is its position from the start (S1..S4) or from the end (E1..E4),\n"
    "         M between: length extrapolation of positional encodings (default 8..20 words)\n"
    "  reach  one key K1..K4 and one probe q at distance d on either side; the probe's tag is\n"
    "         the key's class A..D, other words are untagged (_); \"# distance = d\" per\n"
    "         sentence, distances cycling min..max (default 1..32, 40..48 words)\n";

int qkv_cmd_synth(int argc, char **argv)
{
    long n = 1000, seed = 1, min_len = 0, max_len = 0, min_dist = 0, max_dist = 0;
    int task = QKV_SYNTH_GRAMMAR;
    const qkv_cli_opt rows[] = {
        {"--sentences", QKV_CLI_INT, &n, "N", "sentences to write (default 1000)", .lo = 1, .hi = INT_MAX},
        {"--seed", QKV_CLI_INT, &seed, "S", "seed of the corpus (default 1)", .lo = 0, .hi = LONG_MAX},
        {"--task", QKV_CLI_CHOICE, &task, NULL, "the corpus (default grammar)", .choices = QKV_SYNTH_TASK_NAMES},
        {"--min-len", QKV_CLI_INT, &min_len, "N", "ends, reach: fewest words of a sentence", .lo = 1,
         .hi = QKV_SYNTH_TASK_MAX_LEN},
        {"--max-len", QKV_CLI_INT, &max_len, "N", "ends, reach: most words of a sentence", .lo = 1,
         .hi = QKV_SYNTH_TASK_MAX_LEN},
        {"--min-distance", QKV_CLI_INT, &min_dist, "D", "reach: smallest key-probe distance", .lo = 1,
         .hi = QKV_SYNTH_TASK_MAX_LEN},
        {"--max-distance", QKV_CLI_INT, &max_dist, "D", "reach: largest key-probe distance", .lo = 1,
         .hi = QKV_SYNTH_TASK_MAX_LEN},
    };
    const qkv_cli_spec spec = {"synth", ABOUT, NULL, rows, QKV_CLI_N(rows)};
    int usage = qkv_cli_parse(&spec, argc, argv);
    if (usage >= 0)
        return usage;
    if (task == QKV_SYNTH_GRAMMAR && (min_len || max_len || min_dist || max_dist))
        return qkv_cli_usage_error(&spec, "--min-len, --max-len, --min-distance and --max-distance apply to --task "
                                          "ends and reach only");
    if (task == QKV_SYNTH_ENDS && (min_dist || max_dist))
        return qkv_cli_usage_error(&spec, "--min-distance and --max-distance apply to --task reach only");
    qkv_synth_task_opts o = {(qkv_synth_task)task, (int)min_len, (int)max_len, (int)min_dist, (int)max_dist};
    if (!o.min_dist)
        o.min_dist = 1;
    if (!o.max_dist)
        o.max_dist = 32;
    if (!o.min_len)
        o.min_len = task == QKV_SYNTH_ENDS ? 2 * QKV_SYNTH_ENDS_K : o.max_dist + 8;
    int default_max = task == QKV_SYNTH_ENDS ? 20 : o.max_dist + 16;
    if (!o.max_len)
        o.max_len = o.min_len > default_max ? o.min_len : default_max;
    qkv_error err;
    if (qkv_synth_task_check(&o, &err))
        return qkv_cli_usage_error(&spec, "%s", err.msg);
    if (qkv_synth_task_write(stdout, (int)n, (uint64_t)seed, &o, &err) || fflush(stdout)) {
        qkv_fail_report(&err);
        return 1;
    }
    return 0;
}
