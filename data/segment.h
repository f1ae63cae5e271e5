/* Tokenization and sentence splitting as tagging over characters (as UDPipe and Stanza do):
 * each character of a paragraph gets one label, and the labels give back the paragraph's
 * sentences, tokens and the words of multiword tokens.
 *
 * Labels (QKV_SEG_LABEL_NAMES):
 *   I  inside a token, not its last character (nor a split point);
 *   W  the last character of a word inside a multiword token ("do" of "don't", "can" of
 *      "cannot"), not the token's last character;
 *   T  the last character of a token that does not end its sentence;
 *   S  the last character of a sentence's last token;
 *   O  outside every token: whitespace between tokens and sentences.
 *
 * From CoNLL-U (qkv_seg_read): the text of a paragraph is its sentences' "# text" lines, one
 * after the other, with one space between two sentences unless the first one's last token has
 * SpaceAfter=No. A paragraph begins at a sentence whose comments hold "# newpar" or "# newdoc";
 * a file with neither comment anywhere makes every sentence its own paragraph. The tokens of a
 * sentence (multiword-token lines "N-M", and words outside them; empty nodes "N.M" are no
 * tokens) must spell out its "# text" in order: each FORM at the current place, then
 * whitespace after it unless its MISC holds SpaceAfter=No (none then), nothing after the last
 * token. A multiword token whose words spell its FORM exactly gets W at the words' ends; one
 * whose words do not (Spanish "del" = "de" "el") is labelled as one word (counted in
 * n_unsplit: the labels cannot give its words back).
 *
 * Characters are Unicode code points; whitespace is Unicode's White_Space. */
#ifndef QKV_DATA_SEGMENT_H
#define QKV_DATA_SEGMENT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "data/corpus.h"
#include "lib/error.h"

typedef enum {
    QKV_SEG_INSIDE = 0,
    QKV_SEG_WORD_END,
    QKV_SEG_TOKEN_END,
    QKV_SEG_SENT_END,
    QKV_SEG_OUTSIDE,
    QKV_SEG_COUNT
} qkv_seg_label;
/* "I", "W", "T", "S", "O" (index = value), then NULL. */
extern const char *const QKV_SEG_LABEL_NAMES[];

/* Paragraphs as characters: paragraph p is characters par_start[p] .. par_start[p+1]-1;
 * character i is text[char_off[i] .. char_off[i+1]) (text holds every paragraph back to back,
 * NUL-terminated), labelled labels[i] (QKV_SEG_OUTSIDE everywhere for raw text, where the
 * labels are to be predicted), from line char_line[i] of the file (the "# text" line). */
typedef struct qkv_seg_text {
    char *name;          /* the file name used in messages */
    char *text;
    size_t text_len;
    int n_par;
    int32_t *par_start;  /* [n_par + 1] */
    int n_chars;
    uint32_t *char_off;  /* [n_chars + 1] */
    uint8_t *labels;     /* [n_chars] qkv_seg_label */
    int32_t *char_line;  /* [n_chars] */
    int n_sent, n_tokens, n_words, n_multiword, n_unsplit; /* counted by qkv_seg_read */
    size_t cap_text, cap_chars, cap_par; /* room (internal) */
} qkv_seg_text;

/* Reads a CoNLL-U file (plain or gzip) / len bytes of memory (name for messages) into st with
 * the gold labels. Errors "FILE:LINE: ...": a sentence with tokens but no "# text", a FORM that
 * is not the text at its place, SpaceAfter and the text's whitespace disagreeing, text after
 * the last token, a word line without 10 TAB-separated fields or with a bad ID, invalid UTF-8,
 * out of memory. On error st is empty (safe to free). */
int qkv_seg_read(qkv_seg_text *st, const char *path, qkv_error *err);
int qkv_seg_read_mem(qkv_seg_text *st, const char *data, size_t len, const char *name, qkv_error *err);

/* An empty st named name (for raw text: paragraphs are appended one by one). */
int qkv_seg_init(qkv_seg_text *st, const char *name, qkv_error *err);
/* Appends one paragraph of raw text: s[0..len) (valid UTF-8, checked by the caller), every
 * character labelled O, from line first_line (each '\n' in s begins the next line). */
int qkv_seg_add_raw(qkv_seg_text *st, const char *s, size_t len, int first_line, qkv_error *err);
void qkv_seg_free(qkv_seg_text *st);

/* The characters as a corpus for the tagger of data.task: segment: word i is character i
 * (every Unicode White_Space character, TAB, CR, LF, U+2028 and NBSP among them, reads as a
 * space), sentence p is paragraph p, the tag of word i its label's
 * name (with_labels) or "_" (no tag: raw text to label), word_line the character's line;
 * tag_column "segment labels". */
int qkv_seg_corpus(qkv_corpus *c, const qkv_seg_text *st, bool with_labels, qkv_error *err);

/* Cuts the paragraphs of c (a qkv_seg_corpus) that are longer than piece + 2·context characters
 * into pieces of `piece` characters, each read with up to `context` characters of its paragraph
 * on either side, so that a model's memory is bounded whatever the layout of the text; shorter
 * paragraphs stay whole. Each piece becomes a sentence of c; (*src)[i] (malloc'd, [c->n_words])
 * is the character of the original c whose prediction word i of the new c gives, or -1 for a
 * context character (its prediction is left unused). A model that sees no further than context
 * characters on either side (a segmenter of local attention: layers × window) predicts the same
 * labels as on the whole paragraph. Errors: out of memory, over 2^31 characters. */
int qkv_seg_corpus_pieces(qkv_corpus *c, int piece, int context, int32_t **src, qkv_error *err);

/* The labels read back: sentences of tokens, tokens of words, as character ranges of st.
 * Sentence s is tokens sent_start[s] .. sent_start[s+1]-1; token t is characters
 * tok_start[t] .. tok_end[t]-1 and words tok_word[t] .. tok_word[t+1]-1; word w is characters
 * word_start[w] .. word_end[w]-1; space_after[t] is 0 when the next character after the token
 * (in its paragraph) begins another token. */
typedef struct qkv_segmentation {
    int n_sent, n_tokens, n_words;
    int32_t *sent_start;  /* [n_sent + 1] */
    int32_t *sent_par;    /* [n_sent] paragraph of each sentence */
    int32_t *tok_start, *tok_end, *tok_word; /* [n_tokens], [n_tokens], [n_tokens + 1] */
    uint8_t *space_after; /* [n_tokens] */
    int32_t *word_start, *word_end;          /* [n_words] */
    size_t cap_sent, cap_tokens, cap_words;  /* room (internal) */
} qkv_segmentation;

/* Reads paragraph p of st with labels (st->labels when labels is NULL; else labels[i] for
 * character i of st) and appends its sentences to seg (zeroed or filled before). Any labels
 * give a valid segmentation: a token is a run of characters that ends at T, S or before O
 * (whitespace labelled O; any non-whitespace character is in a token whatever its label); a
 * token never begins or ends with whitespace; W ends a word inside its token; S ends the
 * sentence, and so does the paragraph's end, and the token that brings a sentence to
 * QKV_SEG_MAX_SENTENCE_WORDS words (text without sentence ends gives sentences of bounded
 * length, so that a parser's memory, which grows with a sentence's words squared, is bounded
 * too). Nothing ends inside an extended grapheme cluster
 * (UAX #29, libunistring's u8_grapheme_breaks: a letter and its combining marks, a ZWJ emoji
 * sequence, a variation selector, a flag): a label W, T or S on a character that its cluster
 * continues past counts as I, so sentences, tokens and words begin and end at cluster
 * boundaries (a whitespace character inside a cluster is part of a token). The gold labels of qkv_seg_read give back its
 * sentences, tokens and words exactly (except the n_unsplit multiword tokens' words).
 * Errors: out of memory. */
int qkv_seg_decode(const qkv_seg_text *st, int p, const uint8_t *labels, qkv_segmentation *seg, qkv_error *err);
/* The most words qkv_seg_decode gives a sentence: as `qkv serve --max-words` takes by default. */
#define QKV_SEG_MAX_SENTENCE_WORDS 250
void qkv_segmentation_free(qkv_segmentation *seg);

/* The MISC qkv_seg_write_sentence gives token t of sentence s (of st): from the whitespace after it
 * up to the next token or the paragraph's end, "SpaceAfter=No" for none before another token,
 * "_" for one space (or none at the paragraph's end), else "SpacesAfter=" and the whitespace
 * with \s, \t, \n, \r for space, TAB, LF, CR (UDPipe's convention: the text is rebuilt from
 * the tokens), "\u" and the code point in four hex digits for another character that breaks a
 * line (VT, FF, NEL, U+2028, U+2029: \u000C for FF), and any other whitespace character as it
 * is (U+00A0, U+3000, ...). Returns a string literal or buf (cap bytes, at least 24; a longer
 * run of whitespace is cut to fit). */
const char *qkv_seg_token_misc(const qkv_seg_text *st, const qkv_segmentation *seg, int s, int t, char *buf,
                               size_t cap);

/* Writes sentence s of seg (of st) as CoNLL-U: "# newpar" when it is its paragraph's first
 * sentence, "# sent_id = SENT_ID", "# text = ..." (the sentence's characters from its first
 * token to its last, each TAB, CR or LF as a space), then a multiword-token line "N-M FORM _ ...
 * MISC" before the words of each token of several words, and a line "N FORM _ _ _ _ _ _ _ MISC"
 * for each word, MISC on the token (its multiword line, or its word): "SpaceAfter=No" when the
 * next token of the paragraph follows without whitespace (in this sentence or the next),
 * "SpacesAfter=..." when the whitespace after it is not one space (as qkv_seg_token_misc spells
 * it), else "_"; then a blank line. Errors: a write error. */
int qkv_seg_write_sentence(FILE *out, const qkv_seg_text *st, const qkv_segmentation *seg, int s,
                           const char *sent_id, qkv_error *err);

#endif
