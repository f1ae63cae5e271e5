/* qkv tag CHECKPOINT [FILE|-] [--format conllu|text] */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/threads.h"
#include "train/cli/cli.h"
#include "train/cli/commands.h"
#include "train/evaluate.h"
#include "train/train_state.h"

static const char USAGE[] =
    "usage: qkv tag CHECKPOINT [FILE|-] [--format conllu|text]\n"
    "\n"
    "Writes FILE (default: standard input) to standard output with predicted tags.\n"
    "  --format conllu  (default) CoNLL-U in, the same bytes out with the predicted tag in the\n"
    "                   tag column the model was trained on (UPOS or XPOS)\n"
    "  --format text    one sentence per line, tokens separated by spaces; CoNLL-U out\n";

/* All of a stream, NUL-terminated. */
static char *slurp(FILE *in, size_t *len)
{
    size_t cap = 1 << 16, n = 0;
    char *buf = malloc(cap);
    while (buf) {
        n += fread(buf + n, 1, cap - n - 1, in);
        if (n < cap - 1)
            break;
        char *bigger = realloc(buf, cap *= 2);
        if (!bigger)
            free(buf);
        buf = bigger;
    }
    if (buf)
        buf[n] = '\0';
    *len = n;
    return buf;
}

/* Plain text (a sentence a line, tokens split on spaces) as minimal CoNLL-U. */
static char *text_to_conllu(const char *text, size_t *out_len)
{
    char *out = NULL;
    FILE *f = open_memstream(&out, out_len);
    if (!f)
        return NULL;
    const char *line = text;
    while (*line) {
        const char *end = strchr(line, '\n');
        if (!end)
            end = line + strlen(line);
        int id = 0;
        const char *p = line;
        while (p < end) {
            while (p < end && (*p == ' ' || *p == '\t' || *p == '\r'))
                p++;
            const char *start = p;
            while (p < end && *p != ' ' && *p != '\t' && *p != '\r')
                p++;
            if (p > start)
                fprintf(f, "%d\t%.*s\t_\t_\t_\t_\t_\t_\t_\t_\n", ++id, (int)(p - start), start);
        }
        if (id)
            fputc('\n', f);
        line = *end ? end + 1 : end;
    }
    fclose(f);
    return out;
}

int qkv_cmd_tag(int argc, char **argv)
{
    const char *ckpt = NULL, *file = NULL, *format = "conllu";
    bool bad = false;
    for (int i = 1; i < argc && !bad; i++) {
        const char *value;
        if (qkv_cli_is_help(argv[i])) {
            fputs(USAGE, stdout);
            return 0;
        } else if (qkv_cli_option(argc, argv, &i, "--format", &value, &bad)) {
            format = value;
        } else {
            qkv_cli_positional("tag", argv[i], (const char **[]){&ckpt, &file}, 2, &bad);
        }
    }
    bool text = !strcmp(format, "text");
    if (!bad && !text && strcmp(format, "conllu")) {
        fprintf(stderr, "qkv tag: --format is conllu or text, not '%s'\n", format);
        bad = true;
    }
    if (!bad && !ckpt) {
        fprintf(stderr, "qkv tag: missing CHECKPOINT\n");
        bad = true;
    }
    if (bad) {
        fputs(USAGE, stderr);
        return 2;
    }
    if (!file)
        file = "-";

    qkv_session s;
    qkv_session_init(&s);
    qkv_error err;
    qkv_eval_result res;
    memset(&res, 0, sizeof res);
    const char **tags = NULL;
    char *input = NULL;
    int status = 1;
    if (qkv_checkpoint_load_model(ckpt, &s, &err)) {
        fprintf(stderr, "qkv: %s\n", err.msg);
        goto done;
    }
    qkv_set_threads(s.cfg.train.threads);
    size_t len = 0;
    FILE *in = strcmp(file, "-") ? fopen(file, "rb") : stdin;
    if (!in) {
        fprintf(stderr, "qkv: %s: cannot open: %s\n", file, strerror(errno));
        goto done;
    }
    input = slurp(in, &len);
    if (in != stdin)
        fclose(in);
    if (input && text) {
        char *conllu = text_to_conllu(input, &len);
        free(input);
        input = conllu;
    }
    if (!input) {
        fprintf(stderr, "qkv: %s: out of memory\n", file);
        goto done;
    }
    qkv_read_opts opts = s.cfg.data.read;
    if (text)
        opts.format = QKV_FORMAT_CONLLU;
    const char *name = strcmp(file, "-") ? file : "<stdin>";
    if (qkv_corpus_read_mem(&s.dev_c, input, len, name, &opts, &err) ||
        qkv_dataset_encode(&s.dev, &s.fz, &s.dev_c, NULL, &err) ||
        qkv_evaluate(&s, &s.dev, s.cfg.data.batch_tokens, &res, &err)) {
        fprintf(stderr, "qkv: %s\n", err.msg);
        goto done;
    }
    tags = malloc((size_t)(s.dev.n_words ? s.dev.n_words : 1) * sizeof *tags);
    if (!tags) {
        fprintf(stderr, "qkv: out of memory\n");
        goto done;
    }
    for (int w = 0; w < s.dev.n_words; w++)
        tags[w] = qkv_featurizer_tag(&s.fz, res.pred[w]);
    if (qkv_corpus_write(&s.dev_c, stdout, tags, &err) || fflush(stdout)) {
        fprintf(stderr, "qkv: writing the tagged output: %s\n", err.msg);
        goto done;
    }
    status = 0;
done:
    free(tags);
    free(input);
    qkv_eval_result_free(&res);
    qkv_session_free(&s);
    return status;
}
