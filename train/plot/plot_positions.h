/* The picture of `qkv positions`: one heatmap per panel of train/positions.h side by side,
 * drawn by gnuplot from a script written beside the image (IMAGE.gp, the data in it). */
#ifndef QKV_PLOT_POSITIONS_H
#define QKV_PLOT_POSITIONS_H

#include "train/positions.h"

/* Writes the script for image (.png or .svg) and runs gnuplot. train_len > 0 marks the
 * training length with lines (0: unknown). Errors: another extension, the script not
 * writable, gnuplot missing or failing (the script is kept). */
int qkv_plot_positions(const qkv_position_pictures *pp, int train_len, const char *image, qkv_error *err);

#endif
