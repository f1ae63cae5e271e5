/* Spans (chunks, entities) of tag sequences: the tag schemes BIO (IOB2), IOB1 and BIOES,
 * chunks read from tags by the rules of the CoNLL `conlleval` script, conversion between
 * schemes, and entity-level precision, recall and F1.
 *
 * A tag splits as conlleval splits it: before the first hyphen its prefix, after it its type
 * ("B-creative-work" is B and "creative-work"; "O" is O with the type ""). The span tags are
 * "O" and B-, I-, E-, S- followed by a non-empty type.
 *
 * Chunks follow conlleval's startOfChunk / endOfChunk on B, I and O, so an invalid sequence
 * reads as conlleval reads it: I-x after O or at a sentence's start starts a chunk, I-x after
 * B-y or I-y starts a new chunk, B-x after I-x too. E- and S- (which conlleval leaves to IOE
 * data) follow its BIOES ports: S- starts and ends a chunk, E- ends one, I- or E- after E- or S-
 * starts one. A sentence's start and end are O. These rules read a sequence of any of the
 * schemes, so reading needs no scheme; writing (qkv_chunks_encode) does. */
#ifndef QKV_DATA_SPANS_H
#define QKV_DATA_SPANS_H

#include <stddef.h>

#include "lib/error.h"

typedef enum {
    QKV_TAG_SCHEME_NONE = 0, /* tags as read, no conversion */
    QKV_TAG_SCHEME_BIO,      /* IOB2: every chunk starts with B- */
    QKV_TAG_SCHEME_IOB1,     /* I- throughout; B- only to start a chunk right after one of its type */
    QKV_TAG_SCHEME_BIOES,    /* S- a one-word chunk; else B-, I-..., E- */
    QKV_TAG_SCHEME_COUNT
} qkv_tag_scheme;
/* "none", "bio", "iob1", "bioes" (index = value), then NULL. */
extern const char *const QKV_TAG_SCHEME_NAMES[];

/* One tag split: kind is its prefix when that is one of B I E S O, '.' for the tag ".", and
 * '?' for any other prefix (a POS tag such as "NN": kind '?', type ""). type points into the
 * tag (not NUL-terminated). */
typedef struct qkv_tag_part {
    char kind;
    const char *type;
    int type_len;
} qkv_tag_part;

/* A chunk: words start .. end-1 of its sentence, of type (type_len bytes). */
typedef struct qkv_chunk {
    int start, end;
    const char *type;
    int type_len;
} qkv_chunk;

/* Splits the len bytes of tag. */
qkv_tag_part qkv_tag_split(const char *tag, size_t len);

/* Whether tag is a span tag: "O", or B-, I-, E- or S- and a non-empty type. */
int qkv_tag_is_span(const char *tag, size_t len);

/* The chunks of one sentence of n tags, in order, into out (room for n); returns their number. */
int qkv_chunks_read(const qkv_tag_part *tags, int n, qkv_chunk *out);

/* The first of the n tags of one sentence that a constrained CRF forbids where it stands
 * (models/crf_head.h: I-x only after B-x or I-x, never first; bioes also: E-x only after B-x or
 * I-x, B-x and I-x only before I-x or E-x of their type, no B-x or I-x last), or -1 when the
 * constraints allow the whole sequence. Tags that are not span tags are allowed anywhere. */
int qkv_tags_forbidden(const qkv_tag_part *tags, int n, int bioes);

/* Writes the n_chunks chunks (in order, not overlapping, within 0 .. n-1) as the n tags of a
 * sentence in scheme (BIO, IOB1 or BIOES; NONE counts as BIO); words outside chunks get O. */
void qkv_chunks_encode(const qkv_chunk *chunks, int n_chunks, int n, qkv_tag_scheme scheme, qkv_tag_part *out);

/* Rewrites the n tags of one sentence in scheme: their chunks read, then encoded (tags that are
 * not span tags are chunks of their own type too; use it on span tags). scratch: room for n. */
void qkv_tags_convert(qkv_tag_part *tags, int n, qkv_tag_scheme scheme, qkv_chunk *scratch);

/* The tag text of p: "O", or its kind, '-' and its type, NUL-terminated in buf (cap bytes,
 * truncated to fit); returns the length it needs without the NUL. */
size_t qkv_tag_part_format(const qkv_tag_part *p, char *buf, size_t cap);

/* The scheme a corpus is written in, from its sentences' tags: qkv_scheme_vote_add on each
 * sentence (first: the index of its first word in the corpus), then qkv_scheme_vote_result:
 * BIOES when a tag has the prefix E or S, IOB1 when more chunks start with I- than with B- (in
 * BIO only an invalid sequence starts one with I-, in IOB1 only a chunk right after one of its
 * type starts with B-), else BIO (also for no chunks). The vote also counts how chunks of span
 * tags end: as only BIOES ends them (E-, S-) or with B- or I- (BIO and IOB1; BIOES forbids it),
 * with the word of the first of each (-1: none yet; start a vote with QKV_SCHEME_VOTE_INIT). */
typedef struct qkv_scheme_vote {
    long n_e_s, n_start_b, n_start_i;
    long n_end_es, n_end_bi;     /* chunks ending with E- or S- / with B- or I- */
    long first_end_es, first_end_bi; /* the corpus index of the first such end, or -1 */
} qkv_scheme_vote;
#define QKV_SCHEME_VOTE_INIT {0, 0, 0, 0, 0, -1, -1}
void qkv_scheme_vote_add(qkv_scheme_vote *v, const qkv_tag_part *tags, int n, long first);
qkv_tag_scheme qkv_scheme_vote_result(const qkv_scheme_vote *v);
/* Whether the vote's chunks mix the schemes (some end with E- or S-, some with B- or I-); then
 * *word is the corpus index of the first end of the fewer kind (E-/S- on a tie) and *bioes
 * whether that kind is BIOES's. */
int qkv_scheme_vote_mixed(const qkv_scheme_vote *v, long *word, int *bioes);

/* Entity-level counts, overall and per type: a predicted chunk is correct when a gold chunk has
 * the same type, start and end (conlleval's "correct chunk"). Types are kept in their order of
 * first appearance (gold or predicted). */
typedef struct qkv_span_counts {
    long gold, pred, correct; /* all types */
    int n_types, cap;
    char **types;             /* [n_types] NUL-terminated */
    long *type_gold, *type_pred, *type_correct;
} qkv_span_counts;

/* Adds one sentence: its n gold and n predicted tags. scratch: room for 2n chunks. Errors: out
 * of memory. */
int qkv_span_counts_add(qkv_span_counts *c, const qkv_tag_part *gold, const qkv_tag_part *pred, int n,
                        qkv_chunk *scratch, qkv_error *err);
void qkv_span_counts_free(qkv_span_counts *c);

/* Precision correct/pred, recall correct/gold and F1 (their harmonic mean), as fractions. A
 * ratio with a zero denominator is 0 (no predicted chunks: precision 0; conlleval does the
 * same), and F1 is 0 when precision + recall is 0. */
void qkv_span_prf(long correct, long gold, long pred, double *precision, double *recall, double *f1);

#endif
