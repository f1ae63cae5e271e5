/* Lemma edit scripts (see lemma_script.h). */
#include "data/lemma_script.h"

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unicase.h>

#include "data/utf8.h"

/* The code points of valid UTF-8 s[0..len) in a malloc'd array (*n of them); NULL: out of memory. */
static uint32_t *code_points(const char *s, size_t len, size_t *n)
{
    uint32_t *cp = malloc((len + 1) * sizeof *cp);
    *n = 0;
    for (size_t i = 0; cp && i < len;) {
        int k;
        cp[(*n)++] = qkv_utf8_decode(s + i, len - i, &k);
        i += (size_t)k;
    }
    return cp;
}

static size_t put_code_points(const uint32_t *cp, size_t n, char *out)
{
    size_t len = 0;
    for (size_t i = 0; i < n; i++)
        len += (size_t)qkv_utf8_encode(cp[i], out + len);
    out[len] = '\0';
    return len;
}

static bool has_case(uint32_t c) { return uc_tolower(c) != c || uc_toupper(c) != c; }

/* The case runs of lemma[0..n): "U0L1", ... A character without case (".", "-", a digit)
 * continues the run it is in, and those before the first cased letter are in its run, so that
 * "U.S." is "U0" as "IBM" is, not "U0L1U2L3" (a class of its own, and a title-case script,
 * "U0L1", predicted in its place gives "U.s."). */
static size_t put_casing(const uint32_t *lemma, size_t n, char *out)
{
    size_t len = 0;
    int state = -1;
    for (size_t i = 0; i < n; i++) {
        if (!has_case(lemma[i]))
            continue;
        int up = uc_tolower(lemma[i]) != lemma[i];
        if (up != state)
            len += (size_t)sprintf(out + len, "%c%zu", up ? 'U' : 'L', state < 0 ? (size_t)0 : i);
        state = up;
    }
    if (state < 0)
        len += (size_t)sprintf(out + len, "L0");
    return len;
}

/* For a form without lower case letters: an upper case letter of lemma[0..n), then characters
 * without case (not white space), then a letter lowered by the casing is raised again ("U.s."
 * -> "U.S.", "D.c." -> "D.C."): a title-case script of a model whose scripts split runs at
 * characters without case, applied to an initialism. */
static void keep_initialism(const char *form, size_t flen, uint32_t *lemma, size_t n)
{
    for (size_t i = 0; i < flen;) {
        int k;
        uint32_t c = qkv_utf8_decode(form + i, flen - i, &k);
        if (uc_toupper(c) != c)
            return;
        i += (size_t)k;
    }
    for (size_t i = 1, prev = (size_t)-1; i < n; i++) {
        if (has_case(lemma[i - 1]))
            prev = i - 1;
        bool gap = prev != (size_t)-1 && prev + 1 < i && !has_case(lemma[i - 1]) && !qkv_utf8_is_space(lemma[i - 1]);
        if (gap && uc_toupper(lemma[prev]) == lemma[prev] && has_case(lemma[prev]) && uc_toupper(lemma[i]) != lemma[i])
            lemma[i] = uc_toupper(lemma[i]);
    }
}

/* The edits turning f[0..nf) into l[0..nl) (see the header), written at out; returns their length. */
static size_t put_edits(const uint32_t *f, size_t nf, const uint32_t *l, size_t nl, char *out)
{
    size_t best = 0, end_f = 0, end_l = 0;
    size_t *row = calloc(nl + 1, sizeof *row), *prev = calloc(nl + 1, sizeof *prev);
    for (size_t i = 1; row && prev && i <= nf; i++) {
        for (size_t j = 1; j <= nl; j++) {
            row[j] = f[i - 1] == l[j - 1] ? prev[j - 1] + 1 : 0;
            if (row[j] > best) {
                best = row[j];
                end_f = i;
                end_l = j;
            }
        }
        size_t *t = prev;
        prev = row;
        row = t;
    }
    free(row);
    free(prev);
    bool semicolon = false;
    for (size_t j = 0; j < nl; j++)
        semicolon |= (j < end_l - best || j >= end_l) && l[j] == ';';
    size_t len;
    if (best == 0 || semicolon) {
        out[0] = '=';
        return 1 + put_code_points(l, nl, out + 1);
    }
    len = (size_t)sprintf(out, "-%zu+", end_f - best);
    len += put_code_points(l, end_l - best, out + len);
    len += (size_t)sprintf(out + len, ";-%zu+", nf - end_f);
    return len + put_code_points(l + end_l, nl - end_l, out + len);
}

/* A script of casing (NULL: "K") and the edits of form into lemma (as given) at out; its length
 * if it gives lemma back for form, else -1. */
static long try_script(const char *casing, const char *form, size_t flen, const char *efrom, size_t eflen,
                       const char *lemma, size_t llen, const char *eto, size_t etlen, char *out)
{
    size_t nf, nl;
    uint32_t *f = code_points(efrom, eflen, &nf), *l = code_points(eto, etlen, &nl);
    long len = -1;
    if (f && l) {
        size_t n = (size_t)sprintf(out, "%s;", casing ? casing : "K");
        n += put_edits(f, nf, l, nl, out + n);
        char *back = malloc(QKV_LEMMA_ROOM(flen, n));
        long blen = back ? qkv_lemma_apply(out, n, form, flen, back) : -1;
        if (blen >= 0 && (size_t)blen == llen && !memcmp(back, lemma, llen))
            len = (long)n;
        free(back);
    }
    free(f);
    free(l);
    return len;
}

long qkv_lemma_script(const char *form, size_t flen, const char *lemma, size_t llen, char *out)
{
    char *lf = malloc(QKV_UTF8_LOWER_ROOM(flen)), *ll = malloc(QKV_UTF8_LOWER_ROOM(llen));
    size_t nl;
    uint32_t *l = code_points(lemma, llen, &nl);
    char *casing = malloc(16 * (llen + 1) + 8);
    long len = -1;
    if (lf && ll && l && casing) {
        size_t lflen = qkv_utf8_lower(form, flen, lf), lllen = qkv_utf8_lower(lemma, llen, ll);
        casing[put_casing(l, nl, casing)] = '\0';
        len = try_script(casing, form, flen, lf, lflen, lemma, llen, ll, lllen, out);
        if (len < 0)
            len = try_script(NULL, form, flen, form, flen, lemma, llen, lemma, llen, out);
        if (len < 0) {
            memcpy(out, "K;=", 3);
            memcpy(out + 3, lemma, llen);
            out[3 + llen] = '\0';
            len = (long)(3 + llen);
        }
    }
    free(lf);
    free(ll);
    free(l);
    free(casing);
    return len;
}

/* Parses "-P+A;-S+B" of s[0..len): the counts and the two additions' spans. */
static bool parse_edits(const char *s, size_t len, size_t *p, size_t *a0, size_t *a1, size_t *q, size_t *b0)
{
    size_t i = 0;
    size_t *counts[2] = {p, q};
    for (int part = 0; part < 2; part++) {
        if (i >= len || s[i++] != '-' || i >= len || s[i] < '0' || s[i] > '9')
            return false;
        size_t v = 0;
        while (i < len && s[i] >= '0' && s[i] <= '9' && v < 100000000)
            v = v * 10 + (size_t)(s[i++] - '0');
        if (i >= len || s[i++] != '+')
            return false;
        *counts[part] = v;
        if (part == 0) {
            *a0 = i;
            while (i < len && s[i] != ';')
                i++;
            *a1 = i;
            if (i++ >= len)
                return false;
        } else
            *b0 = i;
    }
    return true;
}

/* Applies the runs of casing[0..clen) to lemma[0..n) (lowercase); false: not runs. */
static bool apply_casing(const char *casing, size_t clen, uint32_t *lemma, size_t n)
{
    size_t i = 0, from = 0;
    int up = 0;
    while (i < clen) {
        char c = casing[i++];
        if ((c != 'U' && c != 'L') || i >= clen || casing[i] < '0' || casing[i] > '9')
            return false;
        size_t at = 0;
        while (i < clen && casing[i] >= '0' && casing[i] <= '9' && at < 100000000)
            at = at * 10 + (size_t)(casing[i++] - '0');
        for (size_t k = from; k < at && k < n; k++)
            lemma[k] = up ? uc_toupper(lemma[k]) : lemma[k];
        from = at;
        up = c == 'U';
    }
    for (size_t k = from; k < n; k++)
        lemma[k] = up ? uc_toupper(lemma[k]) : lemma[k];
    return true;
}

long qkv_lemma_apply(const char *script, size_t slen, const char *form, size_t flen, char *out)
{
    const char *semi = memchr(script, ';', slen);
    if (!semi || qkv_utf8_check(script, slen) != slen)
        return -1;
    size_t clen = (size_t)(semi - script), rlen = slen - clen - 1;
    const char *r = semi + 1;
    bool keep = clen == 1 && script[0] == 'K';
    char *base = malloc(QKV_UTF8_LOWER_ROOM(flen)), *mid = malloc(QKV_LEMMA_ROOM(flen, slen));
    size_t blen = 0, mlen = 0, nb = 0, n = 0;
    uint32_t *b = NULL, *cp = NULL;
    long len = -1;
    if (!base || !mid)
        goto done;
    if (keep)
        memcpy(base, form, blen = flen);
    else
        blen = qkv_utf8_lower(form, flen, base);
    if (rlen > 0 && r[0] == '=') {
        memcpy(mid, r + 1, mlen = rlen - 1);
    } else {
        size_t p, q, a0, a1, b0;
        if (!parse_edits(r, rlen, &p, &a0, &a1, &q, &b0) || !(b = code_points(base, blen, &nb)) || p + q > nb)
            goto done;
        memcpy(mid, r + a0, a1 - a0);
        mlen = a1 - a0;
        for (size_t k = p; k < nb - q; k++)
            mlen += (size_t)qkv_utf8_encode(b[k], mid + mlen);
        memcpy(mid + mlen, r + b0, rlen - b0);
        mlen += rlen - b0;
    }
    if (keep) {
        memcpy(out, mid, mlen);
        out[mlen] = '\0';
        len = (long)mlen;
    } else if ((cp = code_points(mid, mlen, &n)) && apply_casing(script, clen, cp, n)) {
        keep_initialism(form, flen, cp, n);
        len = (long)put_code_points(cp, n, out);
    }
done:
    free(base);
    free(mid);
    free(b);
    free(cp);
    return len;
}

long qkv_lemma_script_needs(const char *script, size_t slen)
{
    const char *semi = memchr(script, ';', slen);
    if (!semi)
        return -1;
    const char *r = semi + 1;
    size_t rlen = slen - (size_t)(r - script), p, q, a0, a1, b0;
    if (rlen > 0 && r[0] == '=')
        return rlen > 1 ? 0 : -1;
    if (!parse_edits(r, rlen, &p, &a0, &a1, &q, &b0))
        return -1;
    return (long)(p + q) + (a1 == a0 && b0 == rlen);
}
