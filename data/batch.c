#include "data/batch.h"

#include <stdlib.h>
#include <string.h>

/* Cuts the length-sorted plan->order[0..n) greedily into batches of at most budget tokens (a
 * longer sentence alone): plan->start, n_batches, n_tokens, max_tokens, max_sent. */
static void cut_batches(qkv_batch_plan *plan, const qkv_dataset *ds, int n, int budget)
{
    int nb = 0, tokens = 0, sents = 0;
    for (int i = 0; i < n; i++) {
        int len = qkv_dataset_sent_len(ds, plan->order[i]);
        if (i == 0 || tokens + len > budget) {
            plan->start[nb++] = i;
            tokens = 0;
            sents = 0;
        }
        tokens += len;
        sents++;
        plan->n_tokens += len;
        if (tokens > plan->max_tokens)
            plan->max_tokens = tokens;
        if (sents > plan->max_sent)
            plan->max_sent = sents;
    }
    plan->start[nb] = n;
    plan->n_batches = nb;
}

int qkv_batch_plan_make(qkv_batch_plan *plan, const qkv_dataset *ds, int budget, qkv_rng *rng, qkv_error *err)
{
    memset(plan, 0, sizeof *plan);
    if (budget < 1)
        return qkv_fail(err, "batches: token budget must be >= 1, got %d", budget);
    int n = ds->n_nonempty, maxlen = ds->max_sent_len;
    int *ids = malloc(((size_t)n + 1) * sizeof *ids);
    int *by_len = malloc(((size_t)maxlen + 2) * sizeof *by_len);
    plan->order = malloc(((size_t)n + 1) * sizeof *plan->order);
    plan->start = malloc(((size_t)n + 2) * sizeof *plan->start);
    int *perm = malloc(((size_t)n + 1) * sizeof *perm);
    if (!ids || !by_len || !plan->order || !plan->start || !perm) {
        free(ids);
        free(by_len);
        free(perm);
        qkv_batch_plan_free(plan);
        return qkv_fail(err, "batches: out of memory planning %d sentences", n);
    }
    int k = 0;
    for (int s = 0; s < ds->n_sent && k < n; s++)
        if (qkv_dataset_batchable(ds, s))
            ids[k++] = s;
    if (rng)
        qkv_rng_shuffle(rng, ids, n);
    /* stable counting sort by length */
    memset(by_len, 0, ((size_t)maxlen + 2) * sizeof *by_len);
    for (int i = 0; i < n; i++)
        by_len[qkv_dataset_sent_len(ds, ids[i]) + 1]++;
    for (int l = 1; l <= maxlen + 1; l++)
        by_len[l] += by_len[l - 1];
    for (int i = 0; i < n; i++)
        plan->order[by_len[qkv_dataset_sent_len(ds, ids[i])]++] = ids[i];
    cut_batches(plan, ds, n, budget);
    plan->budget = budget;
    int nb = plan->n_batches;
    if (rng && nb > 1) {
        /* shuffle the batch order: batch b of the new plan is batch perm[b] of the sorted one */
        for (int b = 0; b < nb; b++)
            perm[b] = b;
        qkv_rng_shuffle(rng, perm, nb);
        int32_t *sorted_start = malloc(((size_t)nb + 1) * sizeof *sorted_start);
        if (!sorted_start) {
            free(ids);
            free(by_len);
            free(perm);
            qkv_batch_plan_free(plan);
            return qkv_fail(err, "batches: out of memory planning %d batches", nb);
        }
        memcpy(sorted_start, plan->start, ((size_t)nb + 1) * sizeof *sorted_start);
        memcpy(ids, plan->order, (size_t)n * sizeof *ids);
        int pos = 0;
        for (int b = 0; b < nb; b++) {
            int s0 = sorted_start[perm[b]], s1 = sorted_start[perm[b] + 1];
            plan->start[b] = pos;
            memcpy(plan->order + pos, ids + s0, (size_t)(s1 - s0) * sizeof *ids);
            pos += s1 - s0;
        }
        plan->start[nb] = pos;
        free(sorted_start);
    }
    free(ids);
    free(by_len);
    free(perm);
    return QKV_OK;
}

void qkv_batch_plan_free(qkv_batch_plan *plan)
{
    free(plan->start);
    free(plan->order);
    memset(plan, 0, sizeof *plan);
}

void qkv_batch_max_size(const qkv_dataset *ds, int budget, int *max_sent, int *max_tokens)
{
    *max_sent = budget < ds->n_nonempty ? budget : ds->n_nonempty;
    *max_tokens = budget > ds->max_sent_len ? budget : ds->max_sent_len;
    if (*max_sent < 1)
        *max_sent = 1;
    if (*max_tokens < 1)
        *max_tokens = 1;
}

int qkv_batch_alloc(qkv_batch *b, int n_features, bool with_chars, int max_sent, int max_tokens, qkv_error *err)
{
    memset(b, 0, sizeof *b);
    if (n_features < 0 || n_features > QKV_MAX_FEATURES || max_sent < 1 || max_tokens < 1)
        return qkv_fail(err, "batches: invalid sizes (%d features, %d sentences, %d tokens)", n_features, max_sent,
                        max_tokens);
    b->n_features = n_features;
    b->offsets = malloc(((size_t)max_sent + 1) * sizeof *b->offsets);
    b->sent_ids = malloc((size_t)max_sent * sizeof *b->sent_ids);
    b->tags = malloc((size_t)max_tokens * sizeof *b->tags);
    b->arcs = malloc((size_t)max_tokens * sizeof *b->arcs);
    int ok = b->offsets && b->sent_ids && b->tags && b->arcs;
    for (int f = 0; f < n_features; f++)
        ok = ok && (b->features[f] = malloc((size_t)max_tokens * sizeof *b->features[f]));
    if (ok && with_chars) {
        b->char_offsets = malloc(((size_t)max_tokens + 1) * sizeof *b->char_offsets);
        b->chars = malloc((size_t)max_tokens * QKV_WORD_CHAR_IDS * sizeof *b->chars);
        ok = b->char_offsets && b->chars;
    }
    if (!ok) {
        qkv_batch_free(b);
        return qkv_fail(err, "batches: out of memory for a batch of %d tokens", max_tokens);
    }
    b->offsets[0] = 0;
    b->cap_sent = max_sent;
    b->cap_tokens = max_tokens;
    return QKV_OK;
}

int qkv_batch_alloc_columns(qkv_batch *b, int n_columns, qkv_error *err)
{
    if (n_columns < 1 || n_columns > QKV_MAX_COLUMNS)
        return qkv_fail(err, "batches: %d tag columns, expected 1 to %d", n_columns, QKV_MAX_COLUMNS);
    for (int i = 1; i < n_columns; i++)
        if (!b->col_tags[i] && !(b->col_tags[i] = malloc((size_t)b->cap_tokens * sizeof *b->col_tags[i])))
            return qkv_fail(err, "batches: out of memory for a batch of %d tokens", b->cap_tokens);
    b->n_columns = n_columns;
    return QKV_OK;
}

void qkv_batch_free(qkv_batch *b)
{
    for (int i = 1; i < QKV_MAX_COLUMNS; i++)
        free(b->col_tags[i]);
    free(b->offsets);
    free(b->sent_ids);
    free(b->tags);
    free(b->arcs);
    free(b->char_offsets);
    free(b->chars);
    free(b->dense);
    for (int f = 0; f < QKV_MAX_FEATURES; f++)
        free(b->features[f]);
    memset(b, 0, sizeof *b);
}

int qkv_batch_alloc_dense(qkv_batch *b, int d_input, qkv_error *err)
{
    free(b->dense);
    b->dense = NULL;
    b->d_input = d_input;
    if (d_input <= 0)
        return QKV_OK;
    b->dense = malloc((size_t)(b->cap_tokens ? b->cap_tokens : 1) * d_input * sizeof *b->dense);
    if (!b->dense)
        return qkv_fail(err, "batches: out of memory for %d dense vectors of %d", b->cap_tokens, d_input);
    return QKV_OK;
}

int qkv_batch_fill(qkv_batch *b, const qkv_dataset *ds, const qkv_batch_plan *plan, int index, qkv_error *err)
{
    if (index < 0 || index >= plan->n_batches)
        return qkv_fail(err, "batches: batch %d out of range (the plan has %d)", index, plan->n_batches);
    if (b->n_features != ds->n_features)
        return qkv_fail(err, "batches: the batch has %d feature kinds, the dataset %d", b->n_features,
                        ds->n_features);
    if (ds->chars && !b->chars)
        return qkv_fail(err, "batches: the dataset has characters, the batch has no room for them");
    if (ds->dense && (!b->dense || b->d_input != ds->d_input))
        return qkv_fail(err, "batches: the dataset has dense vectors of %d, the batch has no room for them",
                        ds->d_input);
    if (qkv_dataset_n_columns(ds) != qkv_batch_n_columns(b))
        return qkv_fail(err, "batches: the batch has %d tag columns, the dataset %d", qkv_batch_n_columns(b),
                        qkv_dataset_n_columns(ds));
    int s0 = plan->start[index], s1 = plan->start[index + 1];
    int tokens = 0;
    for (int i = s0; i < s1; i++) {
        int s = plan->order[i];
        if (s < 0 || s >= ds->n_sent)
            return qkv_fail(err, "batches: sentence %d of the plan is not in the dataset (%d sentences)", s,
                            ds->n_sent);
        tokens += qkv_dataset_sent_len(ds, s);
    }
    if (s1 - s0 > b->cap_sent || tokens > b->cap_tokens)
        return qkv_fail(err, "batches: batch %d has %d sentences and %d tokens, the buffers hold %d and %d", index,
                        s1 - s0, tokens, b->cap_sent, b->cap_tokens);
    int t = 0;
    if (b->chars)
        b->char_offsets[0] = 0;
    for (int i = s0; i < s1; i++) {
        int s = plan->order[i], w0 = ds->sent_start[s], n = qkv_dataset_sent_len(ds, s);
        for (int f = 0; f < ds->n_features; f++)
            memcpy(b->features[f] + t, ds->features[f] + w0, (size_t)n * sizeof(int32_t));
        memcpy(b->tags + t, (ds->loss_tags ? ds->loss_tags : ds->tags) + w0, (size_t)n * sizeof(int32_t));
        for (int j = 0; j < n; j++)
            b->arcs[t + j] = ds->arcs ? ds->arcs[w0 + j] : -1;
        for (int c = 1; c < qkv_dataset_n_columns(ds); c++)
            memcpy(b->col_tags[c] + t, ds->col_tags[c] + w0, (size_t)n * sizeof(int32_t));
        if (ds->chars) {
            int c0 = ds->char_start[w0], nc = ds->char_start[w0 + n] - c0, at = b->char_offsets[t];
            memcpy(b->chars + at, ds->chars + c0, (size_t)nc * sizeof(int32_t));
            for (int j = 1; j <= n; j++)
                b->char_offsets[t + j] = at + ds->char_start[w0 + j] - c0;
        }
        if (ds->dense)
            memcpy(b->dense + (size_t)t * ds->d_input, ds->dense + (size_t)w0 * ds->d_input,
                   (size_t)n * ds->d_input * sizeof *b->dense);
        b->sent_ids[i - s0] = s;
        t += n;
        b->offsets[i - s0 + 1] = t;
    }
    b->offsets[0] = 0;
    b->n_chars = b->chars ? b->char_offsets[t] : 0;
    b->n_sent = s1 - s0;
    b->n_tokens = t;
    return QKV_OK;
}

void qkv_batch_word_dropout(qkv_batch *b, const qkv_featurizer *fz, double p, uint64_t key)
{
    if (p <= 0)
        return;
    int kinds[QKV_MAX_FEATURES], n_kinds = 0;
    for (int f = 0; f < b->n_features; f++)
        if (qkv_featurizer_is_word_kind(fz, f))
            kinds[n_kinds++] = f;
    for (int s = 0; s < b->n_sent; s++) {
        uint64_t sent_key = qkv_rng_key(key, (uint64_t)b->sent_ids[s]);
        for (int t = b->offsets[s]; t < b->offsets[s + 1]; t++)
            if (qkv_rng_uniform_at(sent_key, (uint64_t)(t - b->offsets[s])) < p)
                for (int k = 0; k < n_kinds; k++)
                    b->features[kinds[k]][t] = 0;
    }
}

int qkv_batch_plan_first(qkv_batch_plan *plan, const qkv_dataset *ds, int max_len, int max_sent, int max_tokens,
                         qkv_error *err)
{
    memset(plan, 0, sizeof *plan);
    plan->order = malloc(((size_t)(max_sent > 0 ? max_sent : 0) + 1) * sizeof *plan->order);
    plan->start = calloc(2, sizeof *plan->start);
    if (!plan->order || !plan->start) {
        qkv_batch_plan_free(plan);
        return qkv_fail(err, "batches: out of memory");
    }
    int n = 0, words = 0;
    for (int s = 0; s < ds->n_sent && n < max_sent; s++) {
        int len = qkv_dataset_sent_len(ds, s);
        if (!qkv_dataset_batchable(ds, s) || len > max_len || words + len > max_tokens)
            continue;
        plan->order[n++] = s;
        words += len;
    }
    plan->n_batches = words > 0;
    plan->start[1] = n;
    plan->budget = max_tokens;
    plan->max_sent = n;
    plan->max_tokens = plan->n_tokens = words;
    return QKV_OK;
}
