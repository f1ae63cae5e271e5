/* libFuzzer target for the recordings reader (data/audio.h: libsndfile, then qkv's mix-down and
 * log-mel frames; built with libsndfile only; build and run: tests/data/fuzz.sh audio). The
 * input is an audio file (WAV, FLAC, ... as libsndfile tells them). Properties: an error names
 * the file and leaves nothing allocated; a recording read has samples, each finite; at the
 * model's rate it becomes one utterance of finite frames, as many as the filterbank makes of its
 * samples, and at another rate it is an error naming both rates. Nothing is printed, except for
 * the inputs libsndfile hands to its MPEG decoder, libmpg123, which writes its own warnings on a
 * damaged stream to standard error (libsndfile gives no way to silence them). */
#include "fuzz_common.h"

#include <math.h>

#include "data/audio.h"
#include "data/mel.h"

#define N_MELS 40

static void check_frames(const qkv_audio *a)
{
    qkv_frame_corpus fc;
    qkv_error err;
    int other = a->sample_rate == QKV_SPEECH_SAMPLE_RATE ? 16000 : QKV_SPEECH_SAMPLE_RATE;
    fuzz_check(qkv_audio_frame_corpus(&fc, a, "fuzz", other, N_MELS, &err) == QKV_ERR && !strncmp(err.msg, "fuzz: ", 6),
               "audio at another rate is an error naming the recording");
    if (a->sample_rate != QKV_SPEECH_SAMPLE_RATE)
        return;
    fuzz_check(qkv_audio_frame_corpus(&fc, a, "fuzz", a->sample_rate, N_MELS, &err) == QKV_OK, "frames");
    qkv_mel mel;
    fuzz_check(qkv_mel_init(&mel, a->sample_rate, N_MELS, &err) == QKV_OK, "filterbank");
    fuzz_check(fc.n_utt == 1 && fc.n_frames == qkv_mel_n_frames(&mel, a->n_samples), "one utterance of its frames");
    qkv_mel_free(&mel);
    for (int64_t i = 0; i < fc.n_frames * N_MELS; i++)
        fuzz_check(isfinite(fc.features[i]), "finite frames");
    qkv_frame_corpus_free(&fc);
}

/* Whether libsndfile reads the input as MPEG audio, which it does for a file that begins with
 * an ID3v2 tag or an MPEG frame sync (11 set bits). */
static bool reaches_mpg123(const uint8_t *data, size_t size)
{
    return size >= 3 && (!memcmp(data, "ID3", 3) || (data[0] == 0xFF && (data[1] & 0xE0) == 0xE0));
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const char *path = fuzz_file(data, size, ".wav");
    qkv_audio a;
    qkv_error err;
    fuzz_output mark = fuzz_output_mark();
    int status = qkv_audio_read(&a, path, QKV_AUDIO_MAX_SECONDS, "", &err);
    if (!reaches_mpg123(data, size))
        fuzz_output_check(mark);
    if (status) {
        fuzz_check(!strncmp(err.msg, path, strlen(path)) && !a.samples, "an error names the file, keeps nothing");
        return 0;
    }
    fuzz_check(a.n_samples > 0 && a.channels >= 1 && a.samples, "a recording has samples");
    for (long i = 0; i < a.n_samples; i++)
        fuzz_check(isfinite(a.samples[i]), "finite samples");
    check_frames(&a);
    qkv_audio_free(&a);
    return 0;
}
