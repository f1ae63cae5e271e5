/* CoNLL 2018 tag and lemma scores with gold tokenization (see ud_tags.h). */
#include "data/ud_tags.h"

#include <stdlib.h>
#include <string.h>

const char *const QKV_UD_TAG_SCORE_NAMES[QKV_UD_TAG_SCORES] = {"UPOS", "XPOS", "UFeats", "AllTags", "Lemmas"};

static const char *const UNIVERSAL_FEATURES[] = {
    "PronType", "NumType", "Poss",  "Reflex", "Foreign", "Abbr",     "Gender", "Animacy", "Number", "Case",  "Definite",
    "Degree",   "VerbForm", "Mood", "Tense",  "Aspect",  "Voice",    "Evident", "Polarity", "Person", "Polite", NULL};

static bool universal(const char *f, size_t len)
{
    size_t name = 0;
    while (name < len && f[name] != '=')
        name++;
    for (int i = 0; UNIVERSAL_FEATURES[i]; i++)
        if (strlen(UNIVERSAL_FEATURES[i]) == name && !memcmp(UNIVERSAL_FEATURES[i], f, name))
            return true;
    return false;
}

typedef struct {
    const char *s;
    size_t len;
} feat;

static int feat_cmp(const void *a, const void *b)
{
    const feat *x = a, *y = b;
    size_t n = x->len < y->len ? x->len : y->len;
    int c = memcmp(x->s, y->s, n);
    return c ? c : (x->len > y->len) - (x->len < y->len);
}

size_t qkv_ud_universal_feats(const char *s, size_t len, char *out)
{
    size_t n_feats = 1;
    for (size_t i = 0; i < len; i++)
        n_feats += s[i] == '|';
    feat *fs = malloc(n_feats * sizeof *fs);
    size_t k = 0, at = 0;
    for (size_t i = 0; fs && i <= len;) {
        size_t j = i;
        while (j < len && s[j] != '|')
            j++;
        if (universal(s + i, j - i))
            fs[k++] = (feat){s + i, j - i};
        i = j + 1;
    }
    if (fs)
        qsort(fs, k, sizeof *fs, feat_cmp);
    for (size_t i = 0; i < k; i++) {
        if (i)
            out[at++] = '|';
        memcpy(out + at, fs[i].s, fs[i].len);
        at += fs[i].len;
    }
    out[at] = '\0';
    free(fs);
    return at;
}

/* Whether the system's universal features v equal gold's g[0..glen) (scratch: two buffers). */
static bool same_ufeats(const char *v, const char *g, size_t glen, char *a, char *b)
{
    qkv_ud_universal_feats(v, strlen(v), a);
    qkv_ud_universal_feats(g, glen, b);
    return !strcmp(a, b);
}

static bool same(const char *v, const char *g, size_t glen) { return v && strlen(v) == glen && !memcmp(v, g, glen); }

int qkv_ud_score_tags(const qkv_corpus *gold, const char *const *const *pred, qkv_ud_tags *res, qkv_error *err)
{
    memset(res, 0, sizeof *res);
    if (!gold->fields)
        return qkv_fail(err, "%.200s: the CoNLL 2018 tag scores need a CoNLL-U file", gold->name);
    const char *const *up = pred[QKV_TAG_UPOS], *const *xp = pred[QKV_TAG_XPOS], *const *fe = pred[QKV_TAG_FEATS],
                      *const *le = pred[QKV_TAG_LEMMA];
    res->has[QKV_UD_UPOS] = up, res->has[QKV_UD_XPOS] = xp, res->has[QKV_UD_UFEATS] = fe;
    res->has[QKV_UD_ALLTAGS] = up && xp && fe, res->has[QKV_UD_LEMMAS] = le;
    size_t room = 1;
    for (int w = 0; w < gold->n_words; w++) {
        size_t a = gold->fields[(size_t)w * 10 + 5].len, b = fe && fe[w] ? strlen(fe[w]) : 0;
        room = a + 1 > room ? a + 1 : room, room = b + 1 > room ? b + 1 : room;
    }
    char *sa = malloc(room), *sb = malloc(room);
    if (!sa || !sb) {
        free(sa);
        free(sb);
        return qkv_fail(err, "out of memory scoring %d words", gold->n_words);
    }
    for (int w = 0; w < gold->n_words; w++) {
        const qkv_span *f = gold->fields + (size_t)w * 10;
        const char *t = gold->text;
        bool ok[QKV_UD_TAG_SCORES];
        ok[QKV_UD_UPOS] = up && same(up[w], t + f[3].off, f[3].len);
        ok[QKV_UD_XPOS] = xp && same(xp[w], t + f[4].off, f[4].len);
        ok[QKV_UD_UFEATS] = fe && fe[w] && same_ufeats(fe[w], t + f[5].off, f[5].len, sa, sb);
        ok[QKV_UD_ALLTAGS] = ok[QKV_UD_UPOS] && ok[QKV_UD_XPOS] && ok[QKV_UD_UFEATS];
        ok[QKV_UD_LEMMAS] = le && ((f[2].len == 1 && t[f[2].off] == '_') || same(le[w], t + f[2].off, f[2].len));
        for (int k = 0; k < QKV_UD_TAG_SCORES; k++) {
            res->score[k].gold++;
            res->score[k].system++;
            res->score[k].correct += ok[k];
        }
    }
    free(sa);
    free(sb);
    for (int k = 0; k < QKV_UD_TAG_SCORES; k++) {
        qkv_ud_score *sc = &res->score[k];
        sc->precision = sc->recall = sc->f1 = sc->gold ? (double)sc->correct / (double)sc->gold : 0;
    }
    return QKV_OK;
}
