/* qkv eval CHECKPOINT FILE [--json] [--by-length] */
#include <stdio.h>
#include <string.h>

#include "lib/threads.h"
#include "train/cli.h"
#include "train/commands.h"
#include "train/evaluate.h"
#include "train/report.h"
#include "train/train_state.h"

static const char USAGE[] =
    "usage: qkv eval CHECKPOINT FILE [--json] [--by-length]\n"
    "\n"
    "Tags FILE (read with the checkpoint's data settings) and compares with its gold tags:\n"
    "accuracy, per-tag precision/recall/F1, the most frequent confusions, words per second.\n"
    "A gold tag never seen in training counts as an error (with one warning).\n"
    "\n"
    "  --json        one JSON object on stdout instead of the text report\n"
    "  --by-length   also accuracy per sentence length (1-10, 11-20, 21-40, 41+ words)\n";

int qkv_cmd_eval(int argc, char **argv)
{
    const char *ckpt = NULL, *file = NULL;
    bool json = false, by_length = false, bad = false;
    for (int i = 1; i < argc && !bad; i++) {
        if (qkv_cli_is_help(argv[i])) {
            fputs(USAGE, stdout);
            return 0;
        } else if (!strcmp(argv[i], "--json")) {
            json = true;
        } else if (!strcmp(argv[i], "--by-length")) {
            by_length = true;
        } else if (argv[i][0] == '-' && argv[i][1]) {
            fprintf(stderr, "qkv eval: unknown option '%s'\n", argv[i]);
            bad = true;
        } else if (!ckpt) {
            ckpt = argv[i];
        } else if (!file) {
            file = argv[i];
        } else {
            fprintf(stderr, "qkv eval: unexpected argument '%s'\n", argv[i]);
            bad = true;
        }
    }
    if (!bad && (!ckpt || !file)) {
        fprintf(stderr, "qkv eval: needs CHECKPOINT and FILE\n");
        bad = true;
    }
    if (bad) {
        fputs(USAGE, stderr);
        return 2;
    }
    qkv_session s;
    qkv_session_init(&s);
    qkv_error err;
    qkv_eval_result res;
    memset(&res, 0, sizeof res);
    int status = 1;
    if (qkv_checkpoint_load_model(ckpt, &s, &err) || qkv_session_read_corpus(&s, file, &s.dev_c, &err) ||
        qkv_dataset_encode(&s.dev, &s.fz, &s.dev_c, &s.warnings, &err)) {
        fprintf(stderr, "qkv: %s\n", err.msg);
        goto done;
    }
    qkv_report_warnings(&s);
    qkv_set_threads(s.cfg.train.threads);
    if (qkv_evaluate(&s, &s.dev, s.cfg.data.batch_tokens, &res, &err)) {
        fprintf(stderr, "qkv: %s: %s\n", file, err.msg);
        goto done;
    }
    if (json)
        qkv_report_json(stdout, &s, file, &res, by_length);
    else
        qkv_report_text(stdout, &s, file, &res, by_length);
    status = 0;
done:
    qkv_eval_result_free(&res);
    qkv_session_free(&s);
    return status;
}
