/* The segmenter's lexicon of training chunks (seg_lexicon.h). */
#include "data/seg_lexicon.h"

#include <stdlib.h>
#include <string.h>

#include "data/sorted_strings.h"
#include "data/utf8.h"

void qkv_seg_lexicon_free(qkv_seg_lexicon *lx)
{
    free(lx->chunks);
    free(lx->segs);
    free(lx->buf);
    free(lx->abbrevs);
    free(lx->abbrev_buf);
    memset(lx, 0, sizeof *lx);
}

/* Byte order, a prefix first. */
static bool is_space(const qkv_seg_text *st, int i)
{
    int n;
    return qkv_utf8_is_space(qkv_utf8_decode(st->text + st->char_off[i], st->char_off[i + 1] - st->char_off[i], &n));
}

/* The end (one past) of the chunk that begins at character i of a paragraph ending at end. */
static int chunk_end(const qkv_seg_text *st, int i, int end)
{
    while (i < end && !is_space(st, i))
        i++;
    return i;
}

/* One chunk of the training text: its bytes and its segmentation (n characters). */
typedef struct occurrence {
    const char *bytes;
    size_t len;
    const char *seg;
    size_t n;
} occurrence;

static int cmp_occurrence(const void *pa, const void *pb)
{
    const occurrence *a = pa, *b = pb;
    int c = qkv_bytes_cmp(a->bytes, a->len, b->bytes, b->len);
    return c ? c : qkv_bytes_cmp(a->seg, a->n, b->seg, b->n);
}

/* The next chunk at or after *i in a paragraph ending at end: skips blanks (moving *i to the
 * chunk's first character) and returns the chunk's end j, the chunk being [*i, j); -1 when the
 * paragraph has no chunk left. */
static int next_chunk(const qkv_seg_text *st, int *i, int end)
{
    while (*i < end && is_space(st, *i))
        (*i)++;
    return *i < end ? chunk_end(st, *i, end) : -1;
}

/* Every chunk of 2 or more characters of st with its gold segmentation into occ (segmentation
 * letters in segbuf [st->n_chars]); returns their number. */
static size_t collect(const qkv_seg_text *st, occurrence *occ, char *segbuf)
{
    size_t n = 0;
    for (int p = 0; p < st->n_par; p++) {
        int end = st->par_start[p + 1];
        for (int i = st->par_start[p], j; (j = next_chunk(st, &i, end)) >= 0; i = j) {
            for (int k = i; k < j; k++) {
                uint8_t l = st->labels[k];
                segbuf[k] = k + 1 == j ? 'T' : l == QKV_SEG_INSIDE ? 'I' : l == QKV_SEG_WORD_END ? 'W' : 'T';
            }
            if (j - i >= 2 && st->labels[j - 1] != QKV_SEG_INSIDE) /* a token across the space: not a chunk */
                occ[n++] = (occurrence){st->text + st->char_off[i], st->char_off[j] - st->char_off[i], segbuf + i,
                                        (size_t)(j - i)};
        }
    }
    return n;
}

/* Room for n entries and bytes string bytes in lx. */
static bool alloc_entries(qkv_seg_lexicon *lx, size_t n, size_t bytes)
{
    lx->chunks = malloc((n ? n : 1) * sizeof *lx->chunks);
    lx->segs = malloc((n ? n : 1) * sizeof *lx->segs);
    lx->buf = malloc(bytes ? bytes : 1);
    return lx->chunks && lx->segs && lx->buf;
}

/* Appends chunk and seg (n bytes each... their lengths) to lx at *at of lx->buf. */
static void add_entry(qkv_seg_lexicon *lx, size_t *at, const char *chunk, size_t len, const char *seg, size_t n)
{
    char *c = lx->buf + *at;
    memcpy(c, chunk, len);
    c[len] = '\0';
    char *s = c + len + 1;
    memcpy(s, seg, n);
    s[n] = '\0';
    *at += len + n + 2;
    lx->chunks[lx->n] = c;
    lx->segs[lx->n++] = s;
}

int qkv_seg_lexicon_build(qkv_seg_lexicon *lx, const qkv_seg_text *st, int min_count, qkv_error *err)
{
    memset(lx, 0, sizeof *lx);
    size_t cap = (size_t)(st->n_chars ? st->n_chars : 1);
    occurrence *occ = malloc(cap * sizeof *occ);
    char *segbuf = malloc(cap);
    if (!occ || !segbuf) {
        free(occ);
        free(segbuf);
        return qkv_fail(err, "out of memory for the segmenter's lexicon");
    }
    size_t n = min_count > 0 ? collect(st, occ, segbuf) : 0;
    qsort(occ, n, sizeof *occ, cmp_occurrence);
    /* kept: groups of one chunk with one segmentation, at least min_count long */
    size_t kept = 0, bytes = 0;
    for (int pass = 0; pass < 2; pass++) {
        if (pass == 1 && !alloc_entries(lx, kept, bytes)) {
            free(occ);
            free(segbuf);
            qkv_seg_lexicon_free(lx);
            return qkv_fail(err, "out of memory for the segmenter's lexicon");
        }
        size_t at = 0;
        for (size_t g = 0, h; g < n; g = h) {
            bool same = true;
            for (h = g + 1; h < n && !qkv_bytes_cmp(occ[h].bytes, occ[h].len, occ[g].bytes, occ[g].len); h++)
                same = same && !qkv_bytes_cmp(occ[h].seg, occ[h].n, occ[g].seg, occ[g].n);
            if (!same || h - g < (size_t)min_count)
                continue;
            if (pass == 0) {
                kept++;
                bytes += occ[g].len + occ[g].n + 2;
            } else {
                add_entry(lx, &at, occ[g].bytes, occ[g].len, occ[g].seg, occ[g].n);
            }
        }
    }
    free(occ);
    free(segbuf);
    if (qkv_seg_lexicon_build_abbrevs(lx, st, err)) {
        qkv_seg_lexicon_free(lx);
        return QKV_ERR;
    }
    return QKV_OK;
}

int qkv_seg_lexicon_set(qkv_seg_lexicon *lx, size_t n, const char *const *chunks, const char *const *segs,
                        qkv_error *err)
{
    memset(lx, 0, sizeof *lx);
    size_t bytes = 0;
    for (size_t i = 0; i < n; i++) {
        size_t len = strlen(chunks[i]), ns = strlen(segs[i]);
        size_t n_chars = qkv_utf8_length(chunks[i], len);
        if (ns != n_chars || ns < 2 || strspn(segs[i], "IWT") != ns || segs[i][ns - 1] != 'T')
            return qkv_fail(err, "pair %zu: segmentation \"%.40s\" is not one of I, W, T for each of the %zu "
                                 "characters of \"%.40s\", ending with T", i + 1, segs[i], n_chars, chunks[i]);
        if (i > 0 && qkv_bytes_cmp(chunks[i - 1], strlen(chunks[i - 1]), chunks[i], len) >= 0)
            return qkv_fail(err, "pair %zu: chunk \"%.40s\" is not after \"%.40s\" in byte order", i + 1, chunks[i],
                            chunks[i - 1]);
        bytes += len + ns + 2;
    }
    if (!alloc_entries(lx, n, bytes)) {
        qkv_seg_lexicon_free(lx);
        return qkv_fail(err, "out of memory for the segmenter's lexicon");
    }
    size_t at = 0;
    for (size_t i = 0; i < n; i++)
        add_entry(lx, &at, chunks[i], strlen(chunks[i]), segs[i], strlen(segs[i]));
    return QKV_OK;
}

/* Sets the labels of characters i .. j-1 from the segmentation seg; returns the changes. */
static long set_chunk(uint8_t *labels, int i, int j, const char *seg)
{
    long changed = 0;
    bool sent = labels[j - 1] == QKV_SEG_SENT_END;
    for (int k = i; k < j; k++) {
        uint8_t was = labels[k], now;
        if (k + 1 == j)
            now = sent ? QKV_SEG_SENT_END : QKV_SEG_TOKEN_END;
        else if (seg[k - i] == 'T')
            now = was == QKV_SEG_SENT_END ? QKV_SEG_SENT_END : QKV_SEG_TOKEN_END;
        else
            now = seg[k - i] == 'W' ? QKV_SEG_WORD_END : QKV_SEG_INSIDE;
        sent = sent || (was == QKV_SEG_SENT_END && now != QKV_SEG_SENT_END);
        if (k + 1 == j && sent)
            now = QKV_SEG_SENT_END;
        labels[k] = now;
        changed += now != was;
    }
    return changed;
}

long qkv_seg_lexicon_apply(const qkv_seg_lexicon *lx, const qkv_seg_text *st, uint8_t *labels)
{
    long changed = 0;
    if (!lx || lx->n == 0)
        return 0;
    for (int p = 0; p < st->n_par; p++) {
        int end = st->par_start[p + 1];
        for (int i = st->par_start[p], j; (j = next_chunk(st, &i, end)) >= 0; i = j) {
            const char *chunk = st->text + st->char_off[i];
            size_t len = st->char_off[j] - st->char_off[i];
            long e = j - i >= 2 ? qkv_sorted_find((const char *const *)lx->chunks, lx->n, chunk, len) : -1;
            if (e >= 0)
                changed += set_chunk(labels, i, j, lx->segs[e]);
        }
    }
    return changed;
}
