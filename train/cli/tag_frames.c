/* qkv tag with a frame model (train/cli/tag_frames.h): a frame corpus or a recording in. */
#include "train/cli/tag_frames.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "api/predict.h"
#include "api/speech_store.h"
#include "train/fail.h"
#ifdef QKV_HAVE_SNDFILE
#include "data/audio.h"
#endif

/* What the header of a recording's labels gives. */
typedef struct recording {
    double seconds; /* its length: samples / sample rate */
} recording;

/* The utterances of the corpus fc, their predicted labels pred [n_words of ds], on stdout; audio
 * (not NULL: fc is the one utterance of that recording) makes the header "# recording" and ends
 * the last run at the recording's end. */
static void write_labels(const qkv_session *s, const qkv_frame_corpus *fc, const qkv_dataset *ds, const int32_t *pred,
                         bool per_frame, const recording *audio)
{
    int k = s->cfg.data.frame_stack > 0 ? s->cfg.data.frame_stack : 1;
    double token_s = (double)k * fc->hop / fc->sample_rate;
    for (int u = 0; u < fc->n_utt; u++) {
        int first = qkv_dataset_sent_first(ds, u), n = qkv_dataset_sent_len(ds, u);
        if (audio)
            printf("# recording %s: %.3f s at %d Hz\n", fc->text[u], audio->seconds, fc->sample_rate);
        else
            printf("# utterance %d, voice %s: %s\n", u, fc->voice[u], fc->text[u]);
        for (int t = 0; t < n; t++) {
            const char *label = pred[first + t] >= 0 ? qkv_featurizer_tag(&s->fz, pred[first + t]) : "_";
            if (per_frame) {
                printf("%.3f\t%s\n", t * token_s, label);
                continue;
            }
            int end = t;
            while (end + 1 < n && pred[first + end + 1] == pred[first + t])
                end++;
            double end_s = (end + 1) * token_s;
            if (audio && end + 1 == n && audio->seconds > end_s)
                end_s = audio->seconds;
            printf("%.3f\t%.3f\t%s\n", t * token_s, end_s, label);
            t = end;
        }
        putchar('\n');
    }
}

/* Whether path holds a frame corpus: HDF5's signature, or a name ending in .h5 (whose loader
 * then says what is wrong with it). */
static bool frame_corpus_file(const char *path)
{
    static const char hdf5[] = "\211HDF\r\n\032\n";
    char head[8] = {0};
    FILE *f = fopen(path, "rb");
    size_t got = f ? fread(head, 1, sizeof head, f) : 0;
    if (f)
        fclose(f);
    size_t n = strlen(path);
    return (got == sizeof head && !memcmp(head, hdf5, sizeof head)) || (n > 3 && !strcmp(path + n - 3, ".h5"));
}

/* The input of a frame model into fc: a frame corpus, or an audio file (data/audio.h) of at
 * most max_seconds as one utterance of the model's n_mels bands (d_input / data.frame_stack) at
 * the front end's rate; audio->seconds its length (0 for a corpus). */
static int read_input(const qkv_session *s, const char *file, long max_seconds, qkv_frame_corpus *fc, recording *audio,
                      qkv_error *err)
{
    memset(audio, 0, sizeof *audio);
    if (frame_corpus_file(file))
        return qkv_frame_corpus_load(fc, file, err);
#ifdef QKV_HAVE_SNDFILE
    int k = s->cfg.data.frame_stack > 0 ? s->cfg.data.frame_stack : 1;
    if (s->frames_d_input <= 0 || s->frames_d_input % k)
        return qkv_fail(err, "%s: the model's frames of %d values are not data.frame_stack %d mel frames", file,
                        s->frames_d_input, k);
    qkv_audio a;
    if (qkv_audio_read(&a, file, max_seconds, "; give a larger --max-seconds to tag it", err))
        return QKV_ERR;
    audio->seconds = (double)a.n_samples / a.sample_rate;
    int st = qkv_audio_frame_corpus(fc, &a, file, QKV_SPEECH_SAMPLE_RATE, s->frames_d_input / k, err);
    qkv_audio_free(&a);
    return st;
#else
    (void)s;
    (void)max_seconds;
    memset(fc, 0, sizeof *fc);
    return qkv_fail(err, "%s: not a frame corpus (HDF5), and this qkv reads no audio files: it was built without "
                         "libsndfile (apt-get install libsndfile1-dev, then build qkv again)",
                    file);
#endif
}

int qkv_tag_frames(qkv_session *s, const qkv_tag_request *r)
{
    const char *file = r->file;
    if (!strcmp(file, "-"))
        return qkv_fail_reportf("a frame model reads a file (a frame corpus made by qkv speech, or audio: WAV, FLAC), "
                                "not standard input: give FILE");
    qkv_error err;
    qkv_frame_corpus fc;
    qkv_dataset ds;
    recording audio;
    memset(&ds, 0, sizeof ds);
    if (read_input(s, file, r->max_seconds, &fc, &audio, &err))
        return qkv_fail_report(&err);
    const qkv_frame_select sel = {s->cfg.data.frame_labels, "", 0, s->cfg.data.frame_stack};
    int32_t *pred = NULL;
    int status = qkv_dataset_from_frames(&ds, NULL, &s->fz, &fc, file, &sel, &err);
    int got = status == QKV_OK ? qkv_dataset_d_input(&ds) : 0;
    if (status == QKV_OK && s->frames_d_input > 0 && got != s->frames_d_input)
        status = qkv_fail(&err, "%.300s: frames of %d values (mel bands x data.frame_stack %d), the model reads %d",
                          file, got, sel.stack > 0 ? sel.stack : 1, s->frames_d_input);
    if (status == QKV_OK && !(pred = malloc(((size_t)qkv_dataset_n_words(&ds) + 1) * sizeof *pred)))
        status = qkv_fail(&err, "out of memory");
    if (status == QKV_OK)
        status = qkv_predict(&s->model, &ds, s->cfg.data.batch_tokens, pred, NULL, NULL, &err);
    if (status == QKV_OK) {
        write_labels(s, &fc, &ds, pred, r->per_frame, audio.seconds > 0 ? &audio : NULL);
        if (fflush(stdout))
            status = qkv_fail(&err, "writing the labels: %s", strerror(errno));
    }
    free(pred);
    qkv_dataset_free(&ds);
    qkv_frame_corpus_free(&fc);
    return status ? qkv_fail_report(&err) : 0;
}
