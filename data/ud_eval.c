/* The CoNLL 2018 shared task's scores of a system file against gold (ud_eval.h). */
#include "data/ud_eval.h"

#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "data/line_fields.h"
#include "data/ud_tags.h"
#include "data/utf8.h"

typedef struct ud_span {
    int32_t start, end; /* characters start .. end-1 (whitespace not counted) */
} ud_span;

typedef struct ud_field {
    const char *s;
    size_t len;
} ud_field;

typedef struct ud_word {
    ud_span span;       /* its token's */
    bool multiword;     /* one of a multiword token's words */
    uint32_t lower_off; /* its lowercased FORM in the file's lower buffer */
    const char *upos;
    size_t upos_len;
    int32_t head;       /* the file's index of its HEAD word; -1 ROOT, -2 none ("_" or not a number) */
    ud_field deprel;    /* DEPREL's universal part (before any ':') */
    ud_field lemma;
    uint32_t feats_off; /* its universal FEATS in the file's feats buffer, NUL-terminated */
    uint32_t sent_first; /* the file's index of its sentence's first word */
    ud_field xpos;
} ud_word;

typedef struct ud_file {
    const char *name;
    uint32_t *chars;
    size_t n_chars, cap_chars;
    ud_span *tokens, *sents;
    size_t n_tokens, cap_tokens, n_sents, cap_sents;
    ud_word *words;
    size_t n_words, cap_words;
    char *lower;
    size_t lower_len, cap_lower;
    char *feats;
    size_t feats_len, cap_feats;
    size_t n_heads;   /* words whose HEAD is a number */
    int no_head_line; /* the line of the first word whose HEAD is not (0: none) */
} ud_file;

static void file_free(ud_file *f)
{
    free(f->chars);
    free(f->tokens);
    free(f->sents);
    free(f->words);
    free(f->lower);
    free(f->feats);
}

__attribute__((format(printf, 4, 5))) static int fail_line(qkv_error *err, const char *name, int line,
                                                           const char *fmt, ...)
{
    char msg[600];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    return qkv_fail(err, "%.200s:%d: %s", name, line, msg);
}

/* Appends the non-whitespace characters of form to f's characters; their span into *span. */
static bool add_token(ud_file *f, const char *form, size_t len, ud_span *span)
{
    span->start = (int32_t)f->n_chars;
    for (size_t i = 0; i < len;) {
        int n;
        uint32_t cp = qkv_utf8_decode(form + i, len - i, &n);
        i += (size_t)n;
        if (qkv_utf8_is_space(cp))
            continue;
        if (!qkv_array_grow((void **)&f->chars, &f->cap_chars, f->n_chars + 1, sizeof *f->chars))
            return false;
        f->chars[f->n_chars++] = cp;
    }
    span->end = (int32_t)f->n_chars;
    return qkv_array_grow((void **)&f->tokens, &f->cap_tokens, f->n_tokens + 1, sizeof *f->tokens) &&
           (f->tokens[f->n_tokens++] = *span, true);
}

/* The universal features of FEATS (sorted, '|'-joined: qkv_ud_universal_feats) at the end of f's
 * feats buffer. */
static bool add_feats(ud_file *f, ud_field feats, uint32_t *off)
{
    if (!qkv_array_grow((void **)&f->feats, &f->cap_feats, f->feats_len + feats.len + 1, 1))
        return false;
    *off = (uint32_t)f->feats_len;
    char *out = f->feats + f->feats_len;
    size_t n = qkv_ud_universal_feats(feats.s, feats.len, out);
    out[n] = '\0';
    f->feats_len += n + 1;
    return true;
}

/* Word fields of line s beyond FORM and UPOS; first: the file's index of the sentence's first
 * word; line: its line number. */
typedef struct ud_line {
    const char *s;
    size_t n;
    size_t first;
    int line;
} ud_line;

static bool add_word(ud_file *f, ud_span span, bool multiword, const char *form, size_t len, const char *upos,
                     size_t upos_len, const ud_line *ln)
{
    if (!qkv_array_grow((void **)&f->words, &f->cap_words, f->n_words + 1, sizeof *f->words) ||
        !qkv_array_grow((void **)&f->lower, &f->cap_lower, f->lower_len + QKV_UTF8_LOWER_ROOM(len), 1))
        return false;
    ud_word *w = &f->words[f->n_words++];
    *w = (ud_word){span, multiword, (uint32_t)f->lower_len, upos, upos_len, -2, {"", 0}, {"", 0}, 0, (uint32_t)ln->first, {"", 0}};
    f->lower_len += qkv_utf8_lower(form, len, f->lower + f->lower_len) + 1;
    ud_field head, feats;
    w->lemma.s = qkv_line_field(ln->s, ln->n, 2, &w->lemma.len);
    w->xpos.s = qkv_line_field(ln->s, ln->n, 4, &w->xpos.len);
    feats.s = qkv_line_field(ln->s, ln->n, 5, &feats.len);
    head.s = qkv_line_field(ln->s, ln->n, 6, &head.len);
    w->deprel.s = qkv_line_field(ln->s, ln->n, 7, &w->deprel.len);
    const char *colon = memchr(w->deprel.s, ':', w->deprel.len);
    if (colon)
        w->deprel.len = (size_t)(colon - w->deprel.s);
    size_t i = 0;
    long h = qkv_line_number(head.s, head.len, &i);
    if (h >= 0 && i == head.len) {
        w->head = h == 0 ? -1 : (int32_t)(ln->first + (size_t)h - 1);
        f->n_heads++;
    } else if (!f->no_head_line) {
        f->no_head_line = ln->line;
    }
    return add_feats(f, feats, &w->feats_off);
}

static int read_file(ud_file *f, const char *data, size_t len, qkv_error *err)
{
    size_t pos = len >= 3 && !memcmp(data, "\xEF\xBB\xBF", 3) ? 3 : 0;
    size_t sent_first = 0, word_first = 0; /* first token and word of the open sentence */
    int mw_left = 0, mw_line = 0;
    ud_span mw_span = {0, 0};
    for (int line = 1;; line++) {
        bool eof = pos >= len;
        const char *s = data + pos, *nl = eof ? NULL : memchr(s, '\n', len - pos);
        size_t n = eof ? 0 : nl ? (size_t)(nl - s) : len - pos;
        pos += n + (nl != NULL);
        if (n > 0 && s[n - 1] == '\r')
            n--;
        if (n == 0) { /* a sentence ends */
            if (mw_left)
                return fail_line(err, f->name, mw_line, "the sentence ends before the words of this multiword token");
            if (f->n_tokens > sent_first) {
                if (!qkv_array_grow((void **)&f->sents, &f->cap_sents, f->n_sents + 1, sizeof *f->sents))
                    return qkv_fail(err, "out of memory");
                f->sents[f->n_sents++] = (ud_span){f->tokens[sent_first].start, f->tokens[f->n_tokens - 1].end};
            }
            sent_first = f->n_tokens;
            word_first = f->n_words;
            if (eof)
                return QKV_OK;
            continue;
        }
        size_t bad = qkv_utf8_check(s, n), cr = qkv_line_cr(s, n);
        if (bad < n)
            return fail_line(err, f->name, line, "invalid UTF-8 or a NUL byte at byte %zu of the line", bad + 1);
        if (cr)
            return fail_line(err, f->name, line, QKV_LINE_CR_MESSAGE, cr);
        if (s[0] == '#')
            continue;
        size_t idl, fl, ul, ml;
        const char *id = qkv_line_field(s, n, 0, &idl), *form = qkv_line_field(s, n, 1, &fl);
        const char *upos = qkv_line_field(s, n, 3, &ul);
        const char *misc = qkv_line_field(s, n, 9, &ml);
        if (!misc || memchr(misc, '\t', ml))
            return fail_line(err, f->name, line, "expected 10 TAB-separated fields (a CoNLL-U word line)");
        size_t i = 0;
        long a = qkv_line_number(id, idl, &i), b = a;
        char kind = i < idl ? id[i] : 0;
        if (kind == '-' || kind == '.') {
            i++;
            b = qkv_line_number(id, idl, &i);
        }
        if (a < 0 || b < 0 || i != idl || (kind == '-' && b < a) || (kind && kind != '-' && kind != '.'))
            return fail_line(err, f->name, line, "expected an ID (N, N-M or N.M) in field 1, found \"%.*s\"",
                             (int)qkv_utf8_prefix_bytes(id, idl, 40), id);
        if (kind == '.')
            continue; /* empty nodes are no words of the surface */
        ud_span span;
        bool ok = true;
        const ud_line ln = {s, n, word_first, line};
        if (kind == '-') {
            if (mw_left)
                return fail_line(err, f->name, line, "a multiword token before the words of the previous one");
            ok = add_token(f, form, fl, &mw_span);
            mw_left = (int)(b - a + 1);
            mw_line = line;
            span = mw_span;
        } else if (mw_left) {
            mw_left--;
            ok = add_word(f, mw_span, true, form, fl, upos, ul, &ln);
            span = mw_span;
        } else {
            ok = add_token(f, form, fl, &span) && add_word(f, span, false, form, fl, upos, ul, &ln);
        }
        if (!ok)
            return qkv_fail(err, "out of memory");
        if (span.start == span.end)
            return fail_line(err, f->name, line, "the FORM is empty or only whitespace");
    }
}

void qkv_ud_score_set(qkv_ud_score *sc, long gold, long system, long correct)
{
    sc->gold = gold;
    sc->system = system;
    sc->correct = correct;
    sc->precision = system ? (double)correct / (double)system : 0;
    sc->recall = gold ? (double)correct / (double)gold : 0;
    sc->f1 = gold + system ? 2.0 * (double)correct / (double)(gold + system) : 0;
}

/* Spans of both lists (each in text order) with the same start and end. */
static long same_spans(const ud_span *g, size_t ng, const ud_span *s, size_t ns)
{
    long correct = 0;
    for (size_t i = 0, j = 0; i < ng && j < ns;) {
        if (s[j].start < g[i].start)
            j++;
        else if (g[i].start < s[j].start)
            i++;
        else
            correct += g[i++].end == s[j++].end;
    }
    return correct;
}

typedef struct aligner {
    const ud_file *g, *s;
    long aligned, upos;
    int32_t *map; /* [gold words]: the aligned system word, or -1 */
    long xpos, ufeats, alltags, lemmas;
} aligner;

static bool same_field(ud_field a, ud_field b) { return a.len == b.len && !memcmp(a.s, b.s, a.len); }

static void align_pair(aligner *al, const ud_word *gw, const ud_word *sw)
{
    al->aligned++;
    bool upos = gw->upos_len == sw->upos_len && !memcmp(gw->upos, sw->upos, gw->upos_len);
    bool xpos = same_field(gw->xpos, sw->xpos);
    bool ufeats = !strcmp(al->g->feats + gw->feats_off, al->s->feats + sw->feats_off);
    al->upos += upos;
    al->xpos += xpos;
    al->ufeats += ufeats;
    al->alltags += upos && xpos && ufeats;
    al->lemmas += (gw->lemma.len == 1 && gw->lemma.s[0] == '_') || same_field(gw->lemma, sw->lemma);
    al->map[gw - al->g->words] = (int32_t)(sw - al->s->words);
}

static bool same_lower(const aligner *al, size_t gi, size_t si)
{
    return !strcmp(al->g->lower + al->g->words[gi].lower_off, al->s->lower + al->s->words[si].lower_off);
}

/* Whether word i of f lies past the end of a stretch of multiword tokens ending at end. */
static bool past_end(const ud_file *f, size_t i, int32_t end)
{
    if (i >= f->n_words)
        return true;
    const ud_word *w = &f->words[i];
    return w->multiword ? w->span.start >= end : w->span.end > end;
}

static int32_t extend(const ud_word *w, int32_t end) { return w->multiword && w->span.end > end ? w->span.end : end; }

/* Aligns gold words gs..ge-1 with system words ss..se-1 by the longest common subsequence of
 * their lowercased FORMs. */
static bool align_lcs(aligner *al, size_t gs, size_t ge, size_t ss, size_t se)
{
    size_t ng = ge - gs, ns = se - ss;
    /* lcs[g * (ns + 1) + s]: the LCS of gold words g.. and system words s.. */
    int32_t *lcs = calloc((ng + 1) * (ns + 1), sizeof *lcs);
    if (!lcs)
        return false;
#define L(g, s) lcs[(size_t)(g) * (ns + 1) + (size_t)(s)]
    for (size_t g = ng; g-- > 0;)
        for (size_t s = ns; s-- > 0;) {
            int32_t best = same_lower(al, gs + g, ss + s) ? 1 + L(g + 1, s + 1) : 0;
            if (L(g + 1, s) > best)
                best = L(g + 1, s);
            if (L(g, s + 1) > best)
                best = L(g, s + 1);
            L(g, s) = best;
        }
    for (size_t g = 0, s = 0; g < ng && s < ns;) {
        if (same_lower(al, gs + g, ss + s)) {
            align_pair(al, &al->g->words[gs + g], &al->s->words[ss + s]);
            g++;
            s++;
        } else if (L(g, s) == L(g + 1, s)) {
            g++;
        } else {
            s++;
        }
    }
#undef L
    free(lcs);
    return true;
}

static bool align_words(aligner *al)
{
    const ud_file *g = al->g, *s = al->s;
    size_t gi = 0, si = 0;
    while (gi < g->n_words && si < s->n_words) {
        const ud_word *gw = &g->words[gi], *sw = &s->words[si];
        if (!gw->multiword && !sw->multiword) {
            if (gw->span.start == sw->span.start && gw->span.end == sw->span.end) {
                align_pair(al, gw, sw);
                gi++;
                si++;
            } else if (gw->span.start <= sw->span.start) {
                gi++;
            } else {
                si++;
            }
            continue;
        }
        /* the stretch of text that overlapping multiword tokens cover, from its first words */
        int32_t end;
        if (gw->multiword) {
            end = gw->span.end;
            if (!sw->multiword && sw->span.start < gw->span.start)
                si++;
        } else {
            end = sw->span.end;
            if (gw->span.start < sw->span.start)
                gi++;
        }
        size_t gs = gi, ss = si;
        while (!past_end(g, gi, end) || !past_end(s, si, end)) {
            if (gi < g->n_words && (si >= s->n_words || g->words[gi].span.start <= s->words[si].span.start))
                end = extend(&g->words[gi++], end);
            else
                end = extend(&s->words[si++], end);
        }
        if (gi > gs && si > ss && !align_lcs(al, gs, gi, ss, si))
            return false;
    }
    return true;
}

/* ---- dependencies: UAS, LAS, MLAS, BLEX (aligned words only; gold counts over the gold file,
 * system counts over the system file) ---- */

static const char *const FUNCTIONAL_DEPRELS[] = {"aux", "cop", "mark", "det", "clf", "case", "cc", NULL};
static const char *const CONTENT_DEPRELS[] = {"nsubj", "obj", "iobj", "csubj", "ccomp", "xcomp", "obl", "vocative",
                                              "expl", "dislocated", "advcl", "advmod", "discourse", "nmod", "appos",
                                              "nummod", "acl", "amod", "conj", "fixed", "flat", "compound", "list",
                                              "parataxis", "orphan", "goeswith", "reparandum", "root", "dep", NULL};

static bool in_list(const char *const *list, ud_field f)
{
    for (int i = 0; list[i]; i++)
        if (strlen(list[i]) == f.len && !memcmp(list[i], f.s, f.len))
            return true;
    return false;
}

static bool same(ud_field a, ud_field b) { return a.len == b.len && !memcmp(a.s, b.s, a.len); }

/* Whether system word si's head is the word aligned with gold word gi's head (or both ROOT). */
static bool same_head(const aligner *al, size_t gi, size_t si)
{
    int32_t gh = al->g->words[gi].head, sh = al->s->words[si].head;
    return gh == -1 ? sh == -1 : gh >= 0 && sh >= 0 && al->map[gh] == sh;
}

static bool same_morph(const aligner *al, const ud_word *gw, const ud_word *sw)
{
    return gw->upos_len == sw->upos_len && !memcmp(gw->upos, sw->upos, gw->upos_len) &&
           !strcmp(al->g->feats + gw->feats_off, al->s->feats + sw->feats_off);
}

/* The next functional child of word h in f from index *i on (within h's sentence), or -1. */
static int32_t next_functional(const ud_file *f, size_t h, size_t *i)
{
    if (*i < f->words[h].sent_first)
        *i = f->words[h].sent_first;
    for (; *i < f->n_words && f->words[*i].sent_first == f->words[h].sent_first; (*i)++)
        if (f->words[*i].head == (int32_t)h && in_list(FUNCTIONAL_DEPRELS, f->words[*i].deprel))
            return (int32_t)(*i)++;
    return -1;
}

/* MLAS's last condition: the functional children of both words align one to one, in order,
 * with the same DEPREL, UPOS and universal FEATS. */
static bool same_functional_children(const aligner *al, size_t gi, size_t si)
{
    size_t a = 0, b = 0;
    for (;;) {
        int32_t gc = next_functional(al->g, gi, &a), sc = next_functional(al->s, si, &b);
        if (gc < 0 || sc < 0)
            return gc < 0 && sc < 0;
        const ud_word *gw = &al->g->words[gc], *sw = &al->s->words[sc];
        if (al->map[gc] != sc || !same(gw->deprel, sw->deprel) || !same_morph(al, gw, sw))
            return false;
    }
}

static long content_words(const ud_file *f)
{
    long n = 0;
    for (size_t i = 0; i < f->n_words; i++)
        n += in_list(CONTENT_DEPRELS, f->words[i].deprel);
    return n;
}

static int score_deps(const aligner *al, qkv_ud_eval *res)
{
    long uas = 0, las = 0, mlas = 0, blex = 0;
    for (size_t gi = 0; gi < al->g->n_words; gi++) {
        if (al->map[gi] < 0)
            continue;
        size_t si = (size_t)al->map[gi];
        const ud_word *gw = &al->g->words[gi], *sw = &al->s->words[si];
        if (!same_head(al, gi, si))
            continue;
        uas++;
        if (!same(gw->deprel, sw->deprel))
            continue;
        las++;
        if (!in_list(CONTENT_DEPRELS, gw->deprel))
            continue;
        mlas += same_morph(al, gw, sw) && same_functional_children(al, gi, si);
        bool no_lemma = gw->lemma.len == 1 && gw->lemma.s[0] == '_';
        blex += no_lemma || same(gw->lemma, sw->lemma);
    }
    const long gn = (long)al->g->n_words, sn = (long)al->s->n_words;
    qkv_ud_score_set(&res->uas, gn, sn, uas);
    qkv_ud_score_set(&res->las, gn, sn, las);
    qkv_ud_score_set(&res->mlas, content_words(al->g), content_words(al->s), mlas);
    qkv_ud_score_set(&res->blex, content_words(al->g), content_words(al->s), blex);
    return QKV_OK;
}

/* The characters at k of f, up to 20 of them, as UTF-8 into out (room for 84 bytes). */
static void show_chars(const ud_file *f, size_t k, char *out)
{
    size_t n = 0;
    for (size_t i = k; i < f->n_chars && i < k + 20; i++)
        n += (size_t)qkv_utf8_encode(f->chars[i], out + n);
    out[n] = '\0';
}

int qkv_ud_evaluate(const char *gold, size_t gold_len, const char *gold_name, const char *sys, size_t sys_len,
                    const char *sys_name, qkv_ud_eval *res, qkv_error *err)
{
    memset(res, 0, sizeof *res);
    ud_file g, s;
    memset(&g, 0, sizeof g);
    memset(&s, 0, sizeof s);
    g.name = gold_name;
    s.name = sys_name;
    int status = read_file(&g, gold, gold_len, err);
    if (status == QKV_OK)
        status = read_file(&s, sys, sys_len, err);
    for (ud_file *f = &g; status == QKV_OK && f; f = f == &g ? &s : NULL)
        if (f->n_heads && f->no_head_line) /* UAS and LAS count every word: no word can go without */
            status = fail_line(err, f->name, f->no_head_line,
                               "HEAD (field 7) is no word number where other words have one: UAS and LAS count "
                               "every word (the CoNLL 2018 scorer refuses such a HEAD)");
    res->gold_arcs = (long)g.n_heads;
    if (status == QKV_OK) {
        size_t k = 0;
        while (k < g.n_chars && k < s.n_chars && g.chars[k] == s.chars[k])
            k++;
        if (k < g.n_chars || k < s.n_chars) {
            char gs[96], ss[96];
            show_chars(&g, k, gs);
            show_chars(&s, k, ss);
            status = qkv_fail(err, "%.200s: its text differs from %.200s's at character %zu (whitespace not counted): "
                                   "\"%s\" where the gold has \"%s\"",
                              sys_name, gold_name, k + 1, ss, gs);
        }
    }
    aligner al = {&g, &s, 0, 0, NULL, 0, 0, 0, 0};
    if (status == QKV_OK && !(al.map = malloc((g.n_words + 1) * sizeof *al.map)))
        status = qkv_fail(err, "out of memory");
    for (size_t i = 0; status == QKV_OK && i < g.n_words; i++)
        al.map[i] = -1;
    if (status == QKV_OK && !align_words(&al))
        status = qkv_fail(err, "out of memory");
    if (status == QKV_OK && score_deps(&al, res))
        status = qkv_fail(err, "out of memory");
    if (status == QKV_OK) {
        qkv_ud_score_set(&res->tokens, (long)g.n_tokens, (long)s.n_tokens, same_spans(g.tokens, g.n_tokens, s.tokens, s.n_tokens));
        qkv_ud_score_set(&res->sentences, (long)g.n_sents, (long)s.n_sents, same_spans(g.sents, g.n_sents, s.sents, s.n_sents));
        qkv_ud_score_set(&res->words, (long)g.n_words, (long)s.n_words, al.aligned);
        qkv_ud_score_set(&res->upos, (long)g.n_words, (long)s.n_words, al.upos);
        qkv_ud_score_set(&res->xpos, (long)g.n_words, (long)s.n_words, al.xpos);
        qkv_ud_score_set(&res->ufeats, (long)g.n_words, (long)s.n_words, al.ufeats);
        qkv_ud_score_set(&res->alltags, (long)g.n_words, (long)s.n_words, al.alltags);
        qkv_ud_score_set(&res->lemmas, (long)g.n_words, (long)s.n_words, al.lemmas);
    }
    free(al.map);
    file_free(&g);
    file_free(&s);
    return status;
}
