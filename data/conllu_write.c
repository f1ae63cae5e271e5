/* Writes a corpus back byte for byte, with tags substituted (see corpus.h). */
#include "data/columns.h"
#include "data/corpus.h"

#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

/* Writes the text from *pos to span f, then s (len bytes), and moves *pos past f. */
static int splice(const qkv_corpus *c, FILE *out, size_t *pos, qkv_span f, const char *s, size_t len,
                  qkv_error *err)
{
    if (fwrite(c->text + *pos, 1, f.off - *pos, out) != f.off - *pos || fwrite(s, 1, len, out) != len)
        return qkv_fail(err, "writing %.200s: %s", c->name, strerror(errno));
    *pos = (size_t)f.off + f.len;
    return QKV_OK;
}

int qkv_corpus_write(const qkv_corpus *c, FILE *out, const char *const *tags, qkv_error *err)
{
    return qkv_corpus_write_parsed(c, out, tags, NULL, err);
}

int qkv_corpus_write_parsed(const qkv_corpus *c, FILE *out, const char *const *tags, const int32_t *heads,
                            qkv_error *err)
{
    size_t pos = 0;
    if (!c->head_fields)
        heads = NULL;
    for (int w = 0; w < c->n_words; w++) {
        const char *tag = tags ? tags[w] : NULL;
        size_t tlen = tag ? strlen(tag) : 0;
        if (tag && (tlen == 0 || strpbrk(tag, "\t\r\n")))
            return qkv_fail(err, "%.200s:%d: expected a non-empty tag without TAB, CR or LF for word %d, got \"%.40s\"",
                            c->name, c->word_line[w], w, tag);
        char num[16];
        int hlen = heads && heads[w] >= 0 ? snprintf(num, sizeof num, "%d", (int)heads[w]) : 0;
        /* HEAD (field 7) comes before DEPREL (field 8) on a line; UPOS and XPOS before both */
        bool head_first = hlen && c->head_fields[w].off < c->tags[w].off;
        if (head_first && splice(c, out, &pos, c->head_fields[w], num, (size_t)hlen, err))
            return QKV_ERR;
        if (tag && splice(c, out, &pos, c->tags[w], tag, tlen, err))
            return QKV_ERR;
        if (hlen && !head_first && splice(c, out, &pos, c->head_fields[w], num, (size_t)hlen, err))
            return QKV_ERR;
        /* the enhanced graph (DEPS, field 9) of another tree would contradict the new one */
        if (hlen && c->fields && splice(c, out, &pos, c->fields[(size_t)w * 10 + 8], "_", 1, err))
            return QKV_ERR;
    }
    if (fwrite(c->text + pos, 1, c->text_len - pos, out) != c->text_len - pos || fflush(out) != 0 || ferror(out))
        return qkv_fail(err, "writing %.200s: %s", c->name, strerror(errno));
    return QKV_OK;
}

int qkv_corpus_write_fields(const qkv_corpus *c, FILE *out, const char *const *const *values, qkv_error *err)
{
    return qkv_corpus_write_fields_parsed(c, out, values, NULL, err);
}

int qkv_corpus_write_fields_parsed(const qkv_corpus *c, FILE *out, const char *const *const *values,
                                   const int32_t *heads, qkv_error *err)
{
    if (!c->fields)
        return qkv_fail(err, "%.200s: only a CoNLL-U corpus can be written with several columns", c->name);
    size_t pos = 0;
    for (int w = 0; w < c->n_words; w++) {
        for (int k = 0; k < 10; k++) { /* the fields in the order of the line */
            const char *v = NULL;
            char num[16];
            for (int col = 0; col < QKV_TAG_FIELD_COUNT && !v; col++)
                if (QKV_TAG_FIELD_INDEX[col] == k && values[col])
                    v = values[col][w];
            if (k == 6 && heads && heads[w] >= 0) /* HEAD */
                v = (snprintf(num, sizeof num, "%d", (int)heads[w]), num);
            if (k == 8 && heads && heads[w] >= 0) /* DEPS: the enhanced graph of another tree */
                v = "_";
            if (!v)
                continue;
            size_t vlen = strlen(v);
            if (vlen == 0 || strpbrk(v, "\t\r\n"))
                return qkv_fail(err, "%.200s:%d: expected a non-empty value without TAB, CR or LF for word %d, got "
                                "\"%.40s\"", c->name, c->word_line[w], w, v);
            char feats[512];
            if (k == QKV_TAG_FIELD_INDEX[QKV_TAG_FEATS] && vlen < sizeof feats) /* in UD's order */
                v = feats, qkv_feats_canonical(values[QKV_TAG_FEATS][w], vlen, feats);
            qkv_span f = c->fields[(size_t)w * 10 + k];
            if (fwrite(c->text + pos, 1, f.off - pos, out) != f.off - pos || fwrite(v, 1, vlen, out) != vlen)
                return qkv_fail(err, "writing %.200s: %s", c->name, strerror(errno));
            pos = f.off + f.len;
        }
    }
    if (fwrite(c->text + pos, 1, c->text_len - pos, out) != c->text_len - pos || fflush(out) != 0 || ferror(out))
        return qkv_fail(err, "writing %.200s: %s", c->name, strerror(errno));
    return QKV_OK;
}
