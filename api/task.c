/* The task table (api/task.h). */
#include "api/task.h"

#define QKV_TASK_KIND_ENTRY(E, n) [QKV_TASK_KIND_##E] = &qkv_task_##n,
const qkv_task_desc *const QKV_TASK_DESCS[QKV_TASK_KIND_COUNT] = {QKV_TASK_KINDS(QKV_TASK_KIND_ENTRY)};
#undef QKV_TASK_KIND_ENTRY

qkv_task_kind qkv_task_of(const qkv_run_config *cfg)
{
    static const qkv_task_kind KIND[QKV_TASK_COUNT] = {
        [QKV_TASK_TAG] = QKV_TASK_KIND_WORDS,
        [QKV_TASK_SEGMENT] = QKV_TASK_KIND_CHARACTERS,
        [QKV_TASK_FRAMES] = QKV_TASK_KIND_FRAMES,
        [QKV_TASK_IMAGES] = QKV_TASK_KIND_IMAGES,
    };
    return (unsigned)cfg->data.task < QKV_TASK_COUNT ? KIND[cfg->data.task] : QKV_TASK_KIND_WORDS;
}
