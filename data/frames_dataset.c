/* A speech frame corpus as a dataset of dense tokens (data/frames.h: qkv_dataset_from_frames). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "data/frames.h"

static int selected(const qkv_frame_corpus *fc, const qkv_frame_select *sel, int u)
{
    if (!sel->voice || !sel->voice[0])
        return 1;
    return (strcmp(fc->voice[u], sel->voice) == 0) == (sel->keep_voice != 0);
}

/* Tokens of an utterance of n frames stacked k at a time. */
static int64_t n_tokens(int64_t n, int k) { return n < k ? 1 : n / k; }

/* The label id (in fz's tags) of a corpus label id of the chosen list. */
static int32_t lookup(const qkv_featurizer *fz, const qkv_label_names *l, int32_t id)
{
    const char *name = l->names[id];
    return qkv_vocab_lookup(&fz->tags, name, strlen(name));
}

/* Utterance u's frames, normalised per band, stacked k at a time into dense at its first
 * token; their labels into tags and refs->word. */
static void encode_utt(qkv_dataset *ds, qkv_frame_refs *refs, const qkv_featurizer *fz, const qkv_frame_corpus *fc,
                       const qkv_frame_select *sel, int u, int64_t tok0)
{
    int M = fc->n_mels, k = sel->stack;
    int64_t f0 = fc->utt_start[u], n = fc->utt_start[u + 1] - f0, nt = n_tokens(n, k);
    const qkv_label_names *names = sel->label == QKV_FRAME_PHONEME ? &fc->phones : &fc->upos_names;
    const int32_t *lab = sel->label == QKV_FRAME_PHONEME ? fc->phone : fc->upos;
    for (int b = 0; b < M; b++) {
        double sum = 0, sq = 0;
        for (int64_t t = 0; t < n; t++)
            sum += fc->features[(f0 + t) * M + b];
        double mean = sum / (double)n;
        for (int64_t t = 0; t < n; t++) {
            double d = fc->features[(f0 + t) * M + b] - mean;
            sq += d * d;
        }
        double inv = 1.0 / sqrt(sq / (double)n + 1e-8);
        for (int64_t i = 0; i < nt * k; i++) {
            float *dst = ds->dense + (tok0 + i / k) * ds->d_input + (i % k) * M + b;
            *dst = i < n ? (float)((fc->features[(f0 + i) * M + b] - mean) * inv) : 0.0f;
        }
    }
    for (int64_t j = 0; j < nt; j++) {
        int64_t mid = j * k + k / 2;
        if (mid >= n)
            mid = n - 1;
        int32_t tag = lookup(fz, names, lab[f0 + mid]);
        ds->tags[tok0 + j] = tag;
        ds->n_unknown_tags += tag == QKV_TAG_UNSEEN;
        if (refs)
            refs->word[tok0 + j] = fc->word[f0 + mid];
    }
}

static int alloc_refs(qkv_frame_refs *refs, int n_sent, int64_t n_words, int64_t n_seq)
{
    memset(refs, 0, sizeof *refs);
    refs->n_sent = n_sent;
    refs->word = malloc((size_t)(n_words ? n_words : 1) * sizeof *refs->word);
    refs->seq_start = calloc((size_t)n_sent + 1, sizeof *refs->seq_start);
    refs->seq = malloc((size_t)(n_seq ? n_seq : 1) * sizeof *refs->seq);
    return refs->word && refs->seq_start && refs->seq ? QKV_OK : QKV_ERR;
}

/* Counts the selected utterances, their tokens and phonemes. */
static int count(const qkv_frame_corpus *fc, const qkv_frame_select *sel, int64_t *n_words, int64_t *n_seq)
{
    int n_sent = 0;
    *n_words = *n_seq = 0;
    for (int u = 0; u < fc->n_utt; u++)
        if (selected(fc, sel, u)) {
            n_sent++;
            *n_words += n_tokens(fc->utt_start[u + 1] - fc->utt_start[u], sel->stack);
            *n_seq += fc->seq_start[u + 1] - fc->seq_start[u];
        }
    return n_sent;
}

int qkv_dataset_from_frames(qkv_dataset *ds, qkv_frame_refs *refs, const qkv_featurizer *fz,
                            const qkv_frame_corpus *fc, const char *name, const qkv_frame_select *sel,
                            qkv_error *err)
{
    memset(ds, 0, sizeof *ds);
    if (sel->stack < 1)
        return qkv_fail(err, "%s: frames stacked %d at a time: must be >= 1", name, sel->stack);
    int64_t n_words, n_seq;
    int n_sent = count(fc, sel, &n_words, &n_seq);
    if (n_sent == 0)
        return sel->voice && sel->voice[0] && sel->keep_voice
                   ? qkv_fail(err, "%s: no utterance of voice \"%s\"", name, sel->voice)
                   : qkv_fail(err, "%s: no utterance to take%s%s%s", name, sel->voice && sel->voice[0] ?
                              " (every one is of the held-out voice \"" : "", sel->voice ? sel->voice : "",
                              sel->voice && sel->voice[0] ? "\")" : "");
    if (n_words > INT32_MAX)
        return qkv_fail(err, "%s: %lld tokens, at most %d", name, (long long)n_words, INT32_MAX);
    ds->n_sent = n_sent;
    ds->n_words = (int)n_words;
    ds->d_input = sel->stack * fc->n_mels;
    ds->sent_start = malloc(((size_t)n_sent + 1) * sizeof *ds->sent_start);
    ds->tags = malloc((size_t)n_words * sizeof *ds->tags);
    ds->dense = malloc((size_t)n_words * ds->d_input * sizeof *ds->dense);
    if (!ds->sent_start || !ds->tags || !ds->dense || (refs && alloc_refs(refs, n_sent, n_words, n_seq))) {
        qkv_dataset_free(ds);
        if (refs)
            qkv_frame_refs_free(refs);
        return qkv_fail(err, "%s: out of memory for %lld frame tokens", name, (long long)n_words);
    }
    const qkv_label_names *names = sel->label == QKV_FRAME_PHONEME ? &fc->phones : &fc->upos_names;
    if (refs)
        refs->silence = qkv_vocab_lookup(&fz->tags, QKV_FRAME_SILENCE, strlen(QKV_FRAME_SILENCE));
    int s = 0;
    int64_t tok = 0, q = 0;
    ds->sent_start[0] = 0;
    for (int u = 0; u < fc->n_utt; u++) {
        if (!selected(fc, sel, u))
            continue;
        encode_utt(ds, refs, fz, fc, sel, u, tok);
        int len = (int)n_tokens(fc->utt_start[u + 1] - fc->utt_start[u], sel->stack);
        tok += len;
        ds->sent_start[++s] = (int32_t)tok;
        ds->n_nonempty++;
        if (len > ds->max_sent_len)
            ds->max_sent_len = len;
        for (int64_t i = fc->seq_start[u]; refs && i < fc->seq_start[u + 1]; i++)
            refs->seq[q++] = sel->label == QKV_FRAME_PHONEME ? lookup(fz, names, fc->phone_seq[i]) : -1;
        if (refs)
            refs->seq_start[s] = q;
    }
    return QKV_OK;
}

void qkv_frame_refs_free(qkv_frame_refs *r)
{
    free(r->word);
    free(r->seq_start);
    free(r->seq);
    memset(r, 0, sizeof *r);
}
