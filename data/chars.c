/* Character ids of a word for a character-level word encoder (see data/features.h): a
 * vocabulary of single code points, case kept, and the words' framed id sequences. */
#include <string.h>

#include "data/features.h"
#include "data/utf8.h"

/* Calls fn on each kept code point of form[0..len) (all of them, or the first and last
 * QKV_WORD_CHARS / 2 of a longer word) as a byte range; stops at the first non-zero return. */
typedef int (*char_fn)(void *user, const char *ch, size_t n);

static int each_kept_char(const char *form, size_t len, char_fn fn, void *user)
{
    size_t n_cp = qkv_utf8_length(form, len);
    size_t skip_from = n_cp > QKV_WORD_CHARS ? QKV_WORD_CHARS / 2 : n_cp;
    size_t skip_to = n_cp > QKV_WORD_CHARS ? n_cp - QKV_WORD_CHARS / 2 : n_cp;
    size_t i = 0;
    for (size_t k = 0; i < len; k++) {
        int n;
        qkv_utf8_decode(form + i, len - i, &n);
        if (n < 1)
            n = 1;
        if (k < skip_from || k >= skip_to) {
            int st = fn(user, form + i, (size_t)n);
            if (st)
                return st;
        }
        i += (size_t)n;
    }
    return 0;
}

typedef struct {
    qkv_vocab *v;
    qkv_error *err;
} count_ctx;

static int count_one(void *user, const char *ch, size_t n)
{
    count_ctx *c = user;
    return qkv_vocab_add(c->v, ch, n, NULL, c->err);
}

int qkv_featurizer_count_chars(qkv_featurizer *fz, const char *form, size_t len, qkv_error *err)
{
    count_ctx c = {&fz->chars, err};
    if (qkv_vocab_add(&fz->chars, QKV_CHAR_BOW, strlen(QKV_CHAR_BOW), NULL, err) ||
        qkv_vocab_add(&fz->chars, QKV_CHAR_EOW, strlen(QKV_CHAR_EOW), NULL, err))
        return QKV_ERR;
    return each_kept_char(form, len, count_one, &c) ? QKV_ERR : QKV_OK;
}

static int find_markers(qkv_featurizer *fz, qkv_error *err)
{
    fz->char_bow = qkv_vocab_lookup(&fz->chars, QKV_CHAR_BOW, strlen(QKV_CHAR_BOW));
    fz->char_eow = qkv_vocab_lookup(&fz->chars, QKV_CHAR_EOW, strlen(QKV_CHAR_EOW));
    if (fz->char_bow <= 0 || fz->char_eow <= 0)
        return qkv_fail(err, "characters: the vocabulary lacks the word markers %s and %s", QKV_CHAR_BOW,
                        QKV_CHAR_EOW);
    return QKV_OK;
}

int qkv_featurizer_finish_chars(qkv_featurizer *fz, qkv_error *err)
{
    if (qkv_vocab_prune(&fz->chars, fz->char_min_count, err))
        return QKV_ERR;
    /* The markers occur once per word; a corpus of fewer words than min_count loses them to
     * the pruning: they are put back (after every character, so no id moves). */
    const char *markers[2] = {QKV_CHAR_BOW, QKV_CHAR_EOW};
    for (int k = 0; k < 2; k++)
        if (qkv_vocab_lookup(&fz->chars, markers[k], strlen(markers[k])) <= 0 &&
            qkv_vocab_add(&fz->chars, markers[k], strlen(markers[k]), NULL, err))
            return QKV_ERR;
    return find_markers(fz, err);
}

int qkv_featurizer_set_chars(qkv_featurizer *fz, const char *const *strings, int n, qkv_error *err)
{
    if (!fz->has_chars)
        return qkv_fail(err, "characters: the featurizer was made without characters");
    qkv_vocab v;
    if (qkv_vocab_from_strings(&v, 1, strings, n, err) != QKV_OK)
        return qkv_fail_prefix(err, "characters");
    qkv_vocab_free(&fz->chars);
    fz->chars = v;
    return find_markers(fz, err);
}

typedef struct {
    const qkv_vocab *v;
    int32_t *out;
    int n;
} ids_ctx;

static int id_one(void *user, const char *ch, size_t n)
{
    ids_ctx *c = user;
    c->out[c->n++] = qkv_vocab_lookup(c->v, ch, n);
    return 0;
}

int qkv_featurizer_char_ids(const qkv_featurizer *fz, const char *form, size_t len, int32_t *out)
{
    ids_ctx c = {&fz->chars, out, 0};
    out[c.n++] = fz->char_bow;
    each_kept_char(form, len, id_one, &c);
    out[c.n++] = fz->char_eow;
    return c.n;
}
