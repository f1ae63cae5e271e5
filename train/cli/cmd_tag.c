/* qkv tag [MODEL] [FILE|-] [--model MODEL] [--format conllu|text] [--scheme S] (MODEL: a checkpoint or a
 * `qkv export`; none: the shipped English model, api/model_find.h) */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "data/audio.h"
#include "data/segment.h"
#include "data/textfile.h"
#include "train/cli/cli.h"
#include "train/cli/command.h"
#include "train/cli/commands.h"
#include "api/model_file.h"
#include "api/model_find.h"
#include "api/predict.h"
#include "qkv/qkv.h"
#include "train/cli/output_file.h"
#include "train/cli/tag_raw.h"
#include "train/cli/task_cli.h"
#include "train/report.h"
#include "train/span_eval.h"
#include "train/train_state.h"

static const char ABOUT[] =
    "Writes FILE (default: standard input) to standard output with predicted tags.\n"
    "Span tags (a model whose tags are all O, B-, I-, E-, S- and a type) are written in\n"
    "one scheme: --scheme, else the scheme of FILE's own tags (BIOES when it has E-/S-\n"
    "tags, IOB1 when more chunks start with I- than B-, else BIO; BIO for a file of \"_\"\n"
    "tags; a file with chunks ending in E-/S- and others in B-/I- is an error naming the\n"
    "line of the first of the fewer kind), and BIO for --format text.\n"
    "With an image model (model.input pixels, patches or conv_patches) FILE is an IDX\n"
    "image file and each image gets one line: its class and the class's probability.\n"
    "With a frame model (data.task frames, speech) FILE is a frame corpus (HDF5, made by\n"
    "qkv speech) and each utterance, of every voice, gets a line \"# utterance U, voice V:\n"
    "TEXT\", then one line per run of equal predicted labels: START, END (seconds) and the\n"
    "label, TAB-separated (--per-frame: a line per token, START and its label), then a\n"
    "blank line. Any other FILE is a recording (WAV, FLAC or another format libsndfile\n"
    "reads; 22050 Hz, the rate of qkv speech's corpora; channels mixed down): one line\n"
    "\"# recording FILE: SECONDS s at 22050 Hz\", then its runs as above, the last ending\n"
    "at the end of the recording, then a blank line.\n"
    "Without CHECKPOINT (and --model) the model is $QKV_MODEL, else the shipped English\n"
    "model (en.h5: UD English-EWT, segmenter, UPOS, XPOS, FEATS, LEMMA, trees) from\n"
    "$QKV_MODEL_DIR, ../share/qkv/models or ../data/models beside the qkv program (an\n"
    "install's bin/, a build folder in the source tree), or the install's share/qkv/models;\n"
    "FILE is then raw text unless --format conllu (one argument that is not a model file is\n"
    "FILE). The input format follows how the model is named: CoNLL-U with CHECKPOINT, raw\n"
    "text with --model, $QKV_MODEL or the shipped model; --format chooses either way:\n"
    "  echo \"Some raw text. Another sentence!\" | qkv tag\n";

/* The reader failed on err's "NAME:LINE:": when that line and every line before it has no TAB,
 * the input is plain text given without --format text, and err says so instead. */
static void plain_text_hint(const char *input, size_t len, const char *name, qkv_error *err)
{
    size_t n = strlen(name);
    char *end;
    if (strncmp(err->msg, name, n) || err->msg[n] != ':')
        return;
    long line = strtol(err->msg + n + 1, &end, 10);
    if (end == err->msg + n + 1 || *end != ':' || line < 1)
        return;
    const char *p = input, *stop = input + len;
    for (long l = 1; l <= line && p < stop; l++) {
        const char *eol = memchr(p, '\n', (size_t)(stop - p));
        if (!eol)
            eol = stop;
        if (memchr(p, '\t', (size_t)(eol - p)))
            return;
        p = eol + 1;
    }
    qkv_fail(err, "%s:%ld: this looks like plain text (no TAB-separated fields): use --format text to tag a "
                  "sentence a line",
             name, line);
}

/* The options of qkv tag. */
typedef struct tag_args {
    const char *ckpt, *file, *tokenizer, *model;
    char found[4096];      /* the default model's path, when neither CHECKPOINT nor --model */
    bool text;             /* --format text, or raw text by default (parse_args) */
    bool text_by_default;  /* text without --format text: a task that reads no text reads its own */
    bool per_frame;        /* --per-frame */
    bool per_line;         /* --sentence-per-line */
    qkv_tag_scheme scheme; /* --scheme; NONE: auto */
    long threads;          /* --threads; -1: the model's */
    long max_words;        /* --max-words; -1: not given (QKV_MAX_WORDS) */
    long max_seconds;      /* --max-seconds; -1: not given (QKV_AUDIO_MAX_SECONDS) */
} tag_args;

/* Whether path begins as a model file does (a qkv checkpoint's header or HDF5's signature). */
static bool store_file(const char *path)
{
    static const char qkv_header[] = "qkv-checkpoint\n", hdf5[] = "\211HDF\r\n\032\n";
    char head[16] = {0};
    FILE *f = fopen(path, "rb");
    if (!f)
        return false;
    size_t got = fread(head, 1, sizeof head, f);
    fclose(f);
    return (got >= sizeof qkv_header - 1 && !memcmp(head, qkv_header, sizeof qkv_header - 1)) ||
           (got >= sizeof hdf5 - 1 && !memcmp(head, hdf5, sizeof hdf5 - 1));
}

/* The model and the input of a (CHECKPOINT, FILE, --model; the default model when none is
 * named) into a->ckpt and a->file; *named_first: the model is the positional CHECKPOINT. Returns
 * -1 (go on) or the exit status. */
static int resolve_model(tag_args *a, bool *named_first)
{
    if (a->model && a->ckpt && a->file) {
        fprintf(stderr, "qkv tag: --model and CHECKPOINT both name a model: give one\n");
        return 2;
    }
    *named_first = a->ckpt && !a->model;
    if (a->model) { /* the one positional argument is FILE */
        a->file = a->ckpt;
        a->ckpt = a->model;
    }
    if (a->ckpt && !a->file && !a->model && !qkv_model_file_has(a->ckpt, "") && !store_file(a->ckpt)) {
        /* one argument, not a model (a damaged model stays CHECKPOINT: its error is the one to see) */
        a->file = a->ckpt;
        a->ckpt = NULL;
        *named_first = false;
    }
    if (!a->ckpt) {
        qkv_error err;
        if (qkv_model_find_default(a->found, sizeof a->found, &err)) {
            fprintf(stderr, "qkv tag: no model given, and %s\n", err.msg);
            return 1;
        }
        a->ckpt = a->found;
    }
    return -1;
}

/* After the options: the model and the input (resolve_model), and whether FILE is read as
 * text (format: -1 not given, 0 conllu, 1 text). Returns -1 (go on) or the exit status. */
static int settle_input(tag_args *a, int format)
{
    bool named_first; /* CHECKPOINT, not --model, $QKV_MODEL or the shipped model */
    int status = resolve_model(a, &named_first);
    if (status >= 0)
        return status;
    if (a->per_line && format == 0) {
        fprintf(stderr, "qkv tag: --sentence-per-line reads raw text, not --format conllu\n");
        return 2;
    }
    /* without --format: raw text for a model named by --model, $QKV_MODEL or the shipped one */
    a->text_by_default = format < 0 && !named_first && !a->per_line && !a->tokenizer;
    a->text = format == 1 || a->per_line || (format < 0 && !named_first);
    if (a->tokenizer && !a->text) {
        fprintf(stderr, "qkv tag: --tokenizer needs --format text (it segments raw text)\n");
        return 2;
    }
    if (!a->file)
        a->file = "-";
    return -1;
}

/* Parses argv into a and checks the options together; returns -1 (go on) or the exit status. */
static int parse_args(tag_args *a, int argc, char **argv)
{
    static const char *const FORMATS[] = {"conllu", "text", NULL};
    static const char *const SCHEMES[] = {"auto", "bio", "iob1", "bioes", NULL}; /* = qkv_tag_scheme */
    int format = -1, scheme = 0;
    const qkv_cli_opt rows[] = {
        {"CHECKPOINT", QKV_CLI_STRING, &a->ckpt},
        {"FILE", QKV_CLI_STRING, &a->file, "FILE|-"},
        {"--model", QKV_CLI_STRING, &a->model, "MODEL",
         "the model (a checkpoint or export) in place of CHECKPOINT: the one\n"
         "positional argument is then FILE, read as raw text as with the\n"
         "shipped model (--format conllu for CoNLL-U)"},
        {"--format", QKV_CLI_CHOICE, &format, NULL,
         "conllu (default with CHECKPOINT): CoNLL-U in, the same\n"
         "bytes out with the predicted tags in the columns the model was\n"
         "trained on (data.tags: UPOS,\n"
         "XPOS, FEATS, LEMMA; DEPREL and HEAD for a parser: one tree per\n"
         "sentence);\n"
         "text: one sentence per line, tokens separated by spaces; CoNLL-U\n"
         "out (every other byte is in a token; a NUL byte or invalid UTF-8\n"
         "is an error); with --tokenizer or a model that bundles a segmenter:\n"
         "raw text, see there (the default with --model, $QKV_MODEL or the\n"
         "shipped model)",
         .choices = FORMATS},
        {"--tokenizer", QKV_CLI_STRING, &a->tokenizer, "SEG.h5",
         "with --format text: a segmenter (data.task: segment, or a model\n"
         "file that bundles one: its segmenter) splits raw text into\n"
         "sentences, tokens and multiword tokens; paragraphs are\n"
         "separated by blank lines and written as soon as they are tagged,\n"
         "with # sent_id, # text and SpaceAfter=No (without it: whitespace\n"
         "splits tokens, a line is a sentence, unless CHECKPOINT is an\n"
         "export with a bundled segmenter: qkv export --tokenizer)"},
        {"--scheme", QKV_CLI_CHOICE, &scheme, NULL,
         "span tags out in this scheme: auto (default: FILE's own scheme,\n"
         "BIO for --format text), bio, iob1 or bioes (chunks read as\n"
         "conlleval reads them, then written anew); for span-tag models only",
         .choices = SCHEMES},
        {"--sentence-per-line", QKV_CLI_FLAG, &a->per_line, NULL,
         "raw text of one sentence a line (implies --format text): the\n"
         "segmenter splits tokens and multiword tokens but no sentence; a\n"
         "line is a sentence, with or without final punctuation (blank lines\n"
         "still separate paragraphs); needs a segmenter (--tokenizer, or a\n"
         "model that bundles one)"},
        {"--per-frame", QKV_CLI_FLAG, &a->per_frame, NULL,
         "a frame model: one line per token (START and its label) instead\nof one per run of equal labels"},
        {"--max-words", QKV_CLI_INT, &a->max_words, "N",
         "the most words a sentence given as CoNLL-U or --format text may\n"
         "have (default " QKV_CLI_STR(QKV_MAX_WORDS) "; raw text: the segmenter ends a sentence at "
         QKV_CLI_STR(QKV_SEG_MAX_SENTENCE_WORDS) ")",
         .lo = 1, .hi = 1000000000},
        {"--max-seconds", QKV_CLI_INT, &a->max_seconds, "SECONDS",
         "a frame model: the longest recording (an audio file, tagged as one\n"
         "utterance) it tags (default " QKV_CLI_STR(QKV_AUDIO_MAX_SECONDS) "; memory grows with the length)",
         .lo = 1, .hi = 1000000},
        QKV_THREADS_OPTION_ROW(&a->threads),
    };
    const qkv_cli_spec spec = {"tag", ABOUT, NULL, rows, QKV_CLI_N(rows)};
    int usage = qkv_cli_parse(&spec, argc, argv);
    if (usage >= 0)
        return usage;
    qkv_cmd_threads(a->threads);
    _Static_assert(QKV_TAG_SCHEME_BIO == 1 && QKV_TAG_SCHEME_BIOES == 3, "SCHEMES follows qkv_tag_scheme");
    a->scheme = (qkv_tag_scheme)scheme;
    return settle_input(a, format);
}

/* The whole input (a->file, or standard input for "-") into *input, then read as a corpus into
 * s->dev_c (CoNLL-U with the model's data.read, or --format text). */
static int read_input(qkv_session *s, const qkv_tag_request *a, char **input)
{
    qkv_error err;
    size_t len = 0;
    int read_st = strcmp(a->file, "-") ? qkv_text_read(a->file, input, &len, &err)
                                       : qkv_text_read_fd(0, "<stdin>", input, &len, &err);
    if (read_st != QKV_OK)
        return qkv_fail_report(&err);
    qkv_read_opts opts = s->cfg.data.read;
    const char *name = strcmp(a->file, "-") ? a->file : "<stdin>";
    if (a->text ? qkv_corpus_read_text_as(&s->dev_c, *input, len, name, opts.tag_field, &err)
                : qkv_corpus_read_mem(&s->dev_c, *input, len, name, &opts, &err)) {
        if (!a->text)
            plain_text_hint(*input, len, name, &err);
        return qkv_fail_report(&err);
    }
    s->max_words = a->max_words; /* the library's bound on a tagged sentence (api/predict.h) */
    if (qkv_session_check_words(s, &s->dev_c, "; give a larger --max-words to tag it", &err)) {
        qkv_session_name_sentence(&s->dev_c, &err);
        return qkv_fail_report(&err);
    }
    return 0;
}

/* The scheme span tags are written in (tag_args.scheme; NONE for a model without span tags);
 * -1 after an error. */
static int out_scheme(const qkv_session *s, const tag_args *a)
{
    if (!qkv_tags_are_spans(&s->fz)) {
        if (a->scheme == QKV_TAG_SCHEME_NONE)
            return QKV_TAG_SCHEME_NONE;
        qkv_fail_reportf("--scheme %s: the tags of %s are not span tags (O, B-, I-, E-, S- and a type)",
                         QKV_TAG_SCHEME_NAMES[a->scheme], a->ckpt);
        return -1;
    }
    if (a->scheme != QKV_TAG_SCHEME_NONE)
        return a->scheme;
    return a->text ? QKV_TAG_SCHEME_BIO : QKV_TAG_SCHEME_NONE; /* NONE: FILE's own, once read */
}

/* The predicted tag of every word of s->dev_c into *tags (a parser's arcs into *arcs), and when
 * they are span tags the same in scheme (NONE: the file's own) into *out_tags (its strings in
 * *out_buf). */
static int predict(qkv_session *s, qkv_tag_scheme scheme, const char ***tags, int32_t **arcs, const char ***out_tags,
                   char **out_buf)
{
    qkv_error err;
    int n_words = s->dev_c.n_words;
    *tags = malloc((size_t)(n_words ? n_words : 1) * sizeof **tags);
    *arcs = malloc((size_t)(n_words ? n_words : 1) * sizeof **arcs);
    if (!*tags || !*arcs)
        return qkv_fail_reportf("out of memory");
    /* the library's tagging (api/predict.h), as programs using libqkv get it */
    if (qkv_session_parse(s, &s->dev_c, s->cfg.data.batch_tokens, *tags, *arcs, &err))
        return qkv_fail_report(&err);
    qkv_report_warnings(s);
    if (qkv_tags_are_spans(&s->fz) && scheme == QKV_TAG_SCHEME_NONE &&
        qkv_corpus_own_scheme(&s->dev_c, &scheme, &err))
        return qkv_fail_report(&err);
    if (qkv_corpus_tags_in_scheme(&s->dev_c, *tags, scheme, out_buf, out_tags, &err))
        return qkv_fail_report(&err);
    return 0;
}

/* The input with the tags (and a parser's heads in HEAD) on stdout. */
static int write_output(const qkv_session *s, const char **tags, const int32_t *arcs)
{
    qkv_error err;
    if (qkv_corpus_write_parsed(&s->dev_c, stdout, tags, arcs, &err))
        return qkv_fail_reportf("writing the tagged output: %s", err.msg);
    if (fflush(stdout))
        return qkv_fail_reportf("writing the tagged output: %s", strerror(errno));
    return 0;
}

/* A model of several heads (or of lemmas, or a parser): every column it predicts (a parser's
 * HEAD too), written into the input's. */
static int tag_fields(qkv_session *s)
{
    qkv_error err;
    qkv_tagged t;
    if (qkv_session_tag_fields(s, &s->dev_c, s->cfg.data.batch_tokens, &t, &err))
        return qkv_fail_report(&err);
    qkv_report_warnings(s);
    int status = 0;
    if (qkv_corpus_write_fields_parsed(&s->dev_c, stdout, (const char *const *const *)t.values, t.arcs, &err))
        status = qkv_fail_reportf("writing the tagged output: %s", err.msg);
    else if (fflush(stdout))
        status = qkv_fail_reportf("writing the tagged output: %s", strerror(errno));
    qkv_tagged_free(&t);
    return status;
}

/* The input read as CoNLL-U (or text), tagged with one column (and a parser's arcs), written
 * with the tags in the input's scheme or r->scheme. */
static int tag_column(qkv_session *s, const qkv_tag_request *r)
{
    const char **tags = NULL, **file_tags = NULL;
    int32_t *arcs = NULL;
    char *file_tags_buf = NULL, *input = NULL;
    int status = 1;
    if (!read_input(s, r, &input) && !predict(s, r->scheme, &tags, &arcs, &file_tags, &file_tags_buf) &&
        !write_output(s, file_tags ? file_tags : tags, arcs))
        status = 0;
    free(tags);
    free(arcs);
    free(file_tags);
    free(file_tags_buf);
    free(input);
    return status;
}

int qkv_tag_words(qkv_session *s, const qkv_tag_request *r)
{
    if (r->tokenizer)
        return qkv_tag_with_tokenizer(s, r->tokenizer, NULL, r->file, r->scheme, r->per_line);
    if (r->text && qkv_model_file_has(r->ckpt, QKV_SEGMENTER_GROUP))
        return qkv_tag_with_tokenizer(s, r->ckpt, QKV_SEGMENTER_GROUP, r->file, r->scheme, r->per_line);
    if (r->per_line)
        return qkv_fail_reportf("--sentence-per-line needs a segmenter: %s bundles none (give --tokenizer SEG.h5)",
                                r->ckpt);
    if (!qkv_session_predicts_columns(s))
        return tag_column(s, r);
    char *input = NULL;
    int status = read_input(s, r, &input) || tag_fields(s);
    free(input);
    return status;
}

/* The options a task does not take are errors naming what the model reads. */
static int check_options(const qkv_task_cli *task, const qkv_tag_request *r, bool max_words_given,
                         bool max_seconds_given)
{
    if (r->per_frame && !(task->tag_takes & QKV_TAG_TAKES_PER_FRAME))
        return qkv_fail_reportf("--per-frame is for a frame model (data.task frames); %s reads %s", r->ckpt,
                                task->reads);
    if ((r->tokenizer || r->text) && !(task->tag_takes & QKV_TAG_TAKES_TEXT))
        return qkv_fail_reportf("%s reads %s: --format text and --tokenizer are for words", r->ckpt, task->reads_file);
    if (max_words_given && !(task->tag_takes & QKV_TAG_TAKES_TEXT))
        return qkv_fail_reportf("%s reads %s: --max-words is for words", r->ckpt, task->reads_file);
    if (max_seconds_given && !(task->tag_takes & QKV_TAG_TAKES_PER_FRAME))
        return qkv_fail_reportf("%s reads %s: --max-seconds is for a frame model's recordings", r->ckpt,
                                task->reads_file);
    return 0;
}

int qkv_cmd_tag(int argc, char **argv)
{
    tag_args a = {.threads = -1, .max_words = -1, .max_seconds = -1};
    int usage = parse_args(&a, argc, argv);
    if (usage >= 0)
        return usage;
    if (!qkv_output_ok("tag", NULL, NULL, (const char *[]){a.ckpt, a.file, a.tokenizer}, a.tokenizer ? 3 : 2, false,
                       false))
        return 1;
    qkv_session s;
    qkv_session_init(&s);
    int status = 1;
    int scheme;
    if (qkv_cmd_load_model(&s, a.ckpt) || qkv_cmd_refuse_segmenter(&s, a.ckpt) || (scheme = out_scheme(&s, &a)) < 0)
        goto done;
    const qkv_task_cli *task = qkv_task_cli_of(&s);
    if (a.text_by_default && !(task->tag_takes & QKV_TAG_TAKES_TEXT))
        a.text = false; /* images, frames: the model's own input */
    qkv_tag_request r = {a.ckpt, a.file, a.tokenizer, a.text, a.per_frame, a.per_line, (qkv_tag_scheme)scheme,
                         a.max_words > 0 ? (int)a.max_words : QKV_MAX_WORDS,
                         a.max_seconds > 0 ? a.max_seconds : QKV_AUDIO_MAX_SECONDS};
    if (!check_options(task, &r, a.max_words > 0, a.max_seconds > 0))
        status = task->tag(&s, &r);
done:
    qkv_session_free(&s);
    return status;
}
