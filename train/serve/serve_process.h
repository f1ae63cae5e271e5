/* What qkv serve's /process does with one text, apart from HTTP: the text read (raw text through
 * the model's segmenter, or CoNLL-U, horizontal or vertical), tagged and parsed through the C
 * library, and written as the CoNLL-U qkv tag writes for it: the input's bytes with the columns
 * of the steps asked for (tagger: LEMMA, UPOS, XPOS, FEATS; parser: HEAD, DEPREL) filled in. */
#ifndef QKV_SERVE_PROCESS_H
#define QKV_SERVE_PROCESS_H

#include <stdbool.h>
#include <stddef.h>

#include "train/http/http_buf.h"
#include "train/serve/serve_models.h"

typedef enum { SERVE_INPUT_CONLLU, SERVE_INPUT_HORIZONTAL, SERVE_INPUT_VERTICAL } serve_input;

/* The longest token (bytes of non-blank text) a request may hold. */
#define SERVE_MAX_TOKEN_BYTES 1024

typedef struct serve_job {
    const char *data;  /* valid UTF-8 without NUL bytes */
    size_t len;
    bool tokenize;     /* data is raw text, for the segmenter; else input says what it is */
    serve_input input; /* conllu: CoNLL-U; horizontal: a sentence a line, tokens between spaces
                          (U+00A0 inside a token is a space); vertical: a token a line (up to a
                          TAB), a blank line ends a sentence */
    bool tag, parse;   /* the columns to fill */
    int max_words;     /* the most words a sentence of pre-tokenised input may have */
} serve_job;

/* Processes job with model m: the CoNLL-U into out, the words into *n_words. Returns 0, or an
 * HTTP status (400 for input the model cannot take, 500 out of memory) with msg. */
int serve_process(serve_model *m, const serve_job *job, qkv_buf *out, long *n_words, char *msg, size_t msg_len);

#endif
