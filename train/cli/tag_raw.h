/* qkv tag --format text --tokenizer SEG.h5: raw text through a segmenter, then the tagger. */
#ifndef QKV_CLI_TAG_RAW_H
#define QKV_CLI_TAG_RAW_H

#include "api/session.h"

/* Loads the segmenter at tokenizer_path and writes file ("-": standard input) as tagged
 * CoNLL-U on standard output, paragraph by paragraph (train/tokenize.h). Prints errors;
 * returns the exit status (0 or 1). */
int qkv_tag_with_tokenizer(qkv_session *tagger, const char *tokenizer_path, const char *file);

#endif
