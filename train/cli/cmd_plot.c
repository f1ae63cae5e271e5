/* qkv plot RUN_DIR... [--out FILE.png|FILE.svg] [--size WxH] [--log-loss] */
#include <sys/stat.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "train/fail.h"
#include "train/cli/cli.h"
#include "train/cli/commands.h"
#include "train/plot/gnuplot.h"
#include "train/cli/output_file.h"
#include "train/plot/plot_metrics.h"

static const char ABOUT[] =
    "Draws the training curves of one or more runs from their metrics.tsv with gnuplot:\n"
    "training loss per step (faint) with a smoothed line (a local line fit over about a tenth\n"
    "of each run's rows, without lag) and dev loss per evaluation on top,\n"
    "every dev score below under its name (LAS, UAS, UPOS accuracy, span F1, ...); a dotted\n"
    "line marks the end of each epoch (the last step logged in it), labelled as often as fits.\n"
    "Several runs overlay, named by their folders. The gnuplot script is\n"
    "written beside the image (FILE.gp): edit it and rerun 'gnuplot FILE.gp'.\n";

static const char NOTES[] = "Needs gnuplot (Debian/Ubuntu: apt-get install gnuplot-nox).\n";

int qkv_cmd_plot(int argc, char **argv)
{
    const char *out = NULL, *size = NULL;
    const char *runs[QKV_CLI_MAX_LIST];
    int n_runs = 0, width = QKV_PLOT_WIDTH, height = QKV_PLOT_HEIGHT;
    bool force = false, log_loss = false;
    const qkv_cli_opt rows[] = {
        {"RUN_DIR", QKV_CLI_LIST, runs, .count = &n_runs, .required = true},
        {"--out", QKV_CLI_STRING, &out, "FILE.png|FILE.svg",
         "the image (default: RUN_DIR/plots/loss.png for one run,\ncompare.png for several)"},
        {"--size", QKV_CLI_STRING, &size, "WIDTHxHEIGHT", "pixels (default 960x720)"},
        {"--force", QKV_CLI_FLAG, &force, NULL, "replace FILE (and FILE.gp) if it exists"},
        {"--log-loss", QKV_CLI_FLAG, &log_loss, NULL,
         "the loss axis on a log scale (linear if a loss is not positive;\nlog.plot_log_loss does it for qkv train's own plot)"},
    };
    const qkv_cli_spec spec = {"plot", ABOUT, NOTES, rows, QKV_CLI_N(rows)};
    int usage = qkv_cli_parse(&spec, argc, argv);
    if (usage >= 0)
        return usage;
    if (size && !qkv_image_size_parse(size, &width, &height))
        return qkv_cli_usage_error(&spec, "--size is WIDTHxHEIGHT in pixels (16..20000), e.g. 960x720, not '%s'",
                                   size);
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
    /* the inputs: each RUN_DIR (or metrics file) and the metrics.tsv inside a RUN_DIR */
    static char metrics[QKV_CLI_MAX_LIST][4200];
    const char *inputs[2 * QKV_CLI_MAX_LIST];
    for (int k = 0; k < n_runs; k++) {
        snprintf(metrics[k], sizeof metrics[k], "%s/metrics.tsv", runs[k]);
        inputs[2 * k] = runs[k];
        inputs[2 * k + 1] = metrics[k];
    }
    if (status == QKV_OK && (!qkv_output_ok("plot", out ? "--out" : NULL, image, inputs, 2 * n_runs, force, owned) ||
                             !qkv_output_ok("plot", NULL, script, inputs, 2 * n_runs, force, owned)))
        return 1;
    if (status == QKV_OK)
        status = qkv_plot_metrics(runs, n_runs, image, width, height, log_loss, &err);
    if (status) {
        qkv_fail_report(&err);
        return 1;
    }
    printf("%s\n", image);
    return 0;
}
