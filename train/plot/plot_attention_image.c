/* See train/plot/plot_attention_image.h. */
#include "train/plot/plot_attention_image.h"

#include <math.h>
#include <stdio.h>

#include "train/plot/gnuplot.h"
#include "train/plot/plot_attention.h"

/* Pixels per image pixel on screen: a panel about 300 pixels wide. */
static int zoom(const qkv_attention_image_plot *ap)
{
    int z = 300 / (ap->cols > ap->rows ? ap->cols : ap->rows);
    return z < 1 ? 1 : z;
}

/* $pixels: x y r g b of every pixel (grey from channel 0, or RGB from channels 0..2). */
static void write_pixels(FILE *f, const qkv_attention_image_plot *ap)
{
    fputs("$pixels << EOD\n", f);
    for (int y = 0; y < ap->rows; y++)
        for (int x = 0; x < ap->cols; x++) {
            const uint8_t *p = ap->pixels + ((size_t)y * ap->cols + x) * ap->channels;
            int rgb = ap->channels >= 3;
            fprintf(f, "%d %d %d %d %d\n", x, y, p[0], p[rgb], p[2 * rgb]);
        }
    fputs("EOD\n", f);
}

/* The largest weight head h gives a grid key of the query. */
static double grid_max(const qkv_attention_image_plot *ap, int h)
{
    double max = 0;
    for (int j = ap->grid.n_prefix; j < qkv_grid_len(ap->grid); j++)
        max = fmax(max, qkv_attention_weight(ap->w, 0, h, ap->query, j));
    return max > 0 ? max : 1;
}

/* $headH: x y weight alpha of every grid cell (x, y its centre in pixels; alpha 0..255 the
 * weight over the head's largest), masked keys weight -1 and alpha 0. */
static void write_weights(FILE *f, const qkv_attention_image_plot *ap, int h)
{
    qkv_grid g = ap->grid;
    double max = grid_max(ap, h), c = (ap->patch - 1) / 2.0;
    fprintf(f, "$head%d << EOD\n", h);
    for (int j = g.n_prefix; j < qkv_grid_len(g); j++) {
        double x = qkv_grid_col(g, j) * ap->patch + c, y = qkv_grid_row(g, j) * ap->patch + c;
        if (!qkv_attention_sees(ap->w, 0, ap->query, j)) {
            fprintf(f, "%g %g -1 0\n", x, y);
            continue;
        }
        double p = qkv_attention_weight(ap->w, 0, h, ap->query, j);
        fprintf(f, "%g %g %.6f %d\n", x, y, p, (int)lround(230 * p / max));
    }
    fputs("EOD\n", f);
}

/* The query's cell centre (pixels) as $query, or no datablock for a prefix query. */
static void write_query(FILE *f, const qkv_attention_image_plot *ap)
{
    qkv_grid g = ap->grid;
    if (ap->query < g.n_prefix)
        return;
    double c = (ap->patch - 1) / 2.0;
    fprintf(f, "$query << EOD\n%g %g\nEOD\n", qkv_grid_col(g, ap->query) * ap->patch + c,
            qkv_grid_row(g, ap->query) * ap->patch + c);
}

/* The plot command of one panel: the image, then head h's weights (h < 0: none), the query. */
static void write_panel(FILE *f, const qkv_attention_image_plot *ap, int h)
{
    int has_query = ap->query >= ap->grid.n_prefix;
    if (h < 0)
        fputs("set title 'the image'\n", f);
    else if (ap->grid.n_prefix > 0)
        fprintf(f, "set title 'layer %d, head %d: largest %.3f, to [CLS] %.3f'\n", ap->layer, h, grid_max(ap, h),
                qkv_attention_weight(ap->w, 0, h, ap->query, 0));
    else
        fprintf(f, "set title 'layer %d, head %d: largest %.3f'\n", ap->layer, h, grid_max(ap, h));
    fputs("plot $pixels using 1:2:3:4:5 with rgbimage", f);
    if (h >= 0)
        fprintf(f, ", \\\n     $head%d using 1:2:(weight_r):(weight_g):(weight_b):4 with rgbalpha", h);
    if (has_query)
        fputs(", \\\n     $query using 1:2 with points pt 6 ps query_size lw 2 lc rgb query_colour", f);
    fputs("\n", f);
}

/* What the script draws: the image and heads h0 .. h1 - 1 of ap. */
typedef struct heads_plot {
    const qkv_attention_image_plot *ap;
    int h0, h1;
} heads_plot;

static void write_script(FILE *f, qkv_image_kind kind, const char *image, const char *script, const void *ctx)
{
    const heads_plot *hp = ctx;
    const qkv_attention_image_plot *ap = hp->ap;
    int h0 = hp->h0, h1 = hp->h1;
    int n_panels = 1 + h1 - h0, pc = 1, z = zoom(ap);
    while (pc * pc < n_panels)
        pc++;
    int pr = (n_panels + pc - 1) / pc;
    fputs("# Written by 'qkv attention --image': the image's pixels (x y r g b), then for each head the\n"
          "# weight of the query on each grid key (x y of the key's centre in pixels, the weight, its\n"
          "# opacity 0..230 relative to the head's largest; -1: masked). Edit and rerun with: gnuplot ",
          f);
    qkv_gnuplot_quote(f, script);
    fputs("\n", f);
    write_pixels(f, ap);
    for (int h = h0; h < h1; h++)
        write_weights(f, ap, h);
    write_query(f, ap);
    int width = pc * (z * ap->cols + 40), height = 90 + pr * (z * ap->rows + 50);
    if (ap->width > 0 && ap->height > 0)
        width = ap->width, height = ap->height;
    qkv_gnuplot_terminal(f, kind, image, width < 640 && !ap->width ? 640 : width, height);
    fprintf(f,
            "weight_r = 255; weight_g = 40; weight_b = 0  # the colour of the weights\n"
            "query_colour = '#00c8ff'; query_size = %.1f\n"
            "set xrange [-0.5:%d.5]\nset yrange [%d.5:-0.5]\nset size ratio -1\nunset tics\nunset key\n"
            "unset colorbox\n",
            fmax(1.5, 0.12 * z * ap->patch), ap->cols - 1, ap->rows - 1);
    fputs("set multiplot layout ", f);
    fprintf(f, "%d,%d title ", pr, pc);
    char q[128];
    if (ap->query < ap->grid.n_prefix)
        snprintf(q, sizeof q, "query [CLS], red: its attention weights");
    else
        snprintf(q, sizeof q, "query at row %d, column %d (circled), red: its attention weights",
                 qkv_grid_row(ap->grid, ap->query), qkv_grid_col(ap->grid, ap->query));
    qkv_gnuplot_quote(f, ap->caption ? ap->caption : "");
    fputs(" . \"\\n\" . ", f);
    qkv_gnuplot_quote(f, q);
    fputs("\n", f);
    write_panel(f, ap, -1);
    for (int h = h0; h < h1; h++)
        write_panel(f, ap, h);
    fputs("unset multiplot\n", f);
}

int qkv_plot_attention_image(const qkv_attention_image_plot *ap, const char *image, qkv_error *err)
{
    const qkv_attention_weights *w = ap->w;
    qkv_image_kind kind;
    if (qkv_image_kind_of(image, &kind, err))
        return QKV_ERR;
    if (w->sentences.n < 1 || qkv_packed_len(w->sentences, 0) != qkv_grid_len(ap->grid))
        return qkv_fail(err, "the image's attention block does not have the grid's %d tokens", qkv_grid_len(ap->grid));
    if (ap->grid.rows * ap->patch != ap->rows || ap->grid.cols * ap->patch != ap->cols || ap->channels < 1)
        return qkv_fail(err, "a grid of %d x %d cells of %d pixels is not an image of %d x %d pixels", ap->grid.rows,
                        ap->grid.cols, ap->patch, ap->rows, ap->cols);
    if (ap->query < 0 || ap->query >= qkv_grid_len(ap->grid))
        return qkv_fail(err, "query token %d is not in the image's %d tokens", ap->query, qkv_grid_len(ap->grid));
    int h0 = 0, h1 = 0;
    if (qkv_attention_plot_heads(w, ap->head, &h0, &h1, err))
        return QKV_ERR;
    const heads_plot hp = {ap, h0, h1};
    return qkv_gnuplot_draw(image, kind, write_script, &hp, err);
}
