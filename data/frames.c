/* The speech frame corpus in memory and its datasets (data/frames.h). */
#include "data/frames.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "data/line_fields.h"

const char *const QKV_FRAME_LABEL_NAMES[] = {"phoneme", "upos", NULL};
_Static_assert(sizeof QKV_FRAME_LABEL_NAMES / sizeof QKV_FRAME_LABEL_NAMES[0] == QKV_FRAME_LABEL_COUNT + 1,
               "one name per qkv_frame_label");

int qkv_label_id(qkv_label_names *l, const char *name, int32_t *id, qkv_error *err)
{
    for (int i = 0; i < l->n; i++)
        if (!strcmp(l->names[i], name)) {
            *id = i;
            return QKV_OK;
        }
    size_t cap = (size_t)l->cap;
    char *copy = strdup(name);
    if (!copy || !qkv_array_grow((void **)&l->names, &cap, (size_t)l->n + 1, sizeof *l->names)) {
        free(copy);
        return qkv_fail(err, "out of memory for the label \"%s\"", name);
    }
    l->cap = (int)cap;
    l->names[l->n] = copy;
    *id = l->n++;
    return QKV_OK;
}

static void free_names(qkv_label_names *l)
{
    for (int i = 0; i < l->n; i++)
        free(l->names[i]);
    free(l->names);
    memset(l, 0, sizeof *l);
}

int qkv_frame_corpus_init(qkv_frame_corpus *fc, int n_mels, int sample_rate, int win, int hop, qkv_error *err)
{
    memset(fc, 0, sizeof *fc);
    fc->n_mels = n_mels;
    fc->sample_rate = sample_rate;
    fc->win = win;
    fc->hop = hop;
    int32_t id;
    fc->utt_start = calloc(1, sizeof *fc->utt_start);
    fc->seq_start = calloc(1, sizeof *fc->seq_start);
    if (!fc->utt_start || !fc->seq_start || qkv_label_id(&fc->phones, QKV_FRAME_SILENCE, &id, err) ||
        qkv_label_id(&fc->upos_names, QKV_FRAME_SILENCE, &id, err)) {
        qkv_frame_corpus_free(fc);
        return qkv_fail(err, "out of memory for a frame corpus");
    }
    return QKV_OK;
}

void qkv_frame_corpus_free(qkv_frame_corpus *fc)
{
    for (int u = 0; u < fc->n_utt; u++) {
        free(fc->text[u]);
        free(fc->voice[u]);
    }
    free(fc->text);
    free(fc->voice);
    free(fc->rate);
    free(fc->pitch);
    free(fc->sentence);
    free(fc->utt_start);
    free(fc->seq_start);
    free(fc->features);
    free(fc->phone);
    free(fc->upos);
    free(fc->word);
    free(fc->phone_seq);
    free_names(&fc->phones);
    free_names(&fc->upos_names);
    memset(fc, 0, sizeof *fc);
}

/* Grows the arrays of one capacity group: each starts from the same capacity and need, so
 * they all end with the same new capacity, stored in *cap. */
#define GROW_GROUP(cap, need, ...)                                                                    \
    do {                                                                                              \
        void **arrays_[] = {__VA_ARGS__};                                                             \
        size_t c_ = *(cap);                                                                           \
        for (size_t i_ = 0; i_ < sizeof arrays_ / sizeof arrays_[0]; i_ += 2) {                       \
            c_ = *(cap);                                                                              \
            if (!qkv_array_grow(arrays_[i_], &c_, (size_t)(need), (size_t)(uintptr_t)arrays_[i_ + 1]))      \
                return QKV_ERR;                                                                       \
        }                                                                                             \
        *(cap) = c_;                                                                                  \
    } while (0)
#define A_(p) (void **)&(p), (void *)(uintptr_t)sizeof *(p)

/* Room for one more utterance of frames frames and seq phonemes. */
static int reserve(qkv_frame_corpus *fc, int64_t frames, int64_t seq)
{
    int64_t n = fc->n_frames + frames;
    GROW_GROUP(&fc->cap_features, n * fc->n_mels, A_(fc->features));
    GROW_GROUP(&fc->cap_frames, n, A_(fc->phone), A_(fc->upos), A_(fc->word));
    GROW_GROUP(&fc->cap_seq, fc->seq_start[fc->n_utt] + seq, A_(fc->phone_seq));
    GROW_GROUP(&fc->cap_utt, (int64_t)fc->n_utt + 2, A_(fc->utt_start), A_(fc->seq_start), A_(fc->text),
               A_(fc->voice), A_(fc->rate), A_(fc->pitch), A_(fc->sentence));
    return QKV_OK;
}

/* The sentence word holding character position pos: the last whose start is <= pos (-1: none). */
static int word_at(const qkv_spoken *sp, int pos)
{
    int w = -1;
    while (w + 1 < sp->n_words && sp->word_start[w + 1] <= pos)
        w++;
    return w;
}

/* The phone, upos and word labels of sp's frames into fc at frame f0. */
static int label_frames(qkv_frame_corpus *fc, const qkv_spoken *sp, int64_t f0, qkv_error *err)
{
    int pi = -1, wi = -1;
    for (int t = 0; t < sp->n_frames; t++) {
        long c = (long)t * fc->hop + fc->win / 2;
        while (pi + 1 < sp->n_phone_events && sp->phone_sample[pi + 1] <= c)
            pi++;
        while (wi + 1 < sp->n_word_events && sp->word_sample[wi + 1] <= c)
            wi++;
        int32_t phone = 0, upos = 0, word = -1;
        if (pi >= 0 && !(sp->phone_name[pi][0] == '_')) {
            if (qkv_label_id(&fc->phones, sp->phone_name[pi], &phone, err))
                return QKV_ERR;
            word = wi >= 0 ? word_at(sp, sp->word_char[wi]) : -1;
            if (word >= 0 && qkv_label_id(&fc->upos_names, sp->word_upos[word], &upos, err))
                return QKV_ERR;
        }
        fc->phone[f0 + t] = phone;
        fc->upos[f0 + t] = upos;
        fc->word[f0 + t] = word;
    }
    return QKV_OK;
}

int qkv_frame_corpus_add(qkv_frame_corpus *fc, const qkv_spoken *sp, qkv_error *err)
{
    if (sp->n_frames < 1)
        return qkv_fail(err, "utterance %d (\"%.60s\"): no frame; an utterance has at least one", fc->n_utt + 1,
                        sp->text ? sp->text : "");
    if (reserve(fc, sp->n_frames, sp->n_phone_events))
        return qkv_fail(err, "out of memory for the frames of utterance %d", fc->n_utt + 1);
    int u = fc->n_utt;
    int64_t f0 = fc->n_frames;
    memcpy(fc->features + f0 * fc->n_mels, sp->features, (size_t)sp->n_frames * fc->n_mels * sizeof *fc->features);
    if (label_frames(fc, sp, f0, err))
        return QKV_ERR;
    int64_t q = fc->seq_start[u];
    for (int i = 0; i < sp->n_phone_events; i++) {
        long end = i + 1 < sp->n_phone_events ? sp->phone_sample[i + 1] : sp->n_samples;
        if (sp->phone_name[i][0] != '_' && end > sp->phone_sample[i] &&
            qkv_label_id(&fc->phones, sp->phone_name[i], &fc->phone_seq[q++], err))
            return QKV_ERR;
    }
    fc->text[u] = strdup(sp->text);
    fc->voice[u] = strdup(sp->voice);
    if (!fc->text[u] || !fc->voice[u]) {
        free(fc->text[u]);
        free(fc->voice[u]);
        return qkv_fail(err, "out of memory for the text of utterance %d", u + 1);
    }
    fc->rate[u] = sp->rate;
    fc->pitch[u] = sp->pitch;
    fc->sentence[u] = sp->sentence;
    fc->n_frames = f0 + sp->n_frames;
    fc->utt_start[u + 1] = fc->n_frames;
    fc->seq_start[u + 1] = q;
    fc->n_utt = u + 1;
    return QKV_OK;
}
