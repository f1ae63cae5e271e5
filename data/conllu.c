/* CoNLL-U and two-column reader (see corpus.h for the rules it follows). */
#include "data/corpus.h"

#include <stdarg.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "data/columns.h"
#include "data/line_fields.h"
#include "data/textfile.h"
#include "data/utf8.h"

const char *const QKV_FORMAT_NAMES[] = {"auto", "conllu", "columns", NULL};
_Static_assert(sizeof QKV_FORMAT_NAMES / sizeof QKV_FORMAT_NAMES[0] == QKV_FORMAT_COUNT + 1, "one name per qkv_format");
#define QKV_TAG_FIELD_NAME_(e, name, field) name,
#define QKV_TAG_FIELD_AT_(e, name, field) field,
const char *const QKV_TAG_FIELD_NAMES[] = {QKV_TAG_FIELDS(QKV_TAG_FIELD_NAME_) NULL};
const int QKV_TAG_FIELD_INDEX[] = {QKV_TAG_FIELDS(QKV_TAG_FIELD_AT_) -1};
_Static_assert(sizeof QKV_TAG_FIELD_NAMES / sizeof QKV_TAG_FIELD_NAMES[0] == QKV_TAG_FIELD_COUNT + 1,
               "one name per qkv_tag_field");

static const char *const CONLLU_FIELDS[10] = {"ID",   "FORM", "LEMMA",  "UPOS", "XPOS",
                                              "FEATS", "HEAD", "DEPREL", "DEPS", "MISC"};

typedef struct reader {
    qkv_corpus *c;
    const qkv_read_opts *opts;
    qkv_error *err;
    int line;
    bool in_sent;       /* a sentence has started (comment or token line seen) */
    bool seen_token;    /* a word, multiword or empty-node line seen in this sentence */
    int words_in_sent;  /* words so far in this sentence */
    int mwt_end;        /* last word id covered by the last multiword token */
    char sep;           /* columns: '\t', or ' ' for space-separated files; 0 until the first word line */
    int n_fields;       /* columns: fields of every word line (those of the first one) */
    int fields_line;    /* columns: the line that set n_fields */
} reader;

#define FAIL(r, ...) reader_fail((r), __VA_ARGS__)

__attribute__((format(printf, 2, 3))) static int reader_fail(reader *r, const char *fmt, ...)
{
    char msg[768];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    return qkv_fail(r->err, "%.200s:%d: %s", r->c->name, r->line, msg);
}

/* Shows at most 40 bytes of a field, whole characters only, for messages. */
static int show_len(const char *s, size_t len)
{
    return (int)qkv_utf8_prefix_bytes(s, len, 40);
}

static int end_sentence(reader *r)
{
    qkv_corpus *c = r->c;
    if (!r->in_sent)
        return QKV_OK;
    if (r->mwt_end > r->words_in_sent)
        return FAIL(r, "expected word %d (covered by a multiword token) before the end of the sentence",
                    r->words_in_sent + 1);
    c->n_sent++;
    c->sent_start[c->n_sent] = c->n_words;
    r->in_sent = false;
    r->seen_token = false;
    r->words_in_sent = 0;
    r->mwt_end = 0;
    return QKV_OK;
}

static void begin_sentence(reader *r)
{
    if (r->in_sent)
        return;
    r->in_sent = true;
    r->c->sent_line[r->c->n_sent] = r->line;
}

/* Parses an unsigned decimal of 1..9 digits at s[*i]; returns -1 if there is none. */
static long parse_num(const char *s, size_t len, size_t *i)
{
    size_t start = *i;
    long v = 0;
    while (*i < len && s[*i] >= '0' && s[*i] <= '9' && *i - start < 9)
        v = v * 10 + (s[(*i)++] - '0');
    if (*i == start || (*i < len && s[*i] >= '0' && s[*i] <= '9'))
        return -1;
    return v;
}

/* Whether s[0..len) (valid UTF-8) holds a Unicode White_Space character. */
static bool has_space(const char *s, size_t len)
{
    for (size_t i = 0; i < len;) {
        int n;
        if (qkv_utf8_is_space(qkv_utf8_decode(s + i, len - i, &n)))
            return true;
        i += (size_t)n;
    }
    return false;
}

/* The span f of line s without the White_Space characters at its two ends. */
static qkv_span strip_space(const char *s, qkv_span f)
{
    int n;
    while (f.len > 0 && qkv_utf8_is_space(qkv_utf8_decode(s + f.off, f.len, &n))) {
        f.off += (uint32_t)n;
        f.len -= (uint32_t)n;
    }
    while (f.len > 0) {
        uint32_t start = (uint32_t)qkv_utf8_suffix_start(s + f.off, f.len, 1);
        if (!qkv_utf8_is_space(qkv_utf8_decode(s + f.off + start, f.len - start, &n)))
            break;
        f.len = start;
    }
    return f;
}

/* HEAD's value: a number of 1..9 digits, -1 for "_", -2 for anything else. */
static int32_t head_value(const char *s, size_t len)
{
    if (len == 1 && s[0] == '_')
        return -1;
    size_t i = 0;
    long v = parse_num(s, len, &i);
    return v >= 0 && i == len ? (int32_t)v : -2;
}

static void add_word(reader *r, const char *line, qkv_span form, qkv_span tag, const qkv_span *head)
{
    qkv_corpus *c = r->c;
    uint32_t base = (uint32_t)(line - c->text);
    c->forms[c->n_words] = (qkv_span){base + form.off, form.len};
    c->tags[c->n_words] = (qkv_span){base + tag.off, tag.len};
    c->heads[c->n_words] = head ? head_value(line + head->off, head->len) : -1;
    c->head_fields[c->n_words] = head ? (qkv_span){base + head->off, head->len} : (qkv_span){0, 0};
    c->word_line[c->n_words] = r->line;
    c->n_words++;
    r->words_in_sent++;
}

static int conllu_line(reader *r, const char *s, size_t len)
{
    qkv_span f[10];
    int n = 0;
    size_t start = 0;
    for (size_t i = 0; i <= len; i++) {
        if (i == len || s[i] == '\t') {
            if (n < 10)
                f[n] = (qkv_span){(uint32_t)start, (uint32_t)(i - start)};
            n++;
            start = i + 1;
        }
    }
    if (n != 10)
        return FAIL(r, "expected 10 TAB-separated fields, found %d", n);
    for (int k = 0; k < 10; k++)
        if (f[k].len == 0)
            return FAIL(r, "expected a value in field %d (%s), found an empty field (use _ for none)",
                        k + 1, CONLLU_FIELDS[k]);
    const char *id = s + f[0].off;
    size_t idlen = f[0].len, i = 0;
    long a = parse_num(id, idlen, &i);
    int expected = r->words_in_sent + 1;
    if (a >= 0 && i == idlen) { /* a word */
        if (a != expected)
            return FAIL(r, "expected word ID %d, found %.*s", expected, show_len(id, idlen), id);
        for (int k = 3; k <= 4; k++)
            if (has_space(s + f[k].off, f[k].len))
                return FAIL(r, "expected no whitespace in field %d (%s), found \"%.*s\" (CoNLL-U allows "
                               "spaces only in FORM, LEMMA and MISC)",
                            k + 1, CONLLU_FIELDS[k], show_len(s + f[k].off, f[k].len), s + f[k].off);
        int tf = QKV_TAG_FIELD_INDEX[r->opts->tag_field];
        for (int k = 0; k < 10; k++)
            r->c->fields[(size_t)r->c->n_words * 10 + k] = (qkv_span){(uint32_t)(s - r->c->text) + f[k].off, f[k].len};
        add_word(r, s, f[1], f[tf], &f[6]);
        return QKV_OK;
    }
    if (a >= 0 && id[i] == '-') { /* a multiword token */
        i++;
        long b = parse_num(id, idlen, &i);
        if (b < 0 || i != idlen)
            return FAIL(r, "expected a multiword-token range N-M, found %.*s", show_len(id, idlen), id);
        if (a != expected || b <= a || a <= r->mwt_end)
            return FAIL(r, "expected a multiword-token range %d-M with M > %d, found %.*s", expected,
                        expected, show_len(id, idlen), id);
        r->c->n_multiword++;
        r->mwt_end = (int)b;
        return QKV_OK;
    }
    if (a >= 0 && id[i] == '.') { /* an empty node */
        i++;
        long b = parse_num(id, idlen, &i);
        if (b < 1 || i != idlen)
            return FAIL(r, "expected an empty-node ID N.M with M >= 1, found %.*s", show_len(id, idlen), id);
        if (a != r->words_in_sent)
            return FAIL(r, "expected an empty-node ID %d.M (after word %d), found %.*s", r->words_in_sent,
                        r->words_in_sent, show_len(id, idlen), id);
        r->c->n_empty_nodes++;
        return QKV_OK;
    }
    return FAIL(r, "expected an ID (word N, multiword token N-M or empty node N.M) in field 1, found %.*s",
                show_len(id, idlen), id);
}

/* Whether the len bytes at s (valid UTF-8) are all White_Space characters. */
static bool all_space(const char *s, size_t len)
{
    for (size_t i = 0; i < len;) {
        int n;
        if (!qkv_utf8_is_space(qkv_utf8_decode(s + i, len - i, &n)))
            return false;
        i += (size_t)n;
    }
    return true;
}

/* Splits a columns line into at most max fields (f, up to max) and returns how many there are:
 * at each TAB (sep '\t'), or at each run of spaces with the spaces at the ends ignored (' '). */
static int split_columns(const char *s, size_t len, char sep, qkv_span *f, int max)
{
    int n = 0;
    size_t i = 0, start = 0;
    if (sep == ' ') {
        while (i < len) {
            while (i < len && s[i] == ' ')
                i++;
            if (i == len)
                break;
            start = i;
            while (i < len && s[i] != ' ')
                i++;
            if (n < max)
                f[n] = (qkv_span){(uint32_t)start, (uint32_t)(i - start)};
            n++;
        }
        return n;
    }
    for (i = 0; i <= len; i++) {
        if (i == len || s[i] == '\t') {
            if (n < max)
                f[n] = (qkv_span){(uint32_t)start, (uint32_t)(i - start)};
            n++;
            start = i + 1;
        }
    }
    return n;
}

#define QKV_DOCSTART "-DOCSTART-"

static int columns_line(reader *r, const char *s, size_t len)
{
    size_t ds = sizeof QKV_DOCSTART - 1;
    if (len >= ds && !memcmp(s, QKV_DOCSTART, ds) && (len == ds || s[ds] == '\t' || s[ds] == ' ')) {
        r->c->n_docstart++; /* a document boundary (CoNLL-2003), not a word */
        return end_sentence(r);
    }
    /* Spaces separate the fields of a file without TABs in its first word line when the format
     * is columns by choice or the file began with -DOCSTART- (CoNLL-2003): auto-detected
     * plain text stays an error, not a corpus whose last word is its tag. */
    if (!r->sep)
        r->sep = !memchr(s, '\t', len) && (r->opts->format == QKV_FORMAT_COLUMNS || r->c->n_docstart) ? ' ' : '\t';
    const char *sep_name = r->sep == '\t' ? "TAB" : "space";
    enum { MAX_FIELDS = 101 };
    qkv_span f[MAX_FIELDS];
    int n = split_columns(s, len, r->sep, f, MAX_FIELDS);
    begin_sentence(r);
    r->seen_token = true;
    int want = r->opts->tag_column > 0 ? r->opts->tag_column : n;
    if (n < 2 || n < want || want > MAX_FIELDS)
        return FAIL(r, "expected at least %d %s-separated fields (FORM and tag), found %d", want < 2 ? 2 : want,
                    sep_name, n);
    if (!r->n_fields) {
        r->n_fields = n;
        r->fields_line = r->line;
    } else if (n != r->n_fields) {
        return FAIL(r, "expected %d %s-separated fields (as on line %d), found %d", r->n_fields, sep_name,
                    r->fields_line, n);
    }
    qkv_span form = f[0], tag = f[want - 1];
    if (form.len == 0)
        return FAIL(r, "expected a FORM in field 1, found an empty field");
    bool blank = tag.len > 0;
    tag = strip_space(s, tag);
    if (tag.len == 0)
        return FAIL(r, "expected a tag in field %d, found %s", want, blank ? "only whitespace" : "an empty field");
    add_word(r, s, form, tag, NULL);
    return QKV_OK;
}

static size_t count_fields(const char *s, size_t len)
{
    size_t n = 1;
    for (size_t i = 0; i < len; i++)
        n += s[i] == '\t';
    return n;
}

static size_t line_end(const char *text, size_t pos, size_t len, size_t *next)
{
    const char *nl = memchr(text + pos, '\n', len - pos);
    size_t eol = nl ? (size_t)(nl - text) : len;
    *next = nl ? eol + 1 : len;
    if (eol > pos && text[eol - 1] == '\r')
        eol--;
    return eol;
}

/* Line s[0..len) (without its line end, line_end) as a line of a corpus: valid UTF-8 without a
 * NUL byte, and no CR (one before the LF is the line end's). */
static int check_line(reader *r, const char *s, size_t len)
{
    char problem[160];
    if (qkv_text_line_problem(s, len, problem, sizeof problem))
        return FAIL(r, "%s", problem);
    size_t cr = qkv_line_cr(s, len);
    if (cr)
        return FAIL(r, QKV_LINE_CR_MESSAGE, cr);
    return QKV_OK;
}

static qkv_format detect_format(const qkv_corpus *c, size_t start)
{
    size_t nlen = strlen(c->name);
    if (nlen >= 3 && !strcmp(c->name + nlen - 3, ".gz"))
        nlen -= 3; /* x.conllu.gz is CoNLL-U too */
    if (nlen >= 7 && !strncmp(c->name + nlen - 7, ".conllu", 7))
        return QKV_FORMAT_CONLLU;
    size_t pos = start, next;
    while (pos < c->text_len) {
        size_t eol = line_end(c->text, pos, c->text_len, &next);
        if (!all_space(c->text + pos, eol - pos) && c->text[pos] != '#')
            return count_fields(c->text + pos, eol - pos) == 10 ? QKV_FORMAT_CONLLU : QKV_FORMAT_COLUMNS;
        pos = next;
    }
    return QKV_FORMAT_CONLLU;
}

static int parse(qkv_corpus *c, const qkv_read_opts *opts, qkv_error *err)
{
    if (c->text_len >= UINT32_MAX)
        return qkv_fail(err, "%.200s: file too large (%zu bytes; at most 4 GiB)", c->name, c->text_len);
    if (opts->tag_column < 0)
        return qkv_fail(err, "%.200s: tag column must be >= 1 (or 0 for the last), got %d", c->name,
                        opts->tag_column);
    size_t n_lines = 1;
    for (const char *p = c->text; (p = memchr(p, '\n', c->text_len - (size_t)(p - c->text))); p++)
        n_lines++;
    c->sent_start = malloc((n_lines + 1) * sizeof *c->sent_start);
    c->sent_line = malloc(n_lines * sizeof *c->sent_line);
    c->forms = malloc(n_lines * sizeof *c->forms);
    c->tags = malloc(n_lines * sizeof *c->tags);
    c->word_line = malloc(n_lines * sizeof *c->word_line);
    c->heads = malloc(n_lines * sizeof *c->heads);
    c->head_fields = malloc(n_lines * sizeof *c->head_fields);
    if (!c->sent_start || !c->sent_line || !c->forms || !c->tags || !c->word_line || !c->heads || !c->head_fields)
        return qkv_fail(err, "%.200s: out of memory for %zu lines", c->name, n_lines);
    c->tag_field = opts->tag_field;
    c->n_columns = opts->n_columns > 1 ? opts->n_columns : 1;
    c->columns[0] = opts->tag_field;
    for (int i = 1; i < c->n_columns && i < QKV_MAX_COLUMNS; i++)
        c->columns[i] = opts->columns[i];
    c->sent_start[0] = 0;

    size_t pos = 0;
    if (c->text_len >= 3 && !memcmp(c->text, "\xEF\xBB\xBF", 3))
        pos = 3;
    c->format = opts->format != QKV_FORMAT_AUTO ? opts->format : detect_format(c, pos);
    if (c->format != QKV_FORMAT_CONLLU && c->n_columns > 1)
        return qkv_fail(err, "%.200s: data.tags names %d columns: several columns need a CoNLL-U file", c->name,
                        c->n_columns);
    if (c->format == QKV_FORMAT_CONLLU && !(c->fields = malloc(n_lines * 10 * sizeof *c->fields)))
        return qkv_fail(err, "%.200s: out of memory for %zu lines", c->name, n_lines);
    if (c->format == QKV_FORMAT_CONLLU)
        qkv_column_name(opts->tag_field, c->tag_column, sizeof c->tag_column);
    else if (opts->tag_column > 0)
        snprintf(c->tag_column, sizeof c->tag_column, "field %d", opts->tag_column);
    else
        snprintf(c->tag_column, sizeof c->tag_column, "the last field");
    reader r = {.c = c, .opts = opts, .err = err};
    while (pos < c->text_len) {
        size_t next, eol = line_end(c->text, pos, c->text_len, &next);
        const char *s = c->text + pos;
        size_t len = eol - pos;
        r.line++;
        if (check_line(&r, s, len) != QKV_OK)
            return QKV_ERR;
        pos = next;
        if (len == 0 || (c->format == QKV_FORMAT_COLUMNS && all_space(s, len))) {
            if (end_sentence(&r) != QKV_OK)
                return QKV_ERR;
            continue;
        }
        if (c->format == QKV_FORMAT_CONLLU && s[0] == '#') {
            if (r.seen_token)
                return FAIL(&r, "expected a word line or a blank line; comment lines come before a "
                                "sentence's first word line");
            begin_sentence(&r);
            c->n_comments++;
            continue;
        }
        if (c->format == QKV_FORMAT_COLUMNS) {
            if (columns_line(&r, s, len) != QKV_OK)
                return QKV_ERR;
            continue;
        }
        begin_sentence(&r);
        r.seen_token = true;
        if (conllu_line(&r, s, len) != QKV_OK)
            return QKV_ERR;
    }
    return end_sentence(&r);
}

static int finish(qkv_corpus *c, const qkv_read_opts *opts, qkv_error *err)
{
    qkv_read_opts defaults = QKV_READ_DEFAULTS;
    if (!opts)
        opts = &defaults;
    if (parse(c, opts, err) != QKV_OK || qkv_corpus_convert_scheme(c, opts->scheme, err) != QKV_OK) {
        qkv_corpus_free(c);
        return QKV_ERR;
    }
    return QKV_OK;
}

int qkv_corpus_read(qkv_corpus *c, const char *path, const qkv_read_opts *opts, qkv_error *err)
{
    memset(c, 0, sizeof *c);
    if (qkv_text_read(path, &c->text, &c->text_len, err) != QKV_OK)
        return QKV_ERR;
    c->name = strdup(path);
    if (!c->name) {
        qkv_corpus_free(c);
        return qkv_fail(err, "%.200s: out of memory", path);
    }
    return finish(c, opts, err);
}

int qkv_corpus_read_mem(qkv_corpus *c, const char *data, size_t len, const char *name,
                        const qkv_read_opts *opts, qkv_error *err)
{
    memset(c, 0, sizeof *c);
    c->text = malloc(len + 1);
    c->name = strdup(name ? name : "<memory>");
    if (!c->text || !c->name) {
        qkv_corpus_free(c);
        return qkv_fail(err, "%.200s: out of memory", name ? name : "<memory>");
    }
    if (len)
        memcpy(c->text, data, len);
    c->text[len] = '\0';
    c->text_len = len;
    return finish(c, opts, err);
}

void qkv_corpus_free(qkv_corpus *c)
{
    free(c->name);
    free(c->text);
    free(c->sent_start);
    free(c->sent_line);
    free(c->forms);
    free(c->tags);
    free(c->word_line);
    free(c->heads);
    free(c->head_fields);
    free(c->conv_text);
    free(c->conv_tags);
    free(c->fields);
    memset(c, 0, sizeof *c);
}
