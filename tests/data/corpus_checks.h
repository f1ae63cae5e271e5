/* Checks on corpora shared by the data tests (header only; include after testutil.h): reading
 * with the message on failure, the byte-for-byte write-back, and the properties of an epoch's
 * batch plan. Used on the tiny files, on the committed UD sample and on the whole EWT. */
#ifndef QKV_TESTS_CORPUS_CHECKS_H
#define QKV_TESTS_CORPUS_CHECKS_H

#include "data/batch.h"
#include "data/corpus.h"
#include "data/dataset.h"
#include "data/features.h"

/* The sample committed in the repository (data/make-ewt-sample.sh cuts it from EWT). */
#define EWT_SAMPLE_TRAIN "data/ud_english_ewt_sample/en_ewt-sample-train.conllu.gz"
#define EWT_SAMPLE_DEV "data/ud_english_ewt_sample/en_ewt-sample-dev.conllu.gz"

/* All the bytes of a stream (NUL-terminated; the caller frees them). */
static inline char *stream_bytes(FILE *f, size_t *len)
{
    char *buf = NULL;
    FILE *mem = open_memstream(&buf, len);
    assert_non_null(mem);
    char chunk[1 << 14];
    size_t got;
    while ((got = fread(chunk, 1, sizeof chunk, f)) > 0)
        assert_int_equal(fwrite(chunk, 1, got, mem), got);
    assert_int_equal(ferror(f), 0);
    assert_int_equal(fclose(mem), 0);
    return buf;
}

/* The text of a gzip file as the gzip program decompresses it (not zlib through qkv). */
static inline char *gzip_dc(const char *path, size_t *len)
{
    char cmd[4200];
    snprintf(cmd, sizeof cmd, "gzip -dc '%s'", path);
    FILE *p = popen(cmd, "r");
    assert_non_null(p);
    char *text = stream_bytes(p, len);
    assert_int_equal(pclose(p), 0);
    return text;
}

static inline qkv_corpus read_ok(const char *path, const qkv_read_opts *opts)
{
    qkv_corpus c;
    qkv_error err = {0};
    if (qkv_corpus_read(&c, path, opts, &err) != QKV_OK)
        fail_msg("%s", err.msg);
    return c;
}

static inline void assert_counts(const qkv_corpus *c, int sentences, int words, int multiword, int empty_nodes)
{
    assert_int_equal(c->n_sent, sentences);
    assert_int_equal(c->n_words, words);
    assert_int_equal(c->n_multiword, multiword);
    assert_int_equal(c->n_empty_nodes, empty_nodes);
}

/* Writes c back (with tags, may be NULL) and compares with the file's bytes. */
static inline void assert_round_trip(const qkv_corpus *c, const char *const *tags, const char *expected,
                                     size_t expected_len)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    assert_non_null(f);
    qkv_error err = {0};
    if (qkv_corpus_write(c, f, tags, &err) != QKV_OK)
        fail_msg("%s", err.msg);
    fclose(f);
    assert_int_equal(len, expected_len);
    assert_memory_equal(buf, expected, len);
    free(buf);
}

/* The round trip with no tags substituted, then with each word's own gold tag substituted as
 * a new string: both must give the expected bytes. */
static inline void assert_round_trip_own_tags(const qkv_corpus *c, const char *expected, size_t expected_len)
{
    assert_round_trip(c, NULL, expected, expected_len);
    char **tags = malloc((size_t)(c->n_words ? c->n_words : 1) * sizeof *tags);
    assert_non_null(tags);
    for (int w = 0; w < c->n_words; w++)
        tags[w] = strndup(c->text + c->tags[w].off, c->tags[w].len);
    assert_round_trip(c, (const char *const *)tags, expected, expected_len);
    for (int w = 0; w < c->n_words; w++)
        free(tags[w]);
    free(tags);
}

/* Every sentence with words exactly once, no empty batch, each batch within the budget
 * unless it is one sentence longer than the budget. */
static inline void check_plan(const qkv_dataset *ds, const qkv_batch_plan *p, int budget)
{
    int *seen = calloc((size_t)ds->n_sent, sizeof *seen);
    int64_t tokens = 0;
    assert_int_equal(p->start[0], 0);
    assert_int_equal(p->start[p->n_batches], ds->n_nonempty);
    for (int b = 0; b < p->n_batches; b++) {
        int t = 0;
        assert_true(p->start[b + 1] > p->start[b]);
        for (int i = p->start[b]; i < p->start[b + 1]; i++) {
            int s = p->order[i];
            int len = ds->sent_start[s + 1] - ds->sent_start[s];
            assert_true(len > 0);
            seen[s]++;
            t += len;
        }
        /* within the budget, unless one sentence longer than the budget is alone */
        assert_true(t <= budget || p->start[b + 1] - p->start[b] == 1);
        assert_true(t <= p->max_tokens);
        tokens += t;
    }
    for (int s = 0; s < ds->n_sent; s++)
        assert_int_equal(seen[s], ds->sent_start[s + 1] > ds->sent_start[s] ? 1 : 0);
    assert_int_equal(tokens, ds->n_words);
    assert_int_equal(p->n_tokens, ds->n_words);
    free(seen);
}

/* One epoch of the training file at path in batches of 2000 tokens: the sentences with words
 * and the words, each exactly once. */
static inline void check_epoch(const char *path, int sentences, int words)
{
    qkv_corpus c = read_ok(path, NULL);
    qkv_error err = {0};
    qkv_feature_config cfg = QKV_FEATURE_DEFAULTS;
    qkv_featurizer fz;
    assert_int_equal(qkv_featurizer_build(&fz, &cfg, &c, &err), QKV_OK);
    qkv_dataset ds;
    assert_int_equal(qkv_dataset_encode(&ds, &fz, &c, NULL, &err), QKV_OK);
    assert_int_equal(ds.n_nonempty, sentences);
    qkv_rng rng;
    qkv_rng_seed(&rng, 1);
    qkv_batch_plan p;
    assert_int_equal(qkv_batch_plan_make(&p, &ds, 2000, &rng, &err), QKV_OK);
    check_plan(&ds, &p, 2000);
    assert_int_equal(p.n_tokens, words);
    qkv_batch_plan_free(&p);
    qkv_dataset_free(&ds);
    qkv_featurizer_free(&fz);
    qkv_corpus_free(&c);
}

/* The default features built on a UD English training file and used on its dev file: the 17
 * UPOS tags, no unseen tag, dev_words words, some but under a fifth unknown. */
static inline void check_featurizer(const char *train_path, const char *dev_path, int dev_words)
{
    qkv_corpus train = read_ok(train_path, NULL), dev = read_ok(dev_path, NULL);
    qkv_error err = {0};
    qkv_feature_config cfg = QKV_FEATURE_DEFAULTS;
    qkv_featurizer fz;
    assert_int_equal(qkv_featurizer_build(&fz, &cfg, &train, &err), QKV_OK);
    assert_int_equal(qkv_featurizer_n_tags(&fz), 17);
    assert_string_equal(qkv_featurizer_name(&fz, 0), "word");
    assert_string_equal(qkv_featurizer_name(&fz, 4), "shape");
    qkv_dataset ds;
    qkv_warnings w = {0};
    assert_int_equal(qkv_dataset_encode(&ds, &fz, &dev, &w, &err), QKV_OK);
    assert_int_equal(w.n, 0);
    assert_int_equal(ds.n_unknown_tags, 0);
    assert_int_equal(ds.n_words, dev_words);
    int unk = 0;
    for (int i = 0; i < ds.n_words; i++)
        unk += ds.features[0][i] == 0;
    assert_true(unk > 0 && unk < ds.n_words / 5);
    qkv_dataset_free(&ds);
    qkv_warnings_free(&w);
    qkv_featurizer_free(&fz);
    qkv_corpus_free(&train);
    qkv_corpus_free(&dev);
}

#endif
