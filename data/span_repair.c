/* Gold tags a constrained CRF allows, for its loss (dataset.h: qkv_dataset_repair_spans). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "data/dataset.h"
#include "data/spans.h"

/* Whether a tag of fz's is E- or S- (the constraints are then BIOES, models/crf_head.c). */
static int tags_bioes(const qkv_featurizer *fz)
{
    for (int t = 0; t < qkv_featurizer_n_tags(fz); t++) {
        const char *name = qkv_featurizer_tag(fz, t);
        if ((name[0] == 'E' || name[0] == 'S') && name[1] == '-')
            return 1;
    }
    return 0;
}

/* Sentence s's tags as parts ("_" as O). */
static void sentence_parts(const qkv_corpus *c, int s, qkv_tag_part *parts)
{
    for (int w = c->sent_start[s]; w < c->sent_start[s + 1]; w++) {
        size_t len;
        const char *tag = qkv_corpus_tag(c, w, &len);
        parts[w - c->sent_start[s]] = qkv_corpus_untagged(c, w) ? (qkv_tag_part){'O', "", 0} : qkv_tag_split(tag, len);
    }
}

/* Rewrites sentence s's loss tags from its repaired parts; buf: room for the longest tag. When
 * a repaired tag is not among fz's tags (an I-x whose B-x the model lacks), the sentence is
 * skipped instead (no loss tag: QKV_TAG_NONE throughout) and it returns 1. */
static int put_repaired(qkv_dataset *ds, const qkv_featurizer *fz, const qkv_corpus *c, int s,
                        const qkv_tag_part *parts, char *buf, size_t cap)
{
    int w0 = c->sent_start[s], w1 = c->sent_start[s + 1], skip = 0;
    for (int w = w0; w < w1; w++) {
        if (ds->tags[w] == QKV_TAG_NONE)
            continue;
        size_t len = qkv_tag_part_format(&parts[w - w0], buf, cap);
        ds->loss_tags[w] = len < cap ? qkv_vocab_lookup(&fz->tags, buf, len) : QKV_TAG_UNSEEN;
        skip = skip || (ds->loss_tags[w] == QKV_TAG_UNSEEN && ds->tags[w] != QKV_TAG_UNSEEN);
    }
    for (int w = w0; skip && w < w1; w++)
        ds->loss_tags[w] = QKV_TAG_NONE;
    return skip;
}

int qkv_dataset_repair_spans(qkv_dataset *ds, const qkv_featurizer *fz, const qkv_corpus *c, int training,
                             qkv_warnings *warnings, qkv_error *err)
{
    int bioes = tags_bioes(fz), longest = 1;
    size_t cap = 8;
    for (int s = 0; s < c->n_sent; s++)
        if (qkv_corpus_sent_len(c, s) > longest)
            longest = qkv_corpus_sent_len(c, s);
    for (int w = 0; w < c->n_words; w++) {
        size_t len;
        qkv_corpus_tag(c, w, &len);
        if (len + 2 > cap)
            cap = len + 2;
    }
    qkv_tag_part *parts = malloc((size_t)longest * sizeof *parts);
    qkv_chunk *scratch = malloc((size_t)longest * sizeof *scratch);
    char *buf = malloc(cap);
    int status = parts && scratch && buf ? QKV_OK : qkv_fail(err, "%.200s: out of memory checking the spans", c->name);
    int n_bad = 0, n_skipped = 0, first_line = 0;
    for (int s = 0; s < c->n_sent && status == QKV_OK; s++) {
        int n = qkv_corpus_sent_len(c, s);
        sentence_parts(c, s, parts);
        int at = qkv_tags_forbidden(parts, n, bioes);
        if (at < 0)
            continue;
        if (!ds->loss_tags) {
            if (!(ds->loss_tags = malloc(((size_t)ds->n_words + 1) * sizeof *ds->loss_tags))) {
                status = qkv_fail(err, "%.200s: out of memory repairing the spans", c->name);
                break;
            }
            memcpy(ds->loss_tags, ds->tags, (size_t)ds->n_words * sizeof *ds->loss_tags);
            first_line = (int)c->word_line[c->sent_start[s] + at];
        }
        n_bad++;
        qkv_tags_convert(parts, n, bioes ? QKV_TAG_SCHEME_BIOES : QKV_TAG_SCHEME_BIO, scratch);
        n_skipped += put_repaired(ds, fz, c, s, parts, buf, cap);
    }
    char skipped[160] = "";
    if (n_skipped)
        snprintf(skipped, sizeof skipped, "; %d of them left out of the loss: a tag so read is not among the "
                 "model's tags", n_skipped);
    if (status == QKV_OK && n_bad && warnings)
        status = qkv_warnings_add(
            warnings, err,
            "%.200s:%d: %d sentence%s a tag sequence model.crf_constrained forbids (such as I-x after O or after "
            "another type: the start of a chunk, as conlleval reads it), the first here; %s%s",
            c->name, first_line, n_bad, n_bad == 1 ? " has" : "s have",
            training ? "trained on as conlleval reads them (I-x starting a chunk as B-x)"
                     : "scored as conlleval reads them, their loss from the tags read so (I-x starting a chunk as B-x)",
            skipped);
    free(parts);
    free(scratch);
    free(buf);
    return status;
}
