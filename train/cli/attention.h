/* qkv attention (train/cli/cmd_attention.c): its options, and what it draws for each task
 * (the task's row of train/cli/task_cli.h): a sentence of words (with a parser's
 * arc probabilities beside the heads), an image (attention_image.c), speech frames (refused). */
#ifndef QKV_CLI_ATTENTION_H
#define QKV_CLI_ATTENTION_H

#include <stdbool.h>

#include "api/session.h"

typedef struct attention_args {
    const char *ckpt, *sentence, *image, *query, *out, *out_arg;
    long index;                     /* --index, -1 when not given */
    long query_rc[2];               /* --query ROW,COL as numbers (when not cls) */
    int layer, head, width, height; /* layer, head -1: the last layer, every head */
    bool force;
} attention_args;

/* A kind of input qkv attention draws. check: the options fit the model (a message naming the
 * option on stderr and 1 when not; nothing is written); draw: runs the model and writes a->out
 * (1 after a message on stderr). */
typedef struct attention_source {
    const char *reads;                          /* "words", "images", ... for messages */
    int (*check)(const qkv_session *s, const attention_args *a);
    int (*draw)(qkv_session *s, const attention_args *a);
} attention_source;

/* A sentence of words (cmd_attention.c), an image (attention_image.c), speech frames (refused,
 * cmd_attention.c); train/cli/task_cli.h names each task's. */
extern const attention_source qkv_attention_words, qkv_attention_images, qkv_attention_frames;

#endif
