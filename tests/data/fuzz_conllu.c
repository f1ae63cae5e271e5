/* libFuzzer target for the corpus reader (build and run: tests/data/fuzz.sh conllu). For every
 * input and every format: the reader returns an error or a corpus, and prints nothing; an
 * accepted input must write back byte for byte, with substituted tags too, and must go through
 * features, encoding and batching without a crash or a leak. The same input read as a
 * segmenter's training file (qkv_seg_read_mem, data/segment.h): an error names it, and the
 * gold labels decode to its tokens (and to its sentences, unless one is longer than the
 * decoder's bound). Any broken property aborts. */
#include "fuzz_common.h"

#include "data/batch.h"
#include "data/corpus.h"
#include "data/features.h"
#include "data/segment.h"
#include "data/stats.h"

#define check fuzz_check

static void write_back(const qkv_corpus *c, const char *const *tags, const uint8_t *data, size_t size)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    check(f != NULL, "open_memstream");
    qkv_error err;
    check(qkv_corpus_write(c, f, tags, &err) == QKV_OK, "write");
    fclose(f);
    if (!tags)
        check(len == size && (size == 0 || memcmp(buf, data, size) == 0), "byte-for-byte round trip");
    free(buf);
}

static void exercise(const qkv_corpus *c, const uint8_t *data, size_t size)
{
    write_back(c, NULL, data, size);
    const char **tags = malloc(((size_t)c->n_words + 1) * sizeof *tags);
    check(tags != NULL, "malloc");
    for (int w = 0; w < c->n_words; w++)
        tags[w] = w % 2 ? "NOUN" : NULL;
    write_back(c, tags, data, size);
    free(tags);

    qkv_error err;
    qkv_feature_config cfg = {1, 1, 3, 3, 1, 1, 1, 1, 1, 1, 0, {QKV_TAG_UPOS}};
    qkv_featurizer fz;
    int untagged = 0;
    for (int w = 0; w < c->n_words; w++)
        untagged += qkv_corpus_untagged(c, w);
    if (c->n_words > 0 && untagged == c->n_words) { /* no tag at all: an error naming the column */
        check(qkv_featurizer_build(&fz, &cfg, c, &err) == QKV_ERR && strstr(err.msg, c->tag_column),
              "a training file without tags is refused");
        return;
    }
    check(qkv_featurizer_build(&fz, &cfg, c, &err) == QKV_OK, "featurizer");
    qkv_dataset ds;
    qkv_warnings warnings = {0};
    check(qkv_dataset_encode(&ds, &fz, c, &warnings, &err) == QKV_OK, "encode");
    check(ds.n_unknown_tags == 0 && ds.n_untagged == untagged && warnings.n == (untagged > 0),
          "no unseen tag in the training file itself; untagged words counted, one warning");
    qkv_rng rng;
    qkv_rng_seed(&rng, size);
    qkv_batch_plan plan;
    check(qkv_batch_plan_make(&plan, &ds, 5, &rng, &err) == QKV_OK, "plan");
    int ms, mt;
    qkv_batch_max_size(&ds, 5, &ms, &mt);
    qkv_batch b;
    check(qkv_batch_alloc(&b, ds.n_features, ds.chars != NULL, ms, mt, &err) == QKV_OK, "batch alloc");
    int64_t words = 0;
    for (int i = 0; i < plan.n_batches; i++) {
        check(qkv_batch_fill(&b, &ds, &plan, i, &err) == QKV_OK, "fill");
        words += b.n_tokens;
    }
    check(words == c->n_words, "every word in one batch");
    qkv_batch_free(&b);
    qkv_batch_plan_free(&plan);
    qkv_warnings_free(&warnings);
    qkv_dataset_free(&ds);
    qkv_featurizer_free(&fz);
    qkv_corpus_stats st;
    check(qkv_corpus_stats_compute(&st, c, c, &err) == QKV_OK, "stats");
    check(st.unknown_words == 0, "no unknown words against itself");
    qkv_corpus_stats_free(&st);
}

static void segmenter_file(const uint8_t *data, size_t size)
{
    qkv_seg_text st;
    qkv_error err;
    fuzz_output mark = fuzz_output_mark();
    int status = qkv_seg_read_mem(&st, (const char *)data, size, "fuzz", &err);
    fuzz_output_check(mark);
    if (status) {
        check(strncmp(err.msg, "fuzz:", 5) == 0, "an error names the input");
        return;
    }
    qkv_segmentation seg = {0};
    for (int p = 0; p < st.n_par; p++)
        check(qkv_seg_decode(&st, p, NULL, &seg, &err) == QKV_OK, "the gold labels decode");
    check(seg.n_tokens == st.n_tokens, "the gold labels give back every token");
    check(st.n_words > QKV_SEG_MAX_SENTENCE_WORDS || seg.n_sent == st.n_sent, "and every sentence");
    qkv_segmentation_free(&seg);
    qkv_seg_free(&st);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static const qkv_read_opts OPTS[] = {
        {QKV_FORMAT_AUTO, QKV_TAG_UPOS, 0, QKV_TAG_SCHEME_NONE, 0, {QKV_TAG_UPOS}},
        {QKV_FORMAT_CONLLU, QKV_TAG_XPOS, 0, QKV_TAG_SCHEME_NONE, 0, {QKV_TAG_XPOS}},
        {QKV_FORMAT_COLUMNS, QKV_TAG_UPOS, 0, QKV_TAG_SCHEME_NONE, 0, {QKV_TAG_UPOS}},
        {QKV_FORMAT_COLUMNS, QKV_TAG_UPOS, 2, QKV_TAG_SCHEME_NONE, 0, {QKV_TAG_UPOS}},
    };
    for (size_t k = 0; k < sizeof OPTS / sizeof OPTS[0]; k++) {
        qkv_corpus c;
        qkv_error err;
        err.msg[0] = '\0';
        fuzz_output mark = fuzz_output_mark();
        int status = qkv_corpus_read_mem(&c, (const char *)data, size, "fuzz", &OPTS[k], &err);
        fuzz_output_check(mark);
        if (status == QKV_OK) {
            exercise(&c, data, size);
            qkv_corpus_free(&c);
        } else {
            check(strncmp(err.msg, "fuzz:", 5) == 0, "an error names the input");
            check(c.n_words == 0 && c.text == NULL, "a failed read leaves an empty corpus");
        }
    }
    segmenter_file(data, size);
    return 0;
}
