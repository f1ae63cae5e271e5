/* qkv attention CHECKPOINT (--sentence TEXT | --image FILE [--index N] [--query ROW,COL|cls]) [--layer L]
 * [--head H|all] [--out FILE] [--size WxH] [--force] */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "train/cli/attention.h"
#include "train/cli/task_cli.h"
#include "train/cli/cli.h"
#include "train/cli/command.h"
#include "train/cli/commands.h"
#include "train/plot/gnuplot.h"
#include "train/cli/output_file.h"
#include "train/attention_picture.h"
#include "train/train_state.h"

static const char ABOUT[] =
    "Runs the model on one sentence (words separated by spaces) and draws the attention\n"
    "weights P of one layer as a heatmap with gnuplot: rows are queries (labelled with the\n"
    "word and its predicted tag), columns are keys. Keys a query does not see (outside\n"
    "model.attn_window, or later words with model.attn_causal) are masked: grey cells. The\n"
    "image grows with the sentence (a cell and a label per word). A parser (model.output\n"
    "biaffine) labels the queries with their predicted DEPREL and adds a panel: the\n"
    "probability of each candidate head (ROOT or a word) of each word, the softmax over\n"
    "the word's arc scores.\n"
    "An image model (model.input pixels, patches or conv_patches) draws one image instead\n"
    "(--image and --index; default: the first image of the model's own data): the image,\n"
    "then for each head where one query (--query ROW,COL of the grid, or cls; default: the\n"
    "[CLS] token, or the grid's centre) attends, in red over the image, its weight to [CLS]\n"
    "in the title.\n"
    "A model of speech frames is refused. The gnuplot script, with the weights in it (-1 for\n"
    "masked), is written beside the image (FILE.gp).\n";

/* Larger heatmaps are unreadable, and gnuplot takes minutes to draw one of 1,000 words. */
#define QKV_ATTENTION_MAX_WORDS 200

/* The sentence as one CoNLL-U sentence (tokens split on blanks); *n_words its length. */
static char *sentence_conllu(const char *text, size_t *len, int *n_words)
{
    char *out = NULL;
    FILE *f = open_memstream(&out, len);
    if (!f)
        return NULL;
    int id = 0;
    const char *p = text;
    while (*p) {
        while (*p && strchr(" \t\r\n", *p))
            p++;
        const char *start = p;
        while (*p && !strchr(" \t\r\n", *p))
            p++;
        if (p > start)
            fprintf(f, "%d\t%.*s\t_\t_\t_\t_\t_\t_\t_\t_\n", ++id, (int)(p - start), start);
    }
    fputc('\n', f);
    fclose(f);
    *n_words = id;
    return out;
}

/* Parses argv into a (--head, --size checked); returns -1 (go on) or the exit status. */
static int parse_args(attention_args *a, int argc, char **argv)
{
    const char *head_arg = "all", *size = NULL;
    long layer_arg = -1;
    a->index = -1;
    const qkv_cli_opt rows[] = {
        {"CHECKPOINT", QKV_CLI_STRING, &a->ckpt, .required = true},
        {"--sentence", QKV_CLI_STRING, &a->sentence, "TEXT",
         "the sentence, e.g. \"The old man the boats .\" (a model of words)"},
        {"--image", QKV_CLI_STRING, &a->image, "FILE",
         "IDX images (an image model; default: its data.dev, else data.train)"},
        {"--index", QKV_CLI_INT, &a->index, "N", "the image of FILE, 0-based (default 0)", .lo = 0, .hi = INT_MAX},
        {"--query", QKV_CLI_STRING, &a->query, "ROW,COL|cls",
         "the query token of an image: a cell of the model's grid,\n0-based, or the [CLS] token (default: [CLS], "
         "else the\ncentre)"},
        {"--layer", QKV_CLI_INT, &layer_arg, "L", "encoder block, 0-based (default: the last)", .lo = 0,
         .hi = INT_MAX},
        {"--head", QKV_CLI_STRING, &head_arg, "H|all",
         "one head, 0-based, or every head of the layer in a grid (default: all)"},
        {"--out", QKV_CLI_STRING, &a->out_arg, "FILE", ".png or .svg (default: attention.png)"},
        {"--size", QKV_CLI_STRING, &size, "WxH", "the image in pixels, e.g. 1600x1600 (default: sized to the sentence)"},
        {"--force", QKV_CLI_FLAG, &a->force, NULL, "replace FILE (and FILE.gp) if it exists"},
    };
    const qkv_cli_spec spec = {"attention", ABOUT, NULL, rows, QKV_CLI_N(rows)};
    int usage = qkv_cli_parse(&spec, argc, argv);
    if (usage >= 0)
        return usage;
    a->out = a->out_arg ? a->out_arg : "attention.png";
    a->layer = (int)layer_arg;
    a->head = -1;
    if (a->sentence && a->image)
        return qkv_cli_usage_error(&spec, "--sentence and --image: give one (a sentence to a model of words, an "
                                   "image to an image model)");
    long head = -1;
    if (strcmp(head_arg, "all") && !qkv_cli_whole(head_arg, strlen(head_arg), 0, INT_MAX, &head))
        return qkv_cli_usage_error(&spec, "--head is a head number from 0 or 'all', not '%s'", head_arg);
    a->head = (int)head;
    if (a->query && strcmp(a->query, "cls") && !qkv_cli_wholes(a->query, ',', 2, INT_MIN, INT_MAX, a->query_rc))
        return qkv_cli_usage_error(&spec, "--query is ROW,COL of the model's grid (e.g. 3,4) or cls, not '%s'",
                                   a->query);
    if (size && !qkv_image_size_parse(size, &a->width, &a->height))
        return qkv_cli_usage_error(
            &spec, "--size is WIDTHxHEIGHT in pixels (16..20000), e.g. 1600x1600, not '%s'", size);
    return -1;
}

/* --sentence as CoNLL-U into *conllu (*len bytes): it has 1 to QKV_ATTENTION_MAX_WORDS words. */
static int sentence_text(const attention_args *a, char **conllu, size_t *len)
{
    int n_words = 0;
    if (!(*conllu = sentence_conllu(a->sentence, len, &n_words)))
        return qkv_fail_reportf("out of memory");
    if (n_words == 0) {
        fprintf(stderr, "qkv attention: --sentence has no words\n");
        return 1;
    }
    if (n_words > QKV_ATTENTION_MAX_WORDS) {
        fprintf(stderr, "qkv attention: --sentence has %d words; a heatmap shows at most %d\n", n_words,
                QKV_ATTENTION_MAX_WORDS);
        return 1;
    }
    return 0;
}

/* A model of words takes --sentence, and none of the image options. */
static int check_words(const qkv_session *s, const attention_args *a)
{
    const char *image_opt = a->image ? "--image" : a->index >= 0 ? "--index" : a->query ? "--query" : NULL;
    if (image_opt) {
        fprintf(stderr, "qkv attention: %s is for an image model; %s reads words (model.input %s): give --sentence "
                "TEXT\n", image_opt, a->ckpt, QKV_INPUT_KIND_NAMES[s->model.cfg.input_kind]);
        return 1;
    }
    if (!a->sentence) {
        fprintf(stderr, "qkv attention: missing --sentence TEXT: %s reads words\n", a->ckpt);
        return 1;
    }
    size_t len;
    char *conllu = NULL;
    int status = sentence_text(a, &conllu, &len);
    free(conllu);
    return status;
}

/* The sentence as the dev set of s, run through the model and drawn into a->out. */
static int draw_words(qkv_session *s, const attention_args *a)
{
    qkv_error err;
    size_t len;
    char *conllu = NULL;
    if (sentence_text(a, &conllu, &len))
        return 1;
    qkv_read_opts opts = QKV_READ_DEFAULTS;
    opts.format = QKV_FORMAT_CONLLU;
    opts.tag_field = s->cfg.data.read.tag_field;
    int failed = qkv_corpus_read_mem(&s->dev_c, conllu, len, "--sentence", &opts, &err) ||
                 qkv_dataset_encode(&s->dev, &s->fz, &s->dev_c, NULL, &err) ||
                 qkv_session_check_lengths(s, &s->dev_c, &s->dev, false, &err) ||
                 qkv_attention_picture_draw(s, &(qkv_attention_picture){QKV_ATTENTION_MAX_WORDS, a->layer, a->head,
                                                                        a->width, a->height},
                                            a->out, &err);
    free(conllu);
    return failed ? qkv_fail_report(&err) : 0;
}

static int refuse_frames(const qkv_session *s, const attention_args *a)
{
    fprintf(stderr, "qkv attention: %s reads speech frames (model.input %s); qkv attention draws a sentence of words "
            "(--sentence) or an image (--image), not frames\n", a->ckpt, QKV_INPUT_KIND_NAMES[s->model.cfg.input_kind]);
    return 1;
}

/* What qkv attention draws of a model of words, and of speech frames (attention.h). */
const attention_source qkv_attention_words = {"words", check_words, draw_words};
const attention_source qkv_attention_frames = {"speech frames", refuse_frames, NULL};

/* The model has attention, and a layer and head as --layer and --head ask (a->layer -1: the
 * last layer, set here). */
static int check_model(const qkv_session *s, attention_args *a)
{
    if (s->model.cfg.encoder_kind != QKV_ENCODER_TRANSFORMER)
        return qkv_fail_reportf("%s: the model's encoder is %s, which has no attention weights (only model.encoder: "
                                "transformer has)", a->ckpt, QKV_ENCODER_KIND_NAMES[s->model.cfg.encoder_kind]);
    int n_layers = qkv_network_n_layers(&s->model), n_heads = qkv_network_n_heads(&s->model);
    if (n_layers == 0)
        return qkv_fail_reportf("%s: the model has no encoder layers, hence no attention", a->ckpt);
    if (a->layer < 0)
        a->layer = n_layers - 1;
    if (a->layer >= n_layers) {
        fprintf(stderr, "qkv attention: --layer %d: the model has layers 0..%d\n", a->layer, n_layers - 1);
        return 1;
    }
    if (a->head >= n_heads) {
        fprintf(stderr, "qkv attention: --head %d: the model has heads 0..%d\n", a->head, n_heads - 1);
        return 1;
    }
    return 0;
}

int qkv_cmd_attention(int argc, char **argv)
{
    attention_args a = {0};
    int usage = parse_args(&a, argc, argv);
    if (usage >= 0)
        return usage;
    char script[4300];
    if (!qkv_image_output_ok("attention", a.out_arg ? "--out" : NULL, a.out, script, sizeof script, &a.ckpt, 1,
                             a.force))
        return 1;
    qkv_session s;
    qkv_session_init(&s);
    int status = 1;
    if (qkv_cmd_load_model(&s, a.ckpt))
        goto done;
    const attention_source *src = qkv_task_cli_of(&s)->attention;
    if (src->check(&s, &a) || check_model(&s, &a) || src->draw(&s, &a))
        goto done;
    printf("%s\n", a.out);
    status = 0;
done:
    qkv_session_free(&s);
    return status;
}
