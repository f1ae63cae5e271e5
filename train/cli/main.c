/* qkv: the command. Dispatches to one subcommand per file (train/cli/cmd_*.c). */
#include <malloc.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "lib/gemm/warm_up.h"
#include "lib/io/config.h"
#include "train/cli/commands.h"
#include "train/omp_env.h"

/* The licence a build is distributed under (NOTICE): linking eSpeak NG (GPL-3.0-or-later) and
 * FFTW (GPL-2.0-or-later) for qkv speech makes the program a combined work under the GPL. */
#ifdef QKV_HAVE_SPEECH
#define QKV_BUILD_LICENCE "GPL-3.0-or-later: links eSpeak NG and FFTW, see NOTICE; source MIT"
#else
#define QKV_BUILD_LICENCE "MIT"
#endif

const char *qkv_program = "qkv";

static const qkv_command COMMANDS[] = {
    {"train", "train a tagger from a YAML config", qkv_cmd_train, true},
    {"eval", "evaluate a checkpoint on a tagged file", qkv_cmd_eval, true},
    {"tag", "tag a CoNLL-U or plain-text file with a checkpoint", qkv_cmd_tag, true},
    {"gradcheck", "check the model's gradients by finite differences", qkv_cmd_gradcheck, false},
    {"config", "check a config and print it resolved, or the key reference (--doc)", qkv_cmd_config, false},
    {"synth", "write a synthetic corpus (grammar, ends or reach task) as CoNLL-U", qkv_cmd_synth, false},
    {"speech", "speak a CoNLL-U file with eSpeak NG into an HDF5 corpus of log-mel frames", qkv_cmd_speech, false},
    {"stats", "count sentences, words and tags of a corpus", qkv_cmd_stats, false},
    {"plot", "draw the training curves of runs (gnuplot)", qkv_cmd_plot, false},
    {"attention", "draw a checkpoint's attention weights for a sentence or an image (gnuplot)", qkv_cmd_attention, true},
    {"parse-draw", "draw a parser's dependency tree of a sentence (Graphviz)", qkv_cmd_parse_draw, false},
    {"positions", "draw a checkpoint's positional encoding (gnuplot)", qkv_cmd_positions, false},
    {"export", "write a checkpoint's model without the training state, to ship or load", qkv_cmd_export, false},
    {"serve", "serve models over HTTP with UDPipe's REST API (libmicrohttpd)", qkv_cmd_serve, true},
    {"board", "a web page of the runs of folders, updating while they train (libmicrohttpd)", qkv_cmd_board, false},
};

/* Whether one of a and b begins with the other, at least 3 letters ("evaluate" for "eval",
 * "pos" for "positions"). */
static bool same_start(const char *a, const char *b)
{
    size_t na = strlen(a), nb = strlen(b), n = na < nb ? na : nb;
    return n >= 3 && !strncmp(a, b, n);
}

/* The command list's column: the longest name, then two spaces before each description, which
 * help2man needs to read a line as a name and its description (train/man/gen_man.sh). */
static void usage(FILE *out)
{
    size_t n = sizeof COMMANDS / sizeof COMMANDS[0];
    int width = 0;
    for (size_t i = 0; i < n; i++)
        if ((int)strlen(COMMANDS[i].name) > width)
            width = (int)strlen(COMMANDS[i].name);
    fprintf(out,
            "usage: qkv COMMAND [ARGS]\n"
            "\n"
            "qkv trains learnable-attention taggers from a YAML config.\n"
            "\n"
            "commands:\n");
    for (size_t i = 0; i < n; i++)
        fprintf(out, "  %-*s  %s\n", width, COMMANDS[i].name, COMMANDS[i].summary);
    fprintf(out, "\n'qkv COMMAND --help' describes one command. qkv --version prints the version.\n");
}

/* The activations of a batch live in an arena of tens of MB, made anew for every pass over a
 * set of sentences (qkv tag makes one per group of paragraphs): glibc maps so large a block
 * afresh each time and gives it back when freed, and every page of it faults again on first
 * use (half of the time of qkv tag on short paragraphs). Heap blocks up to 1 GiB, freed memory
 * kept up to 1 GiB, make the next pass reuse the pages. */
static void keep_freed_memory(void)
{
    mallopt(M_MMAP_THRESHOLD, 1 << 30);
    mallopt(M_TRIM_THRESHOLD, 1 << 30);
}

int main(int argc, char **argv)
{
    keep_freed_memory();
    qkv_omp_env_setup(argv);
    if (argc > 0 && argv[0][0])
        qkv_program = argv[0];
    if (argc < 2) {
        usage(stderr);
        return 2;
    }
    const char *cmd = argv[1];
    if (!strcmp(cmd, "--help") || !strcmp(cmd, "-h") || !strcmp(cmd, "help")) {
        usage(stdout);
        return 0;
    }
    if (!strcmp(cmd, "--version")) {
        printf("qkv %s (%s)\n", QKV_VERSION, QKV_BUILD_LICENCE);
        return 0;
    }
    for (size_t i = 0; i < sizeof COMMANDS / sizeof COMMANDS[0]; i++)
        if (COMMANDS[i].run && !strcmp(cmd, COMMANDS[i].name)) {
            if (COMMANDS[i].runs_model)
                qkv_gemm_warm_up(); /* while the command reads its model and data */
            int status = COMMANDS[i].run(argc - 1, argv + 1);
            qkv_gemm_warm_up_wait();
            return status;
        }
    for (size_t i = 0; i < sizeof COMMANDS / sizeof COMMANDS[0]; i++)
        if (qkv_cfg_is_near(cmd, COMMANDS[i].name) || same_start(cmd, COMMANDS[i].name)) {
            fprintf(stderr, "qkv: unknown command '%s', did you mean '%s'? (see qkv --help)\n", cmd, COMMANDS[i].name);
            return 2;
        }
    fprintf(stderr, "qkv: unknown command '%s' (see qkv --help)\n", cmd);
    return 2;
}
