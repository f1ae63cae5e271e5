/* The speech frame corpus (data/frames.h) as an HDF5 file, in the sealed container of
 * lib/io/store.h (atomic save, checked on open, readable with h5py). Items, all under /speech:
 *   features       float32 [n_frames, n_mels]  log-mel frames (data/mel.h)
 *   utt_offsets    int64 [n_utt + 1]           utterance u is frames [u] .. [u+1]-1
 *   phone, upos    int64 [n_frames]            label ids, 0 = silence ("sil")
 *   word           int64 [n_frames]            the word's index in its sentence, -1 silent
 *   phone_names, upos_names   strings           the label name lists
 *   phone_seq_offsets int64 [n_utt + 1], phone_seq int64  each utterance's spoken phonemes
 *   text, voice    strings [n_utt]             the sentence and the eSpeak voice
 *   rate, pitch, sentence  int64 [n_utt]        words per minute, pitch, index in the CoNLL-U
 *   sample_rate, win, hop, n_mels  int64        frame geometry in samples
 *   kind           text "qkv-speech-frames"     what the file holds */
#ifndef QKV_API_SPEECH_STORE_H
#define QKV_API_SPEECH_STORE_H

#include "data/frames.h"
#include "lib/error.h"

#define QKV_SPEECH_KIND "qkv-speech-frames"

/* Writes fc to path (replacing it only when the whole file is written). Errors: the store's. */
int qkv_frame_corpus_save(const qkv_frame_corpus *fc, const char *path, qkv_error *err);
/* Reads a file qkv_frame_corpus_save wrote. Errors: the store's (not an HDF5 file, truncated,
 * corrupted), "FILE: not a speech frame corpus (qkv speech makes one)", an item missing or of
 * the wrong size, a label id or offset out of range, a feature that is not finite ("FILE:
 * /speech/features: band 3 of frame 17 (utterance 2) is nan: ..."). On error fc is empty (safe
 * to free). */
int qkv_frame_corpus_load(qkv_frame_corpus *fc, const char *path, qkv_error *err);

#endif
