#include "api/session.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "api/task.h"

void qkv_session_init(qkv_session *s) { memset(s, 0, sizeof *s); }

void qkv_session_free(qkv_session *s)
{
    if (s->model_ready)
        qkv_network_free(&s->model);
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
    qkv_lemma_lexicon_free(&s->lemma_lexicon);
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

const qkv_task_desc *qkv_session_task(const qkv_session *s) { return QKV_TASK_DESCS[qkv_task_of(&s->cfg)]; }

int qkv_session_data(qkv_session *s, bool load_train, qkv_error *err)
{
    return qkv_session_task(s)->data(s, load_train, err);
}

int qkv_session_read_scored(qkv_session *s, const char *path, qkv_error *err)
{
    return qkv_session_task(s)->read_scored(s, path, err);
}

/* Heads 1.. of the config's tag columns (api/run_config.h: qkv_heads_section), softmax heads
 * named "<column>."; head 0's loss weight; the parser's tag inputs (model.parser_tag_inputs). */
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
        if (qkv_network_add_head(&s->model, &spec, rng, err))
            return QKV_ERR;
    }
    for (int k = 0; k < h->n_tag_inputs; k++) /* after the heads they read (models/network.h) */
        if (qkv_network_add_tag_input(&s->model, h->tag_input[k], rng, err))
            return QKV_ERR;
    return QKV_OK;
}

/* The network of the config; rng NULL: parameters allocated, not drawn (lib/param.h); at most
 * max_values parameter values (0: no bound). */
static int build_model(qkv_session *s, qkv_rng *rng, size_t max_values, qkv_error *err)
{
    qkv_network_config tc = s->cfg.model; /* as configured, with the sizes that come from the data */
    tc.max_param_values = max_values;
    tc.n_features = qkv_featurizer_n_features(&s->fz);
    if (tc.n_features > QKV_NETWORK_MAX_FEATURES)
        return qkv_fail(err, "%d feature kinds, at most %d", tc.n_features, QKV_NETWORK_MAX_FEATURES);
    for (int f = 0; f < tc.n_features; f++) {
        tc.feature_names[f] = qkv_featurizer_name(&s->fz, f);
        tc.vocab_sizes[f] = qkv_featurizer_vocab_size(&s->fz, f);
    }
    tc.n_tags = qkv_featurizer_n_tags(&s->fz);
    tc.chars.n_chars = qkv_featurizer_n_chars(&s->fz);
    const qkv_task_desc *task = qkv_session_task(s);
    if (task->model_sizes && task->model_sizes(s, &tc, err))
        return QKV_ERR;
    const char **tag_names = malloc((size_t)(tc.n_tags > 0 ? tc.n_tags : 1) * sizeof *tag_names);
    if (!tag_names)
        return qkv_fail(err, "out of memory for %d tag names", tc.n_tags);
    for (int t = 0; t < tc.n_tags; t++)
        tag_names[t] = qkv_featurizer_tag(&s->fz, t);
    tc.tag_names = tag_names;
    int status = qkv_network_init(&s->model, &tc, rng, err);
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
    return build_model(s, &rng, 0, err);
}

int qkv_session_model_to_load(qkv_session *s, size_t max_values, qkv_error *err)
{
    return build_model(s, NULL, max_values, err);
}

int qkv_session_check_gold(qkv_session *s, const qkv_corpus *c, qkv_dataset *ds, bool training, qkv_error *err)
{
    qkv_tag_scheme own; /* a file's span tags are in one scheme: BIOES's chunk ends or BIO's */
    if (qkv_corpus_warn_stray_tags(c, &s->warnings, err) || qkv_corpus_own_scheme(c, &own, err))
        return QKV_ERR;
    if (s->cfg.model.output == QKV_OUTPUT_BIAFFINE) { /* a parser's gold trees */
        if (qkv_corpus_check_trees(c, err))
            return QKV_ERR;
        if (qkv_corpus_n_heads(c) == 0)
            return qkv_fail(err, "%s: no word has a HEAD (field 7): nothing to %s the parser on", qkv_corpus_name(c),
                            training ? "train" : "score");
        /* scores count every word, as the CoNLL 2018 scorer does, which refuses a HEAD "_": qkv's
           UAS and LAS and the CoNLL 2018 line score the same words, all of them */
        for (int w = 0; !training && w < c->n_words; w++)
            if (c->heads[w] < 0 || ds->tags[w] == QKV_TAG_NONE)
                return qkv_fail(err, "%s:%d: %s is _: every word of a file a parser is scored on needs "
                                "its HEAD and DEPREL (UAS and LAS count every word, as the CoNLL 2018 scorer does)",
                                qkv_corpus_name(c), c->word_line[w],
                                c->heads[w] < 0 ? "HEAD (field 7)" : "DEPREL (field 8)");
    }
    if (s->cfg.model.output != QKV_OUTPUT_CRF || !s->cfg.model.crf_constrained)
        return QKV_OK;
    return qkv_dataset_repair_spans(ds, &s->fz, c, training, &s->warnings, err);
}

int qkv_session_check_lengths(const qkv_session *s, const qkv_corpus *c, const qkv_dataset *ds, bool training,
                              qkv_error *err)
{
    const qkv_network_config *m = &s->cfg.model;
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
