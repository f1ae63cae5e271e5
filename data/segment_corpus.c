/* Characters as the words of a corpus, for the segmenter (segment.h, qkv_seg_corpus). */
#include "data/segment.h"
#include "data/utf8.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

int qkv_seg_corpus(qkv_corpus *c, const qkv_seg_text *st, bool with_labels, qkv_error *err)
{
    memset(c, 0, sizeof *c);
    /* the characters (TAB, CR, LF and every other White_Space character as spaces), then each
     * label name and "_", NUL-terminated */
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
        int n_bytes;
        if (qkv_utf8_is_space(qkv_utf8_decode(st->text + st->char_off[i], c->forms[i].len, &n_bytes))) {
            c->text[st->char_off[i]] = ' '; /* any White_Space character reads as a space */
            c->forms[i].len = 1;
        }
        int l = with_labels && st->labels[i] < QKV_SEG_COUNT ? st->labels[i] : QKV_SEG_COUNT;
        size_t len = strlen(l < QKV_SEG_COUNT ? QKV_SEG_LABEL_NAMES[l] : QKV_NO_TAG);
        c->tags[i] = (qkv_span){(uint32_t)label_off[l], (uint32_t)len};
        c->word_line[i] = st->char_line[i];
    }
    return QKV_OK;
}

/* How many pieces a paragraph of n characters is read in (qkv_seg_corpus_pieces). */
static int pieces_of(int n, int piece, int context) { return n > piece + 2 * context ? (n + piece - 1) / piece : 1; }

/* Piece k of a paragraph of n characters: characters [*lo, *hi) are read; [k·piece, (k+1)·piece)
 * are its core (a paragraph in one piece: all of it). */
static void piece_range(int n, int piece, int context, int k, int *lo, int *hi)
{
    if (pieces_of(n, piece, context) == 1) {
        *lo = 0, *hi = n;
        return;
    }
    int core_lo = k * piece, core_hi = core_lo + piece < n ? core_lo + piece : n;
    *lo = core_lo - context > 0 ? core_lo - context : 0;
    *hi = core_hi + context < n ? core_hi + context : n;
}

int qkv_seg_corpus_pieces(qkv_corpus *c, int piece, int context, int32_t **src, qkv_error *err)
{
    *src = NULL;
    long n_pieces = 0, n_chars = 0;
    for (int p = 0; p < c->n_sent; p++) {
        int n = c->sent_start[p + 1] - c->sent_start[p], k_max = pieces_of(n, piece, context);
        for (int k = 0, lo, hi; k < k_max; k++, n_pieces++) {
            piece_range(n, piece, context, k, &lo, &hi);
            n_chars += hi - lo;
        }
    }
    if (n_chars >= INT32_MAX || n_pieces >= INT32_MAX)
        return qkv_fail(err, "%.200s: the text is too long to segment", c->name);
    size_t rows = (size_t)(n_chars ? n_chars : 1);
    int32_t *start = malloc((size_t)(n_pieces + 1) * sizeof *start);
    int32_t *line = malloc((size_t)(n_pieces ? n_pieces : 1) * sizeof *line);
    qkv_span *forms = malloc(rows * sizeof *forms), *tags = malloc(rows * sizeof *tags);
    int32_t *word_line = malloc(rows * sizeof *word_line), *from = malloc(rows * sizeof *from);
    if (!start || !line || !forms || !tags || !word_line || !from) {
        free(start), free(line), free(forms), free(tags), free(word_line), free(from);
        return qkv_fail(err, "%.200s: out of memory", c->name);
    }
    int q = 0, i = 0;
    for (int p = 0; p < c->n_sent; p++) {
        int first = c->sent_start[p], n = c->sent_start[p + 1] - first, k_max = pieces_of(n, piece, context);
        for (int k = 0, lo, hi; k < k_max; k++, q++) {
            piece_range(n, piece, context, k, &lo, &hi);
            start[q] = i;
            line[q] = hi > lo ? c->word_line[first + lo] : c->sent_line[p];
            for (int j = lo; j < hi; j++, i++) {
                forms[i] = c->forms[first + j];
                tags[i] = c->tags[first + j];
                word_line[i] = c->word_line[first + j];
                from[i] = k_max == 1 || (j >= k * piece && j < (k + 1) * piece) ? first + j : -1;
            }
        }
    }
    start[q] = i;
    free(c->sent_start), free(c->sent_line), free(c->forms), free(c->tags), free(c->word_line);
    c->sent_start = start, c->sent_line = line, c->forms = forms, c->tags = tags, c->word_line = word_line;
    c->n_sent = q;
    c->n_words = i;
    *src = from;
    return QKV_OK;
}
