/* The abbreviations of a segmenter's lexicon (seg_lexicon.h): learned from the gold tokens of
 * its training file, stored beside its chunks, read back by the decoding rules (seg_rules.h). */
#include "data/seg_lexicon.h"

#include <stdlib.h>
#include <string.h>
#include <unictype.h>

#include "data/sorted_strings.h"
#include "data/utf8.h"

/* One token of the training file that may be an abbreviation, and whether it ends a sentence. */
typedef struct token_ref {
    const char *bytes;
    size_t len;
    bool final;
} token_ref;

static int cmp_token(const void *pa, const void *pb)
{
    const token_ref *a = pa, *b = pb;
    return qkv_bytes_cmp(a->bytes, a->len, b->bytes, b->len);
}

/* Whether bytes[0..len) has the form of an abbreviation: 2 or more characters, the last ".",
 * at least one letter. */
static bool abbrev_shape(const char *bytes, size_t len)
{
    if (len < 2 || bytes[len - 1] != '.')
        return false;
    for (size_t i = 0; i < len;) {
        int k;
        uint32_t cp = qkv_utf8_decode(bytes + i, len - i, &k);
        if (uc_is_general_category(cp, UC_CATEGORY_L))
            return true;
        i += (size_t)k;
    }
    return false;
}

/* The tokens of st's gold labels that have the form of an abbreviation into refs; their number. */
static size_t collect_tokens(const qkv_seg_text *st, token_ref *refs)
{
    size_t n = 0;
    for (int p = 0; p < st->n_par; p++) {
        int start = -1;
        for (int i = st->par_start[p]; i < st->par_start[p + 1]; i++) {
            uint8_t l = st->labels[i];
            if (l == QKV_SEG_OUTSIDE) {
                start = -1;
                continue;
            }
            if (start < 0)
                start = i;
            if (l != QKV_SEG_TOKEN_END && l != QKV_SEG_SENT_END)
                continue;
            const char *b = st->text + st->char_off[start];
            size_t len = st->char_off[i + 1] - st->char_off[start];
            if (abbrev_shape(b, len))
                refs[n++] = (token_ref){b, len, l == QKV_SEG_SENT_END};
            start = -1;
        }
    }
    return n;
}

/* Room for n abbreviations of bytes bytes (their NULs included) in lx. */
static bool alloc_abbrevs(qkv_seg_lexicon *lx, size_t n, size_t bytes)
{
    lx->abbrevs = malloc((n ? n : 1) * sizeof *lx->abbrevs);
    lx->abbrev_buf = malloc(bytes ? bytes : 1);
    return lx->abbrevs && lx->abbrev_buf;
}

static void free_abbrevs(qkv_seg_lexicon *lx)
{
    free(lx->abbrevs);
    free(lx->abbrev_buf);
    lx->abbrevs = NULL;
    lx->abbrev_buf = NULL;
    lx->n_abbrevs = 0;
}

static void add_abbrev(qkv_seg_lexicon *lx, size_t *at, const char *bytes, size_t len)
{
    char *a = lx->abbrev_buf + *at;
    memcpy(a, bytes, len);
    a[len] = '\0';
    *at += len + 1;
    lx->abbrevs[lx->n_abbrevs++] = a;
}

int qkv_seg_lexicon_build_abbrevs(qkv_seg_lexicon *lx, const qkv_seg_text *st, qkv_error *err)
{
    free_abbrevs(lx);
    token_ref *refs = malloc((size_t)(st->n_chars ? st->n_chars : 1) * sizeof *refs);
    if (!refs)
        return qkv_fail(err, "out of memory for the segmenter's abbreviations");
    size_t n = collect_tokens(st, refs);
    qsort(refs, n, sizeof *refs, cmp_token);
    size_t kept = 0, bytes = 0;
    for (int pass = 0; pass < 2; pass++) {
        if (pass == 1 && !alloc_abbrevs(lx, kept, bytes)) {
            free(refs);
            free_abbrevs(lx);
            return qkv_fail(err, "out of memory for the segmenter's abbreviations");
        }
        size_t at = 0;
        for (size_t g = 0, h; g < n; g = h) {
            size_t final = 0;
            for (h = g; h < n && !cmp_token(&refs[h], &refs[g]); h++)
                final += refs[h].final;
            if (h - g - final <= final) /* inside a sentence no more often than at its end */
                continue;
            if (pass == 0) {
                kept++;
                bytes += refs[g].len + 1;
            } else
                add_abbrev(lx, &at, refs[g].bytes, refs[g].len);
        }
    }
    free(refs);
    return QKV_OK;
}

int qkv_seg_lexicon_set_abbrevs(qkv_seg_lexicon *lx, size_t n, const char *const *abbrevs, qkv_error *err)
{
    free_abbrevs(lx);
    size_t bytes = 0;
    for (size_t i = 0; i < n; i++) {
        size_t len = strlen(abbrevs[i]);
        if (len < 2 || abbrevs[i][len - 1] != '.')
            return qkv_fail(err, "abbreviation %zu: \"%.40s\" does not end with \".\" after a character", i + 1,
                            abbrevs[i]);
        if (i > 0 && qkv_bytes_cmp(abbrevs[i - 1], strlen(abbrevs[i - 1]), abbrevs[i], len) >= 0)
            return qkv_fail(err, "abbreviation %zu: \"%.40s\" is not after \"%.40s\" in byte order", i + 1,
                            abbrevs[i], abbrevs[i - 1]);
        bytes += len + 1;
    }
    if (!alloc_abbrevs(lx, n, bytes)) {
        free_abbrevs(lx);
        return qkv_fail(err, "out of memory for the segmenter's abbreviations");
    }
    size_t at = 0;
    for (size_t i = 0; i < n; i++)
        add_abbrev(lx, &at, abbrevs[i], strlen(abbrevs[i]));
    return QKV_OK;
}

bool qkv_seg_lexicon_is_abbrev(const qkv_seg_lexicon *lx, const char *bytes, size_t len)
{
    if (!lx || !abbrev_shape(bytes, len))
        return false;
    if (lx->n_abbrevs > 0)
        return qkv_sorted_find((const char *const *)lx->abbrevs, lx->n_abbrevs, bytes, len) >= 0;
    long e = qkv_sorted_find((const char *const *)lx->chunks, lx->n, bytes, len);
    if (e < 0)
        return false;
    const char *seg = lx->segs[e];
    size_t ns = strlen(seg);
    return strspn(seg, "I") == ns - 1; /* one token: I ... I T */
}
