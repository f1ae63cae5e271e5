/* qkv eval CHECKPOINT GOLD.conllu --raw [--tokenizer SEG.h5]: tagging from raw text, scored as
 * the CoNLL 2018 shared task scores it (data/ud_eval.h). */
#ifndef QKV_CLI_EVAL_RAW_H
#define QKV_CLI_EVAL_RAW_H

#include <stdbool.h>

/* --tokenizer's value for whitespace tokens (no segmenter). */
#define QKV_EVAL_WHITESPACE "whitespace"

/* Tags the raw text of gold_path with the tagger at ckpt and prints Tokens, Sentences, Words
 * and UPOS precision, recall and F1 (json: one JSON object). The raw text: with a segmenter
 * (tokenizer_path, else the one ckpt bundles under /segmenter), each paragraph's sentences'
 * # text joined as the segmenter's training reads them (data/segment.h); with tokenizer_path
 * QKV_EVAL_WHITESPACE, each # text line as a sentence of whitespace-separated tokens
 * (`qkv tag --format text`); with neither, an error. Prints errors; returns the exit status
 * (0 or 1). */
int qkv_eval_raw(const char *ckpt, const char *gold_path, const char *tokenizer_path, bool json);

#endif
