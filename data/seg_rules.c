/* The segmenter's decoding rules (seg_rules.h). */
#include "data/seg_rules.h"

#include <stdbool.h>
#include <string.h>
#include <strings.h>
#include <unictype.h>

#include "data/utf8.h"

/* The labels of one paragraph being corrected, and the count of changes. */
typedef struct rules {
    const qkv_seg_text *st;
    uint8_t *labels;
    long changed;
} rules;

static uint32_t cp_at(const qkv_seg_text *st, int i)
{
    int n;
    return qkv_utf8_decode(st->text + st->char_off[i], st->char_off[i + 1] - st->char_off[i], &n);
}

static void set_label(rules *r, int i, uint8_t l)
{
    r->changed += r->labels[i] != l;
    r->labels[i] = l;
}

/* Characters a .. b-1 of the chunk beginning at chunk_start as one token: no boundary inside,
 * a token end before a (when a does not begin the chunk) and on b-1: a sentence end when
 * keep_sent and b-1 had one. */
static void one_token(rules *r, int chunk_start, int a, int b, bool keep_sent)
{
    for (int k = a; k + 1 < b; k++)
        if (r->labels[k] != QKV_SEG_INSIDE)
            set_label(r, k, QKV_SEG_INSIDE);
    set_label(r, b - 1, keep_sent && r->labels[b - 1] == QKV_SEG_SENT_END ? QKV_SEG_SENT_END : QKV_SEG_TOKEN_END);
    if (a > chunk_start && (r->labels[a - 1] == QKV_SEG_INSIDE || r->labels[a - 1] == QKV_SEG_WORD_END))
        set_label(r, a - 1, QKV_SEG_TOKEN_END);
}

static bool ascii_alnum(uint32_t c) { return (c < 128) && ((c | 32) - 'a' < 26 || c - '0' < 10); }
static bool local_char(uint32_t c) { return ascii_alnum(c) || (c && strchr("._%+-", (int)c) && c < 128); }
static bool domain_char(uint32_t c) { return ascii_alnum(c) || c == '.' || c == '-'; }

/* The end (one past) of an e-mail address whose "@" is character at, beginning at *start, in
 * the chunk [i, j); -1 when there is none. */
static int email_at(const qkv_seg_text *st, int i, int j, int at, int *start)
{
    int a = at;
    while (a > i && local_char(cp_at(st, a - 1)))
        a--;
    while (a < at && cp_at(st, a) == '.')
        a++;
    int b = at + 1;
    while (b < j && domain_char(cp_at(st, b)))
        b++;
    while (b > at + 1 && !ascii_alnum(cp_at(st, b - 1)))
        b--;
    int dot = -1;
    for (int k = at + 1; k < b; k++)
        if (cp_at(st, k) == '.')
            dot = k;
    if (a == at || dot < 0 || dot == at + 1 || b - dot - 1 < 2)
        return -1;
    for (int k = dot + 1; k < b; k++)
        if (((cp_at(st, k) | 32) - 'a') >= 26)
            return -1; /* the top-level domain is letters */
    *start = a;
    return b;
}

/* The end (one past) of a URL beginning at character k of the chunk [i, j); -1 when none does. */
static int url_at(const qkv_seg_text *st, int i, int j, int k)
{
    static const char *const PREFIXES[] = {"http://", "https://", "ftp://", "www."};
    if (k > i && ascii_alnum(cp_at(st, k - 1)))
        return -1;
    const char *s = st->text + st->char_off[k];
    size_t left = st->char_off[j] - st->char_off[k];
    bool url = false;
    for (size_t p = 0; p < sizeof PREFIXES / sizeof *PREFIXES; p++) {
        size_t n = strlen(PREFIXES[p]);
        url = url || (left > n && !strncasecmp(s, PREFIXES[p], n));
    }
    if (!url)
        return -1;
    int end = j;
    for (;;) {
        uint32_t c = cp_at(st, end - 1);
        const char *closer = c < 128 && c ? strchr(")]}>", (int)c) : NULL;
        if (closer) { /* kept when the URL opens it */
            uint32_t open = "([{<"[closer - ")]}>"];
            int depth = 0;
            for (int m = k; m < end; m++)
                depth += (cp_at(st, m) == open) - (cp_at(st, m) == c);
            if (depth >= 0)
                break;
        } else if (!(c < 128 && c && strchr(".,;:!?'\"", (int)c)))
            break;
        end--;
    }
    return end;
}

/* E-mail addresses and URLs of the chunk [i, j); true when it holds one. */
static bool addresses(rules *r, int i, int j)
{
    bool found = false;
    for (int k = i; k < j; k++) {
        int start = k, end = url_at(r->st, i, j, k);
        if (end < 0 && cp_at(r->st, k) == '@')
            end = email_at(r->st, i, j, k, &start);
        if (end > start) {
            one_token(r, i, start, end, true);
            found = true;
            k = end - 1;
        }
    }
    return found;
}

static bool regional(uint32_t c) { return c >= 0x1F1E6 && c <= 0x1F1FF; }

/* Whether c continues an emoji: a variation selector, a skin tone, the keycap, a tag. */
static bool emoji_extend(uint32_t c)
{
    return c == 0xFE0E || c == 0xFE0F || (c >= 0x1F3FB && c <= 0x1F3FF) || c == 0x20E3 ||
           (c >= 0xE0020 && c <= 0xE007F);
}

/* The end (one past) of the emoji beginning at character k of the chunk ending at j; -1 when
 * none begins there. */
static int emoji_at(const qkv_seg_text *st, int k, int j)
{
    uint32_t c = cp_at(st, k);
    bool selected = k + 1 < j && cp_at(st, k + 1) == 0xFE0F;
    if (!uc_is_property_extended_pictographic(c) || !(c >= 0x1F000 || uc_is_property_emoji_presentation(c) || selected))
        return -1;
    int e = k + 1;
    if (regional(c) && e < j && regional(cp_at(st, e)))
        return e + 1;
    for (;;) {
        while (e < j && emoji_extend(cp_at(st, e)))
            e++;
        if (e + 1 < j && cp_at(st, e) == 0x200D && uc_is_property_extended_pictographic(cp_at(st, e + 1)))
            e += 2;
        else
            return e;
    }
}

static void emoji(rules *r, int i, int j)
{
    for (int k = i; k < j; k++) {
        int e = emoji_at(r->st, k, j);
        if (e > k) {
            one_token(r, i, k, e, true);
            k = e - 1;
        }
    }
}

/* An abbreviation of lx that is the chunk [i, j) after any opening brackets and quotes. */
static void abbreviation(rules *r, const qkv_seg_lexicon *lx, int i, int j)
{
    for (int k = i; k + 1 < j; k++) {
        const char *b = r->st->text + r->st->char_off[k];
        if (qkv_seg_lexicon_is_abbrev(lx, b, r->st->char_off[j] - r->st->char_off[k])) {
            one_token(r, i, k, j, false);
            return;
        }
        uint32_t c = cp_at(r->st, k);
        if (!(uc_is_general_category(c, UC_CATEGORY_Ps) || uc_is_general_category(c, UC_CATEGORY_Pi) || c == '"' ||
              c == '\''))
            return;
    }
}

static bool is_space(const qkv_seg_text *st, int i) { return qkv_utf8_is_space(cp_at(st, i)); }

long qkv_seg_rules_apply(const qkv_seg_lexicon *lx, const qkv_seg_text *st, uint8_t *labels)
{
    rules r = {st, labels, 0};
    for (int p = 0; p < st->n_par; p++) {
        int end = st->par_start[p + 1];
        for (int i = st->par_start[p]; i < end;) {
            if (is_space(st, i)) {
                i++;
                continue;
            }
            int j = i;
            while (j < end && !is_space(st, j))
                j++;
            if (!addresses(&r, i, j)) {
                emoji(&r, i, j);
                if (lx)
                    abbreviation(&r, lx, i, j);
            }
            i = j;
        }
    }
    return r.changed;
}

long qkv_seg_lines_as_sentences(const qkv_seg_text *st, uint8_t *labels)
{
    rules r = {st, labels, 0};
    for (int p = 0; p < st->n_par; p++) {
        int last = -1; /* the line's last non-whitespace character so far */
        for (int i = st->par_start[p]; i <= st->par_start[p + 1]; i++) {
            bool end = i == st->par_start[p + 1] || cp_at(st, i) == '\n';
            if (end && last >= 0)
                set_label(&r, last, QKV_SEG_SENT_END);
            if (end) {
                last = -1;
                continue;
            }
            if (is_space(st, i))
                continue;
            if (labels[i] == QKV_SEG_SENT_END)
                set_label(&r, i, QKV_SEG_TOKEN_END);
            last = i;
        }
    }
    return r.changed;
}
