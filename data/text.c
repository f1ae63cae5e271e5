/* Plain text as a corpus (see corpus.h, qkv_corpus_read_text). */
#include "data/corpus.h"

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "data/text_format.h"
#include "data/utf8.h"

/* Appends the CoNLL-U line number -> text line number entry. */
static bool map_add(int32_t **map, size_t *n, size_t *cap, int32_t text_line)
{
    if (*n == *cap) {
        size_t bigger = *cap ? *cap * 2 : 256;
        int32_t *m = realloc(*map, bigger * sizeof *m);
        if (!m)
            return false;
        *map = m;
        *cap = bigger;
    }
    (*map)[(*n)++] = text_line;
    return true;
}

int qkv_corpus_read_text(qkv_corpus *c, const char *data, size_t len, const char *name, qkv_error *err)
{
    return qkv_corpus_read_text_as(c, data, len, name, QKV_TAG_UPOS, err);
}

int qkv_corpus_read_text_as(qkv_corpus *c, const char *data, size_t len, const char *name, qkv_tag_field tag_field,
                            qkv_error *err)
{
    memset(c, 0, sizeof *c);
    if (!name)
        name = "<memory>";
    size_t pos = len >= 3 && !memcmp(data, "\xEF\xBB\xBF", 3) ? 3 : 0; /* a byte-order mark is no text */
    char *conllu = NULL;
    size_t conllu_len = 0, n_map = 0, cap_map = 0;
    int32_t *map = NULL; /* map[k]: the text line of CoNLL-U line k + 1 */
    FILE *f = open_memstream(&conllu, &conllu_len);
    if (!f)
        return qkv_fail(err, "%.200s: out of memory", name);
    int status = QKV_OK;
    bool room = true;
    qkv_text_format_run run = {0, 0};
    for (int32_t line = 1; pos < len && status == QKV_OK; line++) {
        const char *s = data + pos, *nl = memchr(s, '\n', len - pos);
        size_t n = nl ? (size_t)(nl - s) : len - pos;
        pos += n + (nl != NULL);
        char problem[160];
        if (qkv_text_line_problem(s, n, problem, sizeof problem)) {
            status = qkv_fail(err, "%.200s:%d: %s", name, (int)line, problem);
            break;
        }
        size_t shown = n > 0 && s[n - 1] == '\r' ? n - 1 : n;
        if ((status = qkv_text_other_format(s, shown, name, (int)line, &run, err)) != QKV_OK)
            break;
        int id = 0;
        for (size_t i = 0; i < n;) {
            size_t sp;
            while (i < n && (sp = qkv_utf8_blank_len(s + i, n - i)) > 0)
                i += sp;
            size_t start = i;
            for (int k; i < n && qkv_utf8_blank_len(s + i, n - i) == 0; i += (size_t)k)
                qkv_utf8_decode(s + i, n - i, &k); /* a character at a time, never inside one */
            if (i > start) {
                fprintf(f, "%d\t%.*s\t_\t_\t_\t_\t_\t_\t_\t_\n", ++id, (int)(i - start), s + start);
                room = room && map_add(&map, &n_map, &cap_map, line);
            }
        }
        if (id) {
            fputc('\n', f);
            room = room && map_add(&map, &n_map, &cap_map, line);
        }
    }
    if (fclose(f) != 0 || !room)
        status = status == QKV_OK ? qkv_fail(err, "%.200s: out of memory", name) : status;
    qkv_read_opts opts = QKV_READ_DEFAULTS;
    opts.format = QKV_FORMAT_CONLLU;
    opts.tag_field = tag_field;
    if (status == QKV_OK)
        status = qkv_corpus_read_mem(c, conllu ? conllu : "", conllu ? conllu_len : 0, name, &opts, err);
    if (status == QKV_OK) { /* the user's lines, not those of the CoNLL-U made here */
        for (int s = 0; s < c->n_sent; s++)
            c->sent_line[s] = map[c->sent_line[s] - 1];
        for (int w = 0; w < c->n_words; w++)
            c->word_line[w] = map[c->word_line[w] - 1];
    }
    free(map);
    free(conllu);
    return status;
}
