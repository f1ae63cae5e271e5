/* Making a speech frame corpus (data/speech_corpus.h). */
#include "data/speech_corpus.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "data/mel.h"
#include "data/speech_synth.h"
#include "lib/rng.h"

static int code_points(const char *s, size_t len)
{
    int n = 0;
    for (size_t i = 0; i < len; i++)
        n += ((unsigned char)s[i] & 0xC0) != 0x80;
    return n;
}

char *qkv_speech_text(const qkv_corpus *c, int s, int *word_start)
{
    int w0 = c->sent_start[s], n = c->sent_start[s + 1] - w0;
    size_t total = 1;
    for (int i = 0; i < n; i++)
        total += c->forms[w0 + i].len + 1;
    char *text = malloc(total), *p = text;
    if (!text)
        return NULL;
    int pos = 0;
    for (int i = 0; i < n; i++) {
        size_t len;
        const char *form = qkv_corpus_form(c, w0 + i, &len);
        if (i) {
            *p++ = ' ';
            pos++;
        }
        word_start[i] = pos;
        memcpy(p, form, len);
        p += len;
        pos += code_points(form, len);
    }
    *p = 0;
    return text;
}

/* White Gaussian noise at snr_db relative to the mean power of the utterance. */
static void add_noise(float *x, long n, double snr_db, qkv_rng *rng)
{
    double power = 0;
    for (long i = 0; i < n; i++)
        power += (double)x[i] * x[i];
    power /= (double)(n ? n : 1);
    double sd = sqrt(power / pow(10.0, snr_db / 10.0));
    for (long i = 0; i < n; i++)
        x[i] += (float)(sd * qkv_rng_normal(rng));
}

#define QKV_SKIP 2 /* speak_one: a sentence eSpeak NG cannot speak */

typedef struct maker {
    qkv_utterance u;
    qkv_mel mel;
    float *frames;
    long cap_frames;
    int *word_start;
    long *word_sample, *phone_sample;
    int *word_char;
    const char **phone_name, **upos;
    char *upos_buf;
    size_t cap_upos_buf;
    const int32_t *first; /* [utterance text s]: its first sentence in the file (NULL: s itself) */
} maker;

static void maker_free(maker *m)
{
    qkv_utterance_free(&m->u);
    qkv_mel_free(&m->mel);
    free(m->frames);
    free(m->word_start);
    free(m->word_sample);
    free(m->phone_sample);
    free(m->word_char);
    free(m->phone_name);
    free(m->upos);
    free(m->upos_buf);
}

/* m->upos [words of s]: sentence s's tags as NUL-terminated strings. */
static int upos_strings(maker *m, const qkv_corpus *c, int s)
{
    int w0 = c->sent_start[s], n = qkv_corpus_sent_len(c, s);
    size_t need = 0, len;
    for (int i = 0; i < n; i++) {
        qkv_corpus_tag(c, w0 + i, &len);
        need += len + 1;
    }
    if (need > m->cap_upos_buf) {
        free(m->upos_buf);
        m->upos_buf = malloc(need);
        m->cap_upos_buf = m->upos_buf ? need : 0;
        if (!m->upos_buf)
            return QKV_ERR;
    }
    char *p = m->upos_buf;
    for (int i = 0; i < n; i++) {
        const char *tag = qkv_corpus_tag(c, w0 + i, &len);
        memcpy(p, tag, len);
        p[len] = 0;
        m->upos[i] = p;
        p += len + 1;
    }
    return QKV_OK;
}

/* The events of m->u as qkv_spoken arrays. */
static int events(maker *m, qkv_spoken *sp)
{
    const qkv_utterance *u = &m->u;
    free(m->word_sample);
    free(m->word_char);
    free(m->phone_sample);
    free(m->phone_name);
    m->word_sample = malloc((size_t)(u->n_words + 1) * sizeof *m->word_sample);
    m->word_char = malloc((size_t)(u->n_words + 1) * sizeof *m->word_char);
    m->phone_sample = malloc((size_t)(u->n_phones + 1) * sizeof *m->phone_sample);
    m->phone_name = malloc((size_t)(u->n_phones + 1) * sizeof *m->phone_name);
    if (!m->word_sample || !m->word_char || !m->phone_sample || !m->phone_name)
        return QKV_ERR;
    for (int i = 0; i < u->n_words; i++) {
        m->word_sample[i] = u->words[i].sample;
        m->word_char[i] = u->words[i].char_pos;
    }
    for (int i = 0; i < u->n_phones; i++) {
        m->phone_sample[i] = u->phones[i].sample;
        m->phone_name[i] = u->phones[i].name;
    }
    sp->n_word_events = u->n_words;
    sp->n_phone_events = u->n_phones;
    sp->word_sample = m->word_sample;
    sp->word_char = m->word_char;
    sp->phone_sample = m->phone_sample;
    sp->phone_name = m->phone_name;
    return QKV_OK;
}

/* Speaks sentence s of c with voice o into fc. */
static int speak_one(qkv_frame_corpus *fc, maker *m, const qkv_corpus *c, int s, const qkv_voice_opts *vo,
                     double snr_db, uint64_t noise_key, qkv_error *err)
{
    int n_words = qkv_corpus_sent_len(c, s);
    char *text = qkv_speech_text(c, s, m->word_start);
    if (!text)
        return qkv_fail(err, "out of memory for sentence %d", s + 1);
    qkv_spoken sp = {.text = text, .voice = vo->voice, .rate = vo->rate, .pitch = vo->pitch,
                     .sentence = m->first ? m->first[s] : s};
    int st = qkv_speech_say(text, vo, &m->u, err);
    if (st && m->u.unspeakable) {
        free(text);
        return QKV_SKIP;
    }
    if (st) {
        qkv_error why = *err;
        st = qkv_fail(err, "%s:%d: %s", qkv_corpus_name(c), qkv_corpus_first_word_line(c, s), why.msg);
    }
    if (st == QKV_OK && !isnan(snr_db)) {
        qkv_rng noise;
        qkv_rng_seed(&noise, noise_key);
        add_noise(m->u.samples, m->u.n_samples, snr_db, &noise);
    }
    long nf = st ? 0 : qkv_mel_n_frames(&m->mel, m->u.n_samples);
    if (st == QKV_OK && nf > m->cap_frames) {
        free(m->frames);
        m->frames = malloc((size_t)nf * m->mel.n_mels * sizeof *m->frames);
        m->cap_frames = m->frames ? nf : 0;
        if (!m->frames)
            st = qkv_fail(err, "out of memory for %ld frames", nf);
    }
    if (st == QKV_OK && (events(m, &sp) || upos_strings(m, c, s)))
        st = qkv_fail(err, "out of memory for the events of sentence %d", s + 1);
    if (st == QKV_OK) {
        qkv_mel_frames(&m->mel, m->u.samples, m->u.n_samples, m->frames);
        sp.n_frames = (int)nf;
        sp.features = m->frames;
        sp.n_samples = m->u.n_samples;
        sp.n_words = n_words;
        sp.word_start = m->word_start;
        sp.word_upos = m->upos;
        st = qkv_frame_corpus_add(fc, &sp, err);
    }
    free(text);
    return st;
}

static int check_opts(const qkv_speech_opts *o, qkv_error *err)
{
    if (o->n_voices < 1 || o->n_rates < 1 || o->n_pitches < 1)
        return qkv_fail(err, "speech: at least one voice, one rate and one pitch are needed");
    if (o->n_voices > QKV_SPEECH_MAX_LIST || o->n_rates > QKV_SPEECH_MAX_LIST || o->n_pitches > QKV_SPEECH_MAX_LIST)
        return qkv_fail(err, "speech: at most %d voices, rates and pitches", QKV_SPEECH_MAX_LIST);
    for (int i = 0; i < o->n_voices; i++)
        for (int j = 0; j < i; j++)
            if (!strcmp(o->voices[i], o->voices[j]))
                return qkv_fail(err, "speech: voice \"%s\" is listed twice", o->voices[i]);
    return QKV_OK;
}

/* Every voice, rate and pitch is accepted before any sentence is spoken. */
static int check_voices(const qkv_speech_opts *o, maker *m, qkv_error *err)
{
    for (int v = 0; v < o->n_voices; v++)
        for (int i = 0; i < o->n_rates || i < o->n_pitches; i++) {
            qkv_voice_opts vo = {o->voices[v], o->rates[i < o->n_rates ? i : 0], o->pitches[i < o->n_pitches ? i : 0]};
            if (qkv_speech_say("a", &vo, &m->u, err))
                return QKV_ERR;
        }
    return QKV_OK;
}

/* Speaks every sentence of c (up to o->max_sentences); first: see maker. */
static int speak_all(qkv_frame_corpus *fc, const qkv_corpus *c, const qkv_speech_opts *o, const int32_t *first,
                     qkv_speech_skipped *skipped, qkv_error *err)
{
    memset(fc, 0, sizeof *fc);
    memset(skipped, 0, sizeof *skipped);
    int rate;
    if (check_opts(o, err) || qkv_speech_open(&rate, err))
        return QKV_ERR;
    maker m = {.first = first};
    int max_len = 1, n_sent = 0;
    for (int s = 0; s < c->n_sent && (!o->max_sentences || n_sent < o->max_sentences); s++)
        if (qkv_corpus_sent_len(c, s) > 0) {
            n_sent++;
            if (qkv_corpus_sent_len(c, s) > max_len)
                max_len = qkv_corpus_sent_len(c, s);
        }
    m.word_start = malloc((size_t)max_len * sizeof *m.word_start);
    m.upos = malloc((size_t)max_len * sizeof *m.upos);
    int st = m.word_start && m.upos ? QKV_OK : qkv_fail(err, "out of memory");
    if (st == QKV_OK)
        st = qkv_mel_init(&m.mel, rate, o->n_mels, err);
    if (st == QKV_OK)
        st = check_voices(o, &m, err);
    if (st == QKV_OK)
        st = qkv_frame_corpus_init(fc, o->n_mels, rate, m.mel.win, m.mel.hop, err);
    qkv_rng rng;
    qkv_rng_seed(&rng, o->seed);
    int done = 0, total = n_sent * o->n_voices;
    for (int s = 0; st == QKV_OK && s < c->n_sent && done < total; s++) {
        if (qkv_corpus_sent_len(c, s) == 0)
            continue;
        for (int v = 0; st == QKV_OK && v < o->n_voices; v++) {
            qkv_voice_opts vo = {o->voices[v], o->rates[qkv_rng_below(&rng, (uint64_t)o->n_rates)],
                                 o->pitches[qkv_rng_below(&rng, (uint64_t)o->n_pitches)]};
            st = speak_one(fc, &m, c, s, &vo, o->snr_db, qkv_rng_key(o->seed, (uint64_t)done), err);
            if (st == QKV_SKIP) { /* the same text in every voice: skip the sentence */
                if (!skipped->n++) {
                    skipped->first_line = qkv_corpus_first_word_line(c, s);
                    size_t len;
                    const char *form = qkv_corpus_form(c, c->sent_start[s], &len);
                    snprintf(skipped->first, sizeof skipped->first, "%.*s", (int)(len < 60 ? len : 60), form);
                }
                done += o->n_voices - v;
                st = QKV_OK;
                break;
            }
            if (st == QKV_OK && o->progress)
                o->progress(o->ctx, ++done, total, fc->n_frames);
        }
    }
    if (st == QKV_OK && fc->n_utt == 0)
        st = qkv_fail(err, "%s: eSpeak NG cannot speak any of its %d sentences", qkv_corpus_name(c), n_sent);
    maker_free(&m);
    if (st)
        qkv_frame_corpus_free(fc);
    return st;
}

/* g: c with every k consecutive sentences with words (the first max_sentences of them, 0: all)
 * as one sentence; g shares c's words, its sentence arrays and first [g->n_sent] (each group's
 * first sentence in c) are malloc'd. */
static int group_sentences(qkv_corpus *g, int32_t **first, const qkv_corpus *c, int k, int max_sentences,
                           qkv_error *err)
{
    int n = 0;
    for (int s = 0; s < c->n_sent && (!max_sentences || n < max_sentences); s++)
        n += qkv_corpus_sent_len(c, s) > 0;
    *g = *c;
    g->n_sent = (n + k - 1) / k;
    g->sent_start = malloc((size_t)(g->n_sent + 1) * sizeof *g->sent_start);
    g->sent_line = malloc((size_t)(g->n_sent ? g->n_sent : 1) * sizeof *g->sent_line);
    *first = malloc((size_t)(g->n_sent ? g->n_sent : 1) * sizeof **first);
    if (!g->sent_start || !g->sent_line || !*first) {
        free(g->sent_start);
        free(g->sent_line);
        free(*first);
        return qkv_fail(err, "out of memory for %d paragraphs", g->n_sent);
    }
    g->sent_start[0] = 0;
    for (int s = 0, used = 0, gi = 0; s < c->n_sent && used < n; s++) {
        if (qkv_corpus_sent_len(c, s) == 0)
            continue;
        if (used++ % k == 0) {
            g->sent_start[gi] = c->sent_start[s];
            g->sent_line[gi] = c->sent_line[s];
            (*first)[gi] = s;
        }
        if (used % k == 0 || used == n)
            g->sent_start[++gi] = c->sent_start[s + 1];
    }
    return QKV_OK;
}

int qkv_speech_make(qkv_frame_corpus *fc, const qkv_corpus *c, const qkv_speech_opts *o, qkv_speech_skipped *skipped,
                    qkv_error *err)
{
    if (o->sentences_per_utterance <= 1)
        return speak_all(fc, c, o, NULL, skipped, err);
    qkv_corpus g;
    int32_t *first;
    memset(fc, 0, sizeof *fc);
    memset(skipped, 0, sizeof *skipped);
    if (group_sentences(&g, &first, c, o->sentences_per_utterance, o->max_sentences, err))
        return QKV_ERR;
    qkv_speech_opts go = *o;
    go.max_sentences = 0;
    int st = speak_all(fc, &g, &go, first, skipped, err);
    free(g.sent_start);
    free(g.sent_line);
    free(first);
    return st;
}
