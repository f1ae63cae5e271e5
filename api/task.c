/* The task table (api/task.h). */
#include "api/task.h"

#define QKV_TASK_KIND_ENTRY(E, n) [QKV_TASK_KIND_##E] = &qkv_task_##n,
const qkv_task_desc *const QKV_TASK_DESCS[QKV_TASK_KIND_COUNT] = {QKV_TASK_KINDS(QKV_TASK_KIND_ENTRY)};
#undef QKV_TASK_KIND_ENTRY

qkv_task_kind qkv_task_of(const qkv_run_config *cfg)
{
    if (cfg->data.task == QKV_TASK_SEGMENT)
        return QKV_TASK_KIND_CHARACTERS;
    if (cfg->data.task == QKV_TASK_FRAMES)
        return QKV_TASK_KIND_FRAMES;
    qkv_input_kind k = cfg->model.input_kind;
    if ((unsigned)k < QKV_INPUT_KIND_COUNT && QKV_INPUT_DESCS[k]->patch)
        return QKV_TASK_KIND_IMAGES;
    return QKV_TASK_KIND_WORDS;
}
