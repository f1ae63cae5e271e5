/* Speech synthesis of a sentence with eSpeak NG (libespeak-ng), with the audio position of
 * every word and phoneme: the source of the speech frame corpus (data/frames.h).
 *
 * eSpeak NG is driven in AUDIO_OUTPUT_SYNCHRONOUS mode (espeak_Synth returns when the whole
 * text is spoken) with phoneme events on (espeakINITIALIZE_PHONEME_EVENTS): its synthesis
 * callback receives the 16-bit samples block by block with their events. An espeakEVENT_WORD
 * event gives the character position (1-based, in code points) of a word of the text, an
 * espeakEVENT_PHONEME event the phoneme's mnemonic (eSpeak's Kirshenbaum-like ASCII names:
 * "h", "@", "oU", pauses "_" and "_:"); both give `sample`, the position in samples of the
 * output where the word or phoneme starts. eSpeak keeps global state: one synthesis at a time,
 * from one thread. */
#ifndef QKV_DATA_SPEECH_SYNTH_H
#define QKV_DATA_SPEECH_SYNTH_H

#include <stdbool.h>
#include <stdint.h>

#include "lib/error.h"

#define QKV_PHONEME_NAME_MAX 8 /* eSpeak's id.string */

typedef struct qkv_word_event {
    long sample;   /* start, in samples from the start of the utterance */
    int char_pos;  /* 0-based position in the text, in code points */
} qkv_word_event;

typedef struct qkv_phone_event {
    long sample;
    char name[QKV_PHONEME_NAME_MAX + 1];
} qkv_phone_event;

/* One spoken sentence. */
typedef struct qkv_utterance {
    int sample_rate;          /* Hz (eSpeak NG: 22050) */
    long n_samples;
    float *samples;           /* [n_samples] in [-1, 1) (the 16-bit samples / 32768) */
    int n_words, n_phones;
    qkv_word_event *words;    /* [n_words] in the order eSpeak reports them */
    qkv_phone_event *phones;  /* [n_phones] */
    bool unspeakable;         /* set by a qkv_speech_say that failed on a text without phonemes */
    size_t cap_samples, cap_words, cap_phones;
} qkv_utterance;

/* Speech parameters of one utterance. */
typedef struct qkv_voice_opts {
    const char *voice;  /* eSpeak voice: a voice file's name ("en-us", "en-gb-x-rp", "en-029", ...) or
                           else a language ("en-gb": eSpeak's best voice for it) */
    int rate;           /* words per minute, 80 .. 450 (eSpeak's espeakRATE) */
    int pitch;          /* base pitch, 0 .. 100 (espeakPITCH; 50 is the voice's normal) */
} qkv_voice_opts;

/* Whether a phoneme name is a pause (eSpeak's "_", "_:", "_!", ...: it starts with '_'). */
static inline bool qkv_phoneme_is_pause(const char *name) { return name[0] == '_'; }

/* Starts eSpeak NG (once per process; later calls only return the rate). *sample_rate receives
 * its output rate. Errors: eSpeak NG's data files are missing. */
int qkv_speech_open(int *sample_rate, qkv_error *err);

/* Speaks text (UTF-8) with o into u (its buffers are reused; zero u before the first call).
 * Errors: "no eSpeak NG voice named V" (espeak-ng --voices lists them), a rate or pitch out of
 * range, eSpeak's failure, a text that gives no phoneme but pauses ("eSpeak NG cannot speak
 * ...", and u->unspeakable is set), events out of order (word or phoneme positions decreasing or beyond the audio). */
int qkv_speech_say(const char *text, const qkv_voice_opts *o, qkv_utterance *u, qkv_error *err);
void qkv_utterance_free(qkv_utterance *u);

#endif
