/* Character labels back to sentences, tokens and words; writing them as CoNLL-U (segment.h). */
#include "data/segment.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <unigbrk.h>

#include "data/utf8.h"

void qkv_segmentation_free(qkv_segmentation *seg)
{
    free(seg->sent_start);
    free(seg->sent_par);
    free(seg->tok_start);
    free(seg->tok_end);
    free(seg->tok_word);
    free(seg->space_after);
    free(seg->word_start);
    free(seg->word_end);
    memset(seg, 0, sizeof *seg);
}

/* Reallocates *p to n elements of elem bytes (the new ones unset). */
static bool grow_to(void **p, size_t n, size_t elem)
{
    void *q = realloc(*p, n * elem);
    if (!q)
        return false;
    *p = q;
    return true;
}

static size_t bigger(size_t cap, size_t need)
{
    size_t n = cap > 64 ? cap : 64;
    while (n < need)
        n *= 2;
    return n;
}

static bool room(qkv_segmentation *seg, size_t sents, size_t tokens, size_t words)
{
    if (sents + 1 > seg->cap_sent || !seg->sent_start) {
        size_t n = bigger(seg->cap_sent, sents + 1);
        bool first = !seg->sent_start;
        if (!grow_to((void **)&seg->sent_start, n, sizeof *seg->sent_start) ||
            !grow_to((void **)&seg->sent_par, n, sizeof *seg->sent_par))
            return false;
        if (first)
            seg->sent_start[0] = 0;
        seg->cap_sent = n;
    }
    if (tokens + 1 > seg->cap_tokens || !seg->tok_word) {
        size_t n = bigger(seg->cap_tokens, tokens + 1);
        bool first = !seg->tok_word;
        if (!grow_to((void **)&seg->tok_start, n, sizeof *seg->tok_start) ||
            !grow_to((void **)&seg->tok_end, n, sizeof *seg->tok_end) ||
            !grow_to((void **)&seg->tok_word, n, sizeof *seg->tok_word) ||
            !grow_to((void **)&seg->space_after, n, sizeof *seg->space_after))
            return false;
        if (first)
            seg->tok_word[0] = 0;
        seg->cap_tokens = n;
    }
    if (words > seg->cap_words || !seg->word_start) {
        size_t n = bigger(seg->cap_words, words);
        if (!grow_to((void **)&seg->word_start, n, sizeof *seg->word_start) ||
            !grow_to((void **)&seg->word_end, n, sizeof *seg->word_end))
            return false;
        seg->cap_words = n;
    }
    return true;
}

static bool char_is_space(const qkv_seg_text *st, int i)
{
    int n;
    const char *s = st->text + st->char_off[i];
    return qkv_utf8_is_space(qkv_utf8_decode(s, st->char_off[i + 1] - st->char_off[i], &n));
}

typedef struct decoder {
    const qkv_seg_text *st;
    qkv_segmentation *seg;
    int par, par_end;
    bool tok_open, word_open;
    int tok_b, tok_e, word_b, word_e;
    int sent_tokens; /* tokens of the open sentence */
} decoder;

static bool close_sentence(decoder *d);

static bool close_word(decoder *d)
{
    qkv_segmentation *seg = d->seg;
    if (!d->word_open)
        return true;
    if (!room(seg, (size_t)seg->n_sent, (size_t)seg->n_tokens, (size_t)seg->n_words + 1))
        return false;
    seg->word_start[seg->n_words] = d->word_b;
    seg->word_end[seg->n_words] = d->word_e;
    seg->n_words++;
    d->word_open = false;
    return true;
}

static bool close_token(decoder *d)
{
    qkv_segmentation *seg = d->seg;
    if (!d->tok_open)
        return true;
    if (!close_word(d) || !room(seg, (size_t)seg->n_sent, (size_t)seg->n_tokens + 1, (size_t)seg->n_words))
        return false;
    int t = seg->n_tokens++;
    seg->tok_start[t] = d->tok_b;
    seg->tok_end[t] = d->tok_e;
    seg->tok_word[t + 1] = seg->n_words;
    seg->space_after[t] = d->tok_e >= d->par_end || char_is_space(d->st, d->tok_e);
    d->tok_open = false;
    d->sent_tokens++;
    /* a sentence that reaches QKV_SEG_MAX_SENTENCE_WORDS ends there */
    if (seg->n_words - seg->tok_word[seg->sent_start[seg->n_sent]] >= QKV_SEG_MAX_SENTENCE_WORDS)
        return close_sentence(d);
    return true;
}

static bool close_sentence(decoder *d)
{
    qkv_segmentation *seg = d->seg;
    if (!close_token(d))
        return false;
    if (d->sent_tokens == 0)
        return true;
    if (!room(seg, (size_t)seg->n_sent + 1, (size_t)seg->n_tokens, (size_t)seg->n_words))
        return false;
    seg->sent_par[seg->n_sent] = d->par;
    seg->sent_start[++seg->n_sent] = seg->n_tokens;
    d->sent_tokens = 0;
    return true;
}

int qkv_seg_decode(const qkv_seg_text *st, int p, const uint8_t *labels, qkv_segmentation *seg, qkv_error *err)
{
    if (!labels)
        labels = st->labels;
    decoder d = {st, seg, p, st->par_start[p + 1], false, false, 0, 0, 0, 0, 0};
    int c0 = st->par_start[p];
    uint32_t b0 = st->char_off[c0], n_bytes = st->char_off[d.par_end] - b0;
    char *brk = malloc(n_bytes + 1); /* brk[k]: an extended grapheme cluster boundary before byte k */
    if (!brk || !room(seg, (size_t)seg->n_sent, (size_t)seg->n_tokens, (size_t)seg->n_words)) {
        free(brk);
        return qkv_fail(err, "out of memory");
    }
    u8_grapheme_breaks((const uint8_t *)st->text + b0, n_bytes, brk);
    bool ok = true;
    for (int i = c0; i < d.par_end && ok; i++) {
        qkv_seg_label lab = labels[i] < QKV_SEG_COUNT ? (qkv_seg_label)labels[i] : QKV_SEG_OUTSIDE;
        /* UAX #29: nothing ends inside a cluster (a letter and its combining marks, a ZWJ
         * sequence, a character and its variation selector, a flag), whatever the label */
        bool cluster_goes_on = i + 1 < d.par_end && !brk[st->char_off[i + 1] - b0];
        if (cluster_goes_on && lab != QKV_SEG_OUTSIDE)
            lab = QKV_SEG_INSIDE;
        if (char_is_space(st, i) && (i == c0 || brk[st->char_off[i] - b0]) && !cluster_goes_on) {
            if (lab == QKV_SEG_INSIDE && d.tok_open)
                continue; /* whitespace inside a token */
            ok = close_token(&d) && (lab != QKV_SEG_SENT_END || close_sentence(&d));
            continue;
        }
        if (!d.tok_open) {
            d.tok_open = true;
            d.tok_b = i;
        }
        if (!d.word_open) {
            d.word_open = true;
            d.word_b = i;
        }
        d.tok_e = d.word_e = i + 1;
        if (lab == QKV_SEG_WORD_END)
            ok = close_word(&d);
        else if (lab == QKV_SEG_TOKEN_END)
            ok = close_token(&d);
        else if (lab == QKV_SEG_SENT_END)
            ok = close_sentence(&d);
    }
    free(brk);
    if (!ok || !close_sentence(&d))
        return qkv_fail(err, "out of memory");
    return QKV_OK;
}

/* Whether code point cp ends a line where Unicode says a line must end (LF, CR, VT, FF, NEL,
 * U+2028 LINE SEPARATOR, U+2029 PARAGRAPH SEPARATOR), or is a TAB. */
static bool breaks_line(uint32_t cp)
{
    return (cp >= '\t' && cp <= '\r') || cp == 0x85 || cp == 0x2028 || cp == 0x2029;
}

/* Writes characters b .. e-1 of st, each TAB and each character that breaks a line as a space
 * (a # text line stays one line for every reader, Python's splitlines included). */
static void put_chars(FILE *out, const qkv_seg_text *st, int b, int e)
{
    for (int i = b; i < e; i++) {
        uint32_t k = st->char_off[i], n = st->char_off[i + 1] - k;
        int n_bytes;
        if (breaks_line(qkv_utf8_decode(st->text + k, n, &n_bytes)))
            fputc(' ', out);
        else
            fwrite(st->text + k, 1, n, out);
    }
}

static void word_line(FILE *out, const qkv_seg_text *st, const char *id, int b, int e, const char *misc)
{
    fputs(id, out);
    fputc('\t', out);
    put_chars(out, st, b, e);
    fprintf(out, "\t_\t_\t_\t_\t_\t_\t_\t%s\n", misc);
}

/* Appends whitespace character i of st to buf (len bytes of cap, NUL-terminated) as SpacesAfter
 * spells it: \s, \t, \n, \r for space, TAB, LF, CR, "\u" and four hex digits for another
 * character that breaks a line (VT, FF, NEL, U+2028, U+2029), any other as it is. Returns the
 * new length, or len when it does not fit. */
static size_t put_space(char *buf, size_t len, size_t cap, const qkv_seg_text *st, int i)
{
    uint32_t k = st->char_off[i], n = st->char_off[i + 1] - k;
    int n_bytes;
    uint32_t cp = qkv_utf8_decode(st->text + k, n, &n_bytes);
    const char *name = cp == ' ' ? "s" : cp == '\t' ? "t" : cp == '\n' ? "n" : cp == '\r' ? "r" : NULL;
    char esc[12];
    if (name)
        snprintf(esc, sizeof esc, "\\%s", name);
    else if (breaks_line(cp))
        snprintf(esc, sizeof esc, "\\u%04X", (unsigned)cp);
    else if (n < sizeof esc) {
        memcpy(esc, st->text + k, n);
        esc[n] = '\0';
    } else
        return len;
    size_t m = strlen(esc);
    if (len + m >= cap)
        return len;
    memcpy(buf + len, esc, m + 1);
    return len + m;
}

const char *qkv_seg_token_misc(const qkv_seg_text *st, const qkv_segmentation *seg, int s, int t, char *buf,
                               size_t cap)
{
    int end = st->par_start[seg->sent_par[s] + 1], k = seg->tok_end[t];
    while (k < end && char_is_space(st, k))
        k++;
    int n = k - seg->tok_end[t];
    if (n == 0)
        return k < end ? "SpaceAfter=No" : "_";
    if (n == 1 && k < end && st->text[st->char_off[k - 1]] == ' ')
        return "_";
    size_t len = (size_t)snprintf(buf, cap, "SpacesAfter=");
    for (int i = seg->tok_end[t]; i < k; i++) {
        size_t next = put_space(buf, len, cap, st, i);
        if (next == len)
            break;
        len = next;
    }
    return buf;
}

int qkv_seg_write_sentence(FILE *out, const qkv_seg_text *st, const qkv_segmentation *seg, int s,
                           const char *sent_id, qkv_error *err)
{
    int t0 = seg->sent_start[s], t1 = seg->sent_start[s + 1];
    if (s == 0 || seg->sent_par[s] != seg->sent_par[s - 1])
        fputs("# newpar\n", out);
    fprintf(out, "# sent_id = %s\n# text = ", sent_id);
    put_chars(out, st, seg->tok_start[t0], seg->tok_end[t1 - 1]);
    fputc('\n', out);
    int id = 1;
    char idbuf[32];
    for (int t = t0; t < t1; t++) {
        int w0 = seg->tok_word[t], w1 = seg->tok_word[t + 1];
        char buf[160];
        const char *misc = qkv_seg_token_misc(st, seg, s, t, buf, sizeof buf);
        if (w1 - w0 > 1) {
            snprintf(idbuf, sizeof idbuf, "%d-%d", id, id + (w1 - w0) - 1);
            word_line(out, st, idbuf, seg->tok_start[t], seg->tok_end[t], misc);
        }
        for (int w = w0; w < w1; w++) {
            snprintf(idbuf, sizeof idbuf, "%d", id++);
            word_line(out, st, idbuf, seg->word_start[w], seg->word_end[w], w1 - w0 > 1 ? "_" : misc);
        }
    }
    fputc('\n', out);
    if (ferror(out))
        return qkv_fail(err, "write error: %s", strerror(errno));
    return QKV_OK;
}
