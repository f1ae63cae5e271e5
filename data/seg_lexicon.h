/* A segmenter's lexicon: the training file's whitespace-delimited chunks ("don't", "e-mail",
 * ":)", "Sept.", "U.S.", "$$$") each with the one segmentation the training file always gives
 * it, to override the predicted character labels (data/segment.h) of a chunk seen in training.
 *
 * A chunk is a maximal run of characters of one paragraph that are not Unicode White_Space.
 * Its segmentation is one letter per character: I (inside a token), W (ends a word inside a
 * multiword token) or T (ends a token: the gold T or S; a chunk's last character always ends a
 * token). The lexicon keeps a chunk of 2 or more characters when the training file gives it
 * the same segmentation each of the at least min_count times it occurs (a chunk segmented two
 * ways, as "its" = "its" or "it" "s", is left to the model). Memorising the training tokens is
 * what a dictionary does for a tokenizer; the character model decides every chunk not listed
 * and where sentences end.
 *
 * It also keeps the training file's abbreviations: every token of 2 or more characters that
 * ends with "." and holds a letter ("Dr.", "p.m.", "U.S.", "W.") and that the training file
 * shows inside a sentence (not its last token) more often than at a sentence's end. The
 * decoding rules of data/seg_rules.h end no sentence right after one of them. */
#ifndef QKV_DATA_SEG_LEXICON_H
#define QKV_DATA_SEG_LEXICON_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "data/segment.h"
#include "lib/error.h"

typedef struct qkv_seg_lexicon {
    size_t n;            /* entries, chunks in byte order (memcmp, shorter first on a tie) */
    const char **chunks; /* [n] the chunk's UTF-8 bytes, NUL-ended */
    const char **segs;   /* [n] its segmentation: one of "IWT" per character, NUL-ended */
    char *buf;           /* holds every string (internal) */
    size_t n_abbrevs;    /* abbreviations, in byte order; 0 for a segmenter file without them */
    const char **abbrevs; /* [n_abbrevs] NUL-ended */
    char *abbrev_buf;    /* holds them (internal) */
} qkv_seg_lexicon;

/* The lexicon of st's gold labels (qkv_seg_read) with chunks seen at least min_count times (0:
 * no chunks), and its abbreviations, into *lx (zeroed or freed before). Errors: out of memory. */
int qkv_seg_lexicon_build(qkv_seg_lexicon *lx, const qkv_seg_text *st, int min_count, qkv_error *err);

/* A lexicon from n stored pairs (chunks[i], segs[i]) as qkv_seg_lexicon_build makes them (a
 * model file's /lexicon, api/model_file.h). Errors "pair I: ..." for a segmentation that is not
 * one of I, W, T per character ending with T, chunks out of order; out of memory. */
int qkv_seg_lexicon_set(qkv_seg_lexicon *lx, size_t n, const char *const *chunks, const char *const *segs,
                        qkv_error *err);

/* Overrides labels[i] (one per character of st, as qkv_seg_decode reads them) of every chunk of
 * st that lx lists: each character but the last gets the chunk's I or W, or T where the entry
 * says T (S where the labels had S there); the last character T, or S when the labels had S on
 * it or on a character whose S the entry removes (the sentence ends at the chunk's end).
 * Returns the number of characters whose label changed. */
long qkv_seg_lexicon_apply(const qkv_seg_lexicon *lx, const qkv_seg_text *st, uint8_t *labels);

/* The abbreviations of st's gold labels into lx (replacing those it had); part of
 * qkv_seg_lexicon_build. Errors: out of memory. */
int qkv_seg_lexicon_build_abbrevs(qkv_seg_lexicon *lx, const qkv_seg_text *st, qkv_error *err);

/* Sets the n abbreviations of lx (stored ones: a model file's /lexicon/abbrevs), replacing
 * those it had. Errors "abbreviation I: ..." for one that does not end with "." or is out of
 * byte order; out of memory. */
int qkv_seg_lexicon_set_abbrevs(qkv_seg_lexicon *lx, size_t n, const char *const *abbrevs, qkv_error *err);

/* Whether bytes[0..len) is an abbreviation of lx: one of its abbreviations; for a lexicon
 * without them (a segmenter file made before they were kept), a chunk it lists as one token
 * ending with "." holding a letter (the training file never split its period off, which it does
 * where such a word ends a sentence: "etc" "."). */
bool qkv_seg_lexicon_is_abbrev(const qkv_seg_lexicon *lx, const char *bytes, size_t len);

void qkv_seg_lexicon_free(qkv_seg_lexicon *lx);

#endif
