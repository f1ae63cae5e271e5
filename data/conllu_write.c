/* Writes a corpus back byte for byte, with tags substituted (see corpus.h). */
#include "data/corpus.h"

#include <errno.h>
#include <string.h>

int qkv_corpus_write(const qkv_corpus *c, FILE *out, const char *const *tags, qkv_error *err)
{
    size_t pos = 0;
    for (int w = 0; w < c->n_words; w++) {
        const char *tag = tags ? tags[w] : NULL;
        if (!tag)
            continue;
        size_t tlen = strlen(tag);
        if (tlen == 0 || strpbrk(tag, "\t\r\n"))
            return qkv_fail(err, "%.200s:%d: expected a non-empty tag without TAB, CR or LF for word %d, got \"%.40s\"",
                            c->name, c->word_line[w], w, tag);
        size_t off = c->tags[w].off;
        if (fwrite(c->text + pos, 1, off - pos, out) != off - pos || fwrite(tag, 1, tlen, out) != tlen)
            return qkv_fail(err, "writing %.200s: %s", c->name, strerror(errno));
        pos = off + c->tags[w].len;
    }
    if (fwrite(c->text + pos, 1, c->text_len - pos, out) != c->text_len - pos || fflush(out) != 0 || ferror(out))
        return qkv_fail(err, "writing %.200s: %s", c->name, strerror(errno));
    return QKV_OK;
}

int qkv_corpus_write_fields(const qkv_corpus *c, FILE *out, const char *const *const *values, qkv_error *err)
{
    if (!c->fields)
        return qkv_fail(err, "%.200s: only a CoNLL-U corpus can be written with several columns", c->name);
    size_t pos = 0;
    for (int w = 0; w < c->n_words; w++) {
        for (int k = 0; k < 10; k++) { /* the fields in the order of the line */
            const char *v = NULL;
            for (int col = 0; col < QKV_TAG_FIELD_COUNT && !v; col++)
                if (QKV_TAG_FIELD_INDEX[col] == k && values[col])
                    v = values[col][w];
            if (!v)
                continue;
            size_t vlen = strlen(v);
            if (vlen == 0 || strpbrk(v, "\t\r\n"))
                return qkv_fail(err, "%.200s:%d: expected a non-empty value without TAB, CR or LF for word %d, got "
                                "\"%.40s\"", c->name, c->word_line[w], w, v);
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
