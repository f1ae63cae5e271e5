/* The Tokens and Sentences scores of a segmenter's evaluation (data.task: segment): its
 * predicted character labels read back as tokens and sentences and compared with the gold ones
 * (data/seg_score.h), the two CoNLL 2018 scores `qkv eval --raw` gives a tokenizer. */
#ifndef QKV_SEG_EVAL_H
#define QKV_SEG_EVAL_H

#include "data/seg_lexicon.h"
#include "data/segment.h"
#include "train/evaluate.h"

/* For a segmenter (s->cfg.data.task segment), reads st from path (the file ds and s->dev_c were
 * read from: qkv_seg_read) into *st; otherwise leaves it empty. Errors: the reader's. */
int qkv_seg_eval_read(const qkv_session *s, const char *path, qkv_seg_text *st, qkv_error *err);

/* When st holds characters (qkv_seg_eval_read of a segmenter), scores res->pred (an evaluation
 * of ds, read from the same file: one predicted label id of fz's tags per character of st; -1,
 * a character no batch tagged, reads as I), with the chunks lexicon lists (NULL or empty: none)
 * segmented as it says (data/seg_lexicon.h) and the decoding rules applied (data/seg_rules.h),
 * as qkv tag does, into res->seg_tokens and
 * res->seg_sentences and sets res->has_segments (res's character accuracy stays the model's
 * own). Errors: st and ds of different lengths, out of memory. */
int qkv_eval_add_segments(qkv_eval_result *res, const qkv_featurizer *fz, const qkv_seg_lexicon *lexicon,
                          const qkv_dataset *ds, const qkv_seg_text *st, qkv_error *err);

#endif
