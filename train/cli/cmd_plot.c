/* qkv plot RUN_DIR... [--out FILE.png|FILE.svg] [--size WxH] */
#include <sys/stat.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "train/cli/cli.h"
#include "train/cli/commands.h"
#include "train/plot/gnuplot.h"
#include "train/cli/output_file.h"
#include "train/plot/plot_metrics.h"

static const char USAGE[] =
    "usage: qkv plot RUN_DIR... [--out FILE.png|FILE.svg] [--size WIDTHxHEIGHT] [--force]\n"
    "\n"
    "Draws the training curves of one or more runs from their metrics.tsv with gnuplot:\n"
    "training loss per step (faint) with a smoothed line (a local line fit over about a tenth\n"
    "of each run's rows, without lag) and dev loss per evaluation on top,\n"
    "dev accuracy below. Several runs overlay, named by their folders. The gnuplot script is\n"
    "written beside the image (FILE.gp): edit it and rerun 'gnuplot FILE.gp'.\n"
    "\n"
    "  --out FILE   the image, .png or .svg (default: RUN_DIR/plots/loss.png for one run,\n"
    "               compare.png for several)\n"
    "  --size WxH   pixels (default 960x720)\n"
    "  --force      replace FILE (and FILE.gp) if it exists\n"
    "\n"
    "Needs gnuplot (Debian/Ubuntu: apt-get install gnuplot-nox).\n";

int qkv_cmd_plot(int argc, char **argv)
{
    const char *out = NULL, *size = NULL;
    const char **runs = calloc((size_t)argc, sizeof *runs);
    int n_runs = 0, width = QKV_PLOT_WIDTH, height = QKV_PLOT_HEIGHT;
    bool bad = false, force = false;
    if (!runs)
        return 1;
    for (int i = 1; i < argc && !bad; i++) {
        const char *value;
        if (qkv_cli_is_help(argv[i])) {
            fputs(USAGE, stdout);
            free(runs);
            return 0;
        } else if (qkv_cli_option(argc, argv, &i, "--out", &value, &bad)) {
            out = value;
        } else if (qkv_cli_option(argc, argv, &i, "--size", &value, &bad)) {
            size = value;
        } else if (!strcmp(argv[i], "--force")) {
            force = true;
        } else if (argv[i][0] == '-' && argv[i][1]) {
            fprintf(stderr, "qkv plot: unknown option '%s'\n", argv[i]);
            bad = true;
        } else {
            runs[n_runs++] = argv[i];
        }
    }
    if (!bad && size) {
        if (!qkv_image_size_parse(size, &width, &height)) {
            fprintf(stderr, "qkv plot: --size is WIDTHxHEIGHT in pixels (16..20000), e.g. 960x720, not '%s'\n", size);
            bad = true;
        }
    }
    if (!bad && n_runs == 0) {
        fprintf(stderr, "qkv plot: missing RUN_DIR\n");
        bad = true;
    }
    if (bad) {
        fputs(USAGE, stderr);
        free(runs);
        return 2;
    }
    char image[4200];
    if (out)
        snprintf(image, sizeof image, "%s", out);
    else if (n_runs > 1)
        snprintf(image, sizeof image, "compare.png");
    else {
        /* RUN_DIR/plots/loss.png; for a metrics file, plots/loss.png beside it. */
        struct stat st;
        snprintf(image, sizeof image, "%s", runs[0]);
        char *slash = strrchr(image, '/');
        if (stat(runs[0], &st) == 0 && S_ISREG(st.st_mode))
            snprintf(slash ? slash + 1 : image, sizeof image - (size_t)(slash ? slash + 1 - image : 0),
                     "plots/loss.png");
        else
            snprintf(image, sizeof image, "%s/plots/loss.png", runs[0]);
    }
    /* RUN_DIR/plots/loss.png (and loss.gp) are qkv train's own, redrawn at will */
    bool owned = !out && n_runs == 1;
    char script[4300];
    qkv_gnuplot_script_path(image, script, sizeof script);
    qkv_error err;
    qkv_image_kind kind;
    int status = qkv_image_kind_of(image, &kind, &err);
    if (status == QKV_OK && (!qkv_output_ok("plot", out ? "--out" : NULL, image, runs, n_runs, force, owned) ||
                             !qkv_output_ok("plot", NULL, script, runs, n_runs, force, owned))) {
        free(runs);
        return 1;
    }
    if (status == QKV_OK)
        status = qkv_plot_metrics(runs, n_runs, image, width, height, &err);
    free(runs);
    if (status) {
        fprintf(stderr, "qkv: %s\n", err.msg);
        return 1;
    }
    printf("%s\n", image);
    return 0;
}
