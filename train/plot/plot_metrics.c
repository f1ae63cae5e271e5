#include "train/plot/plot_metrics.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "train/files.h"
#include "train/metrics.h"
#include "train/plot/gnuplot.h"

static const char *const COLORS[] = {"1f77b4", "d62728", "2ca02c", "9467bd", "ff7f0e", "8c564b", "e377c2", "17becf"};
#define N_COLORS (int)(sizeof COLORS / sizeof COLORS[0])

typedef struct run_info {
    char metrics[4200];  /* absolute path of metrics.tsv */
    char name[256];      /* legend name */
    long n_train, n_dev; /* rows of each split */
    long max_step;
    double loss_lo, loss_hi, acc_lo, acc_hi; /* ranges of the finite values (acc: every dev score) */
    /* the dev score columns of its header (train/metrics.h: column 5 and those after column 8)
       and whether a dev row has a value in each */
    int n_scores;
    int score_col[QKV_METRICS_MAX_EXTRA + 1]; /* 1-based column */
    char score_name[QKV_METRICS_MAX_EXTRA + 1][QKV_METRICS_NAME_LEN];
    bool score_seen[QKV_METRICS_MAX_EXTRA + 1];
    double *step, *loss;                     /* [n_loss]: the train rows with a finite loss */
    long n_loss, cap_loss;
    long *epoch_last;                        /* [n_epochs]: the last step of a row of epoch e + 1 */
    int n_epochs, cap_epochs;
} run_info;

/* The smoothing window of a run of n logged training rows: half-width h rows, about a tenth
 * of the run in all (2h + 1 rows), at least 3 rows and at most 101; none below 5 rows. */
static long smooth_half_width(long n)
{
    if (n < 5)
        return 0;
    long h = (n + 10) / 20;
    return h < 1 ? 1 : h > 50 ? 50 : h;
}

/* Local linear smoothing (a Savitzky-Golay filter of degree 1 on the steps as they are):
 * out[i] is the least-squares line through the 2h + 1 rows around row i (the window shifted
 * inside the run at its ends), evaluated at step x[i]. The window is centred wherever it can
 * be, so a falling loss is not drawn late (no lag) as an exponential moving average draws
 * it, and a line fit is exact for a linear trend, so the ends are not pulled towards the
 * middle either. h = 0 copies y. */
static void smooth_local_linear(const double *x, const double *y, long n, long h, double *out)
{
    for (long i = 0; i < n; i++) {
        long lo = i - h, hi = i + h;
        if (lo < 0)
            hi -= lo, lo = 0;
        if (hi > n - 1)
            lo -= hi - (n - 1), hi = n - 1;
        if (lo < 0)
            lo = 0;
        double m = (double)(hi - lo + 1), sx = 0, sy = 0, sxx = 0, sxy = 0;
        for (long j = lo; j <= hi; j++) {
            double dx = x[j] - x[i];
            sx += dx, sy += y[j], sxx += dx * dx, sxy += dx * y[j];
        }
        double det = m * sxx - sx * sx;
        double slope = det > 0 ? (m * sxy - sx * sy) / det : 0;
        out[i] = (sy - slope * sx) / m;
    }
}

/* How the figure is drawn. */
typedef struct qkv_plot_opts {
    qkv_image_kind kind;
    int width, height;
    bool log_loss;
} qkv_plot_opts;

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

/* Appends (step, loss) to the run's training losses. */
static int add_loss(run_info *ri, long step, double loss, const char *path, qkv_error *err)
{
    if (ri->n_loss == ri->cap_loss) {
        long cap = ri->cap_loss ? 2 * ri->cap_loss : 256;
        double *a = realloc(ri->step, (size_t)cap * sizeof *a);
        if (a)
            ri->step = a;
        double *b = a ? realloc(ri->loss, (size_t)cap * sizeof *b) : NULL;
        if (b)
            ri->loss = b;
        if (!a || !b)
            return qkv_fail(err, "%s: out of memory reading the metrics", path);
        ri->cap_loss = cap;
    }
    ri->step[ri->n_loss] = (double)step;
    ri->loss[ri->n_loss++] = loss;
    return QKV_OK;
}

/* Notes that a row of epoch (1-based, its column 2) was logged at step. */
static int add_epoch_step(run_info *ri, long epoch, long step, const char *path, qkv_error *err)
{
    if (epoch < 1 || epoch > 1000000)
        return QKV_OK;
    if (epoch > ri->cap_epochs) {
        int cap = (int)epoch + 16;
        long *a = realloc(ri->epoch_last, (size_t)cap * sizeof *a);
        if (!a)
            return qkv_fail(err, "%s: out of memory reading the metrics", path);
        for (int e = ri->cap_epochs; e < cap; e++)
            a[e] = -1;
        ri->epoch_last = a;
        ri->cap_epochs = cap;
    }
    if (step > ri->epoch_last[epoch - 1])
        ri->epoch_last[epoch - 1] = step;
    if (epoch > ri->n_epochs)
        ri->n_epochs = (int)epoch;
    return QKV_OK;
}

/* One row of a metrics file (after the header) into ri's counts and ranges. */
static int scan_row(run_info *ri, char *line, const char *path, qkv_error *err)
{
    char *tab1 = strchr(line, '\t');
    char *tab2 = tab1 ? strchr(tab1 + 1, '\t') : NULL;
    if (!tab2)
        return QKV_OK;
    long step = strtol(line, NULL, 10);
    if (step > ri->max_step)
        ri->max_step = step;
    bool dev = !strncmp(tab2 + 1, "dev\t", 4);
    if (!dev && strncmp(tab2 + 1, "train\t", 6))
        return QKV_OK;
    *(dev ? &ri->n_dev : &ri->n_train) += 1;
    if (add_epoch_step(ri, strtol(tab1 + 1, NULL, 10), step, path, err))
        return QKV_ERR;
    char *p = strchr(tab2 + 1, '\t') + 1;
    double loss = strtod(p, NULL);
    if (!dev && isfinite(loss) && add_loss(ri, step, loss, path, err))
        return QKV_ERR;
    if (isfinite(loss)) {
        ri->loss_lo = fmin(ri->loss_lo, loss);
        ri->loss_hi = fmax(ri->loss_hi, loss);
    }
    /* the dev scores: field k (1-based) of the row */
    const char *field = line;
    int col = 1;
    for (int k = 0; dev && k < ri->n_scores; k++) {
        while (field && col < ri->score_col[k]) {
            field = strchr(field, '\t');
            field = field ? field + 1 : NULL;
            col++;
        }
        double v = field ? strtod(field, NULL) : NAN;
        if (isfinite(v)) {
            ri->score_seen[k] = true;
            ri->acc_lo = fmin(ri->acc_lo, v);
            ri->acc_hi = fmax(ri->acc_hi, v);
        }
    }
    return QKV_OK;
}

/* The dev score columns of a metrics header (train/metrics.h): column 5 and any after column 8. */
static void scan_header(run_info *ri, char *line)
{
    line[strcspn(line, "\r\n")] = '\0';
    int col = 1;
    ri->n_scores = 0;
    for (char *save = NULL, *name = strtok_r(line, "\t", &save); name; name = strtok_r(NULL, "\t", &save), col++)
        if ((col == 5 || col > 8) && ri->n_scores < QKV_METRICS_MAX_EXTRA + 1) {
            ri->score_col[ri->n_scores] = col;
            ri->score_seen[ri->n_scores] = false;
            snprintf(ri->score_name[ri->n_scores++], QKV_METRICS_NAME_LEN, "%s", name);
        }
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
    char line[2048];
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
            scan_header(ri, line);
            continue;
        }
        if (scan_row(ri, line, path, err)) {
            fclose(f);
            return QKV_ERR;
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

/* One line of the lower panel: column col of run r's dev rows, in percent. */
static void dev_percent_line(FILE *f, const run_info *x, int n_runs, int r, int col, const char *style,
                             const char *what)
{
    fputs("  ", f);
    qkv_gnuplot_quote(f, x->metrics);
    fprintf(f, " skip 1 using 1:(split('dev') ? 100 * $%d : NaN) with linespoints %s ps 0.6 lw 2 lc rgb '#%s' title ",
            col, style, COLORS[r % N_COLORS]);
    title(f, x, n_runs, what);
    fputs(", \\\n", f);
}

/* What the panels of all runs together span. */
typedef struct runs_extent {
    long n_dev, max_step;
    double loss_lo, loss_hi, acc_lo, acc_hi;
} runs_extent;

static runs_extent extent_of(const run_info *ri, int n_runs)
{
    runs_extent e = {0, 1, INFINITY, -INFINITY, INFINITY, -INFINITY};
    for (int r = 0; r < n_runs; r++) {
        e.loss_lo = fmin(e.loss_lo, ri[r].loss_lo);
        e.loss_hi = fmax(e.loss_hi, ri[r].loss_hi);
        e.acc_lo = fmin(e.acc_lo, ri[r].acc_lo);
        e.acc_hi = fmax(e.acc_hi, ri[r].acc_hi);
        e.n_dev += ri[r].n_dev;
        if (ri[r].max_step > e.max_step)
            e.max_step = ri[r].max_step;
    }
    return e;
}

/* The smoothed training loss of run r as the data block $smooth<r> (see smooth_local_linear). */
static void write_smoothed(FILE *f, const run_info *x, int r)
{
    if (!x->n_loss)
        return;
    long h = smooth_half_width(x->n_loss);
    double *y = malloc(2 * (size_t)x->n_loss * sizeof *y), *sm = y ? y + x->n_loss : NULL;
    if (!y)
        return; /* drawn without the smoothed line */
    /* A loss falls roughly exponentially: fitted to its logarithm, a line follows the bend
     * at the end of a fast fall instead of cutting across it. */
    bool positive = true;
    for (long i = 0; i < x->n_loss; i++)
        positive = positive && x->loss[i] > 0;
    for (long i = 0; i < x->n_loss; i++)
        y[i] = positive ? log(x->loss[i]) : x->loss[i];
    smooth_local_linear(x->step, y, x->n_loss, h, sm);
    for (long i = 0; positive && i < x->n_loss; i++)
        sm[i] = exp(sm[i]);
    fprintf(f,
            "# %s: training loss smoothed by qkv when it drew this: at each logged row, the least-squares\n"
            "# line through the %ld rows around it (shifted inside the run at its ends), fitted to %s\n"
            "# and taken at that row: no lag behind a falling loss. Columns (TAB-separated): step, loss.\n"
            "$smooth%d << EOD\n",
            x->name, h ? 2 * h + 1 : 1, positive ? "log(loss)" : "the loss", r);
    for (long i = 0; i < x->n_loss; i++)
        fprintf(f, "%.0f\t%.9g\n", x->step[i], sm[i]);
    fputs("EOD\n", f);
    free(y);
}

/* The terminal, the settings both panels share and the title. */
static void write_settings(FILE *f, const run_info *ri, int n_runs, const runs_extent *e, qkv_image_kind kind,
                           const char *image, int width, int height)
{
    size_t longest = 0, title_len = strlen("train (smoothed)"); /* the longest legend text */
    for (int r = 0; r < n_runs; r++) {
        if (strlen(ri[r].name) > longest)
            longest = strlen(ri[r].name);
        for (int k = 0; k < ri[r].n_scores; k++) {
            char label[64];
            qkv_metrics_label(ri[r].score_name[k], label, sizeof label);
            if (ri[r].score_seen[k] && strlen(label) + 4 > title_len)
                title_len = strlen(label) + 4;
        }
    }
    int rmargin = (int)(n_runs == 1 ? 0 : longest + 2) + (int)title_len + 10;
    if (rmargin > 64)
        rmargin = 64;
    qkv_gnuplot_terminal(f, kind, image, width, height);
    fprintf(f,
            "set datafile separator '\\t'\n"
            "set datafile missing NaN  # rows of the other split are skipped, not line breaks\n"
            "split(s) = strcol(3) eq s\n"
            "set grid\n"
            "set key outside right top\n"
            "set lmargin 10\n"
            "set rmargin %d  # room for the legend, the same in both panels\n"
            "set xrange [0:%ld]\n",
            rmargin, e->max_step);
    if (e->n_dev)
        fputs("set multiplot layout 2,1 title ", f);
    else
        fputs("set title ", f);
    char head[512];
    if (n_runs == 1)
        snprintf(head, sizeof head, "qkv run %s", ri[0].name);
    else
        snprintf(head, sizeof head, "qkv: %d runs", n_runs);
    qkv_gnuplot_quote(f, head);
}

/* Every k-th epoch is labelled, k the first of 1, 2, 5, 10, 20, 50, ... that leaves at most
 * max_labels labels. */
static int epoch_stride(int n_epochs, int max_labels)
{
    static const int MANTISSA[] = {1, 2, 5};
    for (int decade = 1; decade < 100000000; decade *= 10)
        for (int i = 0; i < 3; i++)
            if ((n_epochs + MANTISSA[i] * decade - 1) / (MANTISSA[i] * decade) <= max_labels)
                return MANTISSA[i] * decade;
    return n_epochs;
}

/* A dotted vertical line (in both panels) at the end of each epoch but the last of every run:
 * the last step of a row of that epoch, which is the epoch's last step when the dev set is
 * evaluated at epoch ends (train.eval_every: 0), else within log.every_steps of it. For one
 * run, "epoch N" labels at the end of every k-th epoch and of the last (epoch_stride: no more
 * than fit side by side in a plot width pixels wide, about 55 pixels a label); with more
 * epochs than four times that, the lines too only at the labelled epochs. */
static void write_epoch_marks(FILE *f, const run_info *ri, int n_runs, int width)
{
    int max_labels = (width - 300) / 55; /* the plot area: the width less the margins and legend */
    max_labels = max_labels < 2 ? 2 : max_labels;
    int n = 0;
    for (int r = 0; r < n_runs; r++) {
        int stride = epoch_stride(ri[r].n_epochs, max_labels);
        bool all_lines = ri[r].n_epochs <= 4 * max_labels;
        for (int e = 0; e < ri[r].n_epochs; e++) {
            long at = ri[r].epoch_last[e];
            bool last = e + 1 == ri[r].n_epochs, labelled = (e + 1) % stride == 0 || last;
            if (at < 0 || (!last && ri[r].epoch_last[e + 1] < 0))
                continue;
            if (!n++)
                fputs("# epoch ends: the last step logged in each epoch\n", f);
            if (!last && (all_lines || labelled))
                fprintf(f, "set arrow from %ld, graph 0 to %ld, graph 1 nohead dt 3 lw 1 lc rgb '#%s' back\n", at, at,
                        n_runs == 1 ? "999999" : COLORS[r % N_COLORS]);
            if (n_runs == 1 && labelled)
                fprintf(f, "set label 'epoch %d' at %ld, graph 1 right offset -0.5, -1 font ',8' tc rgb '#777777'\n",
                        e + 1, at);
        }
    }
}

/* The upper panel: each run's training loss (raw and smoothed) and dev loss; on a log scale
 * with log_loss (when every loss is positive). */
static void write_loss_panel(FILE *f, const run_info *ri, int n_runs, const runs_extent *e, const qkv_plot_opts *o)
{
    bool log_loss = o->log_loss;
    fputs("\nset xlabel 'step'\nset ylabel 'loss (cross-entropy)'\n", f);
    write_epoch_marks(f, ri, n_runs, o->width);
    bool log_scale = log_loss && isfinite(e->loss_lo) && e->loss_lo > 0;
    if (log_scale)
        fputs("set logscale y  # log.plot_log_loss / qkv plot --log-loss\n", f);
    else if (log_loss)
        fputs("# a log scale was asked for, but a loss is not positive: linear\n", f);
    /* A single value (one logged row) would leave gnuplot an empty range to warn about. */
    if (isfinite(e->loss_lo) && e->loss_hi - e->loss_lo < 1e-9)
        fprintf(f, "set yrange [%g:%g]\n", log_scale ? e->loss_lo / 2 : e->loss_lo - 0.5,
                log_scale ? e->loss_hi * 2 : e->loss_hi + 0.5);
    fputs("plot \\\n", f);
    for (int r = 0; r < n_runs; r++) {
        const char *c = COLORS[r % N_COLORS];
        const run_info *x = &ri[r];
        if (x->n_train) {
            fputs("  ", f);
            qkv_gnuplot_quote(f, x->metrics);
            fprintf(f, " skip 1 using 1:(split('train') ? $4 : NaN) with lines lw 1 lc rgb '#80%s' title ", c);
            title(f, x, n_runs, "train (raw)");
            fputs(", \\\n", f);
            if (x->n_loss) {
                fprintf(f, "  $smooth%d using 1:2 with lines lw 2 lc rgb '#%s' title ", r, c);
                title(f, x, n_runs, "train (smoothed)");
                fputs(", \\\n", f);
            }
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
}

/* The y label of the lower panel: "dev LAS (%)" when every run's dev scores are one and the
 * same, else "dev scores (%)". */
static void dev_ylabel(FILE *f, const run_info *ri, int n_runs)
{
    const char *one = NULL;
    bool same = true;
    for (int r = 0; r < n_runs; r++)
        for (int k = 0; k < ri[r].n_scores; k++)
            if (ri[r].score_seen[k]) {
                same = same && (!one || !strcmp(one, ri[r].score_name[k]));
                one = one ? one : ri[r].score_name[k];
            }
    char label[64], text[96];
    if (one && same) {
        qkv_metrics_label(one, label, sizeof label);
        snprintf(text, sizeof text, "dev %s (%%)", label);
    } else
        snprintf(text, sizeof text, "dev scores (%%)");
    fputs("unset title\nset ylabel ", f);
    qkv_gnuplot_quote(f, text);
    fputc('\n', f);
}

/* The lower panel (runs with dev rows): every dev score of every run in percent, each under
 * its name (qkv_metrics_label), each with a dash and point type of its own. */
static void write_dev_panel(FILE *f, const run_info *ri, int n_runs, const runs_extent *e)
{
    if (!e->n_dev)
        return;
    fputs("unset logscale y\n", f);
    dev_ylabel(f, ri, n_runs);
    if (isfinite(e->acc_lo) && e->acc_hi - e->acc_lo < 1e-9)
        fprintf(f, "set yrange [%g:%g]\n", 100 * e->acc_lo - 1, 100 * e->acc_hi + 1);
    else
        fputs("set autoscale y\n", f);
    fputs("plot \\\n", f);
    static const int POINTS[] = {7, 5, 9, 11, 13, 4, 6, 8};
    for (int r = 0; r < n_runs; r++)
        for (int k = 0, n = 0; ri[r].n_dev && k < ri[r].n_scores; k++) {
            if (!ri[r].score_seen[k])
                continue;
            char style[64], label[64], what[96];
            snprintf(style, sizeof style, "dt %d pt %d", 1 + n % 5, POINTS[n % 8]);
            n++;
            qkv_metrics_label(ri[r].score_name[k], label, sizeof label);
            snprintf(what, sizeof what, "dev %s", label);
            dev_percent_line(f, &ri[r], n_runs, r, ri[r].score_col[k], style, what);
        }
    fputs("  NaN notitle\nunset multiplot\n", f);
}

/* What the script draws. */
typedef struct runs_plot {
    const run_info *ri;
    int n_runs;
    const qkv_plot_opts *o;
} runs_plot;

static void write_script(FILE *f, qkv_image_kind kind, const char *image, const char *script, const void *ctx)
{
    const run_info *ri = ((const runs_plot *)ctx)->ri;
    int n_runs = ((const runs_plot *)ctx)->n_runs;
    const qkv_plot_opts *o = ((const runs_plot *)ctx)->o;
    runs_extent e = extent_of(ri, n_runs);
    fprintf(f, "# Written by 'qkv plot': training curves of %d run%s. Edit and rerun with: gnuplot ", n_runs,
            n_runs == 1 ? "" : "s");
    qkv_gnuplot_quote(f, script);
    fputs("\n", f);
    for (int r = 0; r < n_runs; r++)
        write_smoothed(f, &ri[r], r);
    write_settings(f, ri, n_runs, &e, kind, image, o->width, o->height);
    write_loss_panel(f, ri, n_runs, &e, o);
    write_dev_panel(f, ri, n_runs, &e);
}

static void free_runs(run_info *ri, int n_runs)
{
    for (int r = 0; r < n_runs; r++) {
        free(ri[r].step);
        free(ri[r].loss);
        free(ri[r].epoch_last);
    }
    free(ri);
}

int qkv_plot_metrics(const char *const *runs, int n_runs, const char *image, int width, int height, bool log_loss,
                     qkv_error *err)
{
    qkv_plot_opts o = {0, width, height, log_loss};
    if (n_runs < 1)
        return qkv_fail(err, "no run to plot");
    if (qkv_image_kind_of(image, &o.kind, err))
        return QKV_ERR;
    run_info *ri = calloc((size_t)n_runs, sizeof *ri);
    if (!ri)
        return qkv_fail(err, "out of memory");
    for (int r = 0; r < n_runs; r++)
        if (scan_run(runs[r], &ri[r], err)) {
            free_runs(ri, n_runs);
            return QKV_ERR;
        }
    /* Runs of the same name (a/run, b/run) keep their paths as legend names. */
    for (int r = 0; r < n_runs; r++)
        for (int q = 0; q < n_runs; q++)
            if (q != r && !strcmp(ri[r].name, ri[q].name))
                snprintf(ri[r].name, sizeof ri[r].name, "%s", runs[r]);
    char dir[4200];
    qkv_path_absolute(image, dir, sizeof dir);
    *strrchr(dir, '/') = '\0';
    if (dir[0] && qkv_mkdirs(dir)) {
        free_runs(ri, n_runs);
        return qkv_fail(err, "%s: cannot create the folder for the image: %s", dir, strerror(errno));
    }
    const runs_plot rp = {ri, n_runs, &o};
    int status = qkv_gnuplot_draw(image, o.kind, write_script, &rp, err);
    free_runs(ri, n_runs);
    return status;
}

int qkv_plot_run_loss(const char *run_dir, bool log_loss, char *image, size_t image_len, qkv_error *err)
{
    snprintf(image, image_len, "%s/plots/loss.png", run_dir);
    const char *runs[1] = {run_dir};
    return qkv_plot_metrics(runs, 1, image, QKV_PLOT_WIDTH, QKV_PLOT_HEIGHT, log_loss, err);
}
