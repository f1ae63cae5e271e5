/* Making a speech frame corpus (data/frames.h) from the sentences of a tagged corpus: each
 * sentence spoken by eSpeak NG (data/speech_synth.h) in every voice of a list, at a rate and a
 * pitch drawn per utterance from lists, optionally with white Gaussian noise at an SNR, then
 * cut into log-mel frames (data/mel.h). Built with libespeak-ng and FFTW only (QKV_HAVE_SPEECH). */
#ifndef QKV_DATA_SPEECH_CORPUS_H
#define QKV_DATA_SPEECH_CORPUS_H

#include <stdint.h>

#include "data/corpus.h"
#include "data/frames.h"

#define QKV_SPEECH_MAX_LIST 32

typedef struct qkv_speech_opts {
    int n_voices, n_rates, n_pitches;
    const char *voices[QKV_SPEECH_MAX_LIST];
    int rates[QKV_SPEECH_MAX_LIST], pitches[QKV_SPEECH_MAX_LIST];
    double snr_db;      /* noise: signal power / noise power = 10^(snr_db/10); NAN: no noise */
    int n_mels;
    uint64_t seed;      /* draws the rate and the pitch of each utterance, and (a stream of its
                           own per utterance) the noise */
    int max_sentences;  /* 0: every sentence */
    int sentences_per_utterance; /* 0 or 1: one sentence an utterance; K > 1: K consecutive
                                    sentences with words (the last group may be shorter),
                                    their words joined by spaces, are one utterance (a
                                    paragraph); max_sentences counts sentences, not groups */
    /* called after each utterance (may be NULL): done of total utterances */
    void (*progress)(void *ctx, int done, int total, int64_t frames);
    void *ctx;
} qkv_speech_opts;

/* The sentence text spoken for sentence s of c: its words' forms joined by single spaces;
 * word_start [words of s] receives each word's position in it, in code points. malloc'd;
 * NULL when out of memory. */
char *qkv_speech_text(const qkv_corpus *c, int s, int *word_start);

/* What qkv_speech_make left out: sentences eSpeak NG cannot speak (no phoneme, e.g. "..."). */
typedef struct qkv_speech_skipped {
    int n;
    int first_line;  /* the line of the first one's first word */
    char first[64];  /* the start of its text */
} qkv_speech_skipped;

/* Speaks the sentences of c (every one with words, up to max_sentences; grouped by
 * sentences_per_utterance) in utterance order sentence by sentence, voice by voice, into fc (initialised here); a sentence eSpeak NG
 * cannot speak is left out and counted in skipped. In a fresh process the same corpus and
 * options give the same frames (eSpeak's output depends on what it spoke before in the
 * process). Errors: a list empty or too long, an unknown voice, a rate or pitch out of range,
 * no sentence spoken ("FILE: eSpeak NG cannot speak any sentence ..."), eSpeak's failure on a
 * sentence ("FILE:LINE: ..."), out of memory. */
int qkv_speech_make(qkv_frame_corpus *fc, const qkv_corpus *c, const qkv_speech_opts *o, qkv_speech_skipped *skipped,
                    qkv_error *err);

#endif
