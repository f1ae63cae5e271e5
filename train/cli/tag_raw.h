/* qkv tag --format text --tokenizer SEG.h5: raw text through a segmenter, then the tagger. */
#ifndef QKV_CLI_TAG_RAW_H
#define QKV_CLI_TAG_RAW_H

#include <stdbool.h>

#include "api/session.h"

/* Loads the segmenter of the model file tokenizer_path (under group: NULL for the file's own
 * model, QKV_SEGMENTER_GROUP for one bundled by qkv export) and writes file ("-": standard
 * input) as tagged CoNLL-U on standard output, paragraph by paragraph (api/segmenter.h), its
 * tags in scheme (NONE: as predicted); sentence_per_line: each line of the input one sentence. Prints errors; returns the exit status (0 or 1). */
int qkv_tag_with_tokenizer(qkv_session *tagger, const char *tokenizer_path, const char *group, const char *file,
                           qkv_tag_scheme scheme, bool sentence_per_line);

#endif
