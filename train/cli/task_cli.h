/* What the commands that run a saved model do for each task (api/task.h): what qkv tag writes,
 * what qkv attention draws, and which of their options apply, one row per task of
 * QKV_TASK_CLIS; its functions live in the task's own files (cmd_tag.c for words, tag_images.c,
 * tag_frames.c, attention_image.c). The reports' half is train/task_report.h. */
#ifndef QKV_CLI_TASK_CLI_H
#define QKV_CLI_TASK_CLI_H

#include <stdbool.h>

#include "api/task.h"
#include "data/spans.h"
#include "train/cli/attention.h"

/* What qkv tag was asked: the model (ckpt, a path) and the input (file, "-": standard input),
 * --tokenizer (NULL: none), --format text, --per-frame, --sentence-per-line (text is then true),
 * and the scheme span tags are written in (NONE: the file's own). */
typedef struct qkv_tag_request {
    const char *ckpt, *file, *tokenizer;
    bool text, per_frame, per_line;
    qkv_tag_scheme scheme;
    int max_words; /* the most words of a sentence given as CoNLL-U or text (--max-words; default
                      QKV_MAX_WORDS of include/qkv/qkv.h, the library's bound) */
    long max_seconds; /* the longest recording a frame model tags, in seconds (--max-seconds;
                         default QKV_AUDIO_MAX_SECONDS of data/audio.h) */
} qkv_tag_request;

/* The options of qkv tag beyond the model and the input that a task takes. */
enum { QKV_TAG_TAKES_TEXT = 1, /* --format text and --tokenizer */
       QKV_TAG_TAKES_PER_FRAME = 2 };

typedef struct qkv_task_cli {
    const char *reads;      /* what the model reads, for messages: "words", "images", ... */
    const char *reads_file; /* the same with the file it reads: "images (IDX files)" */
    unsigned tag_takes;     /* QKV_TAG_TAKES_* */
    /* Tags r->file with the model of s on standard output. Prints errors; returns the exit
       status (0 or 1). NULL: qkv tag refuses the model (a segmenter, refused before). */
    int (*tag)(qkv_session *s, const qkv_tag_request *r);
    const attention_source *attention; /* what qkv attention draws */
} qkv_task_cli;

/* Indexed by qkv_task_kind. */
extern const qkv_task_cli *const QKV_TASK_CLIS[QKV_TASK_KIND_COUNT];

/* The row of s's task. */
const qkv_task_cli *qkv_task_cli_of(const qkv_session *s);

/* (cmd_tag.c) qkv tag of words: CoNLL-U or text in (raw text through a segmenter), CoNLL-U out. */
int qkv_tag_words(qkv_session *s, const qkv_tag_request *r);

#endif
