/* A tagged corpus read from a CoNLL-U file or from a two-column FORM<TAB>TAG file.
 *
 * CoNLL-U follows universaldependencies.org/format.html: 10 TAB-separated fields per word
 * line (ID FORM LEMMA UPOS XPOS FEATS HEAD DEPREL DEPS MISC; a FORM may contain spaces),
 * comment lines beginning with '#' before a sentence's first word line, multiword-token lines
 * (ID "3-4": kept for writing back, not words), empty nodes (ID "8.1": not words, kept for
 * writing back), blank lines ending a sentence (several in a row are one break). A file with
 * CRLF line endings or a UTF-8 byte-order mark reads exactly like its LF twin; the last
 * sentence is read with or without a final blank line or newline. Lines end at LF only: VT,
 * FF, NEL, U+2028 and U+2029 are characters of their field; a CR anywhere but before a line's
 * LF is an error in either format (no field holds a CR, which qkv_corpus_write refuses).
 *
 * UPOS and XPOS must not contain whitespace (CoNLL-U allows spaces only in FORM, LEMMA and
 * MISC): a space, NBSP or any other Unicode White_Space character there is an error.
 *
 * The column format (CoNLL-2000 chunking, CoNLL-2003 NER, WNUT 2017): FORM in the first column,
 * the tag in a chosen column (default: the last), no comments. The fields are TAB-separated,
 * or separated by runs of spaces (CoNLL-2003's original files) when the file's first word line
 * holds no TAB and either the format is QKV_FORMAT_COLUMNS (not AUTO) or a -DOCSTART- line
 * came first. Every word line of a file has as many fields as its first one (else an error
 * naming the line). A line of only whitespace (WNUT 2017 has lines holding one TAB) ends a
 * sentence like an empty line; a line whose first field is -DOCSTART- (CoNLL-2003) is a
 * document boundary: it ends the sentence, is no word and is written back as read.
 * Whitespace around the tag is not part of it ("O " and " O" are the tag "O"). Tags may hold
 * hyphens (B-creative-work).
 *
 * A tag "_" (CoNLL-U's "unspecified") means the word has no tag, in either format: the word is
 * read (it is part of its sentence) and qkv_corpus_untagged says so.
 *
 * The corpus keeps the file's bytes, so that qkv_corpus_write reproduces it byte for byte with
 * other tags substituted. Every error reads "FILE:LINE: what was expected". */
#ifndef QKV_DATA_CORPUS_H
#define QKV_DATA_CORPUS_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "data/spans.h"
#include "lib/error.h"

typedef enum {
    QKV_FORMAT_AUTO = 0, /* CoNLL-U if the name ends in ".conllu" (or ".conllu.gz") or the
                            first line that is neither blank nor a comment has 10 fields;
                            else columns */
    QKV_FORMAT_CONLLU,
    QKV_FORMAT_COLUMNS,
    QKV_FORMAT_COUNT
} qkv_format;
/* "auto", "conllu", "columns" (index = value), then NULL. */
extern const char *const QKV_FORMAT_NAMES[];

/* The CoNLL-U columns a model can predict, X(ENUM_SUFFIX, "name", 0-based field): one row per
 * column, in enum order. How a column's values become classes and back (lemmas as edit
 * scripts) and whether "_" is a value there (FEATS) is data/columns.h. DEPREL is the tag of a
 * dependency parser (its labels; the arcs are the HEAD column, read beside every column). */
#define QKV_TAG_FIELDS(X) X(UPOS, "upos", 3) X(XPOS, "xpos", 4) X(FEATS, "feats", 5) X(LEMMA, "lemma", 2) X(DEPREL, "deprel", 7)
#define QKV_TAG_FIELD_ENUM_(e, name, field) QKV_TAG_##e,
typedef enum { QKV_TAG_FIELDS(QKV_TAG_FIELD_ENUM_) QKV_TAG_FIELD_COUNT } qkv_tag_field;
/* "upos", "xpos", "feats", "lemma", "deprel" (index = value), then NULL. */
extern const char *const QKV_TAG_FIELD_NAMES[];
/* The 0-based CoNLL-U field of each column (UPOS 3, ...). */
extern const int QKV_TAG_FIELD_INDEX[];
/* Most columns one read takes (data.tags: [upos, xpos, feats, lemma]). */
#define QKV_MAX_COLUMNS 8

typedef struct qkv_read_opts {
    qkv_format format;
    qkv_tag_field tag_field; /* CoNLL-U: which column holds the tag */
    int tag_column;          /* columns format: 1-based column of the tag (FORM is column 1);
                                0 = the last column of each line */
    qkv_tag_scheme scheme;   /* NONE: tags as read; else span tags rewritten in this scheme
                                (qkv_corpus_convert_scheme) */
    int n_columns;           /* CoNLL-U: columns read beyond tag_field; 0 or 1: tag_field only */
    qkv_tag_field columns[QKV_MAX_COLUMNS]; /* columns[0] = tag_field, then the others (distinct) */
} qkv_read_opts;

#define QKV_READ_DEFAULTS ((qkv_read_opts){QKV_FORMAT_AUTO, QKV_TAG_UPOS, 0, QKV_TAG_SCHEME_NONE, 0, {QKV_TAG_UPOS}})

/* A byte range [off, off + len) of the corpus text. */
typedef struct qkv_span {
    uint32_t off, len;
} qkv_span;

typedef struct qkv_corpus {
    char *name;          /* the file name used in messages */
    char *text;          /* the file's bytes as read (BOM and CRs included), NUL-terminated */
    size_t text_len;
    qkv_format format;   /* CONLLU or COLUMNS after reading */
    char tag_column[24]; /* where the tags come from, for messages: "UPOS (field 4)", "XPOS
                            (field 5)", "field 3" or "the last field" */
    int n_sent;          /* sentences, including ones without words (comments only) */
    int32_t *sent_start; /* [n_sent + 1]: sentence s is words sent_start[s] .. sent_start[s+1]-1 */
    int32_t *sent_line;  /* [n_sent]: line number of the sentence's first line */
    int n_words;         /* syntactic words (not multiword tokens, not empty nodes) */
    qkv_span *forms;     /* [n_words] */
    qkv_span *tags;      /* [n_words] gold tags as written (columns: without surrounding whitespace) */
    int32_t *word_line;  /* [n_words] line number of each word */
    int32_t *heads;      /* [n_words] CoNLL-U: HEAD (0 = ROOT, k = word k of the sentence), -1 for
                            "_", -2 for anything else (qkv_corpus_check_trees says what);
                            columns: all -1 */
    qkv_span *head_fields; /* [n_words] CoNLL-U: where HEAD is written (for writing heads back) */
    int n_multiword;     /* multiword-token lines */
    int n_empty_nodes;   /* empty-node lines */
    int n_comments;      /* comment lines */
    int n_docstart;      /* columns: -DOCSTART- lines (document boundaries, not words) */
    /* after qkv_corpus_convert_scheme: */
    qkv_tag_scheme file_scheme; /* the scheme the file is written in (qkv_scheme_vote_result) */
    char *conv_text;     /* the converted tags, NUL-terminated one after the other */
    qkv_span *conv_tags; /* [n_words] word w's converted tag in conv_text (NULL: not converted) */
    qkv_tag_field tag_field; /* CoNLL-U: the column tags come from */
    int n_columns;       /* columns read (1: tags only); column 0 is the tags */
    qkv_tag_field columns[QKV_MAX_COLUMNS];
    qkv_span *fields;    /* CoNLL-U: [n_words * 10] the ten fields of each word (NULL: columns format) */
} qkv_corpus;

/* Reads a file (any size below 4 GiB), plain or gzip-compressed (data/textfile.h: a truncated
 * or corrupt stream is an error). On error the corpus is left empty (safe to free). */
int qkv_corpus_read(qkv_corpus *c, const char *path, const qkv_read_opts *opts, qkv_error *err);

/* Reads len bytes of memory (copied); name is used in messages. */
int qkv_corpus_read_mem(qkv_corpus *c, const char *data, size_t len, const char *name,
                        const qkv_read_opts *opts, qkv_error *err);

/* Reads plain text (qkv tag --format text): one sentence a line, tokens separated by runs of
 * Unicode White_Space other than control characters, and TABs and CRs (data/utf8.h:
 * qkv_utf8_blank_len: U+00A0 no-break space and U+3000 ideographic space separate tokens too);
 * lines without tokens are no sentence; a UTF-8 byte-order mark at the start is skipped. Every
 * other character ends up in a token, the other control characters included. The corpus holds
 * the text as minimal CoNLL-U (ID, FORM, "_" elsewhere; format CONLLU), for writing it back
 * tagged, but its line numbers (sent_line, word_line) are those of the text. Errors
 * "NAME:LINE: ..." name the text's line: a NUL byte or invalid UTF-8 (nothing is dropped), a
 * line plainly of a CoNLL-U or a column file (data/text_format.h). */
int qkv_corpus_read_text(qkv_corpus *c, const char *data, size_t len, const char *name, qkv_error *err);
/* The same with the tags of the CoNLL-U made here in tag_field's column (DEPREL for a parser). */
int qkv_corpus_read_text_as(qkv_corpus *c, const char *data, size_t len, const char *name, qkv_tag_field tag_field,
                            qkv_error *err);

void qkv_corpus_free(qkv_corpus *c);

/* Rewrites the corpus's tags in scheme (opts->scheme of a read does it): each sentence's chunks
 * (data/spans.h, conlleval's rules) encoded anew; "_" stays. qkv_corpus_tag then gives the
 * converted tags, file_scheme the scheme the file's own tags are in, and qkv_corpus_write still
 * writes the file's bytes. NONE does nothing. Errors: a tag that is not a span tag ("FILE:LINE:
 * data.tag_scheme bioes needs span tags ..."), tags mixing the schemes (qkv_corpus_own_scheme),
 * out of memory. */
int qkv_corpus_convert_scheme(qkv_corpus *c, qkv_tag_scheme scheme, qkv_error *err);

/* Span tags but a few: when under 5% of c's tagged words have a tag that is not a span tag
 * (qkv_tag_is_span: a "0" typed for "O") and others have B-, I-, E- or S- tags, one warning
 * "FILE:LINE: tag "T" is not a span tag ..., N words have such a tag, the first here ..." (the
 * span scores need every tag to be one). warnings: data/dataset.h. Errors: out of memory. */
struct qkv_warnings;
int qkv_corpus_warn_stray_tags(const qkv_corpus *c, struct qkv_warnings *warnings, qkv_error *err);

/* For writing predictions back: tags (one per word, in the converted scheme) rewritten in the
 * file's own scheme into *out (strings in *buf; free both) when the corpus was converted; else
 * *out and *buf are NULL (write tags as they are). Errors: out of memory. */
int qkv_corpus_tags_as_file(const qkv_corpus *c, const char *const *tags, char **buf, const char ***out,
                            qkv_error *err);

/* Like qkv_corpus_tags_as_file, into scheme (BIO, IOB1 or BIOES; tags must be span tags): each
 * sentence's chunks (conlleval's rules) encoded anew. NONE: *out and *buf NULL. */
int qkv_corpus_tags_in_scheme(const qkv_corpus *c, const char *const *tags, qkv_tag_scheme scheme, char **buf,
                              const char ***out, qkv_error *err);

/* The scheme c's own tags are written in, into *scheme: file_scheme when it was converted, else
 * the vote of qkv_scheme_vote_result over its tags ("_" reads as O: BIO for a file without
 * tags). Errors (also of qkv_corpus_convert_scheme): a file whose chunks mix the schemes, some
 * ending with E- or S- (BIOES only), some with B- or I- (BIO, IOB1; BIOES forbids it), naming
 * the line of the first chunk end of the fewer kind ("FILE:LINE: tag "S-PER" ends a chunk as
 * only BIOES ends one ..."; E-/S- on a tie), checked when the column holds span tags (some
 * prefixed, at most 1 in 20 tagged words without a span tag: as qkv_corpus_warn_stray_tags);
 * out of memory. */
int qkv_corpus_own_scheme(const qkv_corpus *c, qkv_tag_scheme *scheme, qkv_error *err);

/* Word w's FORM / tag (the converted tag after qkv_corpus_convert_scheme): pointer into the corpus text (not NUL-terminated) and its length. */
static inline const char *qkv_corpus_form(const qkv_corpus *c, int w, size_t *len)
{
    *len = c->forms[w].len;
    return c->text + c->forms[w].off;
}
static inline const char *qkv_corpus_tag(const qkv_corpus *c, int w, size_t *len)
{
    if (c->conv_tags) {
        *len = c->conv_tags[w].len;
        return c->conv_text + c->conv_tags[w].off;
    }
    *len = c->tags[w].len;
    return c->text + c->tags[w].off;
}
/* The tag that means "no tag" (CoNLL-U's unspecified value). */
#define QKV_NO_TAG "_"

/* Whether word w's tag is QKV_NO_TAG (never in FEATS, where "_" is the empty bundle). */
static inline int qkv_corpus_untagged(const qkv_corpus *c, int w)
{
    return c->tags[w].len == 1 && c->text[c->tags[w].off] == QKV_NO_TAG[0] &&
           !(c->format == QKV_FORMAT_CONLLU && c->tag_field == QKV_TAG_FEATS);
}
/* Word w's value in column i (0 <= i < n_columns; 0: its tag as qkv_corpus_tag gives it). */
static inline const char *qkv_corpus_value(const qkv_corpus *c, int i, int w, size_t *len)
{
    if (i == 0)
        return qkv_corpus_tag(c, w, len);
    qkv_span f = c->fields[(size_t)w * 10 + QKV_TAG_FIELD_INDEX[c->columns[i]]];
    *len = f.len;
    return c->text + f.off;
}
/* Whether word w has no value in column i ("_", except in FEATS). */
static inline int qkv_corpus_value_missing(const qkv_corpus *c, int i, int w)
{
    if (i == 0)
        return qkv_corpus_untagged(c, w);
    size_t len;
    const char *v = qkv_corpus_value(c, i, w, &len);
    return len == 1 && v[0] == QKV_NO_TAG[0] && c->columns[i] != QKV_TAG_FEATS;
}
/* The file name used in messages; the format read (CONLLU or COLUMNS). */
static inline const char *qkv_corpus_name(const qkv_corpus *c) { return c->name; }
static inline qkv_format qkv_corpus_format(const qkv_corpus *c) { return c->format; }
/* The line number of sentence s's first word (0 <= s < n_sent; the sentence has words). */
static inline int qkv_corpus_first_word_line(const qkv_corpus *c, int s) { return (int)c->word_line[c->sent_start[s]]; }
static inline int qkv_corpus_sent_len(const qkv_corpus *c, int s)
{
    return c->sent_start[s + 1] - c->sent_start[s];
}

/* Checks the basic dependency tree of every sentence whose words all have a HEAD (UD's rules);
 * a sentence's HEADs are all "_" (no tree) or none is, a mix is an error naming the first word
 * that differs from word 1:
 * a HEAD must be a number (or "_", no head), at most the sentence's length and not the word
 * itself, exactly one word hangs from ROOT (0) and following heads from any word reaches ROOT
 * (no cycle). Errors "FILE:LINE: ..." naming the word's line (for a sentence without a root or
 * with two, its first word's line); the first bad sentence fails the whole file. */
int qkv_corpus_check_trees(const qkv_corpus *c, qkv_error *err);
/* Words of c that have a HEAD (not "_"). */
int qkv_corpus_n_heads(const qkv_corpus *c);

/* Writes the corpus back: every byte as read, except that word w's tag holds tags[w] (tags may
 * be NULL, or tags[w] NULL, to keep the tag as read; whitespace around a column file's tag stays). A tag must be non-empty and
 * contain no TAB, CR or LF, else an error naming the word's line. */
int qkv_corpus_write(const qkv_corpus *c, FILE *out, const char *const *tags, qkv_error *err);
/* The same, and with heads (may be NULL; CoNLL-U only) each word's HEAD written as heads[w]
 * (0..the sentence's length; < 0 keeps the HEAD as read) and its DEPS "_" (the enhanced graph
 * of the tree read would contradict the new one). Multiword-token lines, empty nodes and every
 * other byte stay as read. Errors: those of qkv_corpus_write. */
int qkv_corpus_write_parsed(const qkv_corpus *c, FILE *out, const char *const *tags, const int32_t *heads,
                            qkv_error *err);
/* The same for a CoNLL-U corpus with columns substituted: values[k][w] (k < QKV_TAG_FIELD_COUNT;
 * values[k] or values[k][w] NULL: as read) replaces word w's value in column k (qkv_tag_field).
 * Errors as qkv_corpus_write; a corpus in the columns format. */
int qkv_corpus_write_fields(const qkv_corpus *c, FILE *out, const char *const *const *values, qkv_error *err);
/* The same with heads (may be NULL; < 0: as read) written in HEAD, DEPS "_" beside them. */
int qkv_corpus_write_fields_parsed(const qkv_corpus *c, FILE *out, const char *const *const *values,
                                   const int32_t *heads, qkv_error *err);

#endif
