/* An encoded dataset: a corpus turned into id arrays by a featurizer, so that filling a batch is
 * a few memcpy calls. Words are in corpus order; sentence s is words sent_start[s] ..
 * sent_start[s+1]-1 (sentences without words are kept, with no words, and never batched). */
#ifndef QKV_DATA_DATASET_H
#define QKV_DATA_DATASET_H

#include <stdint.h>
#include <stdlib.h>

#include "data/corpus.h"
#include "data/features.h"

/* Messages for the caller to print (data/ never prints). */
typedef struct qkv_warnings {
    int n, cap;
    char **msgs;
} qkv_warnings;

void qkv_warnings_free(qkv_warnings *w);
/* Appends one message (printf format, at most 511 bytes). Errors: out of memory. */
__attribute__((format(printf, 3, 4))) int qkv_warnings_add(qkv_warnings *w, qkv_error *err, const char *fmt, ...);

/* Gold tag ids that are not tags (both ignored by the loss, which ignores negative targets):
 * a tag the training file never has (evaluation counts such a word as an error), and the tag
 * "_" (no tag: the word is context for its neighbours but no target, and is not scored). */
#define QKV_TAG_UNSEEN (-1)
#define QKV_TAG_NONE (-2)

typedef struct qkv_dataset {
    int n_sent;
    int32_t *sent_start;                  /* [n_sent + 1] */
    int n_words;
    int n_features;                       /* the featurizer's kinds, same order */
    int32_t *features[QKV_MAX_FEATURES];  /* features[f][w]: id in vocabulary f (0 = UNK) */
    int32_t *tags;                        /* [n_words] gold tag id, QKV_TAG_UNSEEN or QKV_TAG_NONE */
    int32_t *loss_tags;                   /* [n_words] the gold tags batches give the loss, when
                                             they differ from tags (qkv_dataset_repair_spans);
                                             NULL: tags */
    int32_t *arcs;                       /* [n_words] gold HEAD (0 = ROOT, k = word k of the
                                             sentence), -1 = none; NULL when no word has one */
    int32_t *char_start;                  /* [n_words + 1] word w's character ids are           */
    int32_t *chars;                       /*   chars[char_start[w] .. char_start[w+1]-1];
                                             both NULL without characters (data/features.h) */
    int d_input;                          /* width of a dense token vector; 0: none */
    float *dense;                         /* [n_words, d_input] dense token vectors (speech frames,
                                             data/frames.h); NULL for words */
    int max_sent_len;                     /* words in the longest batchable sentence */
    int n_nonempty;                       /* batchable sentences: with words, not left out */
    int n_unknown_tags;                   /* words whose gold tag is QKV_TAG_UNSEEN */
    int n_untagged;                       /* words whose gold tag is QKV_TAG_NONE */
    uint8_t *left_out;                    /* [n_sent] 1 = never batched (too long); NULL = none */
    int n_left_out;                       /* sentences left out by qkv_dataset_keep_max_len */
    int64_t n_left_out_words;             /* their words */
    int n_columns;                        /* tag columns (the featurizer's): 1 = tags only */
    int32_t *col_tags[QKV_MAX_COLUMNS];   /* [n_words] column i's gold class ids (i >= 1; [0]
                                             unused: tags), QKV_TAG_UNSEEN or QKV_TAG_NONE */
    int n_col_unknown[QKV_MAX_COLUMNS];   /* words of column i whose class is QKV_TAG_UNSEEN */
    int32_t *form_chars;                  /* [n_words] with a lemma column: the characters of each
                                             form, the fewer of as written and lowercased (what a
                                             lemma script may delete, data/lemma_script.h); else NULL */
} qkv_dataset;

/* Encodes corpus c with fz. Each gold tag not in fz's tags becomes QKV_TAG_UNSEEN and, once
 * per distinct tag, a warning "FILE:LINE: tag "T" is not among the N training tags (K words);
 * they count as errors" is appended to warnings (may be NULL). Each tag "_" becomes
 * QKV_TAG_NONE, with one warning "FILE:LINE: K words have no tag ("_" in UPOS (field 4)), the
 * first here; they are not scored". */
int qkv_dataset_encode(qkv_dataset *ds, const qkv_featurizer *fz, const qkv_corpus *c, qkv_warnings *warnings,
                       qkv_error *err);
/* (data/dataset_columns.c) The gold classes of fz's tag columns beyond the first (the corpus read
 * with them: data/columns.h) into ds->col_tags, for qkv_dataset_encode. A class the training file
 * never has is QKV_TAG_UNSEEN (counted as an error), a missing value ("_") QKV_TAG_NONE. Errors:
 * a corpus without those columns, out of memory. */
int qkv_dataset_encode_columns(qkv_dataset *ds, const qkv_featurizer *fz, const qkv_corpus *c, qkv_error *err);
/* ds->form_chars when fz has a lemma column (else nothing), for qkv_dataset_encode. Errors: out of
 * memory. */
int qkv_dataset_form_chars(qkv_dataset *ds, const qkv_featurizer *fz, const qkv_corpus *c, qkv_error *err);

/* An error "FILE: no word has a tag in UPOS (field 4): all N are "_"" when every word of ds
 * (encoded from c with fz) is untagged, and "FILE: the tag sets differ: none of its N tagged
 * words has one of the K training tags (...)" when every tagged word's gold tag is unseen
 * (QKV_TAG_UNSEEN): what is "nothing to train on" or "nothing to score". */
int qkv_dataset_require_tags(const qkv_dataset *ds, const qkv_corpus *c, const qkv_featurizer *fz, qkv_error *err);

/* Leaves sentences of more than max_len words (>= 1) out of every batch plan (e.g. training
 * with a learned positional table of max_len rows). They stay in the dataset, so sentence
 * indices still match the corpus; n_nonempty and max_sent_len then count only the batchable
 * sentences, n_left_out and n_left_out_words the others. Calling it again with another
 * max_len recomputes from all sentences. */
int qkv_dataset_keep_max_len(qkv_dataset *ds, int max_len, qkv_error *err);

/* Whether sentence s enters batch plans: it has words and was not left out. */
static inline int qkv_dataset_batchable(const qkv_dataset *ds, int s)
{
    return ds->sent_start[s + 1] > ds->sent_start[s] && !(ds->left_out && ds->left_out[s]);
}

/* Counts: words, batchable sentences (qkv_dataset_batchable),
 * words of the sentences left out by qkv_dataset_keep_max_len, feature kinds; whether words have
 * character ids. */
static inline int qkv_dataset_n_words(const qkv_dataset *ds) { return ds->n_words; }
static inline int qkv_dataset_n_batchable(const qkv_dataset *ds) { return ds->n_nonempty; }
static inline int64_t qkv_dataset_n_left_out_words(const qkv_dataset *ds) { return ds->n_left_out_words; }
static inline int qkv_dataset_n_features(const qkv_dataset *ds) { return ds->n_features; }
static inline int qkv_dataset_has_chars(const qkv_dataset *ds) { return ds->chars != NULL; }
/* The width of the dense token vectors (0: the dataset has none). */
static inline int qkv_dataset_d_input(const qkv_dataset *ds) { return ds->dense ? ds->d_input : 0; }
/* Tag columns (data/columns.h); column i's gold class ids [n_words] (0: tags). */
/* Drops ds's gold arcs (as if its corpus had none): for tagging, where the input's HEAD column,
 * filled or not, valid or not, is replaced by the prediction and never read. */
static inline void qkv_dataset_forget_arcs(qkv_dataset *ds)
{
    free(ds->arcs);
    ds->arcs = NULL;
}
static inline int qkv_dataset_n_columns(const qkv_dataset *ds) { return ds->n_columns > 1 ? ds->n_columns : 1; }
static inline const int32_t *qkv_dataset_column_tags(const qkv_dataset *ds, int i) { return i == 0 ? ds->tags : ds->col_tags[i]; }
/* Sentence s's first word (its index among all words) and its number of words. */
static inline int qkv_dataset_sent_first(const qkv_dataset *ds, int s) { return ds->sent_start[s]; }
static inline int qkv_dataset_sent_len(const qkv_dataset *ds, int s)
{
    return ds->sent_start[s + 1] - ds->sent_start[s];
}

/* The first batchable sentence of more than max_len words, or -1 when there is none;
 * *n_longer (may be NULL) receives how many batchable sentences are longer than max_len. */
int qkv_dataset_first_longer(const qkv_dataset *ds, int max_len, int *n_longer);

/* Gold tags a constrained CRF can train and evaluate on (model.crf_constrained, models/crf_head.h:
 * I-x only after B-x or I-x; with an E- or S- tag among fz's tags the BIOES rules too). A
 * sentence of c (encoded in ds) whose gold sequence the constraints forbid (qkv_tags_forbidden)
 * keeps its tags in ds->tags, which evaluation scores as conlleval reads them, while the loss
 * takes its tags rewritten in BIO or BIOES (qkv_tags_convert: I-x starting a chunk becomes
 * B-x or S-x) in ds->loss_tags; a sentence whose tags so read are not all among fz's tags is left
 * out of the loss instead (QKV_TAG_NONE throughout: a CRF marginalises it). Appends one warning "FILE:LINE: N sentences have a tag
 * sequence model.crf_constrained forbids ..., the first here; ..." (training: what they are
 * trained on; else how they are scored). Errors: out of memory. */
int qkv_dataset_repair_spans(qkv_dataset *ds, const qkv_featurizer *fz, const qkv_corpus *c, int training,
                             qkv_warnings *warnings, qkv_error *err);

void qkv_dataset_free(qkv_dataset *ds);

#endif
