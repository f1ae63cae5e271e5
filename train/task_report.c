/* The rows of the task report table (train/task_report.h). */
#include "train/task_report.h"

#include "train/frame_report.h"
#include "train/report.h"

static const qkv_task_report WORDS = {.epoch_attention = true}, CHARACTERS = {0};
static const qkv_task_report FRAMES = {.scores_after = qkv_frame_report};
static const qkv_task_report IMAGES = {
    .text = qkv_report_images_text,
    .json_members = qkv_report_images_json,
    .train_summary = qkv_report_images_summary,
    .confusion_plot = true,
};

const qkv_task_report *const QKV_TASK_REPORTS[QKV_TASK_KIND_COUNT] = {
    [QKV_TASK_KIND_WORDS] = &WORDS,
    [QKV_TASK_KIND_CHARACTERS] = &CHARACTERS,
    [QKV_TASK_KIND_FRAMES] = &FRAMES,
    [QKV_TASK_KIND_IMAGES] = &IMAGES,
};

const qkv_task_report *qkv_task_report_of(const qkv_session *s) { return QKV_TASK_REPORTS[qkv_task_of(&s->cfg)]; }
