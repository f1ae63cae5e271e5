/* What the task descriptors of api/ share (api/task.h); not installed, not for train/. */
#ifndef QKV_TASK_INTERNAL_H
#define QKV_TASK_INTERNAL_H

#include "api/session.h"

/* Reads the corpus at path into c as the task wants it; lexicon (the training file of a
 * segmenter, else NULL) also gets the lexicon of its chunks. */
typedef int (*qkv_task_read_fn)(const qkv_session *s, qkv_corpus *c, const char *path, qkv_seg_lexicon *lexicon,
                                qkv_error *err);

/* (api/task_words.c) The training and dev corpora of a task of text (words, characters), read
 * with read (or generated, data.source synthetic), the featurizer built from the training
 * corpus unless set, both encoded and checked (api/session.h: qkv_session_data). */
int qkv_task_text_data(qkv_session *s, bool load_train, qkv_task_read_fn read, qkv_error *err);
/* (api/task_words.c) The scored file of a task of text, read with read, as the dev set. */
int qkv_task_text_scored(qkv_session *s, const char *path, qkv_task_read_fn read, qkv_error *err);

#endif
