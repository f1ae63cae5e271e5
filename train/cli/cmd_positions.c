/* qkv positions CHECKPOINT [--out FILE] [--max-len N] [--force] */
#include <limits.h>
#include <stdio.h>

#include "train/cli/cli.h"
#include "train/cli/commands.h"
#include "train/cli/output_file.h"
#include "train/plot/gnuplot.h"
#include "train/plot/plot_positions.h"
#include "train/positions.h"
#include "train/train_state.h"

static const char ABOUT[] =
    "Draws what a checkpoint's positional encoding is, for positions 0 .. N-1 (beyond the\n"
    "training length too), as heatmaps with gnuplot:\n"
    "  position x dimension: PE(p) for sinusoidal, learned and floater; cos(p*theta_i) per\n"
    "    rotary pair for rope; the bias -m_h*p per head for alibi\n"
    "  position x position: the cosine of PE(i) and PE(j); for rope the mean over pairs of\n"
    "    cos((j-i)*theta_i); for alibi the score bias a query at i gives a key at j (mean over heads)\n"
    "  with model.attn_rel_clip, a third: layer 0's relative score bias (mean over heads).\n"
    "A learned table without pos_overflow: clamp stops at its max_len. Dashed lines mark\n"
    "data.max_train_len when the model was trained with one. The gnuplot script, with the\n"
    "matrices in it, is written beside the image (FILE.gp).\n";

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
    const qkv_cli_spec spec = {"positions", ABOUT, NULL, rows, QKV_CLI_N(rows)};
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
        fprintf(stderr, "qkv: %s\n", err.msg);
        goto done;
    }
    printf("%s\n", out);
    status = 0;
done:
    qkv_position_pictures_free(&pp);
    qkv_session_free(&s);
    return status;
}
