/* qkv tag with a frame model (data.task frames, speech): a frame corpus or a recording in, the
 * predicted labels out. */
#ifndef QKV_CLI_TAG_FRAMES_H
#define QKV_CLI_TAG_FRAMES_H

#include <stdbool.h>

#include "api/session.h"
#include "train/cli/task_cli.h"

/* Reads r->file, a frame corpus (HDF5 made by qkv speech, api/speech_store.h; every utterance,
 * of every voice) or, any other file, a recording (data/audio.h: WAV, FLAC, ... at 22050 Hz,
 * channels mixed down, as one utterance of the model's mel bands), and writes for each
 * utterance in order a line "# utterance U, voice V: TEXT" (a recording: "# recording FILE:
 * SECONDS s at RATE Hz"), then the runs of equal predicted labels, one a line
 * "START<TAB>END<TAB>LABEL" (seconds, 3 decimals, from the corpus's hop and sample rate; a token
 * is data.frame_stack frames; a recording's last run ends at its end), or with r->per_frame one
 * line per token "START<TAB>LABEL", and a blank line. Errors (printed; returns 1): standard
 * input, the corpus's, the recording's ("FILE: what is wrong": not audio, empty, truncated, no
 * sample, another rate; a build without libsndfile names the package), frames of another width
 * than the model reads, the model's. */
int qkv_tag_frames(qkv_session *s, const qkv_tag_request *r);

#endif
