/* The UD English-EWT sample committed in data/ud_english_ewt_sample/ (gzip-compressed CoNLL-U,
 * cut by data/make-ewt-sample.sh): exact counts, the byte-for-byte round trip of what was read
 * through zlib against an independent `gzip -dc`, one epoch's batch plan and the features. */
#include "testutil.h"

#include "corpus_checks.h"

static void test_sample_counts(void **state)
{
    (void)state;
    qkv_corpus c = read_ok(EWT_SAMPLE_TRAIN, NULL);
    assert_int_equal(c.format, QKV_FORMAT_CONLLU); /* from the name x.conllu.gz */
    assert_counts(&c, 3136, 51717, 645, 10);
    qkv_corpus_free(&c);
    c = read_ok(EWT_SAMPLE_DEV, NULL);
    assert_counts(&c, 501, 6518, 81, 1);
    size_t len;
    const char *form = qkv_corpus_form(&c, 0, &len);
    assert_int_equal(len, 4);
    assert_memory_equal(form, "From", 4);
    const char *tag = qkv_corpus_tag(&c, 0, &len);
    assert_int_equal(len, 3);
    assert_memory_equal(tag, "ADP", 3);
    qkv_corpus_free(&c);
}

static void round_trip(const char *path)
{
    size_t size;
    char *want = gzip_dc(path, &size);
    assert_true(size > 100000);
    qkv_corpus c = read_ok(path, NULL);
    assert_int_equal(c.text_len, size);
    assert_round_trip_own_tags(&c, want, size);
    qkv_corpus_free(&c);
    free(want);
}

static void test_sample_round_trip(void **state)
{
    (void)state;
    round_trip(EWT_SAMPLE_TRAIN);
    round_trip(EWT_SAMPLE_DEV);
}

static void test_sample_epoch(void **state)
{
    (void)state;
    check_epoch(EWT_SAMPLE_TRAIN, 3136, 51717);
}

static void test_sample_featurizer(void **state)
{
    (void)state;
    check_featurizer(EWT_SAMPLE_TRAIN, EWT_SAMPLE_DEV, 6518);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_sample_counts),
        cmocka_unit_test(test_sample_round_trip),
        cmocka_unit_test(test_sample_epoch),
        cmocka_unit_test(test_sample_featurizer),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
