/* CoNLL-U to character labels (see segment.h). */
#include "data/segment.h"

#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "data/line_fields.h"
#include "data/textfile.h"
#include "data/utf8.h"

const char *const QKV_SEG_LABEL_NAMES[] = {"I", "W", "T", "S", "O", NULL};
_Static_assert(sizeof QKV_SEG_LABEL_NAMES / sizeof QKV_SEG_LABEL_NAMES[0] == QKV_SEG_COUNT + 1,
               "one name per qkv_seg_label");

int qkv_seg_init(qkv_seg_text *st, const char *name, qkv_error *err)
{
    memset(st, 0, sizeof *st);
    st->name = strdup(name ? name : "<memory>");
    st->par_start = calloc(1, sizeof *st->par_start);
    st->char_off = calloc(1, sizeof *st->char_off);
    st->text = calloc(1, 1);
    if (!st->name || !st->par_start || !st->char_off || !st->text) {
        qkv_seg_free(st);
        return qkv_fail(err, "out of memory");
    }
    st->cap_par = st->cap_chars = st->cap_text = 1;
    return QKV_OK;
}

void qkv_seg_free(qkv_seg_text *st)
{
    free(st->name);
    free(st->text);
    free(st->par_start);
    free(st->char_off);
    free(st->labels);
    free(st->char_line);
    memset(st, 0, sizeof *st);
}

/* Room for need characters' entries (char_off needs one more). */
static bool room_chars(qkv_seg_text *st, size_t need)
{
    if (need <= st->cap_chars)
        return true;
    size_t n = st->cap_chars > 256 ? st->cap_chars : 256;
    while (n < need)
        n *= 2;
    uint32_t *off = realloc(st->char_off, n * sizeof *off);
    if (!off)
        return false;
    st->char_off = off;
    uint8_t *lab = realloc(st->labels, n * sizeof *lab);
    if (!lab)
        return false;
    st->labels = lab;
    int32_t *line = realloc(st->char_line, n * sizeof *line);
    if (!line)
        return false;
    st->char_line = line;
    st->cap_chars = n;
    return true;
}

/* Appends the character s[0..n) with its label and line. */
static bool add_char(qkv_seg_text *st, const char *s, int n, qkv_seg_label label, int line)
{
    if (!room_chars(st, (size_t)st->n_chars + 2) ||
        !qkv_array_grow((void **)&st->text, &st->cap_text, st->text_len + (size_t)n + 1, 1))
        return false;
    memcpy(st->text + st->text_len, s, (size_t)n);
    st->text_len += (size_t)n;
    st->text[st->text_len] = '\0';
    st->labels[st->n_chars] = (uint8_t)label;
    st->char_line[st->n_chars] = line;
    st->n_chars++;
    st->char_off[st->n_chars] = (uint32_t)st->text_len;
    return true;
}

static bool end_par(qkv_seg_text *st)
{
    if (st->par_start[st->n_par] == st->n_chars)
        return true; /* the open paragraph is empty */
    if (!qkv_array_grow((void **)&st->par_start, &st->cap_par, (size_t)st->n_par + 2, sizeof *st->par_start))
        return false;
    st->n_par++;
    st->par_start[st->n_par] = st->n_chars;
    return true;
}

int qkv_seg_add_raw(qkv_seg_text *st, const char *s, size_t len, int first_line, qkv_error *err)
{
    int line = first_line;
    for (size_t i = 0; i < len;) {
        int n;
        qkv_utf8_decode(s + i, len - i, &n);
        if (!add_char(st, s + i, n, QKV_SEG_OUTSIDE, line))
            return qkv_fail(err, "%.200s:%d: out of memory", st->name, line);
        if (s[i] == '\n')
            line++;
        i += (size_t)n;
    }
    if (!end_par(st))
        return qkv_fail(err, "%.200s:%d: out of memory", st->name, line);
    return QKV_OK;
}

/* ---- reading CoNLL-U ---- */

typedef struct seg_token {
    const char *form;
    size_t form_len;
    int line;
    bool no_space;        /* MISC holds SpaceAfter=No */
    int n_words;          /* 1, or the words of a multiword token */
    int first_word;       /* index into the sentence's word forms */
} seg_token;

typedef struct seg_reader {
    qkv_seg_text *st;
    qkv_error *err;
    bool paragraphs;      /* the file has # newpar or # newdoc comments */
    /* the open sentence */
    int first_line, text_line;
    const char *text;
    size_t text_len;
    bool new_par, in_sent;
    seg_token *toks;
    size_t n_toks, cap_toks;
    const char **word_forms;
    size_t *word_lens;
    size_t n_words, cap_words, cap_words2;
    int mwt_last;         /* last word id of the open multiword token; 0 = none */
    /* the paragraph so far */
    bool par_open, prev_no_space;
    int prev_line;
} seg_reader;

__attribute__((format(printf, 3, 4))) static int fail_at(seg_reader *r, int line, const char *fmt, ...)
{
    char msg[768];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    return qkv_fail(r->err, "%.200s:%d: %s", r->st->name, line, msg);
}

/* At most 40 bytes of s, whole characters, for messages. */
static int shown(const char *s, size_t len) { return (int)qkv_utf8_prefix_bytes(s, len, 40); }

static bool is_space_at(const char *s, size_t len, int *n)
{
    return qkv_utf8_is_space(qkv_utf8_decode(s, len, n));
}

/* Appends the characters of s[0..len) with label (the last one: last) */
static bool add_chars(qkv_seg_text *st, const char *s, size_t len, qkv_seg_label label, qkv_seg_label last,
                      int line)
{
    for (size_t i = 0; i < len;) {
        int n;
        qkv_utf8_decode(s + i, len - i, &n);
        if (!add_char(st, s + i, n, i + (size_t)n == len ? last : label, line))
            return false;
        i += (size_t)n;
    }
    return true;
}

/* Labels the characters of token k (at text[p..]) and the whitespace after it; advances *p. */
static int label_token(seg_reader *r, size_t k, size_t *p)
{
    qkv_seg_text *st = r->st;
    const seg_token *t = &r->toks[k];
    bool last = k + 1 == r->n_toks;
    size_t rest = r->text_len - *p;
    if (t->form_len > rest || memcmp(r->text + *p, t->form, t->form_len))
        return fail_at(r, t->line, "FORM \"%.*s\" is not the text at its place in # text (line %d): \"%.*s\"",
                       shown(t->form, t->form_len), t->form, r->text_line, shown(r->text + *p, rest), r->text + *p);
    qkv_seg_label end = last ? QKV_SEG_SENT_END : QKV_SEG_TOKEN_END;
    /* the words' ends inside a multiword token whose words spell its FORM */
    bool split = false;
    if (t->n_words > 1) {
        size_t total = 0;
        split = true;
        for (int w = 0; w < t->n_words && split; w++) {
            size_t wl = r->word_lens[t->first_word + w];
            split = total + wl <= t->form_len && !memcmp(t->form + total, r->word_forms[t->first_word + w], wl);
            total += wl;
        }
        split = split && total == t->form_len;
        if (!split)
            st->n_unsplit++;
    }
    if (split) {
        for (int w = 0; w < t->n_words; w++) {
            size_t wl = r->word_lens[t->first_word + w];
            if (wl == 0)
                return fail_at(r, t->line, "a word of multiword token \"%.*s\" is empty", shown(t->form, t->form_len),
                               t->form);
            if (!add_chars(st, r->text + *p, wl, QKV_SEG_INSIDE, w + 1 == t->n_words ? end : QKV_SEG_WORD_END,
                           r->text_line))
                return qkv_fail(r->err, "out of memory");
            *p += wl;
        }
    } else {
        if (!add_chars(st, r->text + *p, t->form_len, QKV_SEG_INSIDE, end, r->text_line))
            return qkv_fail(r->err, "out of memory");
        *p += t->form_len;
    }
    rest = r->text_len - *p;
    int n = 0;
    bool space = rest > 0 && is_space_at(r->text + *p, rest, &n);
    if (!last && t->no_space && space)
        return fail_at(r, t->line, "\"%.*s\" has SpaceAfter=No, but # text (line %d) has whitespace after it",
                       shown(t->form, t->form_len), t->form, r->text_line);
    if (!last && !t->no_space && !space)
        return fail_at(r, t->line,
                       "# text (line %d) has no whitespace after \"%.*s\": expected SpaceAfter=No in its MISC "
                       "(a file whose MISC column was blanked, like the shipped EWT sample, cannot train or score "
                       "a segmenter)",
                       r->text_line, shown(t->form, t->form_len), t->form);
    while (rest > 0 && is_space_at(r->text + *p, rest, &n)) {
        if (!add_char(st, r->text + *p, n, QKV_SEG_OUTSIDE, r->text_line))
            return qkv_fail(r->err, "out of memory");
        *p += (size_t)n;
        rest -= (size_t)n;
    }
    if (last && rest > 0)
        return fail_at(r, t->line, "# text (line %d) goes on after the last token \"%.*s\": \"%.*s\"", r->text_line,
                       shown(t->form, t->form_len), t->form, shown(r->text + *p, rest), r->text + *p);
    return QKV_OK;
}

static int end_sentence(seg_reader *r)
{
    qkv_seg_text *st = r->st;
    if (!r->in_sent)
        return QKV_OK;
    r->in_sent = false;
    if (r->mwt_last)
        return fail_at(r, r->first_line, "the sentence ends inside a multiword token (expected word %d)",
                       r->mwt_last);
    if (r->n_toks == 0)
        return QKV_OK; /* comments only: its # newpar, if any, carries over */
    if (!r->text)
        return fail_at(r, r->first_line, "the sentence has no \"# text = ...\" comment (the segmenter learns from it)");
    if (r->par_open && (r->new_par || !r->paragraphs)) {
        if (!end_par(st))
            return qkv_fail(r->err, "out of memory");
        r->par_open = false;
    }
    if (r->par_open && !r->prev_no_space && !add_char(st, " ", 1, QKV_SEG_OUTSIDE, r->prev_line))
        return qkv_fail(r->err, "out of memory");
    size_t p = 0;
    int n;
    while (p < r->text_len && is_space_at(r->text + p, r->text_len - p, &n)) { /* leading whitespace */
        if (!add_char(st, r->text + p, n, QKV_SEG_OUTSIDE, r->text_line))
            return qkv_fail(r->err, "out of memory");
        p += (size_t)n;
    }
    for (size_t k = 0; k < r->n_toks; k++)
        if (label_token(r, k, &p))
            return QKV_ERR;
    r->par_open = true;
    r->prev_no_space = r->toks[r->n_toks - 1].no_space;
    r->prev_line = r->text_line;
    r->new_par = false;
    st->n_sent++;
    st->n_tokens += (int)r->n_toks;
    st->n_words += (int)r->n_words;
    return QKV_OK;
}

static bool has_no_space(const char *misc, size_t len)
{
    static const char KEY[] = "SpaceAfter=No";
    size_t k = sizeof KEY - 1;
    for (size_t i = 0; i + k <= len; i++)
        if (!memcmp(misc + i, KEY, k) && (i == 0 || misc[i - 1] == '|') && (i + k == len || misc[i + k] == '|'))
            return true;
    return false;
}

static bool comment_is(const char *s, size_t len, const char *key)
{
    size_t k = strlen(key);
    return len >= k && !memcmp(s, key, k) && (len == k || s[k] == ' ' || s[k] == '=' || s[k] == '\t');
}

static int word_line(seg_reader *r, const char *s, size_t len, int line)
{
    size_t idl, fl, ml;
    const char *id = qkv_line_field(s, len, 0, &idl), *form = qkv_line_field(s, len, 1, &fl);
    const char *misc = qkv_line_field(s, len, 9, &ml);
    if (!misc || memchr(misc, '\t', ml))
        return fail_at(r, line, "expected 10 TAB-separated fields (a CoNLL-U word line)");
    size_t i = 0;
    long a = qkv_line_number(id, idl, &i), b = -1;
    bool range = false, empty = false;
    if (a >= 0 && i < idl && id[i] == '-') {
        i++;
        b = qkv_line_number(id, idl, &i);
        range = true;
    } else if (a >= 0 && i < idl && id[i] == '.') {
        i++;
        qkv_line_number(id, idl, &i);
        empty = true;
    }
    if (a < 0 || i != idl || (range && b < a))
        return fail_at(r, line, "expected an ID (N, N-M or N.M) in field 1, found \"%.*s\"", shown(id, idl), id);
    if (fl == 0)
        return fail_at(r, line, "expected a FORM in field 2, found an empty field");
    if (!r->in_sent) {
        r->in_sent = true;
        r->first_line = line;
    }
    if (empty)
        return QKV_OK;
    if (!qkv_array_grow((void **)&r->word_forms, &r->cap_words, r->n_words + 1, sizeof *r->word_forms) ||
        !qkv_array_grow((void **)&r->word_lens, &r->cap_words2, r->n_words + 1, sizeof *r->word_lens) ||
        !qkv_array_grow((void **)&r->toks, &r->cap_toks, r->n_toks + 1, sizeof *r->toks))
        return qkv_fail(r->err, "out of memory");
    if (range) {
        if (r->mwt_last)
            return fail_at(r, line, "a multiword token inside another one");
        r->toks[r->n_toks++] = (seg_token){form, fl, line, has_no_space(misc, ml), (int)(b - a + 1), (int)r->n_words};
        r->mwt_last = (int)b;
        return QKV_OK;
    }
    r->word_forms[r->n_words] = form;
    r->word_lens[r->n_words] = fl;
    if (r->mwt_last) { /* a word of the open multiword token */
        if (a >= r->mwt_last)
            r->mwt_last = 0;
    } else {
        r->toks[r->n_toks++] = (seg_token){form, fl, line, has_no_space(misc, ml), 1, (int)r->n_words};
    }
    r->n_words++;
    return QKV_OK;
}

static int read_lines(seg_reader *r, const char *data, size_t len)
{
    size_t pos = len >= 3 && !memcmp(data, "\xEF\xBB\xBF", 3) ? 3 : 0;
    for (int line = 1; pos < len; line++) {
        const char *s = data + pos, *nl = memchr(s, '\n', len - pos);
        size_t n = nl ? (size_t)(nl - s) : len - pos;
        pos += n + (nl != NULL);
        if (n > 0 && s[n - 1] == '\r')
            n--;
        size_t bad = qkv_utf8_check(s, n), cr = qkv_line_cr(s, n);
        if (bad < n)
            return fail_at(r, line, "invalid UTF-8 or a NUL byte at byte %zu of the line", bad + 1);
        if (cr)
            return fail_at(r, line, QKV_LINE_CR_MESSAGE, cr);
        if (n == 0) {
            if (end_sentence(r))
                return QKV_ERR;
            r->n_toks = r->n_words = 0;
            r->text = NULL;
            continue;
        }
        if (s[0] == '#') {
            if (!r->in_sent) {
                r->in_sent = true;
                r->first_line = line;
            }
            if (comment_is(s, n, "# newpar") || comment_is(s, n, "# newdoc"))
                r->new_par = true;
            else if (comment_is(s, n, "# text")) {
                size_t i = 6;
                while (i < n && (s[i] == ' ' || s[i] == '\t'))
                    i++;
                if (i < n && s[i] == '=') {
                    i++;
                    if (i < n && s[i] == ' ')
                        i++;
                    r->text = s + i;
                    r->text_len = n - i;
                    r->text_line = line;
                }
            }
            continue;
        }
        if (word_line(r, s, n, line))
            return QKV_ERR;
    }
    if (end_sentence(r))
        return QKV_ERR;
    if (!end_par(r->st))
        return qkv_fail(r->err, "out of memory");
    return QKV_OK;
}

static bool has_line_starting(const char *data, size_t len, const char *key)
{
    size_t k = strlen(key);
    for (const char *p = data, *end = data + len; p && p + k <= end;) {
        if (!memcmp(p, key, k))
            return true;
        p = memchr(p, '\n', (size_t)(end - p));
        if (p)
            p++;
    }
    return false;
}

int qkv_seg_read_mem(qkv_seg_text *st, const char *data, size_t len, const char *name, qkv_error *err)
{
    if (qkv_seg_init(st, name, err))
        return QKV_ERR;
    seg_reader r;
    memset(&r, 0, sizeof r);
    r.st = st;
    r.err = err;
    r.paragraphs = has_line_starting(data, len, "# newpar") || has_line_starting(data, len, "# newdoc") ||
                   has_line_starting(data, len, "\xEF\xBB\xBF# newpar") ||
                   has_line_starting(data, len, "\xEF\xBB\xBF# newdoc");
    int status = read_lines(&r, data, len);
    free(r.toks);
    free(r.word_forms);
    free(r.word_lens);
    if (status) {
        qkv_seg_free(st);
        return QKV_ERR;
    }
    return QKV_OK;
}

int qkv_seg_read(qkv_seg_text *st, const char *path, qkv_error *err)
{
    char *data = NULL;
    size_t len = 0;
    memset(st, 0, sizeof *st);
    if (qkv_text_read(path, &data, &len, err))
        return QKV_ERR;
    int status = qkv_seg_read_mem(st, data, len, path, err);
    free(data);
    return status;
}
