/* Character ids of a word for a character-level word encoder (see data/features.h): a
 * vocabulary of single code points, case kept, and the words' framed id sequences. */
#include <string.h>

#include "data/features.h"
#include "data/utf8.h"

/* The kept code points of form[0..len) are the bytes [0, *cut) and [*resume, len): all of
 * them, or the first and last QKV_WORD_CHARS / 2 of a longer word. */
static void kept_bytes(const char *form, size_t len, size_t *cut, size_t *resume)
{
    *cut = *resume = len;
    if (qkv_utf8_length(form, len) > QKV_WORD_CHARS) {
        *cut = qkv_utf8_prefix_bytes(form, len, QKV_WORD_CHARS / 2);
        *resume = qkv_utf8_suffix_start(form, len, QKV_WORD_CHARS / 2);
    }
}

/* The byte length of the code point at form + i (at least 1). */
static size_t char_bytes(const char *form, size_t len, size_t i)
{
    int n;
    qkv_utf8_decode(form + i, len - i, &n);
    return n < 1 ? 1 : (size_t)n;
}

int qkv_featurizer_count_chars(qkv_featurizer *fz, const char *form, size_t len, qkv_error *err)
{
    if (qkv_vocab_add(&fz->chars, QKV_CHAR_BOW, strlen(QKV_CHAR_BOW), NULL, err) ||
        qkv_vocab_add(&fz->chars, QKV_CHAR_EOW, strlen(QKV_CHAR_EOW), NULL, err))
        return QKV_ERR;
    size_t cut, resume;
    kept_bytes(form, len, &cut, &resume);
    for (size_t i = 0, n; i < len; i += n) {
        n = char_bytes(form, len, i);
        if ((i < cut || i >= resume) && qkv_vocab_add(&fz->chars, form + i, n, NULL, err))
            return QKV_ERR;
    }
    return QKV_OK;
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

int qkv_featurizer_char_ids(const qkv_featurizer *fz, const char *form, size_t len, int32_t *out)
{
    size_t cut, resume;
    kept_bytes(form, len, &cut, &resume);
    int k = 0;
    out[k++] = fz->char_bow;
    for (size_t i = 0, n; i < len; i += n) {
        n = char_bytes(form, len, i);
        if (i < cut || i >= resume)
            out[k++] = qkv_vocab_lookup(&fz->chars, form + i, n);
    }
    out[k++] = fz->char_eow;
    return k;
}
