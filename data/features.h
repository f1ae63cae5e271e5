/* Token features: each kind maps a word form to a string (the form, its lowercased form, its
 * prefix or suffix of k characters, its shape) and the string to an id in the kind's own
 * vocabulary (id 0 = UNK: strings seen fewer than min_count times in training, or never).
 * The model embeds every kind and sums the embeddings ("embed.<name>", vocab size rows).
 * Tags come from the training file only (a vocabulary without UNK; "_", no tag, never enters
 * it, and a training file without any other tag is an error naming its tag column).
 *
 * Kinds, in this order when enabled: "word", "lower", "prefix1".."prefixK", "suffix1"..
 * "suffixK", "shape". Affixes are taken from the lowercased form and counted in characters
 * (UTF-8 code points, never cut inside one); a form shorter than k characters gives the whole
 * lowercased form. Lowercasing is Unicode's full case mapping of every script (see utf8.h).
 * The shape maps letters that change when lowercased (upper and title case) to X, lower-case
 * letters and letters without case (CJK, Hebrew, Arabic, ...) to x, decimal digits of any script
 * to d and keeps every other character, then shortens each run of one repeated shape character
 * to at most 4 ("Hello" -> "Xxxxx", "Mississippi" -> "Xxxxx", "1984" -> "dddd", "e.g." -> "x.x.",
 * "U.S." -> "X.X.", "$12.50" -> "$dd.dd", "Ґрунт" -> "Xxxxx", "日本" -> "xx"), after spaCy's
 * Token.shape_ convention. */
#ifndef QKV_DATA_FEATURES_H
#define QKV_DATA_FEATURES_H

#include "data/corpus.h"
#include "data/utf8.h"
#include "data/vocab.h"

#define QKV_MAX_FEATURES 16
#define QKV_MAX_AFFIX 6
#define QKV_WORD_CHARS 20                    /* code points kept per word (even) */
#define QKV_WORD_CHAR_IDS (QKV_WORD_CHARS + 2) /* most character ids of one word, markers included */
#define QKV_CHAR_BOW "<w>"
#define QKV_CHAR_EOW "</w>"

typedef enum {
    QKV_FEAT_WORD,
    QKV_FEAT_LOWER,
    QKV_FEAT_PREFIX,
    QKV_FEAT_SUFFIX,
    QKV_FEAT_SHAPE,
} qkv_feature_type;

typedef struct qkv_feature_config {
    int word;            /* 1: the form as written */
    int lower;           /* 1: the lowercased form */
    int prefix_max;      /* prefixes of 1..prefix_max characters (0..QKV_MAX_AFFIX) */
    int suffix_max;      /* suffixes of 1..suffix_max characters (0..QKV_MAX_AFFIX) */
    int shape;           /* 1: the word shape */
    int word_min_count;  /* min_count of "word" and "lower" (>= 1) */
    int affix_min_count; /* min_count of every prefix and suffix kind */
    int shape_min_count; /* min_count of "shape" */
    int chars;           /* 1: character ids per word (see above) */
    int char_min_count;  /* min_count of the character vocabulary (>= 1) */
    int n_columns;       /* tag columns (data/columns.h) beyond the first; 0 or 1: the tags only */
    qkv_tag_field columns[QKV_MAX_COLUMNS]; /* columns[0] is the tags' column */
} qkv_feature_config;

/* word (min_count 2, so that UNK is trained), suffixes 1..3 and shape. */
#define QKV_FEATURE_DEFAULTS ((qkv_feature_config){1, 0, 0, 3, 1, 2, 2, 1, 0, 1, 0, {QKV_TAG_UPOS}})

typedef struct qkv_feature_kind {
    char name[16];         /* "word", "lower", "prefix2", "suffix3", "shape" */
    qkv_feature_type type;
    int length;            /* affix length in characters; 0 for the other kinds */
    int min_count;
    qkv_vocab vocab;       /* with UNK at id 0 */
} qkv_feature_kind;

typedef struct qkv_featurizer {
    int n_kinds;
    qkv_feature_kind kinds[QKV_MAX_FEATURES];
    qkv_vocab tags;        /* no UNK: an unseen tag looks up as -1 */
    int has_chars;         /* 1: words also map to character ids */
    int char_min_count;
    qkv_vocab chars;       /* single code points, QKV_CHAR_BOW and QKV_CHAR_EOW; UNK = 0 */
    int32_t char_bow, char_eow; /* the markers' ids in chars */
    int n_columns;         /* tag columns: 1 (the tags) or more */
    qkv_tag_field columns[QKV_MAX_COLUMNS];
    qkv_vocab col_tags[QKV_MAX_COLUMNS]; /* [1 .. n_columns-1] the classes of the other columns
                                            (no UNK, like tags); [0] unused: tags */
} qkv_featurizer;

/* The kinds selected by cfg, with empty vocabularies (to be built by qkv_featurizer_build or
 * restored by qkv_featurizer_set_vocab / _set_tags). Errors: an out-of-range value, no kind. */
int qkv_featurizer_init(qkv_featurizer *fz, const qkv_feature_config *cfg, qkv_error *err);

/* init, then counts every kind's strings and the tags over the training corpus and prunes each
 * vocabulary by its min_count (tags are all kept). */
int qkv_featurizer_build(qkv_featurizer *fz, const qkv_feature_config *cfg, const qkv_corpus *train,
                         qkv_error *err);

/* Replaces kind f's vocabulary / the tags by a saved string list (see vocab.h). */
int qkv_featurizer_set_vocab(qkv_featurizer *fz, int f, const char *const *strings, int n, qkv_error *err);
int qkv_featurizer_set_tags(qkv_featurizer *fz, const char *const *strings, int n, qkv_error *err);

void qkv_featurizer_free(qkv_featurizer *fz);

/* data/chars.c. Counts the characters of form[0..len) (valid UTF-8) and the two markers into
 * fz->chars (while building; qkv_featurizer_build calls it for every training word). */
int qkv_featurizer_count_chars(qkv_featurizer *fz, const char *form, size_t len, qkv_error *err);
/* Prunes the counted character vocabulary by char_min_count and looks up the markers' ids. */
int qkv_featurizer_finish_chars(qkv_featurizer *fz, qkv_error *err);
/* Replaces the character vocabulary by a saved string list (must hold both markers). */
int qkv_featurizer_set_chars(qkv_featurizer *fz, const char *const *strings, int n, qkv_error *err);
/* The character ids of form[0..len) into out (room for QKV_WORD_CHAR_IDS): the begin marker,
 * one id per kept code point (0 = UNK), the end marker; returns how many (>= 2). */
int qkv_featurizer_char_ids(const qkv_featurizer *fz, const char *form, size_t len, int32_t *out);

/* For the model: number of kinds, kind f's name and vocabulary size; number of tags and tag t. */
static inline int qkv_featurizer_n_features(const qkv_featurizer *fz) { return fz->n_kinds; }
static inline const char *qkv_featurizer_name(const qkv_featurizer *fz, int f) { return fz->kinds[f].name; }
static inline int qkv_featurizer_vocab_size(const qkv_featurizer *fz, int f) { return fz->kinds[f].vocab.size; }
static inline int qkv_featurizer_n_tags(const qkv_featurizer *fz) { return fz->tags.size; }
static inline const char *qkv_featurizer_tag(const qkv_featurizer *fz, int t) { return qkv_vocab_string(&fz->tags, t); }

/* The size of the character vocabulary (0 when words do not map to character ids). */
static inline int qkv_featurizer_n_chars(const qkv_featurizer *fz) { return fz->has_chars ? fz->chars.size : 0; }
/* Whether kind f holds word identities ("word" or "lower": what word dropout replaces by UNK). */
static inline int qkv_featurizer_is_word_kind(const qkv_featurizer *fz, int f)
{
    return fz->kinds[f].type == QKV_FEAT_WORD || fz->kinds[f].type == QKV_FEAT_LOWER;
}

/* Tag columns (1: the tags only); column i's vocabulary (0: the tags), its size and class t. */
static inline int qkv_featurizer_n_columns(const qkv_featurizer *fz) { return fz->n_columns > 1 ? fz->n_columns : 1; }
static inline const qkv_vocab *qkv_featurizer_column_vocab(const qkv_featurizer *fz, int i)
{
    return i == 0 ? &fz->tags : &fz->col_tags[i];
}
static inline int qkv_featurizer_n_classes(const qkv_featurizer *fz, int i) { return qkv_featurizer_column_vocab(fz, i)->size; }
static inline const char *qkv_featurizer_class(const qkv_featurizer *fz, int i, int t)
{
    return qkv_vocab_string(qkv_featurizer_column_vocab(fz, i), t);
}

/* The vocabularies a checkpoint saves and restores, by index v: 0 .. n_features-1 the feature
 * kinds (model order), n_features the tags, n_features + 1 the characters (with characters only),
 * then the other tag columns' classes (with several columns). */
static inline int qkv_featurizer_n_vocabs(const qkv_featurizer *fz)
{
    return fz->n_kinds + 1 + (fz->has_chars != 0) + qkv_featurizer_n_columns(fz) - 1;
}
/* Vocabulary v's name: its kind's name, "tags", "chars" or "tags.<column>" ("tags.lemma")
 * (0 <= v < qkv_featurizer_n_vocabs). */
const char *qkv_featurizer_vocab_name(const qkv_featurizer *fz, int v);
/* Vocabulary v itself (its strings: qkv_vocab_strings). */
const qkv_vocab *qkv_featurizer_vocab(const qkv_featurizer *fz, int v);
/* Replaces vocabulary v by a saved string list: qkv_featurizer_set_vocab, _set_tags or _set_chars.
 * Errors: theirs, and v out of range. */
int qkv_featurizer_set_strings(qkv_featurizer *fz, int v, const char *const *strings, int n, qkv_error *err);

/* Bytes of room for the feature string of a form of len bytes (a lowercase can be longer than
 * the form, see utf8.h). */
#define QKV_FEATURE_ROOM(len) QKV_UTF8_LOWER_ROOM(len)

/* The feature string of kind k for form[0..len) (valid UTF-8), written NUL-terminated into out,
 * which needs QKV_FEATURE_ROOM(len) bytes; returns its length. */
size_t qkv_feature_string(const qkv_feature_kind *k, const char *form, size_t len, char *out);

/* The shape of form[0..len) into out (room for len + 1 bytes); returns its length. */
size_t qkv_word_shape(const char *form, size_t len, char *out);

/* The id of form[0..len) in kind f (0 = UNK); scratch needs QKV_FEATURE_ROOM(len) bytes. */
int32_t qkv_featurizer_id(const qkv_featurizer *fz, int f, const char *form, size_t len, char *scratch);

#endif
