/* Columns' values as classes and back (see columns.h). */
#include "data/columns.h"

#include <ctype.h>
#include <stdio.h>
#include <string.h>

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
        for (int w = 0; c->columns[i] == QKV_TAG_LEMMA && w < c->n_words; w++) {
            size_t vlen, flen;
            qkv_corpus_value(c, i, w, &vlen);
            qkv_corpus_form(c, w, &flen);
            if (flen + vlen > longest)
                longest = flen + vlen;
        }
    return QKV_LEMMA_SCRIPT_ROOM(longest, 0);
}

const char *qkv_corpus_class(const qkv_corpus *c, int i, int w, char *scratch, size_t *len)
{
    const char *v = qkv_corpus_value(c, i, w, len);
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
