#include "train/plot/plot_metrics.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "train/cli/cli.h"
#include "train/plot/gnuplot.h"

static const char *const COLORS[] = {"1f77b4", "d62728", "2ca02c", "9467bd", "ff7f0e", "8c564b", "e377c2", "17becf"};
#define N_COLORS (int)(sizeof COLORS / sizeof COLORS[0])

typedef struct run_info {
    char metrics[4200];  /* absolute path of metrics.tsv */
    char name[256];      /* legend name */
    long n_train, n_dev; /* rows of each split */
    long max_step;
    double loss_lo, loss_hi, acc_lo, acc_hi; /* ranges of the finite values */
} run_info;

/* The run's name: the last component of its folder (trailing slashes ignored). */
static void run_name(const char *run, bool is_file, char *out, size_t len)
{
    char copy[4200];
    snprintf(copy, sizeof copy, "%s", run);
    size_t n = strlen(copy);
    while (n > 1 && copy[n - 1] == '/')
        copy[--n] = '\0';
    if (is_file) { /* RUN/metrics.tsv: the folder's name */
        char *slash = strrchr(copy, '/');
        if (slash && slash != copy)
            *slash = '\0';
        else
            snprintf(copy, sizeof copy, ".");
    }
    if (!strcmp(copy, ".")) {
        char cwd[4096];
        if (getcwd(cwd, sizeof cwd))
            snprintf(copy, sizeof copy, "%s", cwd);
    }
    const char *slash = strrchr(copy, '/');
    snprintf(out, len, "%s", slash && slash[1] ? slash + 1 : copy);
}

/* Finds the metrics file and counts its rows by split. */
static int scan_run(const char *run, run_info *ri, qkv_error *err)
{
    struct stat st;
    bool is_file = stat(run, &st) == 0 && S_ISREG(st.st_mode);
    char path[4200];
    if (is_file)
        snprintf(path, sizeof path, "%s", run);
    else
        snprintf(path, sizeof path, "%s%smetrics.tsv", run, run[0] && run[strlen(run) - 1] == '/' ? "" : "/");
    FILE *f = fopen(path, "r");
    if (!f)
        return qkv_fail(err, "%s: cannot read the run's metrics: %s", path, strerror(errno));
    char line[1024];
    ri->n_train = ri->n_dev = ri->max_step = 0;
    ri->loss_lo = ri->acc_lo = INFINITY;
    ri->loss_hi = ri->acc_hi = -INFINITY;
    int lineno = 0;
    bool header = false;
    while (fgets(line, sizeof line, f)) {
        lineno++;
        if (lineno == 1) {
            header = !strncmp(line, "step\tepoch\tsplit\tloss\t", 22);
            if (!header)
                break;
            continue;
        }
        char *tab1 = strchr(line, '\t');
        char *tab2 = tab1 ? strchr(tab1 + 1, '\t') : NULL;
        if (!tab2)
            continue;
        long step = strtol(line, NULL, 10);
        if (step > ri->max_step)
            ri->max_step = step;
        bool dev = !strncmp(tab2 + 1, "dev\t", 4);
        if (!dev && strncmp(tab2 + 1, "train\t", 6))
            continue;
        *(dev ? &ri->n_dev : &ri->n_train) += 1;
        char *p = strchr(tab2 + 1, '\t') + 1;
        double loss = strtod(p, &p), acc = strtod(p, NULL);
        if (isfinite(loss)) {
            ri->loss_lo = fmin(ri->loss_lo, loss);
            ri->loss_hi = fmax(ri->loss_hi, loss);
        }
        if (dev && isfinite(acc)) {
            ri->acc_lo = fmin(ri->acc_lo, acc);
            ri->acc_hi = fmax(ri->acc_hi, acc);
        }
    }
    fclose(f);
    if (lineno == 0)
        return qkv_fail(err, "%s: empty metrics file (no header, no rows): nothing to plot", path);
    if (!header)
        return qkv_fail(err, "%s:1: not a qkv metrics file (expected the header 'step<TAB>epoch<TAB>split<TAB>loss...')",
                        path);
    if (ri->n_train + ri->n_dev == 0)
        return qkv_fail(err, "%s: no rows yet (the run has not logged a step): nothing to plot", path);
    qkv_path_absolute(path, ri->metrics, sizeof ri->metrics);
    run_name(run, is_file, ri->name, sizeof ri->name);
    return QKV_OK;
}

/* The legend text "name: what" as a quoted gnuplot string. */
static void title(FILE *f, const run_info *ri, int n_runs, const char *what)
{
    char buf[512];
    if (n_runs == 1)
        snprintf(buf, sizeof buf, "%s", what);
    else
        snprintf(buf, sizeof buf, "%s: %s", ri->name, what);
    qkv_gnuplot_quote(f, buf);
}

static void write_script(FILE *f, const run_info *ri, int n_runs, qkv_image_kind kind, const char *image,
                         const char *script, int width, int height)
{
    long n_dev = 0, n_train = 0, max_step = 1;
    double loss_lo = INFINITY, loss_hi = -INFINITY, acc_lo = INFINITY, acc_hi = -INFINITY;
    for (int r = 0; r < n_runs; r++) {
        loss_lo = fmin(loss_lo, ri[r].loss_lo);
        loss_hi = fmax(loss_hi, ri[r].loss_hi);
        acc_lo = fmin(acc_lo, ri[r].acc_lo);
        acc_hi = fmax(acc_hi, ri[r].acc_hi);
        n_dev += ri[r].n_dev;
        if (ri[r].n_train > n_train)
            n_train = ri[r].n_train;
        if (ri[r].max_step > max_step)
            max_step = ri[r].max_step;
    }
    size_t longest = 0;
    for (int r = 0; r < n_runs; r++)
        if (strlen(ri[r].name) > longest)
            longest = strlen(ri[r].name);
    int rmargin = (int)(n_runs == 1 ? 0 : longest + 2) + 24;
    if (rmargin > 64)
        rmargin = 64;
    /* Smoothing over about 5 logged rows for short runs, at most 0.95 (about 20 rows). */
    double smoothing = n_train > 5 ? 1.0 - 5.0 / (double)n_train : 0.0;
    if (smoothing > 0.95)
        smoothing = 0.95;
    fprintf(f, "# Written by 'qkv plot': training curves of %d run%s. Edit and rerun with: gnuplot ", n_runs,
            n_runs == 1 ? "" : "s");
    qkv_gnuplot_quote(f, script);
    fputs("\n", f);
    qkv_gnuplot_terminal(f, kind, image, width, height);
    fprintf(f,
            "set datafile separator '\\t'\n"
            "set datafile missing NaN  # rows of the other split are skipped, not line breaks\n"
            "# The smoothed training loss: an exponential moving average over the logged rows with\n"
            "# weight `smoothing` on the past, bias-corrected at the start (as TensorBoard does).\n"
            "smoothing = %.3f\n"
            "ema(x) = (ema_n = ema_n + 1, ema_m = smoothing * ema_m + (1 - smoothing) * x, "
            "ema_m / (1 - smoothing ** ema_n))\n"
            "split(s) = strcol(3) eq s\n"
            "set grid\n"
            "set key outside right top\n"
            "set lmargin 10\n"
            "set rmargin %d  # room for the legend, the same in both panels\n"
            "set xrange [0:%ld]\n",
            smoothing, rmargin, max_step);
    if (n_dev)
        fputs("set multiplot layout 2,1 title ", f);
    else
        fputs("set title ", f);
    char head[512];
    if (n_runs == 1)
        snprintf(head, sizeof head, "qkv run %s", ri[0].name);
    else
        snprintf(head, sizeof head, "qkv: %d runs", n_runs);
    qkv_gnuplot_quote(f, head);
    fputs("\nset xlabel 'step'\nset ylabel 'loss (cross-entropy)'\n", f);
    /* A single value (one logged row) would leave gnuplot an empty range to warn about. */
    if (isfinite(loss_lo) && loss_hi - loss_lo < 1e-9)
        fprintf(f, "set yrange [%g:%g]\n", loss_lo - 0.5, loss_hi + 0.5);
    fputs("plot \\\n", f);
    for (int r = 0; r < n_runs; r++) {
        const char *c = COLORS[r % N_COLORS];
        const run_info *x = &ri[r];
        if (x->n_train) {
            fputs("  ", f);
            qkv_gnuplot_quote(f, x->metrics);
            fprintf(f, " skip 1 using 1:(split('train') ? $4 : NaN) with lines lw 1 lc rgb '#b0%s' notitle, \\\n", c);
            fputs("  ema_n = 0, ema_m = 0, ", f);
            qkv_gnuplot_quote(f, x->metrics);
            fprintf(f, " skip 1 using 1:(split('train') ? ema($4) : NaN) with lines lw 2 lc rgb '#%s' title ", c);
            title(f, x, n_runs, "train (smoothed)");
            fputs(", \\\n", f);
        }
        if (x->n_dev) {
            fputs("  ", f);
            qkv_gnuplot_quote(f, x->metrics);
            fprintf(f, " skip 1 using 1:(split('dev') ? $4 : NaN) with linespoints dt 2 pt 7 ps 0.6 lw 1.5 "
                       "lc rgb '#%s' title ", c);
            title(f, x, n_runs, "dev");
            fputs(", \\\n", f);
        }
    }
    fputs("  NaN notitle\n", f);
    if (n_dev) {
        fputs("unset title\nset ylabel 'dev accuracy (%)'\n", f);
        if (isfinite(acc_lo) && acc_hi - acc_lo < 1e-9)
            fprintf(f, "set yrange [%g:%g]\n", 100 * acc_lo - 1, 100 * acc_hi + 1);
        else
            fputs("set autoscale y\n", f);
        fputs("plot \\\n", f);
        for (int r = 0; r < n_runs; r++) {
            if (!ri[r].n_dev)
                continue;
            fputs("  ", f);
            qkv_gnuplot_quote(f, ri[r].metrics);
            fprintf(f, " skip 1 using 1:(split('dev') ? 100 * $5 : NaN) with linespoints pt 7 ps 0.6 lw 2 "
                       "lc rgb '#%s' title ", COLORS[r % N_COLORS]);
            title(f, &ri[r], n_runs, "dev accuracy");
            fputs(", \\\n", f);
        }
        fputs("  NaN notitle\nunset multiplot\n", f);
    }
}

int qkv_plot_metrics(const char *const *runs, int n_runs, const char *image, int width, int height,
                     qkv_error *err)
{
    qkv_image_kind kind;
    if (n_runs < 1)
        return qkv_fail(err, "no run to plot");
    if (qkv_image_kind_of(image, &kind, err))
        return QKV_ERR;
    run_info *ri = calloc((size_t)n_runs, sizeof *ri);
    if (!ri)
        return qkv_fail(err, "out of memory");
    for (int r = 0; r < n_runs; r++)
        if (scan_run(runs[r], &ri[r], err)) {
            free(ri);
            return QKV_ERR;
        }
    /* Runs of the same name (a/run, b/run) keep their paths as legend names. */
    for (int r = 0; r < n_runs; r++)
        for (int q = 0; q < n_runs; q++)
            if (q != r && !strcmp(ri[r].name, ri[q].name))
                snprintf(ri[r].name, sizeof ri[r].name, "%s", runs[r]);
    char abs_image[4200], script[4300], dir[4200];
    qkv_path_absolute(image, abs_image, sizeof abs_image);
    snprintf(dir, sizeof dir, "%s", abs_image);
    *strrchr(dir, '/') = '\0';
    if (dir[0] && qkv_mkdirs(dir)) {
        free(ri);
        return qkv_fail(err, "%s: cannot create the folder for the image: %s", dir, strerror(errno));
    }
    qkv_gnuplot_script_path(abs_image, script, sizeof script);
    FILE *f = fopen(script, "w");
    if (!f) {
        free(ri);
        return qkv_fail(err, "%s: cannot write the gnuplot script: %s", script, strerror(errno));
    }
    write_script(f, ri, n_runs, kind, abs_image, script, width, height);
    free(ri);
    if (fclose(f))
        return qkv_fail(err, "%s: cannot write the gnuplot script: %s", script, strerror(errno));
    return qkv_gnuplot_run(script, err);
}

int qkv_plot_run_loss(const char *run_dir, char *image, size_t image_len, qkv_error *err)
{
    snprintf(image, image_len, "%s/plots/loss.png", run_dir);
    const char *runs[1] = {run_dir};
    return qkv_plot_metrics(runs, 1, image, QKV_PLOT_WIDTH, QKV_PLOT_HEIGHT, err);
}
