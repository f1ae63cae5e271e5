/* A trained segmenter (a checkpoint of data.task: segment) and raw text tagged through it:
 * characters -> labels -> sentences, tokens and multiword tokens (data/segment.h) -> a word
 * tagger -> CoNLL-U, one paragraph at a time. */
#ifndef QKV_TOKENIZE_H
#define QKV_TOKENIZE_H

#include <stdio.h>

#include "data/segment.h"
#include "api/session.h"

typedef struct qkv_tokenizer {
    qkv_session s;
    uint8_t label[64]; /* label[t]: the qkv_seg_label of the model's tag t */
} qkv_tokenizer;

/* Loads the segmenter at path. Errors: the checkpoint's, "PATH: not a segmenter ..." for a
 * checkpoint of another task or with tags that are not segment labels. */
int qkv_tokenizer_load(qkv_tokenizer *tk, const char *path, qkv_error *err);
void qkv_tokenizer_free(qkv_tokenizer *tk);

/* Labels every character of st with the model and appends each paragraph's sentences to seg
 * (qkv_seg_decode). Errors: out of memory, a model error naming st's file and line. */
int qkv_tokenizer_segment(qkv_tokenizer *tk, const qkv_seg_text *st, qkv_segmentation *seg, qkv_error *err);

/* Tags corpus c with tagger and writes it with the predicted tags (qkv_corpus_write; in the
 * file's own tag scheme), then flushes out. Errors: the model's, a write error. */
int qkv_tag_corpus_write(qkv_session *tagger, const qkv_corpus *c, FILE *out, qkv_error *err);

/* Writes the sentences of seg (of st) as CoNLL-U (qkv_seg_write_sentence, numbered on from
 * *sent_id, which counts them), tagged by tagger, to out. Lines in errors are st's. */
int qkv_tag_segments(qkv_session *tagger, const qkv_seg_text *st, const qkv_segmentation *seg, long *sent_id,
                     FILE *out, qkv_error *err);

/* Reads raw UTF-8 text from in (name for messages) and writes CoNLL-U tagged by tagger to out:
 * paragraphs are separated by lines holding only spaces, TABs or CRs (a paragraph of more than
 * 64 KiB is also cut at a line end); each paragraph is segmented by tk, its sentences numbered
 * from 1 ("# sent_id = N", "# text = ..."), tagged, written and flushed before the
 * next one is read. A UTF-8 byte-order mark at the start is skipped, a CR before each LF
 * dropped. Errors "NAME:LINE: ..." name the input's line: invalid UTF-8, a NUL byte, a model
 * error; a read or write error. */
int qkv_tag_raw_text(qkv_session *tagger, qkv_tokenizer *tk, FILE *in, const char *name, FILE *out, qkv_error *err);

#endif
