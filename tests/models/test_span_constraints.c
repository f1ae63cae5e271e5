/* Gold sequences and the CRF's constraints: qkv_tags_forbidden (data/spans.h) agrees with the
 * mask qkv_bio_allowed builds from the same tag names (models/crf_head.h) on every sequence of
 * up to four tags, in BIO and in BIOES; qkv_dataset_repair_spans rewrites exactly the forbidden
 * sentences for the loss, into sequences the mask allows, keeps the gold tags evaluation scores,
 * and warns once with the file, the line of the first and the count. */
#include "testutil.h"

#include <string.h>

#include "data/dataset.h"
#include "data/spans.h"
#include "models/crf_head.h"

enum { MAX_NAMES = 9, MAX_LEN = 4 };

/* Whether the mask of names allows the sequence seq of n tag indices. */
static bool mask_allows(const bool *trans, const bool *start, const bool *end, int k, const int *seq, int n)
{
    if (!start[seq[0]] || !end[seq[n - 1]])
        return false;
    for (int i = 1; i < n; i++)
        if (!trans[seq[i - 1] * k + seq[i]])
            return false;
    return true;
}

static void check_agreement(const char *const *names, int k, int bioes)
{
    bool trans[MAX_NAMES * MAX_NAMES], start[MAX_NAMES], end[MAX_NAMES];
    qkv_bio_allowed(names, k, trans, start, end);
    int n_allowed = 0, n_seqs = 0;
    for (int n = 1; n <= MAX_LEN; n++) {
        int total = 1;
        for (int i = 0; i < n; i++)
            total *= k;
        for (int code = 0; code < total; code++) {
            int seq[MAX_LEN];
            qkv_tag_part parts[MAX_LEN];
            for (int i = 0, c = code; i < n; i++, c /= k) {
                seq[i] = c % k;
                parts[i] = qkv_tag_split(names[seq[i]], strlen(names[seq[i]]));
            }
            bool allowed = mask_allows(trans, start, end, k, seq, n);
            int at = qkv_tags_forbidden(parts, n, bioes);
            if (allowed != (at < 0)) {
                char text[128] = "";
                for (int i = 0; i < n; i++)
                    snprintf(text + strlen(text), sizeof text - strlen(text), " %s", names[seq[i]]);
                fail_msg("%s: mask %s, qkv_tags_forbidden %d", text, allowed ? "allows" : "forbids", at);
            }
            assert_true(at < n);
            n_allowed += allowed;
            n_seqs++;
        }
    }
    assert_true(n_allowed > 0 && n_allowed < n_seqs); /* both kinds were tried */
}

static void test_forbidden_matches_mask_bio(void **state)
{
    (void)state;
    static const char *const names[] = {"O", "B-a", "I-a", "B-bb", "I-bb", "NN"};
    check_agreement(names, 6, 0);
}

static void test_forbidden_matches_mask_bioes(void **state)
{
    (void)state;
    static const char *const names[] = {"O", "B-a", "I-a", "E-a", "S-a", "B-b", "I-b", "E-b", "S-b"};
    check_agreement(names, 9, 1);
}

static const char CORPUS[] = "Ann\tB-per\nsays\tO\nLima\tB-loc\n\n" /* well-formed */
                             "to\tO\nRome\tI-loc\n.\tO\n\n"        /* I- after O: line 6 */
                             "Bob\tB-per\nOslo\tI-loc\n\n"         /* I- after another type */
                             "Eli\tI-per\nFay\tI-per\n";          /* I- first */

static void test_repair(void **state)
{
    (void)state;
    qkv_error err;
    qkv_corpus c;
    qkv_read_opts opts = QKV_READ_DEFAULTS;
    opts.format = QKV_FORMAT_COLUMNS;
    assert_int_equal(qkv_corpus_read_mem(&c, CORPUS, strlen(CORPUS), "ner.tsv", &opts, &err), QKV_OK);
    qkv_featurizer fz;
    qkv_feature_config fc = QKV_FEATURE_DEFAULTS;
    assert_int_equal(qkv_featurizer_build(&fz, &fc, &c, &err), QKV_OK);
    qkv_dataset ds;
    qkv_warnings w = {0};
    assert_int_equal(qkv_dataset_encode(&ds, &fz, &c, NULL, &err), QKV_OK);
    int32_t gold[16];
    memcpy(gold, ds.tags, (size_t)ds.n_words * sizeof *gold);
    assert_int_equal(qkv_dataset_repair_spans(&ds, &fz, &c, 1, &w, &err), QKV_OK);
    assert_non_null(ds.loss_tags);
    assert_memory_equal(ds.tags, gold, (size_t)ds.n_words * sizeof *gold); /* what is scored */
    static const char *const want[] = {"B-per", "O", "B-loc", "O", "B-loc", "O", "B-per", "B-loc", "B-per", "I-per"};
    assert_int_equal(ds.n_words, 10);
    for (int i = 0; i < ds.n_words; i++) {
        assert_true(ds.loss_tags[i] >= 0);
        assert_string_equal(qkv_featurizer_tag(&fz, ds.loss_tags[i]), want[i]);
    }
    assert_int_equal(w.n, 1);
    assert_non_null(strstr(w.msgs[0], "ner.tsv:6: 3 sentences have a tag sequence model.crf_constrained forbids"));
    qkv_warnings_free(&w);
    qkv_dataset_free(&ds);
    /* a well-formed file: nothing to repair, no warning */
    qkv_corpus ok;
    assert_int_equal(qkv_corpus_read_mem(&ok, CORPUS, (size_t)(strstr(CORPUS, "\n\n") + 2 - CORPUS), "ok.tsv", &opts, &err), QKV_OK);
    assert_int_equal(qkv_dataset_encode(&ds, &fz, &ok, NULL, &err), QKV_OK);
    assert_int_equal(qkv_dataset_repair_spans(&ds, &fz, &ok, 0, &w, &err), QKV_OK);
    assert_null(ds.loss_tags);
    assert_int_equal(w.n, 0);
    qkv_dataset_free(&ds);
    qkv_corpus_free(&ok);
    qkv_featurizer_free(&fz);
    qkv_corpus_free(&c);
}

/* A file whose I-zz never follows B-zz: the model has no B-zz, so the sentences are left out of
 * the loss (no loss tag), not given a tag sequence the constraints still forbid. */
static void test_repair_unknown_tag(void **state)
{
    (void)state;
    static const char text[] = "to\tO\nX\tI-zz\n\nA\tB-per\n\n";
    qkv_error err;
    qkv_corpus c;
    qkv_read_opts opts = QKV_READ_DEFAULTS;
    opts.format = QKV_FORMAT_COLUMNS;
    assert_int_equal(qkv_corpus_read_mem(&c, text, strlen(text), "zz.tsv", &opts, &err), QKV_OK);
    qkv_featurizer fz;
    qkv_feature_config fc = QKV_FEATURE_DEFAULTS;
    assert_int_equal(qkv_featurizer_build(&fz, &fc, &c, &err), QKV_OK);
    qkv_dataset ds;
    qkv_warnings w = {0};
    assert_int_equal(qkv_dataset_encode(&ds, &fz, &c, NULL, &err), QKV_OK);
    assert_int_equal(qkv_dataset_repair_spans(&ds, &fz, &c, 1, &w, &err), QKV_OK);
    assert_int_equal(ds.loss_tags[0], QKV_TAG_NONE);
    assert_int_equal(ds.loss_tags[1], QKV_TAG_NONE);
    assert_int_equal(ds.loss_tags[2], ds.tags[2]);
    assert_true(ds.tags[1] >= 0);
    assert_int_equal(w.n, 1);
    assert_non_null(strstr(w.msgs[0], "zz.tsv:2: 1 sentence has"));
    assert_non_null(strstr(w.msgs[0], "1 of them left out of the loss"));
    qkv_warnings_free(&w);
    qkv_dataset_free(&ds);
    qkv_featurizer_free(&fz);
    qkv_corpus_free(&c);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_forbidden_matches_mask_bio),
        cmocka_unit_test(test_forbidden_matches_mask_bioes),
        cmocka_unit_test(test_repair),
        cmocka_unit_test(test_repair_unknown_tag),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
