#include "data/seg_score.h"

#include <stdlib.h>
#include <string.h>

/* The number of the n_a ranges [a0[i], a1[i]) that are also among the n_b ranges of b (both
 * lists in text order, not overlapping). */
static long same_ranges(const int32_t *a0, const int32_t *a1, int n_a, const int32_t *b0, const int32_t *b1, int n_b)
{
    long same = 0;
    for (int i = 0, j = 0; i < n_a && j < n_b;) {
        if (a0[i] == b0[j] && a1[i] == b1[j]) {
            same++;
            i++;
            j++;
        } else if (a0[i] < b0[j] || (a0[i] == b0[j] && a1[i] < b1[j])) {
            i++;
        } else {
            j++;
        }
    }
    return same;
}

/* The character range of each sentence of seg with tokens into start/end [seg->n_sent]; returns
 * their number. */
static int sentence_ranges(const qkv_segmentation *seg, int32_t *start, int32_t *end)
{
    int n = 0;
    for (int s = 0; s < seg->n_sent; s++) {
        int t0 = seg->sent_start[s], t1 = seg->sent_start[s + 1];
        if (t1 > t0) {
            start[n] = seg->tok_start[t0];
            end[n++] = seg->tok_end[t1 - 1];
        }
    }
    return n;
}

int qkv_seg_score(const qkv_seg_text *st, const uint8_t *labels, qkv_ud_score *tokens, qkv_ud_score *sentences,
                  qkv_error *err)
{
    qkv_segmentation gold, sys;
    memset(&gold, 0, sizeof gold);
    memset(&sys, 0, sizeof sys);
    int status = QKV_OK;
    for (int p = 0; status == QKV_OK && p < st->n_par; p++)
        if (qkv_seg_decode(st, p, NULL, &gold, err) || qkv_seg_decode(st, p, labels, &sys, err))
            status = QKV_ERR;
    int32_t *ranges = NULL;
    if (status == QKV_OK) {
        int n = gold.n_sent + sys.n_sent;
        ranges = malloc(2 * (size_t)(n ? n : 1) * sizeof *ranges);
        if (!ranges)
            status = qkv_fail(err, "%.200s: out of memory scoring the segmentation", st->name);
    }
    if (status == QKV_OK) {
        qkv_ud_score_set(tokens, gold.n_tokens, sys.n_tokens,
                         same_ranges(sys.tok_start, sys.tok_end, sys.n_tokens, gold.tok_start, gold.tok_end,
                                     gold.n_tokens));
        int32_t *g0 = ranges, *g1 = ranges + gold.n_sent, *s0 = g1 + gold.n_sent, *s1 = s0 + sys.n_sent;
        int ng = sentence_ranges(&gold, g0, g1), ns = sentence_ranges(&sys, s0, s1);
        qkv_ud_score_set(sentences, ng, ns, same_ranges(s0, s1, ns, g0, g1, ng));
    }
    free(ranges);
    qkv_segmentation_free(&gold);
    qkv_segmentation_free(&sys);
    return status;
}
