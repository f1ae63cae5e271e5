/* qkv eval CHECKPOINT FILE [--json] [--by-length] [--logits OUT.h5] [--profile] */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/profile.h"
#include "lib/threads.h"
#include "train/cli/cli.h"
#include "train/cli/command.h"
#include "train/cli/commands.h"
#include "train/cli/eval_logits.h"
#include "train/cli/eval_raw.h"
#include "train/evaluate.h"
#include "train/cli/output_file.h"
#include "train/profile_table.h"
#include "train/task_report.h"
#include "train/report.h"
#include "train/seg_eval.h"
#include "train/span_eval.h"
#include "train/train_state.h"

static const char ABOUT[] =
    "Tags FILE (read with the checkpoint's data settings) and compares with its gold tags:\n"
    "accuracy, per-tag precision/recall/F1, the most frequent confusions, words per second;\n"
    "with span tags (O, B-/I-/E-/S-type) also entity-level precision/recall/F1, overall and per\n"
    "type (a span counts when its type and both ends match; chunks read as conlleval reads them).\n"
    "A gold tag never seen in training counts as an error (with one warning); a word whose\n"
    "gold tag is _ (no tag) is tagged but not scored (counted in the report). A model of several\n"
    "columns (data.tags a list) adds each head's accuracy and the CoNLL 2018 shared task's UPOS,\n"
    "XPOS, UFeats, AllTags and Lemmas scores (gold tokenization; the table is the first column's);\n"
    "a parser adds UAS and LAS (full DEPREL labels) and the shared task's UAS, LAS (universal\n"
    "DEPREL), and with UPOS, FEATS and LEMMA heads MLAS and BLEX.\n";

/* The options of qkv eval. */
typedef struct eval_args {
    const char *ckpt, *file, *logits_path, *tokenizer, *confusion;
    bool json, by_length, force, profile, raw;
    long threads; /* --threads; -1: the model's */
} eval_args;

/* Parses argv into a and checks the options together; returns -1 (go on) or the exit status. */
static int parse_args(eval_args *a, int argc, char **argv)
{
    const qkv_cli_opt rows[] = {
        {"CHECKPOINT", QKV_CLI_STRING, &a->ckpt, .required = true},
        {"FILE", QKV_CLI_STRING, &a->file, .required = true},
        {"--json", QKV_CLI_FLAG, &a->json, NULL, "one JSON object on stdout instead of the text report"},
        {"--by-length", QKV_CLI_FLAG, &a->by_length, NULL,
         "also accuracy per sentence length (1-10, 11-20, 21-40, 41+ words)"},
        {"--logits", QKV_CLI_STRING, &a->logits_path, "OUT.h5",
         "also write every word's scores to the HDF5 file OUT.h5 in file order (for\n"
         "parity checks): a tagger of one column /logits float32 [words, tags] and\n"
         "/pred int64 [words]; a parser or several columns, per column C\n"
         "/heads/C/logits and /heads/C/pred, a parser's arc scores /heads/deprel/arcs\n"
         "(each sentence's [n, n+1] block at arc_offsets), pred_heads, and label\n"
         "logits of the predicted and of the gold arc, labels and gold_labels"},
        {"--confusion", QKV_CLI_STRING, &a->confusion, "OUT.png",
         "also draw the confusion matrix (gold x predicted tag or class, each row's\n"
         "fraction) as a heatmap OUT.png or OUT.svg, its gnuplot script beside it"},
        {"--force", QKV_CLI_FLAG, &a->force, NULL, "replace OUT.h5, OUT.png and OUT.gp if they exist (never CHECKPOINT\nor FILE)"},
        QKV_PROFILE_OPTION_ROW(&a->profile),
        QKV_THREADS_OPTION_ROW(&a->threads),
        {"--raw", QKV_CLI_FLAG, &a->raw, NULL,
         "tag FILE's raw text instead (its # text lines) and score tokens,\n"
         "sentences, words and UPOS (and the other columns; a parser's UAS, LAS,\n"
         "MLAS, BLEX) against FILE as the CoNLL 2018 shared task does (aligned\n"
         "by characters), with the segmenter CHECKPOINT bundles (data.segmenter,\n"
         "qkv export --tokenizer) unless --tokenizer names one"},
        {"--tokenizer", QKV_CLI_STRING, &a->tokenizer, "SEG.h5",
         "with --raw: the segmenter (data.task: segment, or a model file that\n"
         "bundles one: its segmenter) that splits the text of each paragraph\n"
         "into sentences, tokens and multiword tokens;\n"
         "whitespace: none, a # text line is a sentence of whitespace-separated\n"
         "tokens"},
    };
    const qkv_cli_spec spec = {"eval", ABOUT, NULL, rows, QKV_CLI_N(rows)};
    int usage = qkv_cli_parse(&spec, argc, argv);
    if (usage >= 0)
        return usage;
    qkv_cmd_threads(a->threads);
    if (a->tokenizer && !a->raw) {
        fprintf(stderr, "qkv eval: --tokenizer needs --raw\n");
        return 2;
    }
    if (a->raw && (a->logits_path || a->by_length || a->profile || a->confusion)) {
        fprintf(stderr, "qkv eval: --raw goes with --tokenizer and --json only\n");
        return 2;
    }
    return -1;
}

/* The model of a->ckpt and the scored corpus a->file into s (the two profile rows). */
static int load(qkv_session *s, const eval_args *a)
{
    int prof = qkv_profile_begin("checkpoint loading", QKV_PROF_WHOLE);
    int failed = qkv_cmd_load_model(s, a->ckpt);
    qkv_profile_end(prof);
    if (failed)
        return 1;
    prof = qkv_profile_begin("data loading", QKV_PROF_WHOLE);
    failed = qkv_cmd_read_scored(s, a->file);
    qkv_profile_end(prof);
    if (failed)
        return 1;
    qkv_report_warnings(s);
    if (qkv_dataset_n_words(&s->dev) == 0)
        return qkv_fail_reportf("%s: no words to evaluate", a->file);
    return 0;
}

/* Tags the dev set of s into res (and with --logits every head's scores into *l). */
static int evaluate(qkv_session *s, const eval_args *a, qkv_eval_result *res, qkv_eval_logits *l)
{
    qkv_error err;
    if (a->logits_path && qkv_eval_logits_alloc(l, s, &s->dev, &err))
        return qkv_fail_report(&err);
    qkv_seg_text st = {0};
    int failed = qkv_evaluate_scores(s, &s->dev, s->cfg.data.batch_tokens, res, a->logits_path ? l->heads : NULL,
                                     l->arc_offsets, &err) ||
                 qkv_eval_add_spans(res, &s->fz, &s->dev_c, &s->dev, &err) ||
                 qkv_eval_add_ud_tags(res, s, &s->dev_c, &err) || qkv_seg_eval_read(s, a->file, &st, &err) ||
                 qkv_eval_add_segments(res, &s->fz, &s->seg_lexicon, &s->dev, &st, &err);
    qkv_seg_free(&st);
    if (failed && err.sentence >= 0) /* about one sentence: its file and line */
        return qkv_session_name_sentence(&s->dev_c, &err), qkv_fail_report(&err);
    return failed ? qkv_fail_reportf("%s: %s", a->file, err.msg) : 0;
}

/* --logits: the scores and predictions into a->logits_path. */
static int save_logits(const qkv_session *s, const eval_args *a, const qkv_eval_result *res, const qkv_eval_logits *l)
{
    if (!a->logits_path)
        return 0;
    qkv_error err;
    int prof = qkv_profile_begin("logits writing", QKV_PROF_WHOLE);
    int failed = qkv_eval_logits_write(a->logits_path, l, s, &s->dev, res, &err);
    qkv_profile_end(prof);
    return failed ? qkv_fail_report(&err) : 0;
}

int qkv_cmd_eval(int argc, char **argv)
{
    double wall_start = qkv_profile_clock();
    eval_args a = {.threads = -1};
    int usage = parse_args(&a, argc, argv);
    if (usage >= 0)
        return usage;
    if (a.raw)
        return qkv_eval_raw(a.ckpt, a.file, a.tokenizer, a.json);
    if (a.logits_path &&
        !qkv_output_ok("eval", "--logits", a.logits_path, (const char *[]){a.ckpt, a.file}, 2, a.force, false))
        return 1;
    char script[4300];
    if (a.confusion && !qkv_image_output_ok("eval", "--confusion", a.confusion, script, sizeof script,
                                            (const char *[]){a.ckpt, a.file}, 2, a.force))
        return 1;
    if (a.profile)
        qkv_profile_start();
    qkv_session s;
    qkv_session_init(&s);
    qkv_eval_result res;
    memset(&res, 0, sizeof res);
    qkv_eval_logits logits = {0};
    int status = 1;
    if (load(&s, &a) || evaluate(&s, &a, &res, &logits) || save_logits(&s, &a, &res, &logits))
        goto done;
    int prof = qkv_profile_begin("report", QKV_PROF_WHOLE);
    qkv_cmd_report(&s, a.file, &res, a.json, a.by_length);
    qkv_profile_end(prof);
    qkv_error err;
    if (a.confusion && qkv_cmd_plot_confusion(&s, &res, a.file, a.confusion, &err)) {
        qkv_fail_report(&err);
        goto done;
    }
    const qkv_task_report *task = qkv_task_report_of(&s);
    if (task->scores_after && !a.json && task->scores_after(&s, &s, stdout, &err)) {
        qkv_fail_report(&err);
        goto done;
    }
    status = 0;
done:
    qkv_eval_logits_free(&logits);
    qkv_eval_result_free(&res);
    qkv_session_free(&s);
    if (a.profile && status == 0)
        qkv_profile_print(stderr, "qkv eval", wall_start);
    return status;
}
