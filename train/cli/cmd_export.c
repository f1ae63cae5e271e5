/* qkv export CHECKPOINT --out FILE [--tokenizer SEG.h5] [--lemma-lexicon TRAIN.conllu] [--float16]
 *            [--tree-decoder mst|eisner] [--force] */
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include "api/lemma_lexicon.h"
#include "api/model_file.h"
#include "api/task.h"
#include "api/segmenter.h"
#include "train/cli/command.h"
#include "train/cli/cli.h"
#include "train/cli/commands.h"
#include "train/cli/output_file.h"

static const char ABOUT[] =
    "Writes the model of CHECKPOINT (a run's checkpoints/best.h5 or last.h5) as a file to ship:\n"
    "its weights (under train.ema_decay, the averaged weights qkv eval uses), vocabularies and\n"
    "config, without the optimizer state and the rest of what --resume needs. qkv eval, tag,\n"
    "attention and positions, the C library (include/qkv/qkv.h) and python/qkv_torch.py read\n"
    "it like a checkpoint; qkv train --resume refuses it. With --tokenizer the segmenter goes into\n"
    "FILE too (under /segmenter): qkv tag FILE --format text and the library then tag raw text\n"
    "with it. Written atomically (a temporary file renamed into place): an interrupted export\n"
    "never leaves a half-written FILE. With --float16 the weights are stored as IEEE\n"
    "binary16 (half the size; read back as float32, so predictions may change slightly); a\n"
    "weight beyond its range (+-65504) is an error naming it, as is any weight that is not\n"
    "finite, whether it is exported or loaded. With --lemma-lexicon a model with a lemma head\n"
    "gets the lemma lexicon of a CoNLL-U file (its training file), as training stores one\n"
    "(data.lemma_lexicon_min_count), replacing the one CHECKPOINT holds.\n";

/* s's lemma lexicon built from the CoNLL-U file at path (ckpt names the model in messages);
 * prints what is wrong and returns 1, or 0. */
static int add_lemma_lexicon(qkv_session *s, const char *ckpt, const char *path)
{
    bool has_lemma = false;
    for (int h = 0; h < qkv_featurizer_n_columns(&s->fz); h++)
        has_lemma |= s->fz.columns[h] == QKV_TAG_LEMMA;
    if (!has_lemma || s->cfg.data.lemma_lexicon_min_count <= 0) {
        fprintf(stderr, "qkv: --lemma-lexicon: %s %s\n", ckpt,
                has_lemma ? "has data.lemma_lexicon_min_count 0 (no lexicon)" : "has no lemma head");
        return 1;
    }
    qkv_corpus c;
    qkv_error err;
    memset(&c, 0, sizeof c);
    int status = qkv_corpus_read(&c, path, &QKV_READ_DEFAULTS, &err) || qkv_session_lemma_lexicon_build(s, &c, &err);
    qkv_corpus_free(&c);
    if (status) {
        qkv_fail_report(&err);
        return 1;
    }
    fprintf(stderr, "%s: a lemma lexicon of %zu forms\n", path, s->lemma_lexicon.n);
    return 0;
}

int qkv_cmd_export(int argc, char **argv)
{
    const char *ckpt = NULL, *out = NULL, *tokenizer = NULL, *lexicon = NULL;
    bool force = false, float16 = false;
    int decoder = -1;
    const qkv_cli_opt rows[] = {
        {"CHECKPOINT", QKV_CLI_STRING, &ckpt, .required = true},
        {"--out", QKV_CLI_STRING, &out, "FILE", "the exported model (.h5), required", .required = true},
        {"--tokenizer", QKV_CLI_STRING, &tokenizer, "SEG.h5",
         "a segmenter (data.task: segment) to bundle with the tagger;\n"
         "without it, the segmenter CHECKPOINT bundles (if any) is kept"},
        {"--lemma-lexicon", QKV_CLI_STRING, &lexicon, "FILE",
         "a model with a lemma head: store the lemma lexicon of the\n"
         "CoNLL-U FILE (its training file), data.lemma_lexicon_min_count"},
        {"--float16", QKV_CLI_FLAG, &float16, NULL, "store the weights (the segmenter's too) as float16"},
        {"--tree-decoder", QKV_CLI_CHOICE, &decoder, NULL,
         "a parser: the decoder FILE's trees are read with, mst or eisner\n"
         "(model.tree_decoder; default: CHECKPOINT's): it does not enter\n"
         "training, so it may be chosen on dev after it",
         .choices = QKV_TREE_DECODER_NAMES},
        {"--force", QKV_CLI_FLAG, &force, NULL, "replace FILE if it exists"},
    };
    const qkv_cli_spec spec = {"export", ABOUT, NULL, rows, QKV_CLI_N(rows)};
    int usage = qkv_cli_parse(&spec, argc, argv);
    if (usage >= 0)
        return usage;
    const char *inputs[3] = {ckpt};
    int n_inputs = 1;
    if (tokenizer)
        inputs[n_inputs++] = tokenizer;
    if (lexicon)
        inputs[n_inputs++] = lexicon;
    if (!qkv_output_ok("export", "--out", out, inputs, n_inputs, force, false))
        return 1;
    qkv_error err;
    qkv_session s;
    qkv_tokenizer tk;
    qkv_session_init(&s);
    qkv_session_init(&tk.s);
    int status = 1;
    if (qkv_cmd_load_model(&s, ckpt))
        goto done;
    if (decoder >= 0 && s.cfg.model.output != QKV_OUTPUT_BIAFFINE) {
        fprintf(stderr, "qkv: --tree-decoder is for a parser (model.output biaffine); %s is a %s model\n", ckpt,
                QKV_OUTPUT_NAMES[s.cfg.model.output]);
        goto done;
    }
    if (lexicon && add_lemma_lexicon(&s, ckpt, lexicon))
        goto done;
    if (decoder >= 0)
        s.cfg.model.biaffine.decoder = (qkv_tree_decoder)decoder;
    /* a bundled segmenter: the one given, or the one the checkpoint carries */
    const char *seg_path = tokenizer, *seg_group = NULL;
    if (!seg_path && qkv_model_file_has(ckpt, QKV_SEGMENTER_GROUP)) {
        seg_path = ckpt;
        seg_group = QKV_SEGMENTER_GROUP;
    }
    if (seg_path && qkv_session_task(&s)->segments) {
        fprintf(stderr, "qkv: %s is a segmenter: bundle it with --tokenizer into the export of a tagger\n", ckpt);
        goto done;
    }
    if (seg_path && qkv_tokenizer_load(&tk, seg_path, seg_group, &err)) {
        qkv_fail_report(&err);
        goto done;
    }
    if (qkv_model_file_export(out, &s, seg_path ? &tk.s : NULL, float16, &err)) {
        qkv_fail_report(&err);
        goto done;
    }
    struct stat in_st, out_st;
    if (stat(ckpt, &in_st) == 0 && stat(out, &out_st) == 0)
        fprintf(stderr, "%s: %.1f MB (the checkpoint: %.1f MB)\n", out, (double)out_st.st_size / 1e6,
                (double)in_st.st_size / 1e6);
    status = 0;
done:
    qkv_tokenizer_free(&tk);
    qkv_session_free(&s);
    return status;
}
