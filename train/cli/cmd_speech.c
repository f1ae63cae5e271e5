/* qkv speech CONLLU --out FILE [--voices V,..] [--rates R,..] [--pitches P,..] [--snr DB]
 * [--n-mels N] [--seed S] [--max-sentences N] [--sentences-per-utterance K]: a speech frame corpus (data/frames.h) as HDF5. */
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "api/speech_store.h"
#include "data/corpus.h"
#include "train/fail.h"
#include "train/cli/cli.h"
#include "train/cli/output_file.h"
#include "train/cli/commands.h"
#ifdef QKV_HAVE_SPEECH
#include "data/speech_corpus.h"
#endif

static const char ABOUT[] =
    "Speaks every sentence of a CoNLL-U file with eSpeak NG in each voice of --voices (its words\n"
    "joined by spaces), at a rate and a pitch drawn per utterance from --rates and --pitches,\n"
    "optionally with white noise at --snr dB, and writes the log-mel frames (25 ms window, 10 ms\n"
    "hop) with per-frame phoneme and UPOS labels as an HDF5 frame corpus (a config with\n"
    "data.task: frames trains on it; docs/guide/speech.md). The same input and --seed give the\n"
    "same file.\n";

/* Splits a comma-separated list into at most max items (strings point into buf). */
static int split(char *buf, char **items, int max)
{
    int n = 0;
    for (char *tok = strtok(buf, ","); tok; tok = strtok(NULL, ","))
        if (*tok) {
            if (n == max)
                return -1;
            items[n++] = tok;
        }
    return n;
}

#ifdef QKV_HAVE_SPEECH
typedef struct progress {
    bool tty;
    time_t last;
} progress;

static void on_progress(void *ctx, int done, int total, int64_t frames)
{
    progress *p = ctx;
    time_t now = time(NULL);
    if (done < total && now - p->last < 5 && !(p->tty && done % 10 == 0))
        return;
    p->last = now;
    fprintf(stderr, "%sspeech: %d of %d utterances, %lld frames%s", p->tty ? "\r" : "", done, total,
            (long long)frames, p->tty && done < total ? "" : "\n");
}

static int int_list(const qkv_cli_spec *spec, const char *name, char *buf, int *out, int *n)
{
    char *items[QKV_SPEECH_MAX_LIST];
    *n = split(buf, items, QKV_SPEECH_MAX_LIST);
    if (*n <= 0)
        return qkv_cli_usage_error(spec, "%s: 1 to %d comma-separated whole numbers", name, QKV_SPEECH_MAX_LIST);
    for (int i = 0; i < *n; i++) {
        long v;
        if (!qkv_cli_whole(items[i], strlen(items[i]), INT_MIN, INT_MAX, &v))
            return qkv_cli_usage_error(spec, "%s: \"%s\" is not a whole number", name, items[i]);
        out[i] = (int)v;
    }
    return -1;
}

static int make(const char *in, const char *out, qkv_speech_opts *o)
{
    qkv_error err;
    qkv_corpus c;
    qkv_frame_corpus fc;
    if (qkv_corpus_read(&c, in, &QKV_READ_DEFAULTS, &err))
        return qkv_fail_report(&err);
    progress p = {isatty(2) != 0, time(NULL)};
    o->progress = on_progress;
    o->ctx = &p;
    qkv_speech_skipped skipped;
    int st = qkv_speech_make(&fc, &c, o, &skipped, &err);
    if (st == QKV_OK && skipped.n)
        fprintf(stderr, "qkv: warning: %s:%d: %d sentence%s eSpeak NG cannot speak (no phoneme), the first here "
                        "(\"%s\"): left out\n", in, skipped.first_line, skipped.n, skipped.n > 1 ? "s" : "", skipped.first);
    qkv_corpus_free(&c);
    if (st == QKV_OK) {
        st = qkv_frame_corpus_save(&fc, out, &err);
        if (st == QKV_OK)
            fprintf(stderr, "speech: %d utterances, %lld frames of %d mel bands in %s\n", fc.n_utt,
                    (long long)fc.n_frames, fc.n_mels, out);
    }
    qkv_frame_corpus_free(&fc);
    return st ? qkv_fail_report(&err) : 0;
}
#endif

int qkv_cmd_speech(int argc, char **argv)
{
    const char *in = NULL, *out = NULL, *voices = "en-us,en-gb,en-gb-x-rp,en-029", *rates = "150,175,200",
               *pitches = "40,50,60", *snr = NULL;
    long n_mels = 40, seed = 1, max_sentences = 0, per_utt = 1;
    bool force = false;
    const qkv_cli_opt rows[] = {
        {"CONLLU", QKV_CLI_STRING, &in, NULL, NULL, .required = true},
        {"--out", QKV_CLI_STRING, &out, "FILE", "the HDF5 frame corpus to write (required)", .required = true},
        {"--voices", QKV_CLI_STRING, &voices, "V,..", "eSpeak NG voices (default en-us,en-gb,en-gb-x-rp,en-029)"},
        {"--rates", QKV_CLI_STRING, &rates, "R,..", "speaking rates in words per minute (default 150,175,200)"},
        {"--pitches", QKV_CLI_STRING, &pitches, "P,..", "base pitches 0..100 (default 40,50,60)"},
        {"--snr", QKV_CLI_STRING, &snr, "DB", "add white noise at this signal-to-noise ratio (default none)"},
        {"--n-mels", QKV_CLI_INT, &n_mels, "N", "mel bands (default 40)", .lo = 40, .hi = 80},
        {"--seed", QKV_CLI_INT, &seed, "S", "seed of the rates, pitches and noise (default 1)", .lo = 0, .hi = LONG_MAX},
        {"--max-sentences", QKV_CLI_INT, &max_sentences, "N", "speak only the first N sentences (default 0: all)", .lo = 0,
         .hi = INT_MAX},
        {"--sentences-per-utterance", QKV_CLI_INT, &per_utt, "K",
         "speak K consecutive sentences as one utterance, a paragraph (default 1)", .lo = 1, .hi = INT_MAX},
        {"--force", QKV_CLI_FLAG, &force, NULL, "replace FILE if it exists (never CONLLU)"},
    };
    const qkv_cli_spec spec = {"speech", ABOUT, NULL, rows, QKV_CLI_N(rows)};
    int usage = qkv_cli_parse(&spec, argc, argv);
    if (usage >= 0)
        return usage;
    if (!qkv_output_ok("speech", "--out", out, (const char *[]){in}, 1, force, false))
        return 1;
#ifdef QKV_HAVE_SPEECH
    qkv_speech_opts o = {.snr_db = NAN, .n_mels = (int)n_mels, .seed = (uint64_t)seed, .max_sentences = (int)max_sentences,
                         .sentences_per_utterance = (int)per_utt};
    char vbuf[4096], rbuf[1024], pbuf[1024];
    snprintf(vbuf, sizeof vbuf, "%s", voices);
    snprintf(rbuf, sizeof rbuf, "%s", rates);
    snprintf(pbuf, sizeof pbuf, "%s", pitches);
    o.n_voices = split(vbuf, (char **)o.voices, QKV_SPEECH_MAX_LIST);
    if (o.n_voices <= 0)
        return qkv_cli_usage_error(&spec, "--voices: 1 to %d comma-separated voice names", QKV_SPEECH_MAX_LIST);
    if ((usage = int_list(&spec, "--rates", rbuf, o.rates, &o.n_rates)) >= 0 ||
        (usage = int_list(&spec, "--pitches", pbuf, o.pitches, &o.n_pitches)) >= 0)
        return usage;
    if (snr) {
        char *end;
        o.snr_db = strtod(snr, &end);
        if (*end || !isfinite(o.snr_db) || o.snr_db < -50 || o.snr_db > 200)
            return qkv_cli_usage_error(&spec, "--snr: \"%s\" is not a number of dB in -50 .. 200", snr);
    }
    return make(in, out, &o);
#else
    (void)in, (void)out, (void)per_utt, (void)voices, (void)rates, (void)pitches, (void)snr, (void)split;
    return qkv_fail_reportf("this qkv was built without speech synthesis: install libespeak-ng-dev and "
                            "libfftw3-dev (apt-get install libespeak-ng-dev libfftw3-dev) and build again");
#endif
}
