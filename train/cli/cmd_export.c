/* qkv export CHECKPOINT --out FILE [--force] */
#include <stdio.h>
#include <sys/stat.h>

#include "api/model_file.h"
#include "train/cli/cli.h"
#include "train/cli/commands.h"
#include "train/cli/output_file.h"

static const char ABOUT[] =
    "Writes the model of CHECKPOINT (a run's checkpoints/best.h5 or last.h5) as a file to ship:\n"
    "its weights (under train.ema_decay, the averaged weights qkv eval uses), vocabularies and\n"
    "config, without the optimizer state and the rest of what --resume needs. qkv eval, tag,\n"
    "attention and positions, the C library (include/qkv/qkv.h) and python/qkv_torch.py read\n"
    "it like a checkpoint; qkv train --resume refuses it. Written atomically (a temporary file\n"
    "renamed into place): an interrupted export never leaves a half-written FILE.\n";

int qkv_cmd_export(int argc, char **argv)
{
    const char *ckpt = NULL, *out = NULL;
    bool force = false;
    const qkv_cli_opt rows[] = {
        {"CHECKPOINT", QKV_CLI_STRING, &ckpt, .required = true},
        {"--out", QKV_CLI_STRING, &out, "FILE", "the exported model (.h5), required", .required = true},
        {"--force", QKV_CLI_FLAG, &force, NULL, "replace FILE if it exists"},
    };
    const qkv_cli_spec spec = {"export", ABOUT, NULL, rows, QKV_CLI_N(rows)};
    int usage = qkv_cli_parse(&spec, argc, argv);
    if (usage >= 0)
        return usage;
    if (!qkv_output_ok("export", "--out", out, &ckpt, 1, force, false))
        return 1;
    qkv_error err;
    qkv_session s;
    qkv_session_init(&s);
    int status = 1;
    if (qkv_checkpoint_load_model(ckpt, &s, &err) || qkv_model_file_export(out, &s, &err)) {
        fprintf(stderr, "qkv: %s\n", err.msg);
        goto done;
    }
    struct stat in_st, out_st;
    if (stat(ckpt, &in_st) == 0 && stat(out, &out_st) == 0)
        fprintf(stderr, "%s: %.1f MB (the checkpoint: %.1f MB)\n", out, (double)out_st.st_size / 1e6,
                (double)in_st.st_size / 1e6);
    status = 0;
done:
    qkv_session_free(&s);
    return status;
}
