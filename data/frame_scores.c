/* Frame tagger scores (data/frame_scores.h). */
#include "data/frame_scores.h"

#include <stdlib.h>
#include <string.h>

qkv_frame_score qkv_frame_accuracy_counts(const int32_t *pred, const int32_t *gold, int64_t n)
{
    qkv_frame_score s = {n, 0};
    for (int64_t t = 0; t < n; t++)
        s.errors += gold[t] < 0 || pred[t] != gold[t];
    return s;
}

int qkv_edit_distance(const int32_t *a, int64_t na, const int32_t *b, int64_t nb, int64_t *dist, qkv_error *err)
{
    int64_t *row = malloc((size_t)(nb + 1) * sizeof *row);
    if (!row)
        return qkv_fail(err, "out of memory for an edit distance of %lld symbols", (long long)nb);
    for (int64_t j = 0; j <= nb; j++)
        row[j] = j;
    for (int64_t i = 1; i <= na; i++) {
        int64_t diag = row[0]; /* D[i-1][j-1] */
        row[0] = i;
        for (int64_t j = 1; j <= nb; j++) {
            int64_t up = row[j], best = diag + (a[i - 1] != b[j - 1]);
            if (up + 1 < best)
                best = up + 1;
            if (row[j - 1] + 1 < best)
                best = row[j - 1] + 1;
            diag = up;
            row[j] = best;
        }
    }
    *dist = row[nb];
    free(row);
    return QKV_OK;
}

int qkv_phone_error_counts(const int32_t *pred, const int32_t *offsets, int n_sent, const int32_t *ref,
                           const int64_t *ref_start, int32_t silence, qkv_frame_score *out, qkv_error *err)
{
    memset(out, 0, sizeof *out);
    int32_t max_len = 0;
    for (int s = 0; s < n_sent; s++)
        if (offsets[s + 1] - offsets[s] > max_len)
            max_len = offsets[s + 1] - offsets[s];
    int32_t *hyp = malloc((size_t)(max_len ? max_len : 1) * sizeof *hyp);
    if (!hyp)
        return qkv_fail(err, "out of memory for the phone error rate");
    for (int s = 0; s < n_sent; s++) {
        int64_t nh = 0;
        for (int32_t t = offsets[s]; t < offsets[s + 1]; t++)
            if ((t == offsets[s] || pred[t] != pred[t - 1]) && pred[t] != silence)
                hyp[nh++] = pred[t];
        int64_t d, nr = ref_start[s + 1] - ref_start[s];
        if (qkv_edit_distance(hyp, nh, ref + ref_start[s], nr, &d, err)) {
            free(hyp);
            return QKV_ERR;
        }
        out->errors += d;
        out->n += nr;
    }
    free(hyp);
    return QKV_OK;
}

/* A frame of a word: the word index and the frame, sorted by word, then by frame. */
typedef struct word_frame {
    int32_t word, t;
} word_frame;

static int by_word_then_frame(const void *a, const void *b)
{
    const word_frame *x = a, *y = b;
    if (x->word != y->word)
        return x->word < y->word ? -1 : 1;
    return (x->t > y->t) - (x->t < y->t);
}

/* The majority vote of one word's frames wf[0 .. n-1] (sorted by frame), scored into out. */
static void score_word(const word_frame *wf, int n, const int32_t *pred, const int32_t *gold, int n_labels,
                       int32_t *votes, qkv_frame_score *out)
{
    memset(votes, 0, (size_t)n_labels * sizeof *votes);
    for (int k = 0; k < n; k++)
        if (pred[wf[k].t] >= 0 && pred[wf[k].t] < n_labels)
            votes[pred[wf[k].t]]++;
    int32_t best = 0;
    for (int32_t l = 1; l < n_labels; l++)
        if (votes[l] > votes[best])
            best = l;
    out->n++;
    out->errors += gold[wf[0].t] < 0 || best != gold[wf[0].t];
}

/* Time O(T log T) in a sentence's T frames, whatever its word indices. */
int qkv_word_majority_counts(const int32_t *pred, const int32_t *gold, const int32_t *word, const int32_t *offsets,
                             int n_sent, int n_labels, qkv_frame_score *out, qkv_error *err)
{
    memset(out, 0, sizeof *out);
    int32_t longest = 0;
    for (int s = 0; s < n_sent; s++)
        if (offsets[s + 1] - offsets[s] > longest)
            longest = offsets[s + 1] - offsets[s];
    int32_t *votes = calloc((size_t)(n_labels > 0 ? n_labels : 1), sizeof *votes);
    word_frame *wf = malloc((size_t)(longest ? longest : 1) * sizeof *wf);
    if (!votes || !wf) {
        free(votes);
        free(wf);
        return qkv_fail(err, "out of memory for the word votes");
    }
    for (int s = 0; s < n_sent; s++) {
        int n = 0;
        for (int32_t t = offsets[s]; t < offsets[s + 1]; t++)
            if (word[t] >= 0)
                wf[n++] = (word_frame){word[t], t};
        qsort(wf, (size_t)n, sizeof *wf, by_word_then_frame);
        for (int a = 0, b; a < n; a = b) {
            for (b = a + 1; b < n && wf[b].word == wf[a].word; b++)
                ;
            score_word(wf + a, b - a, pred, gold, n_labels, votes, out);
        }
    }
    free(votes);
    free(wf);
    return QKV_OK;
}
