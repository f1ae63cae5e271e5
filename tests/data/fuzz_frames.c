/* libFuzzer target for the speech frame corpus reader (api/speech_store.h; build and run:
 * tests/data/fuzz.sh frames). The input is a frame corpus file (HDF5 in qkv's container) as it
 * is, or the items of one that HDF5 writes into a sealed file (tests/data/fuzz_store.h).
 * Properties: an error names the file and leaves the corpus empty; an accepted corpus holds what
 * data/frames.h promises (utterances of at least one frame, offsets from 0 to the end, label ids
 * within their name lists, finite features); its datasets (all voices, one held out or kept,
 * stacked 1 to 3 frames, phonemes or UPOS) have the announced tokens with finite values, and
 * their scores run. */
#include "fuzz_store.h"

#include <math.h>

#include "api/speech_store.h"
#include "data/frame_scores.h"

static void check_corpus(const qkv_frame_corpus *fc)
{
    fuzz_check(fc->n_utt >= 1 && fc->n_mels >= 1 && fc->utt_start[0] == 0 && fc->utt_start[fc->n_utt] == fc->n_frames &&
               fc->seq_start[0] == 0, "offsets run from 0 to the end");
    for (int u = 0; u < fc->n_utt; u++)
        fuzz_check(fc->utt_start[u + 1] > fc->utt_start[u] && fc->seq_start[u + 1] >= fc->seq_start[u] &&
                   fc->text[u] && fc->voice[u], "every utterance has frames, a text and a voice");
    fuzz_check(fc->phones.n >= 1 && fc->upos_names.n >= 1 && !strcmp(fc->phones.names[0], QKV_FRAME_SILENCE),
               "label lists begin with silence");
    for (int64_t t = 0; t < fc->n_frames; t++)
        fuzz_check(fc->phone[t] >= 0 && fc->phone[t] < fc->phones.n && fc->upos[t] >= 0 &&
                   fc->upos[t] < fc->upos_names.n && fc->word[t] >= -1, "frame labels within their lists");
    for (int64_t i = 0; i < fc->seq_start[fc->n_utt]; i++)
        fuzz_check(fc->phone_seq[i] >= 0 && fc->phone_seq[i] < fc->phones.n, "spoken phonemes within the list");
    for (int64_t i = 0; i < fc->n_frames * fc->n_mels; i++)
        fuzz_check(isfinite(fc->features[i]), "finite features");
}

static void check_scores(const qkv_dataset *ds, const qkv_frame_refs *refs, int n_tags)
{
    int32_t *pred = malloc(((size_t)ds->n_words + 1) * sizeof *pred);
    fuzz_check(pred != NULL, "malloc");
    for (int i = 0; i < ds->n_words; i++)
        pred[i] = ds->tags[i] >= 0 ? ds->tags[i] : 0;
    qkv_frame_score acc = qkv_frame_accuracy_counts(pred, ds->tags, ds->n_words), per, words;
    fuzz_check(acc.n == ds->n_words && acc.errors == ds->n_unknown_tags, "frame errors are the unseen labels");
    qkv_error err;
    fuzz_check(qkv_phone_error_counts(pred, ds->sent_start, ds->n_sent, refs->seq, refs->seq_start, refs->silence,
                                      &per, &err) == QKV_OK && per.n == refs->seq_start[ds->n_sent],
               "phone error counts over every reference phoneme");
    fuzz_check(qkv_word_majority_counts(pred, ds->tags, refs->word, ds->sent_start, ds->n_sent, n_tags, &words,
                                        &err) == QKV_OK && words.errors <= words.n, "word majority counts");
    free(pred);
}

static void check_dataset(const qkv_frame_corpus *fc, const qkv_featurizer *fz, const qkv_frame_select *sel)
{
    int64_t n_words = 0;
    int n_sent = 0;
    for (int u = 0; u < fc->n_utt; u++) {
        if (sel->voice && sel->voice[0] && (strcmp(fc->voice[u], sel->voice) == 0) != (sel->keep_voice != 0))
            continue;
        int64_t n = fc->utt_start[u + 1] - fc->utt_start[u];
        n_words += n < sel->stack ? 1 : n / sel->stack;
        n_sent++;
    }
    qkv_dataset ds;
    qkv_frame_refs refs;
    qkv_error err;
    int status = qkv_dataset_from_frames(&ds, &refs, fz, fc, "fuzz", sel, &err);
    fuzz_check(status == (n_sent > 0 ? QKV_OK : QKV_ERR), "a dataset exactly when an utterance is taken");
    if (status) {
        fuzz_check(!strncmp(err.msg, "fuzz: ", 6), "an error names the corpus");
        return;
    }
    fuzz_check(ds.n_sent == n_sent && ds.n_words == n_words && ds.d_input == sel->stack * fc->n_mels &&
               ds.sent_start[ds.n_sent] == ds.n_words, "a sentence per utterance, the tokens of its frames");
    for (int64_t i = 0; i < n_words * ds.d_input; i++)
        fuzz_check(isfinite(ds.dense[i]), "finite token values");
    for (int i = 0; i < ds.n_words; i++)
        fuzz_check(ds.tags[i] == QKV_TAG_UNSEEN || (ds.tags[i] >= 0 && ds.tags[i] < qkv_featurizer_n_tags(fz)),
                   "tags are the featurizer's");
    check_scores(&ds, &refs, qkv_featurizer_n_tags(fz));
    qkv_dataset_free(&ds);
    qkv_frame_refs_free(&refs);
}

static void exercise(const qkv_frame_corpus *fc)
{
    check_corpus(fc);
    qkv_featurizer fz;
    qkv_error err;
    fuzz_check(qkv_featurizer_init(&fz, &QKV_FEATURE_DEFAULTS, &err) == QKV_OK &&
               qkv_featurizer_set_tags(&fz, (const char *const *)fc->phones.names, fc->phones.n, &err) == QKV_OK,
               "a featurizer of the corpus's phonemes");
    const qkv_frame_select sels[] = {
        {QKV_FRAME_PHONEME, NULL, 0, 1},
        {QKV_FRAME_PHONEME, fc->voice[0], 0, 2},
        {QKV_FRAME_UPOS, fc->voice[0], 1, 3},
    };
    for (size_t k = 0; k < sizeof sels / sizeof sels[0]; k++)
        check_dataset(fc, &fz, &sels[k]);
    qkv_featurizer_free(&fz);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const char *path = fuzz_store_file(data, size);
    if (!path)
        return 0;
    qkv_frame_corpus fc;
    qkv_error err;
    fuzz_output mark = fuzz_output_mark();
    int status = qkv_frame_corpus_load(&fc, path, &err);
    fuzz_output_check(mark);
    if (status == QKV_OK)
        exercise(&fc);
    else
        fuzz_check(strstr(err.msg, path) != NULL && fc.n_utt == 0 && !fc.features && !fc.text,
                   "an error names the file and leaves the corpus empty");
    qkv_frame_corpus_free(&fc);
    return 0;
}
