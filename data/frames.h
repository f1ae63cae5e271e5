/* A speech frame corpus: log-mel frames of spoken sentences (data/mel.h) with per-frame labels,
 * what `qkv speech` makes (api/speech_store.h writes and reads it as HDF5) and what a model with
 * the frames input kind trains on (data.task: frames).
 *
 * Utterance u is frames utt_start[u] .. utt_start[u+1]-1. Every frame has
 *   phone  the phoneme being spoken at the frame's centre (the last eSpeak phoneme event at or
 *          before it, data/speech_synth.h); a pause, or no phoneme yet, is silence;
 *   upos   the UPOS tag of the word being spoken (the last word event at or before the centre,
 *          mapped to the sentence's word by its character position), silence on silent frames;
 *   word   that word's index in the sentence (0-based), -1 on silent frames;
 * label 0 of both lists is QKV_FRAME_SILENCE. Utterance u's spoken phoneme sequence (its
 * non-pause phoneme events of nonzero duration in order, the reference of the phone error rate, data/frame_scores.h)
 * is phone_seq[seq_start[u] .. seq_start[u+1]-1]. Label names are numbered in the order they
 * first occur (deterministic for the same input). */
#ifndef QKV_DATA_FRAMES_H
#define QKV_DATA_FRAMES_H

#include <stdint.h>

#include "data/dataset.h"
#include "data/features.h"
#include "lib/error.h"

#define QKV_FRAME_SILENCE "sil"

/* A growing list of label names; id 0 is QKV_FRAME_SILENCE. */
typedef struct qkv_label_names {
    int n, cap;
    char **names;
} qkv_label_names;

typedef struct qkv_frame_corpus {
    int n_mels, sample_rate, win, hop;  /* frame geometry in samples (data/mel.h) */
    int n_utt;
    int64_t n_frames;
    int64_t *utt_start;                 /* [n_utt + 1] */
    float *features;                    /* [n_frames, n_mels] row-major log-mel */
    int32_t *phone, *upos, *word;       /* [n_frames] */
    int64_t *seq_start;                 /* [n_utt + 1] */
    int32_t *phone_seq;                 /* [seq_start[n_utt]] phone ids */
    qkv_label_names phones, upos_names;
    char **text, **voice;               /* [n_utt] sentence text and eSpeak voice */
    int32_t *rate, *pitch, *sentence;   /* [n_utt] words/minute, pitch 0..100, index in the CoNLL-U */
    size_t cap_features, cap_frames, cap_seq, cap_utt; /* room of the arrays */
} qkv_frame_corpus;

/* An empty corpus of n_mels bands and that frame geometry (the silence labels in place).
 * Errors: out of memory. */
int qkv_frame_corpus_init(qkv_frame_corpus *fc, int n_mels, int sample_rate, int win, int hop, qkv_error *err);
void qkv_frame_corpus_free(qkv_frame_corpus *fc);

/* The id of name in l, added when new. Errors: out of memory. */
int qkv_label_id(qkv_label_names *l, const char *name, int32_t *id, qkv_error *err);

/* One spoken sentence, as qkv_frame_corpus_add takes it. */
typedef struct qkv_spoken {
    const char *text, *voice;
    int rate, pitch, sentence;
    int n_frames;
    const float *features;          /* [n_frames, n_mels] */
    long n_samples;
    int n_word_events, n_phone_events;
    const long *word_sample;        /* [n_word_events] start sample, non-decreasing */
    const int *word_char;           /* [n_word_events] 0-based character position in text */
    const long *phone_sample;       /* [n_phone_events], non-decreasing */
    const char *const *phone_name;  /* [n_phone_events] eSpeak mnemonics, pauses start with '_' */
    int n_words;                    /* the sentence's words */
    const int *word_start;          /* [n_words] character position of each in text, increasing */
    const char *const *word_upos;   /* [n_words] */
} qkv_spoken;

/* Appends utterance sp: its frames, their labels as above (frame t's centre is sample
 * t·hop + win/2) and its phoneme sequence. Errors: out of memory. */
int qkv_frame_corpus_add(qkv_frame_corpus *fc, const qkv_spoken *sp, qkv_error *err);

/* What a frame model learns: the phoneme or the UPOS of each frame. */
typedef enum { QKV_FRAME_PHONEME, QKV_FRAME_UPOS, QKV_FRAME_LABEL_COUNT } qkv_frame_label;
/* "phoneme", "upos" (index = value), then NULL. */
extern const char *const QKV_FRAME_LABEL_NAMES[];

/* Which utterances of a corpus a dataset takes, and how. */
typedef struct qkv_frame_select {
    qkv_frame_label label;
    const char *voice;  /* "" or NULL: every voice */
    int keep_voice;     /* 1: only that voice's utterances; 0: all but that voice's */
    int stack;          /* k >= 1: a token is k consecutive frames (non-overlapping, stride k) */
} qkv_frame_select;

/* What the frame scores need beside a dataset: per token its word in the sentence (-1 silent),
 * per sentence its spoken phoneme ids (in the dataset's label ids, -1 unseen). */
typedef struct qkv_frame_refs {
    int n_sent;
    int32_t *word;       /* [n_words of the dataset] */
    int64_t *seq_start;  /* [n_sent + 1] */
    int32_t *seq;
    int32_t silence;     /* the label id of QKV_FRAME_SILENCE (-1: none) */
} qkv_frame_refs;

/* Encodes the utterances of fc that sel takes as a dataset: a sentence per utterance, a token
 * per k frames (k = sel->stack; the frames of a last incomplete group are dropped, except that
 * an utterance shorter than k is one zero-padded token), features none, dense
 * [n_words, k·n_mels] each token's frames end to end, each normalised per utterance to zero mean
 * and unit variance per band (cepstral mean and variance normalisation), tags the label of
 * the token's middle frame (frame k/2 of the group) looked up by name in fz's tags
 * (QKV_TAG_UNSEEN when missing). refs (may be NULL) receives the scores' references.
 * Errors: no utterance selected ("FILE: no utterance of voice V" / "every utterance is of voice
 * V"), out of memory. */
int qkv_dataset_from_frames(qkv_dataset *ds, qkv_frame_refs *refs, const qkv_featurizer *fz,
                            const qkv_frame_corpus *fc, const char *name, const qkv_frame_select *sel,
                            qkv_error *err);
void qkv_frame_refs_free(qkv_frame_refs *r);

#endif
