#include "api/session.h"
#include "api/tag_pairs.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "data/segment.h"
#include "data/synthetic.h"

void qkv_session_init(qkv_session *s) { memset(s, 0, sizeof *s); }

void qkv_session_free(qkv_session *s)
{
    if (s->model_ready)
        qkv_tagger_free(&s->model);
    qkv_dataset_free(&s->train);
    qkv_dataset_free(&s->dev);
    qkv_dataset_free(&s->test);
    qkv_frame_refs_free(&s->dev_refs);
    qkv_frame_refs_free(&s->test_refs);
    qkv_corpus_free(&s->train_c);
    qkv_corpus_free(&s->dev_c);
    if (s->fz_ready)
        qkv_featurizer_free(&s->fz);
    qkv_warnings_free(&s->warnings);
    qkv_seg_lexicon_free(&s->seg_lexicon);
    free(s->tag_pairs.allowed);
    free(s->config_text);
    memset(s, 0, sizeof *s);
}

int qkv_session_config(qkv_session *s, const char *path, char *const *overrides, int n_overrides, qkv_error *err)
{
    if (qkv_run_config_load_noted(path, overrides, n_overrides, &s->cfg, s->config_note, sizeof s->config_note, err))
        return QKV_ERR;
    free(s->config_text);
    s->config_text = NULL;
    return qkv_config_dump(QKV_RUN_SCHEMA, QKV_RUN_SCHEMA_LEN, &s->cfg, &s->config_text, err);
}

void qkv_session_encoder_summary(const qkv_session *s, char *buf, size_t cap)
{
    const qkv_encoder_desc *enc = QKV_ENCODER_DESCS[s->model.cfg.encoder_kind];
    buf[0] = 0;
    if (enc->summary)
        enc->summary(&s->model.cfg, buf, cap);
}

/* The synthetic corpus of n sentences from seed, generated in memory and read as CoNLL-U. */
static int synthetic_corpus(qkv_corpus *c, const char *name, int n, uint64_t seed, qkv_error *err)
{
    char *text = NULL;
    size_t len = 0;
    FILE *mem = open_memstream(&text, &len);
    if (!mem)
        return qkv_fail(err, "out of memory for the synthetic corpus");
    int status = qkv_synth_write(mem, n, seed, err);
    fclose(mem);
    if (status == QKV_OK)
        status = qkv_corpus_read_mem(c, text, len, name, &QKV_READ_DEFAULTS, err);
    free(text);
    return status;
}

/* qkv_session_read_corpus; with lexicon (the training file of a segmenter) also the lexicon of
 * its chunks and its abbreviations (data.lexicon_min_count > 0) into *lexicon, freed before. */
static int read_corpus(const qkv_session *s, qkv_corpus *c, const char *path, qkv_seg_lexicon *lexicon,
                       qkv_error *err)
{
    if (s->cfg.data.task != QKV_TASK_SEGMENT)
        return qkv_corpus_read(c, path, &s->cfg.data.read, err);
    memset(c, 0, sizeof *c);
    qkv_seg_text st;
    if (qkv_seg_read(&st, path, err))
        return QKV_ERR;
    int status = qkv_seg_corpus(c, &st, true, err);
    if (status == QKV_OK && lexicon && s->cfg.data.seg_lexicon_min_count > 0) {
        qkv_seg_lexicon_free(lexicon);
        status = qkv_seg_lexicon_build(lexicon, &st, s->cfg.data.seg_lexicon_min_count, err);
    }
    qkv_seg_free(&st);
    return status;
}

int qkv_session_read_corpus(const qkv_session *s, qkv_corpus *c, const char *path, qkv_error *err)
{
    return read_corpus(s, c, path, NULL, err);
}

int qkv_session_data(qkv_session *s, bool load_train, qkv_error *err)
{
    const qkv_data_section *d = &s->cfg.data;
    if (d->task == QKV_TASK_FRAMES)
        return qkv_session_frames(s, load_train, err);
    if (qkv_session_reads_images(s))
        return qkv_session_image_data(s, load_train, err);
    bool synthetic = d->source == QKV_SOURCE_SYNTHETIC;
    if (synthetic && d->task == QKV_TASK_SEGMENT)
        return qkv_fail(err, "data.task = segment needs CoNLL-U files with # text (data.source files), not the "
                             "synthetic corpus");
    if (load_train) {
        int st = synthetic ? synthetic_corpus(&s->train_c, "synthetic-train", d->synthetic_train,
                                              (uint64_t)d->synthetic_seed, err)
                           : read_corpus(s, &s->train_c, d->train, &s->seg_lexicon, err);
        if (st)
            return QKV_ERR;
        if (!s->fz_ready) {
            if (qkv_featurizer_build(&s->fz, &d->features, &s->train_c, err))
                return QKV_ERR;
            s->fz_ready = true;
        }
        if (qkv_dataset_encode(&s->train, &s->fz, &s->train_c, &s->warnings, err) ||
            qkv_dataset_require_tags(&s->train, &s->train_c, &s->fz, err) ||
            qkv_session_check_gold(s, &s->train_c, &s->train, true, err))
            return QKV_ERR;
        if ((d->max_train_len > 0 && qkv_dataset_keep_max_len(&s->train, d->max_train_len, err)) ||
            qkv_session_check_lengths(s, &s->train_c, &s->train, true, err))
            return QKV_ERR;
        if (qkv_dataset_n_batchable(&s->train) == 0)
            return qkv_fail(err, "%s: no sentence with words to train on", qkv_corpus_name(&s->train_c));
        s->has_train = true;
        if (qkv_tag_pairs_build(s, err))
            return QKV_ERR;
    }
    if (synthetic || d->dev[0]) {
        int st = synthetic ? synthetic_corpus(&s->dev_c, "synthetic-dev", d->synthetic_dev,
                                              (uint64_t)d->synthetic_seed + 1000003u, err)
                           : qkv_session_read_corpus(s, &s->dev_c, d->dev, err);
        if (st)
            return QKV_ERR;
        if (!s->fz_ready)
            return qkv_fail(err, "no vocabulary: load a checkpoint or the training data first");
        if (qkv_dataset_encode(&s->dev, &s->fz, &s->dev_c, &s->warnings, err) ||
            qkv_dataset_require_tags(&s->dev, &s->dev_c, &s->fz, err) ||
            qkv_session_check_gold(s, &s->dev_c, &s->dev, false, err) ||
            qkv_session_check_lengths(s, &s->dev_c, &s->dev, false, err))
            return QKV_ERR;
        if (qkv_dataset_n_words(&s->dev) == 0)
            return qkv_fail(err, "%s: no words to evaluate on (data.dev)", qkv_corpus_name(&s->dev_c));
        s->has_dev = true;
    }
    return QKV_OK;
}

/* Heads 1.. of the config's tag columns (api/run_config.h: qkv_heads_section), softmax heads
 * named "<column>."; head 0's loss weight. */
static int add_heads(qkv_session *s, qkv_rng *rng, qkv_error *err)
{
    const qkv_heads_section *h = &s->cfg.heads;
    if (h->n > 1)
        s->model.heads[0].loss_weight = h->weight[0];
    for (int i = 1; i < qkv_featurizer_n_columns(&s->fz); i++) {
        char prefix[QKV_HEAD_NAME_MAX];
        const char *col = QKV_TAG_FIELD_NAMES[s->fz.columns[i]];
        snprintf(prefix, sizeof prefix, "%s.", col);
        qkv_head_spec spec = {.kind = QKV_OUTPUT_SOFTMAX, .prefix = prefix, .tagset = col,
                              .n_tags = qkv_featurizer_n_classes(&s->fz, i), .loss_weight = h->weight[i]};
        if (qkv_tagger_add_head(&s->model, &spec, rng, err))
            return QKV_ERR;
    }
    return QKV_OK;
}

/* The tagger of the config; rng NULL: parameters allocated, not drawn (lib/param.h). */
static int build_model(qkv_session *s, qkv_rng *rng, qkv_error *err)
{
    qkv_tagger_config tc = s->cfg.model; /* as configured, with the sizes that come from the data */
    tc.n_features = qkv_featurizer_n_features(&s->fz);
    if (tc.n_features > QKV_TAGGER_MAX_FEATURES)
        return qkv_fail(err, "%d feature kinds, at most %d", tc.n_features, QKV_TAGGER_MAX_FEATURES);
    for (int f = 0; f < tc.n_features; f++) {
        tc.feature_names[f] = qkv_featurizer_name(&s->fz, f);
        tc.vocab_sizes[f] = qkv_featurizer_vocab_size(&s->fz, f);
    }
    tc.n_tags = qkv_featurizer_n_tags(&s->fz);
    tc.chars.n_chars = qkv_featurizer_n_chars(&s->fz);
    if (s->cfg.data.task == QKV_TASK_FRAMES) {
        tc.input_kind = QKV_INPUT_FRAMES;
        tc.n_features = 0;
        tc.d_input = s->has_train ? qkv_dataset_d_input(&s->train)
                     : s->has_dev ? qkv_dataset_d_input(&s->dev)
                                  : s->frames_d_input;
    }
    if (qkv_tagger_image_grid(&tc, s->cfg.data.image_rows, s->cfg.data.image_cols, s->cfg.data.image_channels, err))
        return QKV_ERR;
    const char **tag_names = malloc((size_t)(tc.n_tags > 0 ? tc.n_tags : 1) * sizeof *tag_names);
    if (!tag_names)
        return qkv_fail(err, "out of memory for %d tag names", tc.n_tags);
    for (int t = 0; t < tc.n_tags; t++)
        tag_names[t] = qkv_featurizer_tag(&s->fz, t);
    tc.tag_names = tag_names;
    int status = qkv_tagger_init(&s->model, &tc, rng, err);
    free(tag_names);
    if (status)
        return QKV_ERR;
    s->model_ready = true;
    return add_heads(s, rng, err);
}

int qkv_session_model(qkv_session *s, uint64_t seed, qkv_error *err)
{
    qkv_rng rng;
    qkv_rng_seed(&rng, seed);
    return build_model(s, &rng, err);
}

int qkv_session_model_to_load(qkv_session *s, qkv_error *err) { return build_model(s, NULL, err); }

int qkv_session_check_gold(qkv_session *s, const qkv_corpus *c, qkv_dataset *ds, bool training, qkv_error *err)
{
    if (qkv_corpus_warn_stray_tags(c, &s->warnings, err))
        return QKV_ERR;
    if (s->cfg.model.output == QKV_OUTPUT_BIAFFINE) { /* a parser's gold trees */
        if (qkv_corpus_check_trees(c, err))
            return QKV_ERR;
        if (qkv_corpus_n_heads(c) == 0)
            return qkv_fail(err, "%s: no word has a HEAD (field 7): nothing to %s the parser on", qkv_corpus_name(c),
                            training ? "train" : "score");
    }
    if (s->cfg.model.output != QKV_OUTPUT_CRF || !s->cfg.model.crf_constrained)
        return QKV_OK;
    return qkv_dataset_repair_spans(ds, &s->fz, c, training, &s->warnings, err);
}

int qkv_session_check_lengths(const qkv_session *s, const qkv_corpus *c, const qkv_dataset *ds, bool training,
                              qkv_error *err)
{
    const qkv_tagger_config *m = &s->cfg.model;
    if (m->positional != QKV_POS_LEARNED || m->pos_overflow != QKV_POS_OVERFLOW_ERROR)
        return QKV_OK;
    int n_longer = 0, first = qkv_dataset_first_longer(ds, m->max_len, &n_longer);
    if (first < 0)
        return QKV_OK;
    char more[64] = "";
    if (n_longer > 1)
        snprintf(more, sizeof more, " (and %d more sentences are)", n_longer - 1);
    return qkv_fail(err,
                    "%s:%d: sentence of %d words is longer than model.max_len %d%s: set model.pos_overflow: clamp%s "
                    "or raise model.max_len",
                    qkv_corpus_name(c), qkv_corpus_first_word_line(c, first), qkv_dataset_sent_len(ds, first),
                    m->max_len, more, training ? ", leave such sentences out with data.max_train_len" : "");
}

int qkv_session_name_sentence(const qkv_corpus *c, qkv_error *err)
{
    if (err->sentence < 0 || err->sentence >= c->n_sent)
        return QKV_ERR;
    qkv_fail_prefix(err, "%s:%d", qkv_corpus_name(c), qkv_corpus_first_word_line(c, err->sentence));
    err->sentence = -1;
    return QKV_ERR;
}
