#include "train/plot/plot_attention.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "train/plot/gnuplot.h"

static int grid_cols(int n_panels)
{
    int cols = 1;
    while (cols * cols < n_panels)
        cols++;
    return cols;
}

void qkv_attention_plot_size(int n_words, int n_panels, int *width, int *height)
{
    int panel = 220 + 26 * n_words;
    if (panel > 1000)
        panel = 1000;
    int cols = grid_cols(n_panels), rows = (n_panels + cols - 1) / cols;
    *width = cols * panel + 80;  /* + the colour box */
    *height = rows * panel + 40; /* + the title */
}

/* `set xtics (...)` / `set ytics (...)` with one label per word. */
static void word_tics(FILE *f, const char *axis, const qkv_attention_plot *ap, bool with_tags)
{
    fprintf(f, "set %stics (", axis);
    for (int i = 0; i < ap->n_words; i++) {
        char label[512];
        if (with_tags && ap->tags && ap->tags[i])
            snprintf(label, sizeof label, "%s %s", ap->words[i], ap->tags[i]);
        else
            snprintf(label, sizeof label, "%s", ap->words[i]);
        qkv_gnuplot_quote_tic(f, label);
        fprintf(f, " %d%s", i, i + 1 < ap->n_words ? ", " : "");
    }
    fputs(")\n", f);
}

static void write_script(FILE *f, const qkv_attention_plot *ap, int h0, int h1, qkv_image_kind kind,
                         const char *image, const char *script)
{
    const qkv_attention_weights *w = ap->w;
    int n = ap->n_words, n_panels = h1 - h0, width, height;
    qkv_attention_plot_size(n, n_panels, &width, &height);
    double max = 0;
    for (int h = h0; h < h1; h++)
        for (int i = 0; i < n; i++)
            for (int j = 0; j < n; j++)
                max = fmax(max, qkv_attention_weight(w, ap->sentence, h, i, j));
    if (!(max > 0))
        max = 1;
    fputs("# Written by 'qkv attention': attention weights P (rows = queries, columns = keys).\n"
          "# Edit and rerun with: gnuplot ",
          f);
    qkv_gnuplot_quote(f, script);
    fputs("\n", f);
    for (int h = h0; h < h1; h++) {
        fprintf(f, "$head%d << EOD\n", h);
        for (int i = 0; i < n; i++) {
            for (int j = 0; j < n; j++)
                fprintf(f, "%s%.6f", j ? " " : "", qkv_attention_weight(w, ap->sentence, h, i, j));
            fputc('\n', f);
        }
        fputs("EOD\n", f);
    }
    qkv_gnuplot_terminal(f, kind, image, width, height);
    fprintf(f,
            "pmax = %.6f  # top of the colour scale: the largest weight drawn\n"
            "show_values = %d  # 1: print each weight in its cell\n"
            "set palette defined (0 '#ffffff', 0.5 '#6baed6', 1 '#08306b')\n"
            "set cbrange [0:pmax]\n"
            "set xrange [-0.5:%d.5]\n"
            "set yrange [%d.5:-0.5]  # query 0 at the top\n"
            "set xtics rotate by 45 right scale 0 nomirror\n"
            "set ytics scale 0 nomirror\n"
            "set xlabel 'key'\n"
            "set ylabel 'query'\n"
            "set size ratio -1\n"
            "unset key\n",
            max, n <= 12, n - 1, n - 1);
    word_tics(f, "x", ap, false);
    word_tics(f, "y", ap, true);
    if (n_panels > 1) {
        int cols = grid_cols(n_panels), rows = (n_panels + cols - 1) / cols;
        fprintf(f, "set multiplot layout %d,%d title 'layer %d, all %d heads'\n", rows, cols, ap->layer, n_panels);
    }
    for (int h = h0; h < h1; h++) {
        fprintf(f, "set title 'layer %d, head %d'\n", ap->layer, h);
        fprintf(f,
                "plot $head%d matrix using 1:2:($1 - 0.5):($1 + 0.5):($2 - 0.5):($2 + 0.5):3 with boxxy "
                "fs solid 1.0 noborder lc palette, \\\n"
                "     $head%d matrix using 1:2:(show_values ? sprintf('%%.2f', $3) : '')"
                ":($3 > 0.6 * pmax ? 0xffffff : 0x202020) with labels font ',8' tc rgb variable\n",
                h, h);
    }
    if (n_panels > 1)
        fputs("unset multiplot\n", f);
}

int qkv_plot_attention(const qkv_attention_plot *ap, const char *image, qkv_error *err)
{
    const qkv_attention_weights *w = ap->w;
    qkv_image_kind kind;
    if (qkv_image_kind_of(image, &kind, err))
        return QKV_ERR;
    if (ap->sentence < 0 || ap->sentence >= w->sentences.n)
        return qkv_fail(err, "sentence %d is not in the batch (%d sentences)", ap->sentence, w->sentences.n);
    if (qkv_segments_len(w->sentences, ap->sentence) != ap->n_words)
        return qkv_fail(err, "the sentence has %d words but its attention block has %d rows", ap->n_words,
                        qkv_segments_len(w->sentences, ap->sentence));
    if (ap->head < -1 || ap->head >= w->n_heads)
        return qkv_fail(err, "head %d does not exist: the layer has heads 0..%d", ap->head, w->n_heads - 1);
    int h0 = ap->head < 0 ? 0 : ap->head, h1 = ap->head < 0 ? w->n_heads : ap->head + 1;
    char abs_image[4200], script[4300];
    qkv_path_absolute(image, abs_image, sizeof abs_image);
    qkv_gnuplot_script_path(abs_image, script, sizeof script);
    FILE *f = fopen(script, "w");
    if (!f)
        return qkv_fail(err, "%s: cannot write the gnuplot script: %s", script, strerror(errno));
    write_script(f, ap, h0, h1, kind, abs_image, script);
    if (fclose(f))
        return qkv_fail(err, "%s: cannot write the gnuplot script: %s", script, strerror(errno));
    return qkv_gnuplot_run(script, err);
}
