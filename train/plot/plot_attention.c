#include "train/plot/plot_attention.h"

#include <math.h>
#include <stdio.h>

#include "train/plot/gnuplot.h"

static int grid_cols(int n_panels)
{
    int cols = 1;
    while (cols * cols < n_panels)
        cols++;
    return cols;
}

/* Characters (UTF-8 code points) of a label, at most 40. */
static int label_chars(const char *s)
{
    int n = 0;
    for (; *s && n < 40; s++)
        n += ((unsigned char)*s & 0xc0) != 0x80;
    return n;
}

/* Pixel layout of one panel: margins around an n x n grid of cells. */
typedef struct layout {
    int cols, rows;               /* panels */
    double cell;                  /* pixels per cell */
    int left, right, top, bottom; /* margins of a panel around its cells */
    int head;                     /* the title line(s) above all panels */
    int width, height;            /* the image */
} layout;

static void plan_layout(const qkv_attention_plot *ap, int n_panels, layout *L)
{
    int n = ap->n_words, key_chars = 1, query_chars = 1;
    for (int i = 0; i < n; i++) {
        int k = label_chars(ap->words[i]), q = k + (ap->tags && ap->tags[i] ? 1 + label_chars(ap->tags[i]) : 0);
        key_chars = k > key_chars ? k : key_chars;
        query_chars = q > query_chars ? q : query_chars;
    }
    L->cols = grid_cols(n_panels);
    L->rows = (n_panels + L->cols - 1) / L->cols;
    /* 7 pixels a character of the 10-point labels; key labels are turned (45 or 90 degrees). */
    L->left = 40 + 7 * query_chars;
    L->bottom = 55 + (n <= 12 ? 5 : 7) * key_chars;
    L->top = 35;
    L->right = 90; /* the colour box and its numbers */
    L->head = 50;
    /* Cells of 28 pixels for short sentences down to 14 for long ones (a label each). */
    L->cell = n <= 12 ? 28 : fmax(14, 28 - 0.25 * (n - 12));
    if (ap->width > 0 && ap->height > 0) { /* --size: the cells fill what the margins leave */
        double cw = ((double)ap->width / L->cols - L->left - L->right) / (n + (ap->arcs != NULL));
        double ch = ((double)(ap->height - L->head) / L->rows - L->top - L->bottom) / n;
        L->cell = fmax(1, fmin(cw, ch));
        L->width = ap->width;
        L->height = ap->height;
        return;
    }
    L->width = L->cols * (int)ceil(L->left + (n + (ap->arcs != NULL)) * L->cell + L->right);
    L->height = L->head + L->rows * (int)ceil(L->top + n * L->cell + L->bottom);
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

/* The datablock $headH: P row by row (query i, key j), MASKED where query i does not see key j. */
#define MASKED "-1"

/* The weights of heads h0..h1-1, one datablock each. */
static void write_weights(FILE *f, const qkv_attention_plot *ap, int h0, int h1)
{
    const qkv_attention_weights *w = ap->w;
    int n = ap->n_words;
    for (int h = h0; h < h1; h++) {
        fprintf(f, "$head%d << EOD\n", h);
        for (int i = 0; i < n; i++) {
            for (int j = 0; j < n; j++) {
                if (j)
                    fputc(' ', f);
                if (qkv_attention_sees(w, ap->sentence, i, j))
                    fprintf(f, "%.6f", qkv_attention_weight(w, ap->sentence, h, i, j));
                else
                    fputs(MASKED, f);
            }
            fputc('\n', f);
        }
        fputs("EOD\n", f);
    }
}

/* The settings every panel shares (colour scale up to max), the word labels and the title. */
static void write_settings(FILE *f, const qkv_attention_plot *ap, int n_panels, double max, int n_masked)
{
    int n = ap->n_words;
    fprintf(f,
            "pmax = %.6f  # top of the colour scale: the largest weight drawn\n"
            "show_values = %d  # 1: print each weight in its cell\n"
            "masked_colour = '#cccccc'  # cells of keys the query does not see\n"
            "set palette defined (0 '#ffffff', 0.5 '#6baed6', 1 '#08306b')\n"
            "set cbrange [0:pmax]\n"
            "set xrange [-0.5:%d.5]\n"
            "set yrange [%d.5:-0.5]  # query 0 at the top\n"
            "set xtics %s scale 0 nomirror\n"
            "set ytics scale 0 nomirror\n"
            "set xlabel 'key'\n"
            "set ylabel 'query'\n"
            "unset key\n",
            max, n <= 12, n - 1, n - 1, n <= 12 ? "rotate by 45 right" : "rotate by 90 right");
    word_tics(f, "x", ap, false);
    word_tics(f, "y", ap, true);
    char head[256];
    if (n_panels > 1)
        snprintf(head, sizeof head, "layer %d, all %d heads", ap->layer, n_panels);
    else
        snprintf(head, sizeof head, "layer %d", ap->layer);
    if (n_masked)
        fprintf(f, "set multiplot title '%s (grey: masked, the query does not see the key)'\n", head);
    else
        fprintf(f, "set multiplot title '%s'\n", head);
}

/* Places the k-th panel in pixels: n rows and n_cols columns of square cells of L->cell pixels,
 * its colour box on its right. */
static void place_panel(FILE *f, const qkv_attention_plot *ap, const layout *L, int k, int n_cols)
{
    int n = ap->n_words, col = k % L->cols, row = k / L->cols;
    double pw = (double)L->width / L->cols, ph = (double)(L->height - L->head) / L->rows;
    double x0 = col * pw + L->left, y0 = L->head + row * ph + L->top, side = n * L->cell, wide = n_cols * L->cell;
    fprintf(f, "set lmargin at screen %.5f\nset rmargin at screen %.5f\n", x0 / L->width, (x0 + wide) / L->width);
    fprintf(f, "set tmargin at screen %.5f\nset bmargin at screen %.5f\n", 1 - y0 / L->height,
            1 - (y0 + side) / L->height);
    fprintf(f, "set colorbox user origin screen %.5f, screen %.5f size screen %.5f, screen %.5f\n",
            (x0 + wide + 12) / L->width, 1 - (y0 + side) / L->height, 14.0 / L->width, side / L->height);
}

/* The boxes of datablock $name drawn as a heatmap (-1: masked), with the values when show_values. */
static void plot_matrix(FILE *f, const char *name, const char *top)
{
    fprintf(f,
            "plot $%s matrix using 1:2:($1 - 0.5):($1 + 0.5):($2 - 0.5):($2 + 0.5):($3 >= 0 ? $3 : NaN) "
            "with boxxy fs solid 1.0 noborder lc palette, \\\n"
            "     $%s matrix using 1:($3 < 0 ? $2 : NaN):($1 - 0.5):($1 + 0.5):($2 - 0.5):($2 + 0.5) "
            "with boxxy fs solid 1.0 noborder lc rgb masked_colour, \\\n"
            "     $%s matrix using 1:2:(show_values && $3 >= 0 ? sprintf('%%.2f', $3) : '')"
            ":($3 > 0.6 * %s ? 0xffffff : 0x202020) with labels font ',8' tc rgb variable\n",
            name, name, name, top);
}

/* The panel of head h, the k-th. */
static void write_panel(FILE *f, const qkv_attention_plot *ap, const layout *L, int h, int k)
{
    place_panel(f, ap, L, k, ap->n_words);
    fprintf(f, "set title 'layer %d, head %d'\n", ap->layer, h);
    char name[32];
    snprintf(name, sizeof name, "head%d", h);
    plot_matrix(f, name, "pmax");
}

/* A parser's arc probabilities as the k-th panel: its datablock, ROOT then the words as keys. */
static void write_arcs(FILE *f, const qkv_attention_plot *ap, const layout *L, int k)
{
    int n = ap->n_words;
    fputs("$arcs << EOD\n", f);
    for (int i = 0; i < n; i++)
        for (int j = 0; j <= n; j++)
            fprintf(f, "%.6f%c", ap->arcs[(size_t)i * (n + 1) + j], j < n ? ' ' : '\n');
    fputs("EOD\n", f);
    place_panel(f, ap, L, k, n + 1);
    fprintf(f, "set xrange [-0.5:%d.5]\nset cbrange [0:1]\nset xlabel 'head'\nset ylabel 'dependent'\n", n);
    fputs("set xtics (\"ROOT\" 0", f);
    for (int j = 0; j < n; j++) {
        fputs(", ", f);
        qkv_gnuplot_quote_tic(f, ap->words[j]);
        fprintf(f, " %d", j + 1);
    }
    fputs(")\nset title 'arc probabilities (softmax over each word''s heads)'\n", f);
    plot_matrix(f, "arcs", "1");
}

/* What the script draws: heads h0 .. h1 - 1 of ap. */
typedef struct heads_plot {
    const qkv_attention_plot *ap;
    int h0, h1;
} heads_plot;

static void write_script(FILE *f, qkv_image_kind kind, const char *image, const char *script, const void *ctx)
{
    const heads_plot *hp = ctx;
    const qkv_attention_plot *ap = hp->ap;
    int h0 = hp->h0, h1 = hp->h1;
    const qkv_attention_weights *w = ap->w;
    int n = ap->n_words, n_panels = h1 - h0, n_masked = 0;
    layout L;
    plan_layout(ap, n_panels + (ap->arcs != NULL), &L);
    double max = 0;
    for (int h = h0; h < h1; h++)
        for (int i = 0; i < n; i++)
            for (int j = 0; j < n; j++)
                max = fmax(max, qkv_attention_weight(w, ap->sentence, h, i, j));
    for (int i = 0; i < n; i++)
        for (int j = 0; j < n; j++)
            n_masked += !qkv_attention_sees(w, ap->sentence, i, j);
    if (!(max > 0))
        max = 1;
    fputs("# Written by 'qkv attention': attention weights P (rows = queries, columns = keys);\n"
          "# " MASKED ": masked, the query does not see the key (outside the window, or later when causal).\n"
          "# Edit and rerun with: gnuplot ",
          f);
    qkv_gnuplot_quote(f, script);
    fputs("\n", f);
    write_weights(f, ap, h0, h1);
    qkv_gnuplot_terminal(f, kind, image, L.width, L.height);
    write_settings(f, ap, n_panels, max, n_masked);
    for (int h = h0; h < h1; h++)
        write_panel(f, ap, &L, h, h - h0);
    if (ap->arcs)
        write_arcs(f, ap, &L, n_panels);
    fputs("unset multiplot\n", f);
}

int qkv_attention_plot_heads(const qkv_attention_weights *w, int head, int *h0, int *h1, qkv_error *err)
{
    if (head < -1 || head >= w->n_heads)
        return qkv_fail(err, "head %d does not exist: the layer has heads 0..%d", head, w->n_heads - 1);
    *h0 = head < 0 ? 0 : head;
    *h1 = head < 0 ? w->n_heads : head + 1;
    return QKV_OK;
}

int qkv_plot_attention(const qkv_attention_plot *ap, const char *image, qkv_error *err)
{
    const qkv_attention_weights *w = ap->w;
    qkv_image_kind kind;
    if (qkv_image_kind_of(image, &kind, err))
        return QKV_ERR;
    if (ap->sentence < 0 || ap->sentence >= w->sentences.n)
        return qkv_fail(err, "sentence %d is not in the batch (%d sentences)", ap->sentence, w->sentences.n);
    if (qkv_packed_len(w->sentences, ap->sentence) != ap->n_words)
        return qkv_fail(err, "the sentence has %d words but its attention block has %d rows", ap->n_words,
                        qkv_packed_len(w->sentences, ap->sentence));
    int h0 = 0, h1 = 0;
    if (qkv_attention_plot_heads(w, ap->head, &h0, &h1, err))
        return QKV_ERR;
    const heads_plot hp = {ap, h0, h1};
    return qkv_gnuplot_draw(image, kind, write_script, &hp, err);
}
