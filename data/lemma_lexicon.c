/* The lemma lexicon of a training file (lemma_lexicon.h). */
#include "data/lemma_lexicon.h"

#include <stdlib.h>
#include <string.h>

#include "data/lemma_script.h"
#include "data/utf8.h"

/* The growing text of the training words' records "KEY\0SCRIPT\0" and where each starts. */
typedef struct {
    char *text;
    size_t len, room;
    size_t *at;
    size_t n, n_room;
} records;

static int grow(records *r, size_t more)
{
    if (r->len + more > r->room) {
        size_t room = r->room ? r->room : 1 << 16;
        while (room < r->len + more)
            room *= 2;
        char *text = realloc(r->text, room);
        if (!text)
            return QKV_ERR;
        r->text = text;
        r->room = room;
    }
    if (r->n == r->n_room) {
        size_t n_room = r->n_room ? 2 * r->n_room : 1024;
        size_t *at = realloc(r->at, n_room * sizeof *at);
        if (!at)
            return QKV_ERR;
        r->at = at;
        r->n_room = n_room;
    }
    return QKV_OK;
}

/* The key of form[0..flen) (and upos[0..ulen) when upos) into out (QKV_UTF8_LOWER_ROOM(flen) +
 * ulen + 1 bytes); its length. */
static size_t make_key(const char *form, size_t flen, const char *upos, size_t ulen, char *out)
{
    size_t n = qkv_utf8_lower(form, flen, out);
    if (upos) {
        out[n++] = '\t';
        memcpy(out + n, upos, ulen);
        n += ulen;
    }
    out[n] = '\0';
    return n;
}

/* Word w's record of c appended to r; words without a lemma ("_") add none. */
static int add_word(records *r, const qkv_corpus *c, int w, bool by_upos)
{
    size_t flen;
    const char *form = qkv_corpus_form(c, w, &flen);
    qkv_span ls = c->fields[(size_t)w * 10 + QKV_TAG_FIELD_INDEX[QKV_TAG_LEMMA]];
    qkv_span us = c->fields[(size_t)w * 10 + QKV_TAG_FIELD_INDEX[QKV_TAG_UPOS]];
    const char *lemma = c->text + ls.off;
    if (ls.len == 0 || (ls.len == 1 && lemma[0] == QKV_NO_TAG[0]))
        return QKV_OK;
    if (grow(r, QKV_UTF8_LOWER_ROOM(flen) + us.len + 2 + QKV_LEMMA_SCRIPT_ROOM(flen, ls.len)))
        return QKV_ERR;
    char *at = r->text + r->len;
    size_t klen = make_key(form, flen, by_upos ? c->text + us.off : NULL, us.len, at);
    long slen = qkv_lemma_script(form, flen, lemma, ls.len, at + klen + 1);
    if (slen < 0)
        return QKV_ERR;
    r->at[r->n++] = r->len;
    r->len += klen + 1 + (size_t)slen + 1;
    return QKV_OK;
}

/* Records "KEY\0SCRIPT" by key, then script. */
static int cmp_record(const void *a, const void *b)
{
    const char *x = *(const char *const *)a, *y = *(const char *const *)b;
    int k = strcmp(x, y);
    return k ? k : strcmp(x + strlen(x) + 1, y + strlen(y) + 1);
}

/* The entries of the n sorted records rec kept by the rule into lx (its buf, keys, scripts);
 * bytes: the records' size. */
static int keep_entries(qkv_lemma_lexicon *lx, const char *const *rec, size_t n, size_t bytes, int min_count)
{
    if (!(lx->buf = malloc(bytes + 1)) || !(lx->keys = malloc((n + 1) * sizeof *lx->keys)) ||
        !(lx->scripts = malloc((n + 1) * sizeof *lx->scripts)))
        return QKV_ERR;
    size_t used = 0;
    for (size_t i = 0, j; i < n; i = j) {
        const char *key = rec[i];
        size_t klen = strlen(key);
        const char *best = NULL;
        size_t best_count = 0;
        for (j = i; j < n && !strcmp(rec[j], key);) {
            const char *script = rec[j] + klen + 1;
            size_t k = j;
            while (j < n && !strcmp(rec[j], key) && !strcmp(rec[j] + klen + 1, script))
                j++;
            if (j - k > best_count) {
                best = script;
                best_count = j - k;
            }
        }
        size_t total = j - i;
        if (total < (size_t)min_count || 100 * best_count < QKV_LEMMA_LEXICON_SHARE * total)
            continue;
        size_t slen = strlen(best);
        lx->keys[lx->n] = memcpy(lx->buf + used, key, klen + 1);
        lx->scripts[lx->n++] = memcpy(lx->buf + used + klen + 1, best, slen + 1);
        used += klen + slen + 2;
        lx->max_script = slen > lx->max_script ? slen : lx->max_script;
    }
    return QKV_OK;
}

int qkv_lemma_lexicon_build(qkv_lemma_lexicon *lx, const qkv_corpus *c, bool by_upos, int min_count,
                            qkv_error *err)
{
    memset(lx, 0, sizeof *lx);
    lx->by_upos = by_upos;
    if (!c->fields)
        return qkv_fail(err, "%s: a lemma lexicon is read from a CoNLL-U file (FORM, UPOS and LEMMA)",
                        qkv_corpus_name(c));
    if (min_count <= 0)
        return QKV_OK;
    records r = {0};
    int status = QKV_OK;
    for (int w = 0; w < c->n_words && status == QKV_OK; w++)
        status = add_word(&r, c, w, by_upos);
    const char **rec = status == QKV_OK ? malloc((r.n + 1) * sizeof *rec) : NULL;
    if (status == QKV_OK && !rec)
        status = QKV_ERR;
    if (status == QKV_OK) {
        for (size_t i = 0; i < r.n; i++)
            rec[i] = r.text + r.at[i];
        qsort(rec, r.n, sizeof *rec, cmp_record);
        status = keep_entries(lx, rec, r.n, r.len, min_count);
    }
    free(rec);
    free(r.text);
    free(r.at);
    if (status) {
        qkv_lemma_lexicon_free(lx);
        lx->by_upos = by_upos;
        return qkv_fail(err, "out of memory for the lemma lexicon of %s", qkv_corpus_name(c));
    }
    return QKV_OK;
}

/* Entry i's check: keys in order, a TAB as by_upos says, a script. */
static int check_entry(size_t i, const char *const *keys, const char *script, bool by_upos, qkv_error *err)
{
    if (i > 0 && strcmp(keys[i - 1], keys[i]) >= 0)
        return qkv_fail(err, "entry %zu: key \"%.80s\" is not after \"%.80s\" in byte order", i + 1, keys[i],
                        keys[i - 1]);
    if ((strchr(keys[i], '\t') != NULL) != by_upos)
        return qkv_fail(err, "entry %zu: key \"%.80s\" %s", i + 1, keys[i],
                        by_upos ? "has no TAB before a UPOS" : "has a TAB, but the model has no UPOS column");
    if (qkv_lemma_script_needs(script, strlen(script)) < 0)
        return qkv_fail(err, "entry %zu: \"%.80s\" is not a lemma edit script", i + 1, script);
    return QKV_OK;
}

int qkv_lemma_lexicon_set(qkv_lemma_lexicon *lx, size_t n, const char *const *keys, const char *const *scripts,
                          bool by_upos, qkv_error *err)
{
    qkv_lemma_lexicon_free(lx);
    lx->by_upos = by_upos;
    size_t bytes = 1;
    for (size_t i = 0; i < n; i++) {
        if (check_entry(i, keys, scripts[i], by_upos, err))
            return QKV_ERR;
        bytes += strlen(keys[i]) + strlen(scripts[i]) + 2;
    }
    lx->buf = malloc(bytes);
    lx->keys = malloc((n + 1) * sizeof *lx->keys);
    lx->scripts = malloc((n + 1) * sizeof *lx->scripts);
    if (!lx->buf || !lx->keys || !lx->scripts) {
        qkv_lemma_lexicon_free(lx);
        return qkv_fail(err, "out of memory for a lemma lexicon of %zu entries", n);
    }
    size_t used = 0;
    for (size_t i = 0; i < n; i++) {
        size_t klen = strlen(keys[i]), slen = strlen(scripts[i]);
        lx->keys[i] = memcpy(lx->buf + used, keys[i], klen + 1);
        lx->scripts[i] = memcpy(lx->buf + used + klen + 1, scripts[i], slen + 1);
        used += klen + slen + 2;
        lx->max_script = slen > lx->max_script ? slen : lx->max_script;
    }
    lx->n = n;
    return QKV_OK;
}

static int cmp_key(const void *key, const void *entry) { return strcmp(key, *(const char *const *)entry); }

int qkv_lemma_lexicon_lemma(const qkv_lemma_lexicon *lx, const char *form, size_t flen, const char *upos, char *out,
                            bool *found, qkv_error *err)
{
    *found = false;
    if (lx->n == 0 || (lx->by_upos && !upos))
        return QKV_OK;
    size_t ulen = lx->by_upos ? strlen(upos) : 0;
    char local[512], *key = local;
    size_t room = QKV_UTF8_LOWER_ROOM(flen) + ulen + 2;
    if (room > sizeof local && !(key = malloc(room)))
        return qkv_fail(err, "out of memory for the lemma lexicon's key of a form of %zu bytes", flen);
    make_key(form, flen, lx->by_upos ? upos : NULL, ulen, key);
    const char **hit = bsearch(key, lx->keys, lx->n, sizeof *lx->keys, cmp_key);
    if (key != local)
        free(key);
    if (hit) {
        const char *script = lx->scripts[hit - lx->keys];
        *found = qkv_lemma_apply(script, strlen(script), form, flen, out) > 0;
    }
    return QKV_OK;
}

void qkv_lemma_lexicon_free(qkv_lemma_lexicon *lx)
{
    free(lx->buf);
    free(lx->keys);
    free(lx->scripts);
    memset(lx, 0, sizeof *lx);
}
