/* A qkv_text (include/qkv/qkv.h) being built, for the public API (api/qkv.c): from the
 * paragraphs of raw text as qkv_tag_raw_paragraphs hands them (qkv_model_tag_text), or from
 * pre-tokenised sentences (qkv_model_tag_words). */
#ifndef QKV_API_TEXT_BUILDER_H
#define QKV_API_TEXT_BUILDER_H

#include <stdbool.h>
#include <stddef.h>

#include "api/segmenter.h"
#include "qkv/qkv.h"

/* While it grows, its string fields hold offsets into chars (made pointers at the end, when
 * chars no longer moves); offset 0 is no string (NULL): chars begins with a NUL no string uses.
 * Zero it (memset) to start; qkv_text_builder_free frees it. */
typedef struct text_builder {
    qkv_sentence *sents;
    int *paragraph; /* [n_sentences] qkv_text.paragraph */
    qkv_token *toks;
    const char **misc; /* [n_tokens] qkv_text.misc */
    qkv_word *words;
    qkv_word_fields *fields;
    size_t cap_s, cap_p, cap_t, cap_m, cap_w, cap_f;
    bool has_paragraphs; /* set it for raw text: the result's paragraph is then not NULL */
    qkv_text t;
    char *chars;
    size_t n_chars, cap_chars;
} text_builder;

/* qkv_paragraph_fn (api/segmenter.h; ctx: a text_builder): appends the paragraph's sentences,
 * tokens (with the MISC qkv tag writes: data/segment.h qkv_seg_token_misc) and words with every
 * column the model predicts, and the sentences' paragraph. Errors: out of memory, a paragraph
 * whose words segmented and tagged differ in number. */
int qkv_text_builder_paragraph(void *ctx, const qkv_tagged_paragraph *p, qkv_error *err);

/* Appends n_sentences pre-tokenised sentences (n_words[s] words sentences[s][0 ..]; a sentence of
 * 0 words left out): each word its own token (MISC "_"), a sentence's text its words joined by
 * spaces, the columns of p->c's words from p (tagged as CoNLL-U, word w of c the w-th word
 * given). Errors: out of memory, p->c not holding as many words as given. */
int qkv_text_builder_words(text_builder *b, const char *const *const *sentences, const int *n_words, int n_sentences,
                           const qkv_tagged_paragraph *p, qkv_error *err);

/* The result: one malloc'd block holding the qkv_text, its arrays and its strings (free() frees
 * it); NULL when out of memory. b stays to be freed. */
qkv_text *qkv_text_builder_finish(text_builder *b);

/* Frees what b holds and zeroes it. */
void qkv_text_builder_free(text_builder *b);

#endif
