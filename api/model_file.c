/* Model files: what a checkpoint and an export share (api/model_file.h). */
#include "api/model_file.h"
#include "api/task.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "api/lemma_lexicon.h"
#include "api/tag_pairs.h"

/* Every vocabulary of fz (data/features.h: qkv_featurizer_vocab) as GROUP/vocab/<name>, after
 * the kinds' names as GROUP/vocab/features. */
static int save_vocab(qkv_store_writer *w, const char *group, const qkv_featurizer *fz, qkv_error *err)
{
    int n = qkv_featurizer_n_features(fz);
    const char *names[QKV_MAX_FEATURES];
    for (int f = 0; f < n; f++)
        names[f] = qkv_featurizer_name(fz, f);
    char path[128];
    snprintf(path, sizeof path, "%s/vocab/features", group);
    if (qkv_store_write_strings(w, path, (size_t)n, names, err))
        return QKV_ERR;
    for (int v = 0; v < qkv_featurizer_n_vocabs(fz); v++) {
        const qkv_vocab *vocab = qkv_featurizer_vocab(fz, v);
        const char **strings = malloc((size_t)(qkv_vocab_size(vocab) ? qkv_vocab_size(vocab) : 1) * sizeof *strings);
        if (!strings)
            return qkv_fail(err, "out of memory");
        snprintf(path, sizeof path, "%s/vocab/%s", group, qkv_featurizer_vocab_name(fz, v));
        int count = qkv_vocab_strings(vocab, strings);
        int st = qkv_store_write_strings(w, path, (size_t)count, strings, err);
        free(strings);
        if (st)
            return QKV_ERR;
    }
    return QKV_OK;
}

/* A segmenter's lexicon (data/seg_lexicon.h) as GROUP/lexicon/chunks and GROUP/lexicon/segs;
 * nothing for an empty one. */
static int save_lexicon(qkv_store_writer *w, const char *group, const qkv_seg_lexicon *lx, qkv_error *err)
{
    char path[128];
    if (lx->n_abbrevs > 0) {
        snprintf(path, sizeof path, "%s/lexicon/abbrevs", group);
        if (qkv_store_write_strings(w, path, lx->n_abbrevs, lx->abbrevs, err))
            return QKV_ERR;
    }
    if (lx->n == 0)
        return QKV_OK;
    snprintf(path, sizeof path, "%s/lexicon/chunks", group);
    if (qkv_store_write_strings(w, path, lx->n, lx->chunks, err))
        return QKV_ERR;
    snprintf(path, sizeof path, "%s/lexicon/segs", group);
    return qkv_store_write_strings(w, path, lx->n, lx->segs, err);
}

/* GROUP/lexicon/abbrevs of the file (when it has them: files made before they were kept have
 * none) into s->seg_lexicon. */
static int load_abbrevs(const qkv_store_reader *r, const char *group, qkv_session *s, qkv_error *err)
{
    char path[128];
    snprintf(path, sizeof path, "%s/lexicon/abbrevs", group);
    if (!qkv_store_has(r, path))
        return QKV_OK;
    char **abbrevs = NULL;
    size_t n = 0;
    int status = qkv_store_read_strings(r, path, &n, &abbrevs, err);
    if (status == QKV_OK)
        status = qkv_seg_lexicon_set_abbrevs(&s->seg_lexicon, n, (const char *const *)abbrevs, err);
    free(abbrevs); /* one allocation, see lib/io/store.h */
    return status;
}

/* GROUP/lexicon of the file (when it has one) into s->seg_lexicon; where names it in messages. */
static int load_lexicon(const qkv_store_reader *r, const char *where, const char *group, qkv_session *s,
                        qkv_error *err)
{
    char chunks_path[128], segs_path[128];
    snprintf(chunks_path, sizeof chunks_path, "%s/lexicon/chunks", group);
    snprintf(segs_path, sizeof segs_path, "%s/lexicon/segs", group);
    qkv_seg_lexicon_free(&s->seg_lexicon);
    if (!qkv_store_has(r, chunks_path) && !qkv_store_has(r, segs_path)) {
        if (load_abbrevs(r, group, s, err) == QKV_OK)
            return QKV_OK;
        qkv_fail_prefix(err, "%s: %s/lexicon", where, group);
        return QKV_ERR;
    }
    char **chunks = NULL, **segs = NULL;
    size_t n_chunks = 0, n_segs = 0;
    int status = qkv_store_read_strings(r, chunks_path, &n_chunks, &chunks, err);
    if (status == QKV_OK)
        status = qkv_store_read_strings(r, segs_path, &n_segs, &segs, err);
    if (status == QKV_OK && n_chunks != n_segs)
        status = qkv_fail(err, "%zu chunks but %zu segmentations", n_chunks, n_segs);
    if (status == QKV_OK)
        status = qkv_seg_lexicon_set(&s->seg_lexicon, n_chunks, (const char *const *)chunks,
                                     (const char *const *)segs, err);
    free(chunks); /* one allocation each, see lib/io/store.h */
    free(segs);
    if (status == QKV_OK)
        status = load_abbrevs(r, group, s, err);
    if (status)
        qkv_fail_prefix(err, "%s: %s/lexicon", where, group);
    return status;
}

/* The UPOS/XPOS pairs of s (api/tag_pairs.h) as GROUP/tag_pairs/upos_xpos; nothing without them. */
static int save_tag_pairs(qkv_store_writer *w, const char *group, const qkv_session *s, qkv_error *err)
{
    size_t n;
    char **pairs, path[128];
    if (qkv_tag_pairs_strings(s, &n, &pairs, err))
        return QKV_ERR;
    snprintf(path, sizeof path, "%s/tag_pairs/upos_xpos", group);
    int status = n ? qkv_store_write_strings(w, path, n, (const char *const *)pairs, err) : QKV_OK;
    free(pairs);
    return status;
}

/* GROUP/tag_pairs/upos_xpos of the file (when it has them) into s; where names it in messages. */
static int load_tag_pairs(const qkv_store_reader *r, const char *where, const char *group, qkv_session *s,
                          qkv_error *err)
{
    char path[128];
    snprintf(path, sizeof path, "%s/tag_pairs/upos_xpos", group);
    free(s->tag_pairs.allowed);
    s->tag_pairs.allowed = NULL;
    if (!qkv_store_has(r, path))
        return QKV_OK;
    char **pairs = NULL;
    size_t n = 0;
    int status = qkv_store_read_strings(r, path, &n, &pairs, err);
    if (status == QKV_OK)
        status = qkv_tag_pairs_set(s, n, (const char *const *)pairs, err);
    free(pairs); /* one allocation, see lib/io/store.h */
    if (status)
        qkv_fail_prefix(err, "%s: %s", where, path);
    return status;
}

/* The model of s under group ("": the file's root), with config_text as its config. */
static int write_group(qkv_store_writer *w, const char *group, const qkv_session *s, const char *config_text,
                       qkv_error *err)
{
    char params[64], config[64];
    snprintf(params, sizeof params, "%s/params", group);
    snprintf(config, sizeof config, "%s/config", group);
    if (qkv_store_write_params(w, params, qkv_network_params(&s->model), err) || save_vocab(w, group, &s->fz, err) ||
        save_lexicon(w, group, &s->seg_lexicon, err) || save_tag_pairs(w, group, s, err) ||
        qkv_lemma_lexicon_save(w, group, s, err))
        return QKV_ERR;
    return qkv_store_write_text(w, config, config_text, err);
}

int qkv_model_file_write(qkv_store_writer *w, const qkv_session *s, qkv_error *err)
{
    return write_group(w, "", s, s->config_text, err);
}

int qkv_model_file_write_segmenter(qkv_store_writer *w, const qkv_session *segmenter, qkv_error *err)
{
    return write_group(w, QKV_SEGMENTER_GROUP, segmenter, segmenter->config_text, err);
}

/* The config of s as an export stores it: every PATH value (data.train, data.dev, ...) reduced to
 * its file's name, so that a shipped model holds no folder of the machine that trained it. */
static int export_config(const qkv_session *s, char **text, qkv_error *err)
{
    qkv_run_config cfg = s->cfg;
    for (int k = 0; k < QKV_RUN_SCHEMA_LEN; k++) {
        if (QKV_RUN_SCHEMA[k].type != QKV_CFG_PATH)
            continue;
        char *value = (char *)&cfg + QKV_RUN_SCHEMA[k].offset;
        const char *slash = strrchr(value, '/');
        if (slash)
            memmove(value, slash + 1, strlen(slash + 1) + 1);
    }
    return qkv_config_dump(QKV_RUN_SCHEMA, QKV_RUN_SCHEMA_LEN, &cfg, text, err);
}

/* The model of s under group with the config an export stores. */
static int write_export_group(qkv_store_writer *w, const char *group, const qkv_session *s, qkv_error *err)
{
    char *text = NULL;
    if (export_config(s, &text, err))
        return QKV_ERR;
    int status = write_group(w, group, s, text, err);
    free(text);
    return status;
}

int qkv_model_file_export(const char *path, const qkv_session *s, const qkv_session *segmenter, bool float16,
                          qkv_error *err)
{
    qkv_store_writer *w;
    if (qkv_store_create(path, &w, err))
        return QKV_ERR;
    qkv_store_set_float16(w, float16);
    if (write_export_group(w, "", s, err) ||
        (segmenter && write_export_group(w, QKV_SEGMENTER_GROUP, segmenter, err))) {
        qkv_store_abort(w);
        return QKV_ERR;
    }
    return qkv_store_commit(w, err);
}

/* The featurizer of the session's config with the vocabularies of the file's group ("": its
 * root); path names the file (and group) in messages. */
static int load_vocab(const qkv_store_reader *r, const char *path, const char *group, qkv_session *s,
                      qkv_error *err)
{
    if (qkv_featurizer_init(&s->fz, &s->cfg.data.features, err))
        return QKV_ERR;
    s->fz_ready = true;
    char **names = NULL;
    size_t n_names = 0;
    char dataset[128];
    snprintf(dataset, sizeof dataset, "%s/vocab/features", group);
    if (qkv_store_read_strings(r, dataset, &n_names, &names, err))
        return QKV_ERR;
    int status = QKV_OK, n_kinds = qkv_featurizer_n_features(&s->fz);
    if ((int)n_names != n_kinds)
        status = qkv_fail(err, "%s: %s lists %zu feature kinds, the config gives %d", path, dataset, n_names,
                          n_kinds);
    for (int v = 0; status == QKV_OK && v < qkv_featurizer_n_vocabs(&s->fz); v++) {
        const char *name = qkv_featurizer_vocab_name(&s->fz, v);
        if (v < n_kinds && strcmp(names[v], name) != 0) {
            status = qkv_fail(err, "%s: feature kind %d is '%s', the config gives '%s'", path, v, names[v], name);
            break;
        }
        snprintf(dataset, sizeof dataset, "%s/vocab/%s", group, name);
        if (v > n_kinds && !qkv_store_has(r, dataset)) {
            status = qkv_fail(err, "%s has no character vocabulary (/vocab/chars): it was trained without the "
                                   "character encoder, but model.char_dim is %d", path, s->cfg.model.chars.char_dim);
            break;
        }
        char **strings = NULL;
        size_t n = 0;
        status = qkv_store_read_strings(r, dataset, &n, &strings, err);
        if (status == QKV_OK)
            status = qkv_featurizer_set_strings(&s->fz, v, (const char *const *)strings, (int)n, err);
        free(strings); /* one allocation, see lib/io/store.h */
        if (status)
            qkv_fail_prefix(err, "%s: %s", path, dataset);
    }
    free(names);
    return status;
}

int qkv_checkpoint_load_vocab(const char *path, qkv_session *s, qkv_error *err)
{
    qkv_store_reader *r;
    if (qkv_store_open(path, &r, err))
        return QKV_ERR;
    int status = load_vocab(r, path, "", s, err);
    qkv_store_close(r);
    return status;
}

int qkv_checkpoint_load_model(const char *path, qkv_session *s, qkv_error *err)
{
    return qkv_model_file_load(path, NULL, s, err);
}

bool qkv_model_file_has(const char *path, const char *group)
{
    qkv_store_reader *r;
    qkv_error err;
    if (qkv_store_open(path, &r, &err))
        return false;
    char config[64];
    snprintf(config, sizeof config, "%s/config", group);
    bool has = qkv_store_has(r, config);
    qkv_store_close(r);
    return has;
}

/* The model of the session's config, filled from the file's group params (where names the file
 * in messages). The model may have no more values than that group stores: a config cannot make
 * its reader allocate more than the file's parameters could fill (a 20 KB file declaring a
 * 64-layer model of width 4096 is refused at its first parameter past the bound). */
static int load_params(const qkv_store_reader *r, const char *where, const char *params, qkv_session *s,
                       qkv_error *err)
{
    size_t stored;
    if (qkv_store_count_values(r, params, &stored, err))
        return QKV_ERR;
    if (stored == 0)
        return qkv_fail(err, "%s: %s holds no parameters", where, params);
    if (qkv_session_model_to_load(s, stored, err))
        return qkv_fail_prefix(err, "%s: the model of its config (%s holds %zu values)", where, params, stored);
    if (qkv_store_read_params(r, params, qkv_network_params(&s->model), err))
        return qkv_fail_prefix(err, "%s", where);
    return QKV_OK;
}

int qkv_model_file_load(const char *path, const char *group, qkv_session *s, qkv_error *err)
{
    if (!group)
        group = "";
    qkv_store_reader *r;
    if (qkv_store_open(path, &r, err))
        return QKV_ERR;
    char *text = NULL, config[64], params[64], where[4200];
    snprintf(config, sizeof config, "%s/config", group);
    snprintf(params, sizeof params, "%s/params", group);
    snprintf(where, sizeof where, "%s%s%s", path, group[0] ? ":" : "", group);
    int status = qkv_store_read_text(r, config, &text, err);
    if (status == QKV_OK) {
        char name[4300];
        snprintf(name, sizeof name, "%s:%s", path, config);
        status = qkv_run_config_parse(text, name, &s->cfg, err);
    }
    if (status == QKV_OK) {
        free(s->config_text);
        s->config_text = text;
        text = NULL;
        status = load_vocab(r, where, group, s, err);
    }
    if (status == QKV_OK)
        status = load_lexicon(r, where, group, s, err);
    if (status == QKV_OK)
        status = load_tag_pairs(r, where, group, s, err);
    if (status == QKV_OK)
        status = qkv_lemma_lexicon_load(r, where, group, s, err);
    if (status == QKV_OK && qkv_session_task(s)->load_state)
        status = qkv_session_task(s)->load_state(s, r, params, err);
    if (status == QKV_OK)
        status = load_params(r, where, params, s, err);
    free(text);
    qkv_store_close(r);
    return status;
}

