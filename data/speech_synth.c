/* eSpeak NG synthesis with word and phoneme positions (data/speech_synth.h). */
#include "data/speech_synth.h"

#include <espeak-ng/speak_lib.h>
#include <stdlib.h>
#include <string.h>

#include "data/line_fields.h"

typedef struct collect {
    qkv_utterance *u;
    bool oom;
} collect;

static int g_rate;         /* eSpeak's output rate once started */
static collect *g_collect; /* the synthesis under way (eSpeak runs one at a time) */

static void add_event(collect *c, const espeak_EVENT *ev)
{
    qkv_utterance *u = c->u;
    if (ev->type == espeakEVENT_WORD) {
        if (!qkv_array_grow((void **)&u->words, &u->cap_words, u->n_words + 1, sizeof *u->words)) {
            c->oom = true;
            return;
        }
        u->words[u->n_words++] = (qkv_word_event){ev->sample, ev->text_position - 1};
    } else if (ev->type == espeakEVENT_PHONEME) {
        if (!qkv_array_grow((void **)&u->phones, &u->cap_phones, u->n_phones + 1, sizeof *u->phones)) {
            c->oom = true;
            return;
        }
        qkv_phone_event *p = &u->phones[u->n_phones++];
        p->sample = ev->sample;
        memcpy(p->name, ev->id.string, QKV_PHONEME_NAME_MAX);
        p->name[QKV_PHONEME_NAME_MAX] = 0;
    }
}

static int on_audio(short *wav, int n, espeak_EVENT *events)
{
    collect *c = g_collect;
    for (const espeak_EVENT *ev = events; ev->type != espeakEVENT_LIST_TERMINATED; ev++)
        add_event(c, ev);
    qkv_utterance *u = c->u;
    if (wav && n > 0) {
        if (u->n_samples + n > 0x7fffffffL ||
            !qkv_array_grow((void **)&u->samples, &u->cap_samples, (size_t)u->n_samples + (size_t)n, sizeof *u->samples)) {
            c->oom = true;
            return 1; /* stop the synthesis */
        }
        for (int i = 0; i < n; i++)
            u->samples[u->n_samples + i] = (float)wav[i] / 32768.0f;
        u->n_samples += n;
    }
    return c->oom;
}

int qkv_speech_open(int *sample_rate, qkv_error *err)
{
    if (!g_rate) {
        int r = espeak_Initialize(AUDIO_OUTPUT_SYNCHRONOUS, 0, NULL,
                                  espeakINITIALIZE_PHONEME_EVENTS | espeakINITIALIZE_DONT_EXIT);
        if (r <= 0)
            return qkv_fail(err, "eSpeak NG could not start (its data files, package espeak-ng-data, are missing?)");
        g_rate = r;
        espeak_SetSynthCallback(on_audio);
    }
    *sample_rate = g_rate;
    return QKV_OK;
}

/* Positions must not decrease and must lie within the audio. */
static int check_events(qkv_utterance *u, const char *text, qkv_error *err)
{
    for (int i = 0; i < u->n_words; i++)
        if (u->words[i].sample > u->n_samples || (i && u->words[i].sample < u->words[i - 1].sample))
            return qkv_fail(err, "eSpeak NG gave word %d of \"%.60s\" an out-of-order position", i + 1, text);
    int spoken = 0;
    for (int i = 0; i < u->n_phones; i++) {
        if (u->phones[i].sample > u->n_samples || (i && u->phones[i].sample < u->phones[i - 1].sample))
            return qkv_fail(err, "eSpeak NG gave phoneme %d of \"%.60s\" an out-of-order position", i + 1, text);
        spoken += !qkv_phoneme_is_pause(u->phones[i].name);
    }
    u->unspeakable = !spoken || u->n_samples == 0;
    if (u->unspeakable)
        return qkv_fail(err, "eSpeak NG cannot speak \"%.60s\": it gives no phoneme", text);
    return QKV_OK;
}

static int set_voice(const qkv_voice_opts *o, qkv_error *err)
{
    espeak_VOICE props = {.languages = o->voice};
    if (!o->voice || !o->voice[0] ||
        (espeak_SetVoiceByName(o->voice) != EE_OK && espeak_SetVoiceByProperties(&props) != EE_OK))
        return qkv_fail(err, "no eSpeak NG voice named \"%s\" (espeak-ng --voices=en lists them)",
                        o->voice ? o->voice : "");
    if (o->rate < espeakRATE_MINIMUM || o->rate > espeakRATE_MAXIMUM)
        return qkv_fail(err, "speaking rate %d is not in %d .. %d words per minute", o->rate, espeakRATE_MINIMUM,
                        espeakRATE_MAXIMUM);
    if (o->pitch < 0 || o->pitch > 100)
        return qkv_fail(err, "pitch %d is not in 0 .. 100", o->pitch);
    if (espeak_SetParameter(espeakRATE, o->rate, 0) != EE_OK || espeak_SetParameter(espeakPITCH, o->pitch, 0) != EE_OK)
        return qkv_fail(err, "eSpeak NG refused rate %d or pitch %d", o->rate, o->pitch);
    return QKV_OK;
}

int qkv_speech_say(const char *text, const qkv_voice_opts *o, qkv_utterance *u, qkv_error *err)
{
    int rate;
    if (qkv_speech_open(&rate, err) || set_voice(o, err))
        return QKV_ERR;
    u->sample_rate = rate;
    u->n_samples = 0;
    u->n_words = u->n_phones = 0;
    u->unspeakable = false;
    collect c = {u, false};
    g_collect = &c;
    espeak_ERROR e = espeak_Synth(text, strlen(text) + 1, 0, POS_CHARACTER, 0, espeakCHARS_UTF8, NULL, NULL);
    g_collect = NULL;
    if (c.oom)
        return qkv_fail(err, "out of memory for the speech of \"%.60s\"", text);
    if (e != EE_OK || espeak_Synchronize() != EE_OK)
        return qkv_fail(err, "eSpeak NG failed on \"%.60s\" (error %d)", text, (int)e);
    return check_events(u, text, err);
}

void qkv_utterance_free(qkv_utterance *u)
{
    free(u->samples);
    free(u->words);
    free(u->phones);
    memset(u, 0, sizeof *u);
}
