/* Characters as the words of a corpus, for the segmenter (segment.h, qkv_seg_corpus). */
#include "data/segment.h"

#include <stdlib.h>
#include <string.h>

int qkv_seg_corpus(qkv_corpus *c, const qkv_seg_text *st, bool with_labels, qkv_error *err)
{
    memset(c, 0, sizeof *c);
    /* the characters (TAB, CR, LF as spaces), then each label name and "_", NUL-terminated */
    size_t label_off[QKV_SEG_COUNT + 1], extra = 0;
    for (int l = 0; l <= QKV_SEG_COUNT; l++) {
        label_off[l] = st->text_len + extra;
        extra += strlen(l < QKV_SEG_COUNT ? QKV_SEG_LABEL_NAMES[l] : QKV_NO_TAG) + 1;
    }
    int n = st->n_chars;
    c->name = strdup(st->name);
    c->text = malloc(st->text_len + extra + 1);
    c->sent_start = malloc((size_t)(st->n_par + 1) * sizeof *c->sent_start);
    c->sent_line = malloc((size_t)(st->n_par ? st->n_par : 1) * sizeof *c->sent_line);
    c->forms = malloc((size_t)(n ? n : 1) * sizeof *c->forms);
    c->tags = malloc((size_t)(n ? n : 1) * sizeof *c->tags);
    c->word_line = malloc((size_t)(n ? n : 1) * sizeof *c->word_line);
    if (!c->name || !c->text || !c->sent_start || !c->sent_line || !c->forms || !c->tags || !c->word_line) {
        qkv_corpus_free(c);
        return qkv_fail(err, "%.200s: out of memory", st->name);
    }
    memcpy(c->text, st->text, st->text_len);
    for (size_t k = 0; k < st->text_len; k++)
        if (c->text[k] == '\t' || c->text[k] == '\r' || c->text[k] == '\n')
            c->text[k] = ' ';
    for (int l = 0; l <= QKV_SEG_COUNT; l++) {
        const char *name = l < QKV_SEG_COUNT ? QKV_SEG_LABEL_NAMES[l] : QKV_NO_TAG;
        memcpy(c->text + label_off[l], name, strlen(name) + 1);
    }
    c->text_len = st->text_len + extra;
    c->text[c->text_len] = '\0';
    c->format = QKV_FORMAT_CONLLU;
    snprintf(c->tag_column, sizeof c->tag_column, "segment labels");
    c->n_sent = st->n_par;
    for (int p = 0; p <= st->n_par; p++)
        c->sent_start[p] = st->par_start[p];
    for (int p = 0; p < st->n_par; p++)
        c->sent_line[p] = st->par_start[p] < n ? st->char_line[st->par_start[p]] : 0;
    c->n_words = n;
    for (int i = 0; i < n; i++) {
        c->forms[i] = (qkv_span){st->char_off[i], st->char_off[i + 1] - st->char_off[i]};
        int l = with_labels && st->labels[i] < QKV_SEG_COUNT ? st->labels[i] : QKV_SEG_COUNT;
        size_t len = strlen(l < QKV_SEG_COUNT ? QKV_SEG_LABEL_NAMES[l] : QKV_NO_TAG);
        c->tags[i] = (qkv_span){(uint32_t)label_off[l], (uint32_t)len};
        c->word_line[i] = st->char_line[i];
    }
    return QKV_OK;
}
