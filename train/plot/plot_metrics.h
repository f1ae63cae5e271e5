/* Training curves of one or more runs as a gnuplot script and an image (PNG or SVG):
 *   top panel     training loss per step (each logged row, faint: "train (raw)"), the same
 *                 smoothed ("train (smoothed)": at each row, a least-squares line through the
 *                 rows around it, about a tenth of the run's rows, fitted to log(loss); centred,
 *                 so it neither lags behind a falling loss nor is biased at the ends; computed
 *                 per run and written into the script as a datablock), dev loss per evaluation
 *   bottom panel  dev accuracy (%) per evaluation (only when some run has dev rows)
 * A dotted vertical line marks the end of each epoch (the last step logged in it) in both
 * panels; with log_loss the loss axis is logarithmic (when every loss is positive).
 * Several runs overlay with one colour each and their names in the legend. The script reads
 * each run's metrics.tsv (train/metrics.h) by absolute path, so it can be edited and rerun
 * from anywhere with `gnuplot FILE.gp`. */
#ifndef QKV_PLOT_METRICS_H
#define QKV_PLOT_METRICS_H

#include <stdbool.h>
#include <stddef.h>

#include "lib/error.h"

#define QKV_PLOT_WIDTH 960
#define QKV_PLOT_HEIGHT 720

/* runs[i] is a run folder (holding metrics.tsv) or a metrics.tsv file. Writes the script
 * beside image (qkv_gnuplot_script_path) and runs gnuplot on it. Errors (err): a metrics file
 * missing, unreadable, without the metrics header or without any row (naming the file); an
 * image name not ending in .png/.svg; the script not writable; gnuplot missing (the script
 * is still written) or failing. */
int qkv_plot_metrics(const char *const *runs, int n_runs, const char *image, int width, int height, bool log_loss,
                     qkv_error *err);

/* The loss plot of a run during training: RUN_DIR/plots/loss.png (the folder is created). */
int qkv_plot_run_loss(const char *run_dir, bool log_loss, char *image, size_t image_len, qkv_error *err);

#endif
