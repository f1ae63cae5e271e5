/* qkv tag with an image model: IDX images in, one line per image out. */
#ifndef QKV_CLI_TAG_IMAGES_H
#define QKV_CLI_TAG_IMAGES_H

#include "api/session.h"
#include "train/cli/task_cli.h"

/* Reads the IDX image file r->file (data/idx.h; "-": standard input) and writes, for each image in
 * order, one line "CLASS<TAB>PROBABILITY" (the class name and its softmax probability, 6
 * decimals) on standard output (api/predict.h: qkv_session_classify). Prints errors; returns the
 * exit status (0 or 1). */
int qkv_tag_images(qkv_session *s, const qkv_tag_request *r);

#endif
