/* A trained segmenter (a model of data.task: segment) and raw text tagged through it:
 * characters -> labels -> sentences, tokens and multiword tokens (data/segment.h) -> a word
 * tagger, one paragraph at a time. The one pipeline of `qkv tag --tokenizer`, `qkv eval --raw`
 * and the library's qkv_model_tag_text (include/qkv/qkv.h), so that they cannot drift apart. */
#ifndef QKV_API_SEGMENTER_H
#define QKV_API_SEGMENTER_H

#include <stdio.h>

#include "data/segment.h"
#include "api/session.h"

typedef struct qkv_tokenizer {
    qkv_session s;
    uint8_t label[64]; /* label[t]: the qkv_seg_label of the model's tag t */
    bool sentence_per_line; /* a line is a sentence (qkv_seg_lines_as_sentences); false after load */
    int piece;              /* a paragraph longer than this many characters (and twice the model's
                               reach) is read in pieces of this size (data/segment.h:
                               qkv_seg_corpus_pieces); 0 after load: 1024 */
    bool stream;            /* raw text read a paragraph at a time (qkv_tag_raw_paragraphs): true,
                               each is tagged and handed on as soon as it is read (input typed or
                               piped in); false after load: paragraphs are tagged in groups of
                               16 KiB, many sentences a batch (faster) */
} qkv_tokenizer;

/* Loads the segmenter stored in the model file at path under group (QKV_SEGMENTER_GROUP: the
 * one `qkv export --tokenizer` or data.segmenter bundled with a tagger; NULL or "": the file's
 * own model, or the one it bundles when it has one: a pipeline file such as
 * data/models/en.h5 is its segmenter). Errors: the model file's, "PATH: not a segmenter ..."
 * for a model of another task without a bundled segmenter or with tags that are not segment
 * labels. Free tk with qkv_tokenizer_free even on error. */
int qkv_tokenizer_load(qkv_tokenizer *tk, const char *path, const char *group, qkv_error *err);
void qkv_tokenizer_free(qkv_tokenizer *tk);

/* Labels every character of st with the model, the chunks its lexicon lists (if it has one:
 * data/seg_lexicon.h, qkv_seg_lexicon_apply) as the lexicon says, corrects them by the decoding
 * rules (data/seg_rules.h: e-mail addresses, URLs, emoji, abbreviations; with sentence_per_line
 * each line one sentence) and appends each
 * paragraph's sentences to seg (qkv_seg_decode). Errors: out of memory, a model error naming st's file and line. */
int qkv_tokenizer_segment(qkv_tokenizer *tk, const qkv_seg_text *st, qkv_segmentation *seg, qkv_error *err);

/* Tags corpus c with tagger: *tags (malloc'd, c->n_words entries; free it and *buf) gets each
 * word's tag in the corpus's own tag scheme (qkv_corpus_tags_as_file), the tags qkv tag
 * writes. Errors: the model's, out of memory. */
int qkv_tag_corpus(qkv_session *tagger, const qkv_corpus *c, const char ***tags, char **buf, qkv_error *err);

/* Tags corpus c with tagger and writes it with the predicted tags (qkv_corpus_write), then
 * flushes out. Errors: the model's, a write error. */
int qkv_tag_corpus_write(qkv_session *tagger, const qkv_corpus *c, FILE *out, qkv_error *err);

/* The sentences of seg (of st) as a CoNLL-U corpus *c (qkv_seg_write_sentence, numbered on
 * from *sent_id, which counts them) whose line numbers are st's. Errors: out of memory. */
int qkv_segmentation_corpus(const qkv_session *tagger, const qkv_seg_text *st, const qkv_segmentation *seg,
                        long *sent_id, qkv_corpus *c, qkv_error *err);

/* qkv_segmentation_corpus, tagged by tagger and written to out (qkv_tag_corpus_write). */
int qkv_tag_segmentation(qkv_session *tagger, const qkv_seg_text *st, const qkv_segmentation *seg, long *sent_id,
                     FILE *out, qkv_error *err);

/* Paragraphs of raw text (one, or a group of them: seg->sent_par says whose each sentence is),
 * segmented and tagged: st their characters, seg their sentences, tokens and words, c the same
 * as CoNLL-U (sentences numbered on across paragraphs; word w of c is word w of seg), tags[w]
 * word w's tag (qkv_tag_corpus). */
typedef struct qkv_tagged_paragraph {
    const qkv_seg_text *st;
    const qkv_segmentation *seg;
    const qkv_corpus *c;
    const char *const *tags;
    const char *const *const *values; /* a model of several columns (api/predict.h: qkv_tagged
                                         values; tags is then its first column's); else NULL */
    const int32_t *arcs;             /* a parser's arcs of c's words (qkv_tagged's; -1 or NULL: none) */
} qkv_tagged_paragraph;

/* Called for each paragraph, in order; a non-zero return (with err set) stops the reading. */
typedef int (*qkv_paragraph_fn)(void *ctx, const qkv_tagged_paragraph *p, qkv_error *err);

/* Reads raw UTF-8 text from in (name for messages) and calls fn for each paragraph tagged by
 * tagger: paragraphs are separated by lines holding only blanks (data/utf8.h: qkv_utf8_blank_len,
 * Unicode White_Space but for control characters other than TAB and CR; a paragraph of
 * more than 64 KiB is also cut at a line end); each is segmented by tk, its sentences numbered
 * from 1 across the input, tagged and handed to fn: at once when tk->stream, else in groups of
 * paragraphs (16 KiB or more, and the rest at the end; fn then gets several paragraphs in one
 * call, their sentences' paragraphs in seg->sent_par). A UTF-8
 * byte-order mark at the start is skipped, a CR before each LF dropped. Errors "NAME:LINE: ..."
 * name the input's line: invalid UTF-8, a NUL byte, a line plainly of a CoNLL-U or a column
 * file (data/text_format.h), a model error; a read error; fn's. */
int qkv_tag_raw_paragraphs(qkv_session *tagger, qkv_tokenizer *tk, FILE *in, const char *name, qkv_paragraph_fn fn,
                           void *ctx, qkv_error *err);

/* qkv_tag_raw_paragraphs without the tagging: each paragraph segmented only (its corpus read
 * with tagger's data settings), handed to fn with tags, values and arcs NULL. */
int qkv_segment_raw_paragraphs(qkv_session *tagger, qkv_tokenizer *tk, FILE *in, const char *name, qkv_paragraph_fn fn,
                               void *ctx, qkv_error *err);

/* qkv_tag_raw_paragraphs writing each paragraph to out as CoNLL-U ("# sent_id = N", "# text =
 * ...", multiword tokens, SpaceAfter=No), flushed after each one; the tags rewritten in scheme
 * (data/corpus.h qkv_corpus_tags_in_scheme; NONE: as the model predicts them). */
int qkv_tag_raw_text(qkv_session *tagger, qkv_tokenizer *tk, FILE *in, const char *name, qkv_tag_scheme scheme,
                     FILE *out, qkv_error *err);

#endif
