/* qkv eval CHECKPOINT FILE [--json] [--by-length] [--logits OUT.h5] [--profile] */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/io/checkpoint.h"
#include "lib/profile.h"
#include "lib/threads.h"
#include "train/cli/cli.h"
#include "train/cli/commands.h"
#include "train/cli/eval_raw.h"
#include "train/evaluate.h"
#include "train/cli/output_file.h"
#include "train/profile_table.h"
#include "train/report.h"
#include "train/span_eval.h"
#include "train/train_state.h"

static const char ABOUT[] =
    "Tags FILE (read with the checkpoint's data settings) and compares with its gold tags:\n"
    "accuracy, per-tag precision/recall/F1, the most frequent confusions, words per second;\n"
    "with span tags (O, B-/I-/E-/S-type) also entity-level precision/recall/F1, overall and per\n"
    "type (a span counts when its type and both ends match; chunks read as conlleval reads them).\n"
    "A gold tag never seen in training counts as an error (with one warning); a word whose\n"
    "gold tag is _ (no tag) is tagged but not scored (counted in the report).\n";

/* /logits [n_words, n_tags] and /pred [n_words] of res into path (a qkv HDF5 container). */
static int write_logits(const char *path, const qkv_eval_result *res, const qkv_real *logits, int n_words,
                        qkv_error *err)
{
    int64_t *pred = malloc((size_t)(n_words ? n_words : 1) * sizeof *pred);
    if (!pred)
        return qkv_fail(err, "out of memory for %d predictions", n_words);
    for (int w = 0; w < n_words; w++)
        pred[w] = res->pred[w];
    qkv_ckpt_writer *w;
    int status = qkv_ckpt_create(path, &w, err);
    if (status == QKV_OK) {
        if (qkv_ckpt_write_real(w, "/logits", 2, (int[]){n_words, res->n_tags}, logits, err) ||
            qkv_ckpt_write_i64_array(w, "/pred", (size_t)n_words, pred, err)) {
            qkv_ckpt_abort(w);
            status = QKV_ERR;
        } else {
            status = qkv_ckpt_commit(w, err);
        }
    }
    free(pred);
    return status;
}

int qkv_cmd_eval(int argc, char **argv)
{
    double wall_start = qkv_profile_clock();
    const char *ckpt = NULL, *file = NULL, *logits_path = NULL, *tokenizer = NULL;
    bool json = false, by_length = false, force = false, profile = false, raw = false;
    const qkv_cli_opt rows[] = {
        {"CHECKPOINT", QKV_CLI_STRING, &ckpt, .required = true},
        {"FILE", QKV_CLI_STRING, &file, .required = true},
        {"--json", QKV_CLI_FLAG, &json, NULL, "one JSON object on stdout instead of the text report"},
        {"--by-length", QKV_CLI_FLAG, &by_length, NULL,
         "also accuracy per sentence length (1-10, 11-20, 21-40, 41+ words)"},
        {"--logits", QKV_CLI_STRING, &logits_path, "OUT.h5",
         "also write every word's logits to the HDF5 file OUT.h5: /logits float32\n"
         "[words, tags] and /pred int64 [words] in file order (for parity checks)"},
        {"--force", QKV_CLI_FLAG, &force, NULL, "replace OUT.h5 if it exists (never CHECKPOINT or FILE)"},
        QKV_PROFILE_OPTION_ROW(&profile),
        {"--raw", QKV_CLI_FLAG, &raw, NULL,
         "tag FILE's raw text instead (its # text lines) and score tokens,\n"
         "sentences, words and UPOS against FILE as the CoNLL 2018 shared task\n"
         "does (aligned by characters); without --tokenizer a # text line is a\n"
         "sentence of whitespace-separated tokens"},
        {"--tokenizer", QKV_CLI_STRING, &tokenizer, "SEG.h5",
         "with --raw: the segmenter (data.task: segment) that splits the text\n"
         "of each paragraph into sentences, tokens and multiword tokens"},
    };
    const qkv_cli_spec spec = {"eval", ABOUT, NULL, rows, QKV_CLI_N(rows)};
    int usage = qkv_cli_parse(&spec, argc, argv);
    if (usage >= 0)
        return usage;
    if (tokenizer && !raw) {
        fprintf(stderr, "qkv eval: --tokenizer needs --raw\n");
        return 2;
    }
    if (raw && (logits_path || by_length || profile)) {
        fprintf(stderr, "qkv eval: --raw goes with --tokenizer and --json only\n");
        return 2;
    }
    if (raw)
        return qkv_eval_raw(ckpt, file, tokenizer, json);
    if (logits_path && !qkv_output_ok("eval", "--logits", logits_path, (const char *[]){ckpt, file}, 2, force, false))
        return 1;
    if (profile)
        qkv_profile_start();
    qkv_session s;
    qkv_session_init(&s);
    qkv_error err;
    qkv_eval_result res;
    memset(&res, 0, sizeof res);
    int status = 1;
    qkv_real *logits = NULL;
    int prof = qkv_profile_begin("checkpoint loading", QKV_PROF_WHOLE);
    int failed = qkv_checkpoint_load_model(ckpt, &s, &err);
    qkv_profile_end(prof);
    prof = qkv_profile_begin("data loading", QKV_PROF_WHOLE);
    failed = failed || qkv_session_read_corpus(&s, &s.dev_c, file, &err) ||
             qkv_dataset_encode(&s.dev, &s.fz, &s.dev_c, &s.warnings, &err) ||
             qkv_dataset_require_tags(&s.dev, &s.dev_c, &err) ||
             qkv_session_check_gold(&s, &s.dev_c, &s.dev, false, &err) ||
             qkv_session_check_lengths(&s, &s.dev_c, &s.dev, false, &err);
    qkv_profile_end(prof);
    if (failed) {
        fprintf(stderr, "qkv: %s\n", err.msg);
        goto done;
    }
    qkv_report_warnings(&s);
    int n_words = qkv_dataset_n_words(&s.dev);
    if (n_words == 0) {
        fprintf(stderr, "qkv: %s: no words to evaluate\n", file);
        goto done;
    }
    qkv_set_threads(s.cfg.train.threads);
    if (logits_path &&
        !(logits = malloc(((size_t)n_words + 1) * (size_t)qkv_featurizer_n_tags(&s.fz) * sizeof *logits))) {
        fprintf(stderr, "qkv: out of memory for the logits of %d words\n", n_words);
        goto done;
    }
    if (qkv_evaluate_logits(&s, &s.dev, s.cfg.data.batch_tokens, &res, logits, &err) ||
        qkv_eval_add_spans(&res, &s.fz, &s.dev_c, &s.dev, &err)) {
        fprintf(stderr, "qkv: %s: %s\n", file, err.msg);
        goto done;
    }
    prof = logits_path ? qkv_profile_begin("logits writing", QKV_PROF_WHOLE) : -1;
    failed = logits_path && write_logits(logits_path, &res, logits, n_words, &err);
    qkv_profile_end(prof);
    if (failed) {
        fprintf(stderr, "qkv: %s\n", err.msg);
        goto done;
    }
    prof = qkv_profile_begin("report", QKV_PROF_WHOLE);
    if (json)
        qkv_report_json(stdout, &s, file, &res, by_length);
    else
        qkv_report_text(stdout, &s, file, &res, by_length);
    qkv_profile_end(prof);
    status = 0;
done:
    free(logits);
    qkv_eval_result_free(&res);
    qkv_session_free(&s);
    if (profile && status == 0)
        qkv_profile_print(stderr, "qkv eval", wall_start);
    return status;
}
