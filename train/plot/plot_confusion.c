/* The confusion heatmap. See train/plot/plot_confusion.h. */
#include "train/plot/plot_confusion.h"

#include <stdio.h>

#include "train/plot/gnuplot.h"

/* What the script draws. */
typedef struct confusion {
    const long *counts;
    int n;
    const char *const *names;
    const char *title;
} confusion;

static void write_script(FILE *f, qkv_image_kind kind, const char *image, const char *script, const void *ctx)
{
    const confusion *cm = ctx;
    const long *counts = cm->counts;
    const char *const *names = cm->names;
    int n = cm->n;
    fputs("# Written by qkv: the confusion matrix, one row per gold class (x = predicted class, y = gold\n"
          "# class, z = the row's fraction, the count printed in each cell).\n# Edit and rerun with: gnuplot ",
          f);
    qkv_gnuplot_quote(f, script);
    fputs("\n$cells << EOD\n", f);
    for (int g = 0; g < n; g++) {
        long row = 0;
        for (int p = 0; p < n; p++)
            row += counts[(size_t)g * n + p];
        for (int p = 0; p < n; p++) {
            long c = counts[(size_t)g * n + p];
            fprintf(f, "%d %d %.6g %ld\n", p, g, row ? (double)c / (double)row : 0, c);
        }
    }
    fputs("EOD\n", f);
    qkv_gnuplot_terminal(f, kind, image, 760, 680);
    fputs("set title ", f);
    qkv_gnuplot_quote(f, cm->title);
    fprintf(f, "\nset xlabel 'predicted class'\nset ylabel 'gold class'\nset size square\nunset key\n"
               "set palette defined (0 '#f7fbff', 1 '#08306b')\nset cbrange [0:1]\nset cblabel 'fraction of the row'\n"
               "set xrange [-0.5:%d.5]\nset yrange [%d.5:-0.5]\nset xtics rotate by 45 right (",
            n - 1, n - 1);
    for (int k = 0; k < n; k++) {
        fputs(k ? ", " : "", f);
        qkv_gnuplot_quote_tic(f, names[k]);
        fprintf(f, " %d", k);
    }
    fputs(")\nset ytics (", f);
    for (int k = 0; k < n; k++) {
        fputs(k ? ", " : "", f);
        qkv_gnuplot_quote_tic(f, names[k]);
        fprintf(f, " %d", k);
    }
    fputs(")\nplot $cells using 1:2:3 with image, \\\n"
          "     $cells using 1:2:(sprintf('%d', $4)):($3 > 0.5 ? 0xffffff : 0) with labels tc rgb variable\n",
          f);
}

int qkv_plot_confusion(const long *counts, int n, const char *const *names, const char *title, const char *image,
                       qkv_error *err)
{
    qkv_image_kind kind;
    if (qkv_image_kind_of(image, &kind, err))
        return QKV_ERR;
    const confusion cm = {counts, n, names, title};
    return qkv_gnuplot_draw(image, kind, write_script, &cm, err);
}
