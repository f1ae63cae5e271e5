/* The task characters (api/task.h, data.task: segment): labels of the characters of a CoNLL-U
 * file's paragraphs that give its tokens, multiword tokens and sentences (data/segment.h: a
 * paragraph is a sequence, a character a position), with the lexicon of the training file's
 * chunks and abbreviations (data.lexicon_min_count, data/seg_lexicon.h). */
#include <string.h>

#include "api/task.h"
#include "api/task_internal.h"
#include "data/segment.h"

/* The characters of the paragraphs of path with their gold labels; with lexicon (the training
 * file) also the lexicon of its chunks and abbreviations when data.lexicon_min_count > 0, freed
 * before. */
static int read_characters(const qkv_session *s, qkv_corpus *c, const char *path, qkv_seg_lexicon *lexicon,
                           qkv_error *err)
{
    memset(c, 0, sizeof *c);
    qkv_seg_text st;
    if (qkv_seg_read(&st, path, err))
        return QKV_ERR;
    int status = qkv_seg_corpus(c, &st, true, err);
    if (status == QKV_OK && lexicon && s->cfg.data.seg_lexicon_min_count > 0) {
        qkv_seg_lexicon_free(lexicon);
        status = qkv_seg_lexicon_build(lexicon, &st, s->cfg.data.seg_lexicon_min_count, err);
    }
    qkv_seg_free(&st);
    return status;
}

static int characters_data(qkv_session *s, bool load_train, qkv_error *err)
{
    if (s->cfg.data.source == QKV_SOURCE_SYNTHETIC)
        return qkv_fail(err, "data.task = segment needs CoNLL-U files with # text (data.source files), not the "
                             "synthetic corpus");
    return qkv_task_text_data(s, load_train, read_characters, err);
}

static int characters_scored(qkv_session *s, const char *path, qkv_error *err)
{
    return qkv_task_text_scored(s, path, read_characters, err);
}

const qkv_task_desc qkv_task_characters = {
    .name = "characters",
    .word_unit = "characters",
    .sentence_unit = "paragraphs",
    .sentence_one = "paragraph",
    .rate_unit = "char",
    .data = characters_data,
    .read_scored = characters_scored,
    .segments = true,
};
