/* qkv positions CHECKPOINT [--out FILE] [--max-len N] [--force] */
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>

#include "train/cli/cli.h"
#include "train/cli/commands.h"
#include "train/cli/output_file.h"
#include "train/fail.h"
#include "train/plot/gnuplot.h"
#include "train/plot/plot_positions.h"
#include "train/positions.h"
#include "train/train_state.h"

/* The help's line of each kind that draws (draw, or draw_grid when grid): its name, the keys it
 * reads and what it draws (its descriptor's draws), at buf + at; returns the new length. */
static size_t kind_lines(char *buf, size_t len, size_t at, bool grid)
{
    for (int k = 0; k < QKV_POS_COUNT && at < len; k++) {
        const qkv_pos_desc *d = QKV_POS_DESCS[k];
        if (grid ? d->draw_grid != NULL : d->draw != NULL)
            at += (size_t)snprintf(buf + at, len - at, "  %s%s%s%s:\n    %s\n", d->name, *d->params ? " (" : "",
                                   d->params, *d->params ? ")" : "", d->draws);
    }
    return at;
}

/* The help: what each positional kind draws, then the rest. */
static const char *about(char *buf, size_t len)
{
    size_t at = (size_t)snprintf(buf, len,
                                 "Draws what a checkpoint's positional encoding is, for positions 0 .. N-1 (beyond the\n"
                                 "training length too), as heatmaps with gnuplot: position x its dimensions, then\n"
                                 "position x position, by model.positional:\n");
    at = kind_lines(buf, len, at, false);
    if (at < len)
        at += (size_t)snprintf(buf + at, len - at,
                               "With model.attn_rel_clip, a third: layer 0's relative score bias (mean over heads).\n"
                               "On an image's grid, the kinds that act in attention draw what layer 0 gives the keys\n"
                               "of the centre query, over the grid:\n");
    at = kind_lines(buf, len, at, true);
    if (at < len)
        snprintf(buf + at, len - at,
                 "Dashed lines mark data.max_train_len when the model was trained with one. The gnuplot\n"
                 "script, with the matrices in it, is written beside the image (FILE.gp).\n");
    return buf;
}

int qkv_cmd_positions(int argc, char **argv)
{
    const char *ckpt = NULL, *out_arg = NULL;
    long max_len = 100;
    bool force = false;
    const qkv_cli_opt rows[] = {
        {"CHECKPOINT", QKV_CLI_STRING, &ckpt, .required = true},
        {"--out", QKV_CLI_STRING, &out_arg, "FILE", ".png or .svg (default: positions.png)"},
        {"--max-len", QKV_CLI_INT, &max_len, "N", "positions drawn (default 100)", .lo = 1, .hi = 1000},
        {"--force", QKV_CLI_FLAG, &force, NULL, "replace FILE (and FILE.gp) if it exists"},
    };
    char help[2048];
    const qkv_cli_spec spec = {"positions", about(help, sizeof help), NULL, rows, QKV_CLI_N(rows)};
    int usage = qkv_cli_parse(&spec, argc, argv);
    if (usage >= 0)
        return usage;
    const char *out = out_arg ? out_arg : "positions.png";
    char script[4300];
    if (!qkv_image_output_ok("positions", out_arg ? "--out" : NULL, out, script, sizeof script, &ckpt, 1, force))
        return 1;
    qkv_error err;
    qkv_session s;
    qkv_session_init(&s);
    qkv_position_pictures pp = {0};
    int status = 1;
    if (qkv_checkpoint_load_model(ckpt, &s, &err) ||
        qkv_position_pictures_make(&s.model, (int)max_len, &pp, &err) ||
        qkv_plot_positions(&pp, s.cfg.data.max_train_len, out, &err)) {
        qkv_fail_report(&err);
        goto done;
    }
    printf("%s\n", out);
    status = 0;
done:
    qkv_position_pictures_free(&pp);
    qkv_session_free(&s);
    return status;
}
