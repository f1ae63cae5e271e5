/* Columns' values as classes and back (see columns.h). */
#include "data/columns.h"

#include <ctype.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "data/lemma_script.h"

void qkv_column_name(qkv_tag_field col, char *buf, size_t cap)
{
    char upper[16];
    size_t i = 0;
    for (const char *s = QKV_TAG_FIELD_NAMES[col]; *s && i + 1 < sizeof upper; s++)
        upper[i++] = (char)toupper((unsigned char)*s);
    upper[i] = '\0';
    snprintf(buf, cap, "%s (field %d)", upper, QKV_TAG_FIELD_INDEX[col] + 1);
}

size_t qkv_corpus_class_room(const qkv_corpus *c)
{
    size_t longest = 0;
    for (int i = 0; i < c->n_columns; i++)
        for (int w = 0; (c->columns[i] == QKV_TAG_LEMMA || c->columns[i] == QKV_TAG_FEATS) && w < c->n_words; w++) {
            size_t vlen, flen = 0;
            qkv_corpus_value(c, i, w, &vlen);
            if (c->columns[i] == QKV_TAG_LEMMA)
                qkv_corpus_form(c, w, &flen);
            if (flen + vlen > longest)
                longest = flen + vlen;
        }
    return QKV_LEMMA_SCRIPT_ROOM(longest, 0) + longest + 1;
}

/* The name of feature f ("Case" of "Case=Nom"): its length. */
static size_t feat_name_len(const char *f, size_t len)
{
    const char *eq = memchr(f, '=', len);
    return eq ? (size_t)(eq - f) : len;
}

/* Whether feature a (alen bytes) comes after b in UD's order: by name, case-insensitively, then
 * by the whole feature as bytes. */
static bool feat_after(const char *a, size_t alen, const char *b, size_t blen)
{
    size_t na = feat_name_len(a, alen), nb = feat_name_len(b, blen), n = na < nb ? na : nb;
    int d = strncasecmp(a, b, n);
    if (d == 0 && na != nb)
        return na > nb;
    if (d == 0) {
        d = memcmp(a, b, alen < blen ? alen : blen);
        return d > 0 || (d == 0 && alen > blen);
    }
    return d > 0;
}

/* Whether value a (alen bytes) comes after b in UD's order: case-insensitively, then as bytes. */
static bool value_after(const char *a, size_t alen, const char *b, size_t blen)
{
    size_t n = alen < blen ? alen : blen;
    int d = strncasecmp(a, b, n);
    if (d == 0 && alen != blen)
        return alen > blen;
    if (d == 0)
        d = memcmp(a, b, n);
    return d > 0;
}

/* Feature f[0..len) ("Case=Nom,Acc") into out with its ','-separated values in UD's order
 * ("Case=Acc,Nom"); returns len. A feature of more values than any has is left as written. */
static size_t feat_canonical(const char *f, size_t len, char *out)
{
    enum { MAX_VALUES = 64 };
    size_t name = feat_name_len(f, len), off[MAX_VALUES], vlen[MAX_VALUES];
    int n = 0;
    if (name == len || !memchr(f + name, ',', len - name)) {
        memcpy(out, f, len);
        return len;
    }
    for (size_t a = name + 1; a <= len; n++) {
        if (n == MAX_VALUES) {
            memcpy(out, f, len);
            return len;
        }
        const char *comma = memchr(f + a, ',', len - a);
        size_t e = comma ? (size_t)(comma - f) : len;
        off[n] = a, vlen[n] = e - a;
        for (int k = n; k > 0 && value_after(f + off[k - 1], vlen[k - 1], f + off[k], vlen[k]); k--) {
            size_t o = off[k], l = vlen[k];
            off[k] = off[k - 1], vlen[k] = vlen[k - 1];
            off[k - 1] = o, vlen[k - 1] = l;
        }
        a = e + 1;
    }
    size_t m = name + 1;
    memcpy(out, f, m);
    for (int k = 0; k < n; k++) {
        if (k)
            out[m++] = ',';
        memcpy(out + m, f + off[k], vlen[k]);
        m += vlen[k];
    }
    return m;
}

size_t qkv_feats_canonical(const char *v, size_t len, char *out)
{
    enum { MAX_FEATS = 256 };
    size_t off[MAX_FEATS], flen[MAX_FEATS];
    int n = 0;
    for (size_t a = 0; a <= len && n < MAX_FEATS;) {
        const char *bar = memchr(v + a, '|', len - a);
        size_t e = bar ? (size_t)(bar - v) : len;
        off[n] = a, flen[n] = e - a;
        for (int k = n++; k > 0 && feat_after(v + off[k - 1], flen[k - 1], v + off[k], flen[k]); k--) {
            size_t o = off[k], l = flen[k];
            off[k] = off[k - 1], flen[k] = flen[k - 1];
            off[k - 1] = o, flen[k - 1] = l;
        }
        if (!bar)
            break;
        a = e + 1;
        if (n == MAX_FEATS) { /* more features than any language has: left as written */
            memcpy(out, v, len);
            return len;
        }
    }
    size_t m = 0;
    for (int k = 0; k < n; k++) {
        if (k)
            out[m++] = '|';
        m += feat_canonical(v + off[k], flen[k], out + m);
    }
    return m;
}

const char *qkv_corpus_class(const qkv_corpus *c, int i, int w, char *scratch, size_t *len)
{
    const char *v = qkv_corpus_value(c, i, w, len);
    if (c->columns[i] == QKV_TAG_FEATS && c->format == QKV_FORMAT_CONLLU) {
        *len = qkv_feats_canonical(v, *len, scratch);
        return scratch;
    }
    if (c->columns[i] != QKV_TAG_LEMMA || c->format != QKV_FORMAT_CONLLU)
        return v;
    size_t flen;
    const char *form = qkv_corpus_form(c, w, &flen);
    long n = qkv_lemma_script(form, flen, v, *len, scratch);
    if (n < 0)
        return NULL;
    *len = (size_t)n;
    return scratch;
}

const char *qkv_column_value(qkv_tag_field col, const char *form, size_t flen, const char *cls, char *out)
{
    if (col != QKV_TAG_LEMMA)
        return cls;
    return qkv_lemma_apply(cls, strlen(cls), form, flen, out) < 0 ? NULL : out;
}
