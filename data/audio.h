/* A recording read from an audio file through libsndfile (WAV, FLAC and the other formats it
 * reads), mixed down to one channel, and its log-mel frames (data/mel.h) as a frame corpus of
 * one utterance (data/frames.h): what `qkv tag` gives a frame model for a user's own speech.
 * Built with libsndfile and FFTW only (QKV_HAVE_SNDFILE, in the speech build). */
#ifndef QKV_DATA_AUDIO_H
#define QKV_DATA_AUDIO_H

#include "data/frames.h"
#include "lib/error.h"

/* The sample rate of every frame corpus qkv speech makes (eSpeak NG's output rate), in Hz: the
 * rate a frame model's mel front end was trained at. */
#define QKV_SPEECH_SAMPLE_RATE 22050

/* One channel of samples. */
typedef struct qkv_audio {
    int sample_rate;  /* Hz, as the file's header gives it */
    int channels;     /* the file's channels before the mix-down */
    long n_samples;   /* > 0 */
    float *samples;   /* [n_samples] in [-1, 1] for integer formats (libsndfile's float scale:
                         a 16-bit sample s is s/32768): the mean of the channels of each frame */
} qkv_audio;

/* The default bound on a recording's length, in seconds (qkv_audio_read's max_seconds; `qkv
 * tag --max-seconds` sets another). A recording is tagged as one utterance, and the memory of
 * tagging it grows linearly with its length: about 1.7 MB a second (peak resident 54 MB at 10 s,
 * 137 MB at 60 s, 245 MB at 120 s with a model of configs/speech/ size, measured in
 * docs/results/2026-12-05-recording-memory.md), so about 1.1 GB at this bound. */
#define QKV_AUDIO_MAX_SECONDS 600

/* Reads the audio file at path into a (zeroed first). A recording longer than max_seconds
 * (>= 1; samples / the header's sample rate) is refused from its header, before its samples
 * are read: "PATH: a recording of 601.000 s (13252050 samples at 22050 Hz), longer than the
 * 600 s a recording may have (it is tagged as one utterance; memory grows with its
 * lengthHINT)", hint ("" or "; ...") saying how to raise the bound. Other errors ("PATH: what is wrong"): it cannot be opened, it is empty (0
 * bytes), a WAV or FLAC libsndfile cannot open ("a truncated or damaged WAV file: " and
 * libsndfile's message), any other file libsndfile does not read ("not an audio file libsndfile
 * reads"), a WAV whose header promises more samples than the file holds or a read that stops
 * early ("truncated"), no sample at all ("an empty recording"), a mixed sample that is not
 * finite or beyond +-1e6 ("sample 17 (at 0.001 s) is nan: ..."), out of memory. On error a is
 * empty (safe to free). */
int qkv_audio_read(qkv_audio *a, const char *path, long max_seconds, const char *hint, qkv_error *err);
void qkv_audio_free(qkv_audio *a);

/* fc (initialised here) as a frame corpus of one utterance: the log-mel frames of a's samples
 * with n_mels bands at sample_rate Hz (the model's front end, data/mel.h: 25 ms windows, 10 ms
 * hop), [qkv_mel_n_frames(n_samples), n_mels]; every frame labelled silence (no reference),
 * text name and voice "-". Errors: a's rate is not sample_rate ("PATH: 44100 Hz audio; the model
 * reads 22050 Hz: resample it first"), the filterbank's, out of memory. */
int qkv_audio_frame_corpus(qkv_frame_corpus *fc, const qkv_audio *a, const char *name, int sample_rate, int n_mels,
                           qkv_error *err);

#endif
