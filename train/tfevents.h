/* TensorBoard event files: RUN_DIR/events.out.tfevents.<seconds>.<host>, a sequence of TFRecord
 * records, each
 *   uint64 length (little-endian), uint32 masked CRC-32C of those 8 bytes,
 *   length bytes of data, uint32 masked CRC-32C of the data (train/crc32c.h),
 * whose data is one `Event` protobuf (tensorflow/core/util/event.proto), encoded here by hand:
 *   Event   { double wall_time = 1; int64 step = 2; string file_version = 3; Summary summary = 5;
 *             SessionLog session_log = 6; }
 *   SessionLog { SessionStatus status = 1; }   (START = 1)
 *   Summary { repeated Value value = 1; }
 *   Value   { string tag = 1; float simple_value = 2; Image image = 4; }   (one of the two)
 *   Image   { int32 height = 1; int32 width = 2; int32 colorspace = 3; bytes encoded_image_string = 4; }
 *           (tensorflow/core/framework/summary.proto: Summary.Image; pixels, the PNG's own bytes)
 * The first record is the Event with file_version "brain.Event:2"; then one Event per scalar
 * or image (wall_time in seconds since the epoch, the training step). A resumed run's file has a
 * SessionLog START at the step after its checkpoint's second: TensorBoard then drops the
 * points of earlier files at or after that step, which the resumed run logs again. */
#ifndef QKV_TFEVENTS_H
#define QKV_TFEVENTS_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "lib/error.h"
#include "train/png_info.h"

/* The start of an event file's name (after it: <seconds>.<host>). */
#define QKV_TFEVENTS_PREFIX "events.out.tfevents."
/* The largest PNG an image summary takes (bytes). */
#define QKV_TFEVENTS_MAX_IMAGE (64 << 20)

typedef struct qkv_tfevents {
    FILE *f;
    char path[4200];
    int failed; /* a write failed: nothing more is written (qkv_tfevents_close reports it) */
} qkv_tfevents;

/* Creates dir/events.out.tfevents.<seconds>.<host> and writes the file_version event, and for
 * a run resumed at step resume_step (>= 0; < 0: a new run) the SessionLog START at
 * resume_step + 1. Errors: the file cannot be created or written. */
int qkv_tfevents_open(qkv_tfevents *tb, const char *dir, long resume_step, qkv_error *err);
/* One Event at step with a Summary of one Value {tag, simple_value} (a float). */
void qkv_tfevents_scalar(qkv_tfevents *tb, const char *tag, long step, double value);
/* One Event at step with a Summary of one Value {tag, image}: the PNG file at path as it is
 * now, its height, width and colorspace read from its header (train/png_info.h); TensorBoard
 * shows it under tag with a slider over the steps. Errors (nothing written): the file cannot be
 * read, is larger than QKV_TFEVENTS_MAX_IMAGE or is not a PNG. A failed write is kept for
 * qkv_tfevents_close. */
int qkv_tfevents_image(qkv_tfevents *tb, const char *tag, long step, const char *path, qkv_error *err);
void qkv_tfevents_flush(qkv_tfevents *tb);
/* Closes the file. Errors: a write failed (naming the file). */
int qkv_tfevents_close(qkv_tfevents *tb, qkv_error *err);

/* The encoding (for the tests). One TFRecord of data (n bytes) into out (n + 16 bytes). */
void qkv_tfrecord_frame(const void *data, size_t n, unsigned char *out);
/* The Event {wall_time, step, summary {value {tag, simple_value}}} into out (cap bytes);
 * returns its length, or 0 when it does not fit. */
size_t qkv_tfevents_encode_scalar(double wall_time, long step, const char *tag, float value, unsigned char *out,
                                  size_t cap);
/* The Event {wall_time, step, summary {value {tag, image {height, width, colorspace,
 * encoded_image_string: png[0..n)}}}} into out (cap bytes); its length, or 0 when it does not fit. */
size_t qkv_tfevents_encode_image(double wall_time, long step, const char *tag, const qkv_png_info *info,
                                 const void *png, size_t n, unsigned char *out, size_t cap);

#endif
