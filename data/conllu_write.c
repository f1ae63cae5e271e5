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
