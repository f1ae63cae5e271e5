/* The rows of the commands' task table (train/cli/task_cli.h). */
#include "train/cli/task_cli.h"

#include "train/cli/tag_frames.h"
#include "train/cli/tag_images.h"

static const qkv_task_cli WORDS = {"words", "words", QKV_TAG_TAKES_TEXT, qkv_tag_words, &qkv_attention_words};
static const qkv_task_cli CHARACTERS = {"characters", "characters", 0, NULL, &qkv_attention_words};
static const qkv_task_cli FRAMES = {"speech frames", "speech frames (a frame corpus made by qkv speech, or a "
                                    "recording)",
                                    QKV_TAG_TAKES_PER_FRAME, qkv_tag_frames, &qkv_attention_frames};
static const qkv_task_cli IMAGES = {"images", "images (IDX files)", 0, qkv_tag_images, &qkv_attention_images};

const qkv_task_cli *const QKV_TASK_CLIS[QKV_TASK_KIND_COUNT] = {
    [QKV_TASK_KIND_WORDS] = &WORDS,
    [QKV_TASK_KIND_CHARACTERS] = &CHARACTERS,
    [QKV_TASK_KIND_FRAMES] = &FRAMES,
    [QKV_TASK_KIND_IMAGES] = &IMAGES,
};

const qkv_task_cli *qkv_task_cli_of(const qkv_session *s) { return QKV_TASK_CLIS[qkv_task_of(&s->cfg)]; }
