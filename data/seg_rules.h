/* Decoding rules of a segmenter: corrections of its predicted character labels (data/segment.h)
 * for what a character model gets wrong and a rule gets right, applied after its lexicon
 * (data/seg_lexicon.h) and before qkv_seg_decode:
 *
 *   e-mail addresses and URLs: an e-mail address (local@domain.tld, ASCII) and a URL (from
 *     "http://", "https://", "ftp://" or "www." to the end of its chunk, less the punctuation
 *     that closes a sentence or a bracket opened before it) are one token each, with no
 *     sentence end inside; a sentence end on its last character stays;
 *   emoji: an emoji (an Extended_Pictographic character or a pair of regional indicators, with
 *     its variation selectors, skin tones, keycap and tag characters and ZWJ sequences) is one
 *     token of its own, split from the characters around it;
 *   abbreviations: a chunk that is an abbreviation of the lexicon (qkv_seg_lexicon_is_abbrev),
 *     after any opening brackets or quotes, is one token and ends no sentence (a paragraph's end
 *     still ends one).
 *
 * A chunk is a maximal run of non-whitespace characters of a paragraph. */
#ifndef QKV_DATA_SEG_RULES_H
#define QKV_DATA_SEG_RULES_H

#include <stdint.h>

#include "data/seg_lexicon.h"
#include "data/segment.h"

/* Applies the rules to labels[i] (one per character of st); lx may be NULL or empty (no
 * abbreviations then). Returns the number of characters whose label changed. */
long qkv_seg_rules_apply(const qkv_seg_lexicon *lx, const qkv_seg_text *st, uint8_t *labels);

/* For text of one sentence a line: every sentence end the labels have becomes a token end, and
 * the last non-whitespace character before each line break and at each paragraph's end ends a
 * sentence (a line without final punctuation stays one sentence). Returns the changes. */
long qkv_seg_lines_as_sentences(const qkv_seg_text *st, uint8_t *labels);

#endif
