/* Recordings through libsndfile (data/audio.h): a sentence synthesized by eSpeak NG, written as
 * 16-bit WAV and FLAC by libsndfile, reads back as the same samples and gives the same log-mel
 * frames as the synthesized path (qkv_mel_frames of eSpeak's samples, as qkv speech computes
 * them); two channels are mixed down to their mean; a rate other than the model's is refused;
 * a file that is not audio, an empty file, a WAV truncated in its samples or in its header and a
 * WAV of no sample are errors naming the file; a recording longer than the bound on its
 * seconds is refused from its header (one at the bound reads). Skips (77) without libsndfile. */
#include "testutil.h"

#ifdef QKV_HAVE_SNDFILE
#include <sndfile.h>
#include <unistd.h>

#include "data/audio.h"
#include "data/mel.h"
#include "data/speech_synth.h"

#define N_MELS 40

static char dir[] = "/tmp/qkv_test_audio_XXXXXX";
static qkv_utterance spoken; /* "Hello there." in en-us, 22,050 Hz */

static const char *path_of(const char *name)
{
    static char buf[4][256];
    static int i;
    i = (i + 1) % 4;
    snprintf(buf[i], sizeof buf[i], "%s/%s", dir, name);
    return buf[i];
}

/* frames [n, channels] of 16-bit samples as a file of format at rate. */
static void write_audio(const char *path, int format, int rate, int channels, const short *frames, long n)
{
    SF_INFO info = {.samplerate = rate, .channels = channels, .format = format};
    SNDFILE *f = sf_open(path, SFM_WRITE, &info);
    assert_non_null(f);
    assert_int_equal(sf_writef_short(f, frames, n), n);
    sf_close(f);
}

static short *spoken_shorts(void)
{
    short *x = malloc((size_t)spoken.n_samples * sizeof *x);
    for (long i = 0; i < spoken.n_samples; i++)
        x[i] = (short)lrintf(spoken.samples[i] * 32768.0f);
    return x;
}

static void write_text(const char *path, const char *text)
{
    FILE *f = fopen(path, "wb");
    assert_non_null(f);
    fputs(text, f);
    fclose(f);
}

static int setup(void **state)
{
    (void)state;
    qkv_error err;
    qkv_voice_opts vo = {"en-us", 175, 50};
    if (!mkdtemp(dir) || qkv_speech_say("Hello there.", &vo, &spoken, &err))
        return -1;
    return spoken.sample_rate == QKV_SPEECH_SAMPLE_RATE ? 0 : -1;
}

static int teardown(void **state)
{
    (void)state;
    char cmd[300];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    qkv_utterance_free(&spoken);
    return system(cmd);
}

/* The frames of the file at path against qkv_mel_frames of want [n] (the synthesized path). */
static void assert_same_frames(const char *path, const float *want, long n)
{
    qkv_error err;
    qkv_audio a;
    assert_int_equal(qkv_audio_read(&a, path, QKV_AUDIO_MAX_SECONDS, "", &err), QKV_OK);
    assert_int_equal(a.sample_rate, QKV_SPEECH_SAMPLE_RATE);
    assert_int_equal(a.n_samples, n);
    for (long i = 0; i < n; i++)
        assert_true(a.samples[i] == want[i]);
    qkv_frame_corpus fc;
    assert_int_equal(qkv_audio_frame_corpus(&fc, &a, path, QKV_SPEECH_SAMPLE_RATE, N_MELS, &err), QKV_OK);
    qkv_mel mel;
    assert_int_equal(qkv_mel_init(&mel, QKV_SPEECH_SAMPLE_RATE, N_MELS, &err), QKV_OK);
    long nf = qkv_mel_n_frames(&mel, n);
    float *frames = malloc((size_t)nf * N_MELS * sizeof *frames);
    qkv_mel_frames(&mel, want, n, frames);
    assert_int_equal(fc.n_utt, 1);
    assert_int_equal(fc.n_frames, nf);
    assert_int_equal(fc.hop, mel.hop);
    assert_int_equal(fc.win, mel.win);
    assert_true(nf > 50);
    for (long i = 0; i < nf * N_MELS; i++)
        assert_true(fc.features[i] == frames[i]);
    free(frames);
    qkv_mel_free(&mel);
    qkv_frame_corpus_free(&fc);
    qkv_audio_free(&a);
}

static void wav_and_flac_give_the_synthesized_frames(void **state)
{
    (void)state;
    short *x = spoken_shorts();
    write_audio(path_of("s.wav"), SF_FORMAT_WAV | SF_FORMAT_PCM_16, QKV_SPEECH_SAMPLE_RATE, 1, x, spoken.n_samples);
    write_audio(path_of("s.flac"), SF_FORMAT_FLAC | SF_FORMAT_PCM_16, QKV_SPEECH_SAMPLE_RATE, 1, x,
                spoken.n_samples);
    free(x);
    assert_same_frames(path_of("s.wav"), spoken.samples, spoken.n_samples);
    assert_same_frames(path_of("s.flac"), spoken.samples, spoken.n_samples);
}

/* Left the speech, right the speech halved and negated: the mix is its mean, sample by sample. */
static void channels_are_mixed_down(void **state)
{
    (void)state;
    long n = spoken.n_samples;
    short *x = spoken_shorts(), *lr = malloc((size_t)n * 2 * sizeof *lr);
    float *mean = malloc((size_t)n * sizeof *mean);
    for (long i = 0; i < n; i++) {
        lr[2 * i] = x[i];
        lr[2 * i + 1] = (short)(-x[i] / 2);
        mean[i] = (float)(((double)lr[2 * i] / 32768.0 + (double)lr[2 * i + 1] / 32768.0) / 2);
    }
    write_audio(path_of("lr.wav"), SF_FORMAT_WAV | SF_FORMAT_PCM_16, QKV_SPEECH_SAMPLE_RATE, 2, lr, n);
    assert_same_frames(path_of("lr.wav"), mean, n);
    free(x);
    free(lr);
    free(mean);
}

static void another_rate_is_refused(void **state)
{
    (void)state;
    short *x = spoken_shorts();
    write_audio(path_of("r.wav"), SF_FORMAT_WAV | SF_FORMAT_PCM_16, 44100, 1, x, spoken.n_samples);
    free(x);
    qkv_error err;
    qkv_audio a;
    qkv_frame_corpus fc;
    assert_int_equal(qkv_audio_read(&a, path_of("r.wav"), QKV_AUDIO_MAX_SECONDS, "", &err), QKV_OK);
    assert_int_equal(qkv_audio_frame_corpus(&fc, &a, path_of("r.wav"), QKV_SPEECH_SAMPLE_RATE, N_MELS, &err), QKV_ERR);
    assert_non_null(strstr(err.msg, "44100 Hz audio; the model reads 22050 Hz"));
    assert_non_null(strstr(err.msg, path_of("r.wav")));
    qkv_audio_free(&a);
}

static void expect_read_error(const char *path, const char *what)
{
    qkv_error err;
    qkv_audio a;
    assert_int_equal(qkv_audio_read(&a, path, QKV_AUDIO_MAX_SECONDS, "", &err), QKV_ERR);
    if (strncmp(err.msg, path, strlen(path)) || !strstr(err.msg, what))
        fail_msg("%s: got \"%s\", want \"%s\"", path, err.msg, what);
    assert_null(a.samples);
    assert_int_equal(a.n_samples, 0);
}

static void bad_files_are_errors(void **state)
{
    (void)state;
    short x[2000];
    for (int i = 0; i < 2000; i++)
        x[i] = (short)(i * 7);
    write_audio(path_of("full.wav"), SF_FORMAT_WAV | SF_FORMAT_PCM_16, QKV_SPEECH_SAMPLE_RATE, 1, x, 2000);
    FILE *f = fopen(path_of("full.wav"), "rb");
    char bytes[5000];
    size_t got = fread(bytes, 1, sizeof bytes, f);
    fclose(f);
    assert_true(got > 4000);
    f = fopen(path_of("cut.wav"), "wb");
    fwrite(bytes, 1, 1000, f); /* the header and 478 of 2000 samples */
    fclose(f);
    f = fopen(path_of("head.wav"), "wb");
    fwrite(bytes, 1, 30, f); /* cut inside the header */
    fclose(f);
    write_audio(path_of("none.wav"), SF_FORMAT_WAV | SF_FORMAT_PCM_16, QKV_SPEECH_SAMPLE_RATE, 1, x, 0);
    write_text(path_of("text.wav"), "1\tHello\thello\tINTJ\n");
    write_text(path_of("empty.wav"), "");
    expect_read_error(path_of("cut.wav"), ": truncated: its header promises 4000 bytes of samples, the file holds");
    expect_read_error(path_of("none.wav"), ": an empty recording (no sample)");
    expect_read_error(path_of("head.wav"), ": a truncated or damaged WAV file: ");
    expect_read_error(path_of("text.wav"), ": not an audio file libsndfile reads");
    expect_read_error(path_of("empty.wav"), ": an empty file");
    expect_read_error(path_of("missing.wav"), ": cannot open");
}

/* A float file's samples hold what the file says: one that is not finite, or beyond +-1e6
 * (where the filterbank's FFT overflows), is an error naming it; a mixed sample counts, so a
 * channel's infinity is one too, and large samples of opposite channels that cancel are fine. */
static void float_samples_out_of_range_are_errors(void **state)
{
    (void)state;
    float x[2 * 400];
    const struct {
        const char *name;
        int channels, at;
        float left, right;
        const char *what;
    } cases[] = {
        {"nan.wav", 1, 100, NAN, 0, ": sample 100 (at 0.005 s) is nan: samples must be finite"},
        {"inf.wav", 2, 399, 0.5f, INFINITY, ": sample 399 (at 0.018 s) is inf"},
        {"big.wav", 1, 0, -2e6f, 0, ": sample 0 (at 0.000 s) is -2e+06"},
        {"cancel.wav", 2, 7, 3e30f, -3e30f, NULL},
        {"loud.wav", 1, 5, 32767.0f, 0, NULL},
    };
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
        int c = cases[k].channels;
        for (int i = 0; i < 400 * c; i++)
            x[i] = 0.25f * (float)sin(i * 0.1);
        x[cases[k].at * c] = cases[k].left;
        if (c == 2)
            x[cases[k].at * c + 1] = cases[k].right;
        SF_INFO info = {.samplerate = QKV_SPEECH_SAMPLE_RATE, .channels = c, .format = SF_FORMAT_WAV | SF_FORMAT_FLOAT};
        SNDFILE *f = sf_open(path_of(cases[k].name), SFM_WRITE, &info);
        assert_non_null(f);
        assert_int_equal(sf_writef_float(f, x, 400), 400);
        sf_close(f);
        if (cases[k].what) {
            expect_read_error(path_of(cases[k].name), cases[k].what);
            continue;
        }
        qkv_audio a;
        qkv_error err;
        if (qkv_audio_read(&a, path_of(cases[k].name), QKV_AUDIO_MAX_SECONDS, "", &err))
            fail_msg("%s", err.msg);
        assert_int_equal(a.n_samples, 400);
        qkv_audio_free(&a);
    }
}

/* n silent samples at the model's rate as a 16-bit WAV at path. */
static void write_silence(const char *path, long n)
{
    enum { BLOCK = 1 << 16 };
    static short zeros[BLOCK];
    SF_INFO info = {.samplerate = QKV_SPEECH_SAMPLE_RATE, .channels = 1, .format = SF_FORMAT_WAV | SF_FORMAT_PCM_16};
    SNDFILE *f = sf_open(path, SFM_WRITE, &info);
    assert_non_null(f);
    for (long done = 0; done < n; done += BLOCK)
        assert_int_equal(sf_writef_short(f, zeros, n - done < BLOCK ? n - done : BLOCK), n - done < BLOCK ? n - done : BLOCK);
    sf_close(f);
}

static void a_recording_past_the_bound_is_refused(void **state)
{
    (void)state;
    const long rate = QKV_SPEECH_SAMPLE_RATE;
    qkv_error err;
    qkv_audio a;
    write_silence(path_of("2s.wav"), 2 * rate);
    assert_int_equal(qkv_audio_read(&a, path_of("2s.wav"), 2, "; raise it", &err), QKV_OK);
    assert_int_equal(a.n_samples, 2 * rate);
    qkv_audio_free(&a);
    write_silence(path_of("past.wav"), 2 * rate + 1);
    assert_int_equal(qkv_audio_read(&a, path_of("past.wav"), 2, "; raise it", &err), QKV_ERR);
    char want[512];
    snprintf(want, sizeof want, "%s: a recording of 2.00005 s (44101 samples at 22050 Hz), longer than the 2 s a "
             "recording may have (it is tagged as one utterance; memory grows with its length; raise it)", path_of("past.wav"));
    assert_string_equal(err.msg, want);
    assert_null(a.samples);
    /* the default bound, past by one sample */
    write_silence(path_of("long.wav"), QKV_AUDIO_MAX_SECONDS * rate + 1);
    assert_int_equal(qkv_audio_read(&a, path_of("long.wav"), QKV_AUDIO_MAX_SECONDS, "", &err), QKV_ERR);
    snprintf(want, sizeof want, "longer than the %d s a recording may have", QKV_AUDIO_MAX_SECONDS);
    if (strncmp(err.msg, path_of("long.wav"), strlen(path_of("long.wav"))) || !strstr(err.msg, want))
        fail_msg("got \"%s\", want \"%s\"", err.msg, want);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(wav_and_flac_give_the_synthesized_frames),
        cmocka_unit_test(channels_are_mixed_down),
        cmocka_unit_test(another_rate_is_refused),
        cmocka_unit_test(bad_files_are_errors),
        cmocka_unit_test(float_samples_out_of_range_are_errors),
        cmocka_unit_test(a_recording_past_the_bound_is_refused),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
#else
int main(void)
{
    puts("skipped: this build reads no audio files (apt-get install libsndfile1-dev)");
    return 77;
}
#endif
