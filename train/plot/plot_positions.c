/* The heatmaps of `qkv positions`. See train/plot/plot_positions.h. */
#include "train/plot/plot_positions.h"

#include <stdio.h>

#include "train/plot/gnuplot.h"

/* The separators and tics of a panel of p->blocks matrices side by side. */
static void write_blocks(FILE *f, const qkv_position_panel *p)
{
    int w = p->cols / p->blocks;
    fputs("set xtics (", f);
    for (int b = 0; b < p->blocks; b++)
        fprintf(f, "%s\"head %d\" %g", b ? ", " : "", b, b * w + (w - 1) / 2.0);
    fputs(")\n", f);
    for (int b = 1; b < p->blocks; b++)
        fprintf(f, "set arrow from first %g, graph 0 to first %g, graph 1 nohead lw 2 lc rgb 'black' front\n",
                b * w - 0.5, b * w - 0.5);
}

/* What the script draws. */
typedef struct positions {
    const qkv_position_pictures *pp;
    int train_len;
} positions;

static void write_script(FILE *f, qkv_image_kind kind, const char *image, const char *script, const void *ctx)
{
    const qkv_position_pictures *pp = ((const positions *)ctx)->pp;
    int train_len = ((const positions *)ctx)->train_len;
    fputs("# Written by 'qkv positions': one matrix per panel (rows = the y axis).\n"
          "# Edit and rerun with: gnuplot ",
          f);
    qkv_gnuplot_quote(f, script);
    fputs("\n", f);
    for (int k = 0; k < pp->n_panels; k++) {
        const qkv_position_panel *p = &pp->panels[k];
        fprintf(f, "$panel%d << EOD\n", k);
        for (int r = 0; r < p->rows; r++) {
            for (int c = 0; c < p->cols; c++)
                fprintf(f, c ? " %.6g" : "%.6g", p->data[(size_t)r * p->cols + c]);
            fputc('\n', f);
        }
        fputs("EOD\n", f);
    }
    qkv_gnuplot_terminal(f, kind, image, 560 * pp->n_panels, 540);
    fprintf(f,
            "train_len = %d  # the training length (0: unknown), marked with dashed lines\n"
            "set palette defined (0 '#2166ac', 0.5 '#f7f7f7', 1 '#b2182b')\n"
            "set size square\n"
            "unset key\n"
            "set multiplot layout 1,%d\n",
            train_len, pp->n_panels);
    for (int k = 0; k < pp->n_panels; k++) {
        const qkv_position_panel *p = &pp->panels[k];
        double lo = 0, hi = 0;
        for (size_t i = 0; i < (size_t)p->rows * p->cols; i++) {
            lo = p->data[i] < lo ? p->data[i] : lo;
            hi = p->data[i] > hi ? p->data[i] : hi;
        }
        double m = hi > -lo ? hi : -lo; /* a colour scale symmetric about 0 */
        fprintf(f, "set title ");
        qkv_gnuplot_quote(f, p->title);
        fprintf(f, "\nset xlabel '%s'\nset ylabel '%s'\n", p->xlabel, p->ylabel);
        fprintf(f, "set xrange [-0.5:%d.5]\nset yrange [%d.5:-0.5]\nset cbrange [%g:%g]\n", p->cols - 1, p->rows - 1,
                m > 0 ? -m : -1, m > 0 ? m : 1);
        fputs("unset arrow\nset xtics autofreq\n", f);
        if (p->blocks > 1) /* one matrix per head side by side: a line between them, a tic each */
            write_blocks(f, p);
        if (p->rows > 1)
            fprintf(f, "if (train_len > 0 && train_len < %d) { set arrow from graph 0, first train_len - 0.5 "
                       "to graph 1, first train_len - 0.5 nohead dt 2 lc rgb 'black' }\n", p->rows);
        if (p->cols == p->rows)
            fprintf(f, "if (train_len > 0 && train_len < %d) { set arrow from first train_len - 0.5, graph 0 "
                       "to first train_len - 0.5, graph 1 nohead dt 2 lc rgb 'black' }\n", p->cols);
        fprintf(f, "plot $panel%d matrix with image\n", k);
    }
    fputs("unset multiplot\n", f);
}

int qkv_plot_positions(const qkv_position_pictures *pp, int train_len, const char *image, qkv_error *err)
{
    qkv_image_kind kind;
    if (qkv_image_kind_of(image, &kind, err))
        return QKV_ERR;
    const positions ps = {pp, train_len};
    return qkv_gnuplot_draw(image, kind, write_script, &ps, err);
}
