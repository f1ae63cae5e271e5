/* The confusion matrix of a classifier as a heatmap (rows = gold class, columns = predicted
 * class, each cell its count, coloured by the row's fraction), a gnuplot script beside the
 * image (the counts inline as a datablock) and the image (.png or .svg). */
#ifndef QKV_PLOT_CONFUSION_H
#define QKV_PLOT_CONFUSION_H

#include "lib/error.h"

/* counts [n, n]: counts[g * n + p] images of gold class g predicted p; names [n]. Errors: the
 * image's extension, the script not written, gnuplot's (train/plot/gnuplot.h). */
int qkv_plot_confusion(const long *counts, int n, const char *const *names, const char *title, const char *image,
                       qkv_error *err);

#endif
