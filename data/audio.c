/* Audio files through libsndfile, and their log-mel frames (data/audio.h). */
#include "data/audio.h"

#include <errno.h>
#include <math.h>
#include <sndfile.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "data/mel.h"

void qkv_audio_free(qkv_audio *a)
{
    free(a->samples);
    memset(a, 0, sizeof *a);
}

/* A WAV whose data chunk's size in the header exceeds what the file holds: libsndfile reads
 * what is there and notes "data : N (should be M)" in its log. Sizes 0 and 0xFFFFFFFF are a
 * streamed file's unknown length, not a truncation. */
static bool wav_truncated(SNDFILE *f, long long *promised, long long *held)
{
    char log[4096] = "";
    sf_command(f, SFC_GET_LOG_INFO, log, sizeof log);
    for (const char *p = log; (p = strstr(p, "data : ")) != NULL; p++) {
        if ((p != log && p[-1] != '\n') || sscanf(p, "data : %lld (should be %lld)", promised, held) != 2)
            continue;
        return *promised > *held && *promised != 0xFFFFFFFFLL && *promised != 0;
    }
    return false;
}

/* The largest magnitude of a sample read: integer formats give [-1, 1], float files hold what
 * they hold, and beyond this the filterbank's float FFT overflows. */
#define SAMPLE_MAX 1e6

/* The frames of f (channels each) read and averaged into a->samples. */
static int read_mixed(qkv_audio *a, SNDFILE *f, const SF_INFO *info, const char *path, qkv_error *err)
{
    enum { BLOCK = 4096 };
    float *buf = malloc((size_t)BLOCK * (size_t)info->channels * sizeof *buf);
    a->samples = malloc((size_t)info->frames * sizeof *a->samples);
    if (!buf || !a->samples) {
        free(buf);
        return qkv_fail(err, "%s: out of memory for %lld samples", path, (long long)info->frames);
    }
    sf_count_t done = 0;
    while (done < info->frames) {
        sf_count_t want = info->frames - done < BLOCK ? info->frames - done : BLOCK;
        sf_count_t got = sf_readf_float(f, buf, want);
        for (sf_count_t i = 0; i < got; i++) {
            double sum = 0;
            for (int c = 0; c < info->channels; c++)
                sum += buf[i * info->channels + c];
            a->samples[done + i] = (float)(sum / info->channels);
        }
        done += got > 0 ? got : 0;
        if (got < want)
            break;
    }
    free(buf);
    for (sf_count_t i = 0; i < done; i++)
        if (!(fabsf(a->samples[i]) <= SAMPLE_MAX)) /* NaN too */
            return qkv_fail(err, "%s: sample %lld (at %.3f s) is %g: samples must be finite and within +-%g (a "
                                 "float file's full scale is +-1)", path, (long long)i,
                            (double)i / info->samplerate, (double)a->samples[i], SAMPLE_MAX);
    if (done < info->frames)
        return qkv_fail(err, "%s: truncated: %lld of its %lld samples could be read (%s)", path, (long long)done,
                        (long long)info->frames, sf_strerror(f));
    a->n_samples = (long)done;
    return QKV_OK;
}

int qkv_audio_read(qkv_audio *a, const char *path, long max_seconds, const char *hint, qkv_error *err)
{
    memset(a, 0, sizeof *a);
    FILE *probe = fopen(path, "rb");
    if (!probe)
        return qkv_fail(err, "%s: cannot open: %s", path, strerror(errno));
    char magic[4] = {0};
    size_t got = fread(magic, 1, sizeof magic, probe);
    fclose(probe);
    if (got == 0)
        return qkv_fail(err, "%s: an empty file (0 bytes: no audio header)", path);
    SF_INFO info = {0};
    SNDFILE *f = sf_open(path, SFM_READ, &info);
    if (!f && got == sizeof magic && (!memcmp(magic, "RIFF", 4) || !memcmp(magic, "fLaC", 4)))
        return qkv_fail(err, "%s: a truncated or damaged %s file: %s", path, magic[0] == 'R' ? "WAV" : "FLAC",
                        sf_strerror(NULL));
    if (!f)
        return qkv_fail(err, "%s: not an audio file libsndfile reads (WAV, FLAC, ...): %s", path, sf_strerror(NULL));
    long long promised, held;
    int st = QKV_OK;
    if (info.channels < 1)
        st = qkv_fail(err, "%s: no audio channel", path);
    else if ((info.format & SF_FORMAT_TYPEMASK) == SF_FORMAT_WAV && wav_truncated(f, &promised, &held))
        st = qkv_fail(err, "%s: truncated: its header promises %lld bytes of samples, the file holds %lld", path,
                      promised, held);
    else if (info.frames <= 0)
        st = qkv_fail(err, "%s: an empty recording (no sample)", path);
    else if (info.samplerate < 1)
        st = qkv_fail(err, "%s: a sample rate of %d Hz in its header", path, info.samplerate);
    else if (max_seconds < 1 || info.frames / info.samplerate + (info.frames % info.samplerate != 0) > max_seconds)
        st = qkv_fail(err, "%s: a recording of %.6g s (%lld samples at %d Hz), longer than the %ld s a recording may "
                           "have (it is tagged as one utterance; memory grows with its length%s)",
                      path, (double)info.frames / info.samplerate, (long long)info.frames, info.samplerate,
                      max_seconds, hint);
    else if (info.frames > INT32_MAX)
        st = qkv_fail(err, "%s: %lld samples; at most %d are read", path, (long long)info.frames, INT32_MAX);
    else
        st = read_mixed(a, f, &info, path, err);
    a->sample_rate = info.samplerate;
    a->channels = info.channels;
    sf_close(f);
    if (st)
        qkv_audio_free(a);
    return st;
}

int qkv_audio_frame_corpus(qkv_frame_corpus *fc, const qkv_audio *a, const char *name, int sample_rate, int n_mels,
                           qkv_error *err)
{
    memset(fc, 0, sizeof *fc);
    if (a->sample_rate != sample_rate)
        return qkv_fail(err, "%s: %d Hz audio; the model reads %d Hz (its frames are of qkv speech's corpora): "
                             "resample it first (e.g. sox IN.wav -r %d OUT.wav)",
                        name, a->sample_rate, sample_rate, sample_rate);
    qkv_mel mel;
    if (qkv_mel_init(&mel, sample_rate, n_mels, err))
        return qkv_fail_prefix(err, "%s", name);
    long n_frames = qkv_mel_n_frames(&mel, a->n_samples);
    float *frames = malloc((size_t)n_frames * (size_t)n_mels * sizeof *frames);
    int st = frames ? qkv_frame_corpus_init(fc, n_mels, sample_rate, mel.win, mel.hop, err)
                    : qkv_fail(err, "%s: out of memory for %ld frames", name, n_frames);
    if (st == QKV_OK) {
        qkv_mel_frames(&mel, a->samples, a->n_samples, frames);
        qkv_spoken sp = {.text = name, .voice = "-", .n_frames = (int)n_frames, .features = frames,
                         .n_samples = a->n_samples};
        st = qkv_frame_corpus_add(fc, &sp, err);
        if (st)
            qkv_frame_corpus_free(fc);
    }
    free(frames);
    qkv_mel_free(&mel);
    return st;
}
