/* qkv parse-draw CHECKPOINT --sentence TEXT [--out FILE] [--force] */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "api/run_iter.h"
#include "models/biaffine_head.h"
#include "train/cli/cli.h"
#include "train/cli/command.h"
#include "train/cli/commands.h"
#include "train/cli/output_file.h"
#include "train/plot/gnuplot.h"
#include "train/plot/plot_tree.h"

static const char ABOUT[] =
    "Parses one sentence (words separated by spaces) with a parser (model.output: biaffine)\n"
    "and draws its tree with Graphviz's dot: ROOT on top, each word below its head, each arc\n"
    "labelled with its DEPREL and the probability the parser gives that head (the softmax\n"
    "over the word's row of arc scores). The DOT file is written beside the image (FILE.dot).\n";

typedef struct draw_args {
    const char *ckpt, *sentence, *out;
    bool force;
} draw_args;

/* The probability of each word's chosen head: the softmax over its row's columns 0..n. */
static void arc_probs(const qkv_tensor *s, int n, const int32_t *arcs, double *probs)
{
    const int C = s->shape[1];
    for (int t = 0; t < n; t++) {
        const qkv_real *row = s->data + (size_t)t * C;
        double mx = row[0], sum = 0;
        for (int j = 1; j <= n; j++)
            mx = row[j] > mx ? row[j] : mx;
        for (int j = 0; j <= n; j++)
            sum += exp((double)row[j] - mx);
        probs[t] = exp((double)row[arcs[t]] - mx) / sum;
    }
}

/* Parses the one sentence of s->dev into arcs, labels and probs ([n] each). */
static int parse(qkv_session *s, int32_t *arcs, const char **labels, double *probs, qkv_error *err)
{
    int n = qkv_dataset_n_words(&s->dev);
    qkv_run_iter it;
    int status = qkv_run_iter_init(&it, &s->dev, n, true, err);
    if (status == QKV_OK)
        status = qkv_run_iter_plan(&it, NULL, err);
    if (status == QKV_OK)
        status = qkv_run_iter_fill(&it, 0, err);
    qkv_tensor *x = status == QKV_OK ? qkv_run_iter_logits(&it, &s->model, -1, NULL, err) : NULL;
    int32_t *pred = x ? qkv_tape_alloc(&it.tp, (size_t)n * sizeof *pred) : NULL;
    double loss_unused = 0;
    if (status == QKV_OK && !pred)
        status = x ? qkv_fail(err, "out of memory") : QKV_ERR;
    if (status == QKV_OK)
        status = qkv_network_head_predict(&it.tp, &s->model, 0, x, it.in.sentences, NULL,
                                         &(qkv_prediction){pred, arcs, &loss_unused, NULL}, err);
    qkv_tensor *scores = status == QKV_OK ? qkv_biaffine_head_arcs(&it.tp, qkv_network_head(&s->model, 0), x,
                                                                   it.in.sentences)
                                          : NULL;
    if (status == QKV_OK && !scores)
        status = qkv_fail(err, "%s", it.tp.err.msg);
    if (status == QKV_OK) {
        arc_probs(scores, n, arcs, probs);
        for (int w = 0; w < n; w++)
            labels[w] = qkv_featurizer_tag(&s->fz, pred[w]);
    }
    qkv_run_iter_free(&it);
    return status;
}

/* The sentence as s->dev, parsed and drawn into a->out. */
static int read_and_draw(qkv_session *s, const draw_args *a)
{
    qkv_error err;
    if (qkv_corpus_read_text_as(&s->dev_c, a->sentence, strlen(a->sentence), "--sentence",
                                s->cfg.data.read.tag_field, &err) ||
        qkv_dataset_encode(&s->dev, &s->fz, &s->dev_c, NULL, &err) ||
        qkv_session_check_lengths(s, &s->dev_c, &s->dev, false, &err))
        return qkv_fail_report(&err);
    int n = s->dev_c.n_words;
    if (s->dev_c.n_sent != 1 || n == 0)
        return qkv_fail_reportf("--sentence: expected one line of words, found %d lines with words", s->dev_c.n_sent);
    int32_t *arcs = calloc((size_t)n, sizeof *arcs);
    const char **labels = calloc((size_t)n, sizeof *labels), **words = calloc((size_t)n, sizeof *words);
    double *probs = calloc((size_t)n, sizeof *probs);
    int status = arcs && labels && words && probs ? parse(s, arcs, labels, probs, &err) : qkv_fail(&err, "out of memory");
    for (int w = 0; status == QKV_OK && w < n; w++) {
        size_t len;
        const char *form = qkv_corpus_form(&s->dev_c, w, &len);
        if (!(words[w] = strndup(form, len)))
            status = qkv_fail(&err, "out of memory");
    }
    qkv_tree_plot tp = {n, words, labels, arcs, probs};
    if (status == QKV_OK)
        status = qkv_plot_tree(&tp, a->out, &err);
    for (int w = 0; words && w < n; w++)
        free((char *)words[w]);
    free(arcs), free(labels), free(words), free(probs);
    return status ? qkv_fail_report(&err) : 0;
}

int qkv_cmd_parse_draw(int argc, char **argv)
{
    draw_args a = {0};
    const char *out_arg = NULL;
    const qkv_cli_opt rows[] = {
        {"CHECKPOINT", QKV_CLI_STRING, &a.ckpt, .required = true},
        {"--sentence", QKV_CLI_STRING, &a.sentence, "TEXT", "the sentence, e.g. \"The old man the boats .\"",
         .required = true},
        {"--out", QKV_CLI_STRING, &out_arg, "FILE", ".svg or .png (default: tree.svg)"},
        {"--force", QKV_CLI_FLAG, &a.force, NULL, "replace FILE (and FILE.dot) if it exists"},
    };
    const qkv_cli_spec spec = {"parse-draw", ABOUT, NULL, rows, QKV_CLI_N(rows)};
    int usage = qkv_cli_parse(&spec, argc, argv);
    if (usage >= 0)
        return usage;
    a.out = out_arg ? out_arg : "tree.svg";
    char dot_path[4096];
    qkv_tree_dot_path(a.out, dot_path, sizeof dot_path);
    qkv_image_kind kind;
    qkv_error err;
    if (qkv_image_kind_of(a.out, &kind, &err))
        return qkv_fail_report(&err);
    if (!qkv_output_ok("parse-draw", out_arg ? "--out" : NULL, a.out, &a.ckpt, 1, a.force, false) ||
        !qkv_output_ok("parse-draw", NULL, dot_path, &a.ckpt, 1, a.force, false))
        return 1;
    qkv_session s;
    qkv_session_init(&s);
    int status = 1;
    if (qkv_cmd_load_model(&s, a.ckpt))
        goto done;
    if (!qkv_network_parses(&s.model)) {
        qkv_fail_reportf("%s is not a parser (model.output: biaffine): it predicts no tree", a.ckpt);
        goto done;
    }
    if (read_and_draw(&s, &a))
        goto done;
    printf("%s\n", a.out);
    status = 0;
done:
    qkv_session_free(&s);
    return status;
}
