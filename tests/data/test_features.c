/* Vocabularies (min_count, UNK, save/restore), UTF-8 aware affixes, word shapes, the featurizer
 * and dataset encoding (unseen tags become -1 with one warning per file and tag). */
#include "feature_check.h"

#include "data/dataset.h"
#include "data/features.h"
#include "data/utf8.h"

#define FILES "tests/data/files/"

static void add(qkv_vocab *v, const char *s)
{
    qkv_error err;
    if (qkv_vocab_add(v, s, strlen(s), NULL, &err) != QKV_OK)
        fail_msg("%s", err.msg);
}

static int32_t look(const qkv_vocab *v, const char *s) { return qkv_vocab_lookup(v, s, strlen(s)); }

static void test_vocab_min_count_and_order(void **state)
{
    (void)state;
    qkv_vocab v;
    qkv_error err;
    assert_int_equal(qkv_vocab_init(&v, 1, &err), QKV_OK);
    const char *words[] = {"b", "a", "b", "c", "a", "b", "d", "c", "e"}; /* b 3, a 2, c 2, d 1, e 1 */
    for (int i = 0; i < 9; i++)
        add(&v, words[i]);
    assert_int_equal(v.size, 6);
    assert_int_equal(qkv_vocab_prune(&v, 2, &err), QKV_OK);
    assert_int_equal(v.size, 4);
    assert_string_equal(qkv_vocab_string(&v, 0), QKV_UNK);
    assert_int_equal(look(&v, "b"), 1); /* by descending count, ties by first appearance */
    assert_int_equal(look(&v, "a"), 2);
    assert_int_equal(look(&v, "c"), 3);
    assert_int_equal(look(&v, "d"), 0);
    assert_int_equal(look(&v, "never"), 0);
    assert_int_equal(look(&v, QKV_UNK), 0);
    assert_int_equal(qkv_vocab_count(&v, 1), 3);
    qkv_vocab_free(&v);

    /* a tag vocabulary has no UNK: an unseen string is -1 */
    assert_int_equal(qkv_vocab_init(&v, 0, &err), QKV_OK);
    add(&v, "NOUN");
    add(&v, "VERB");
    assert_int_equal(look(&v, "NOUN"), 0);
    assert_int_equal(look(&v, "VERB"), 1);
    assert_int_equal(look(&v, "ADJ"), -1);
    qkv_vocab_free(&v);
}

/* Many strings force table growth; every one keeps its id; save/restore gives the same ids. */
static void test_vocab_growth_and_restore(void **state)
{
    (void)state;
    qkv_vocab v, r;
    qkv_error err;
    assert_int_equal(qkv_vocab_init(&v, 1, &err), QKV_OK);
    char buf[32];
    for (int i = 0; i < 5000; i++) {
        snprintf(buf, sizeof buf, "w%d", i);
        for (int k = 0; k <= i % 3; k++)
            add(&v, buf);
    }
    assert_int_equal(qkv_vocab_prune(&v, 2, &err), QKV_OK); /* keeps i % 3 != 0 */
    assert_int_equal(v.size, 1 + 5000 - 1667);
    const char **strings = malloc((size_t)v.size * sizeof *strings);
    assert_int_equal(qkv_vocab_strings(&v, strings), v.size);
    assert_int_equal(qkv_vocab_from_strings(&r, 1, strings, v.size, &err), QKV_OK);
    assert_int_equal(r.size, v.size);
    for (int i = 0; i < 5000; i++) {
        snprintf(buf, sizeof buf, "w%d", i);
        int32_t id = look(&v, buf);
        assert_int_equal(id == 0, i % 3 == 0);
        assert_int_equal(look(&r, buf), id);
        if (id)
            assert_string_equal(qkv_vocab_string(&r, id), buf);
    }
    free(strings);
    qkv_vocab_free(&r);

    const char *dup[] = {QKV_UNK, "x", "y", "x"}, *nounk[] = {"x", "y"};
    assert_int_equal(qkv_vocab_from_strings(&r, 1, dup, 4, &err), QKV_ERR);
    assert_string_equal(err.msg, "vocabulary: string 3 (\"x\") is a duplicate");
    assert_int_equal(qkv_vocab_from_strings(&r, 1, nounk, 2, &err), QKV_ERR);
    assert_string_equal(err.msg, "vocabulary: expected \"<unk>\" as string 0 of a vocabulary with UNK");
    assert_int_equal(qkv_vocab_from_strings(&r, 0, nounk, 2, &err), QKV_OK);
    assert_int_equal(look(&r, "y"), 1);
    qkv_vocab_free(&r);
    qkv_vocab_free(&v);
}

static void test_utf8_affixes(void **state)
{
    (void)state;
    assert_feature(QKV_FEAT_PREFIX, 1, "Élan", "é");
    assert_feature(QKV_FEAT_PREFIX, 2, "Élan", "él");
    assert_feature(QKV_FEAT_SUFFIX, 2, "Straße", "ße");
    assert_feature(QKV_FEAT_SUFFIX, 3, "naïve", "ïve");
    assert_feature(QKV_FEAT_SUFFIX, 2, "МОСКВА", "ва");
    assert_feature(QKV_FEAT_PREFIX, 3, "ab\xF0\x9F\x98\x80", "ab\xF0\x9F\x98\x80"); /* 4-byte emoji */
    assert_feature(QKV_FEAT_SUFFIX, 1, "ab\xF0\x9F\x98\x80", "\xF0\x9F\x98\x80");
    assert_feature(QKV_FEAT_PREFIX, 3, "a", "a"); /* shorter than k: the whole (lowercased) form */
    assert_feature(QKV_FEAT_SUFFIX, 4, "Dog", "dog");
    assert_feature(QKV_FEAT_SUFFIX, 3, "Running", "ing");
    assert_feature(QKV_FEAT_LOWER, 0, "ÀÉÎÕÜ ŁŚŻ ΑΒΓ ĀŸ", "àéîõü łśż αβγ āÿ");
    assert_feature(QKV_FEAT_WORD, 0, "ÀÉ", "ÀÉ");
    /* every affix of every prefix length is whole characters (valid UTF-8) */
    const char *word = "ÆØÅ日本語\xF0\x9F\x98\x80x";
    char out[64];
    for (int k = 1; k <= QKV_MAX_AFFIX; k++) {
        qkv_feature_kind p = {.type = QKV_FEAT_PREFIX, .length = k}, s = {.type = QKV_FEAT_SUFFIX, .length = k};
        size_t n = qkv_feature_string(&p, word, strlen(word), out);
        assert_int_equal(qkv_utf8_check(out, n), n);
        assert_int_equal(qkv_utf8_length(out, n), k);
        n = qkv_feature_string(&s, word, strlen(word), out);
        assert_int_equal(qkv_utf8_check(out, n), n);
        assert_int_equal(qkv_utf8_length(out, n), k);
    }
}

static void test_shapes(void **state)
{
    (void)state;
    const char *cases[][2] = {
        {"Hello", "Xxxxx"}, {"Mississippi", "Xxxxx"}, {"cat", "xxx"},     {"1984", "dddd"},
        {"123456", "dddd"}, {"12", "dd"},             {"e.g.", "x.x."},   {"x.y", "x.x"},
        {"U.S.", "X.X."},   {"$12.50", "$dd.dd"},     {"Élan", "Xxxx"},   {"Москва", "Xxxxx"},
        {"iPhone", "xXxxxx"}, {"—", "—"},             {"...", "..."},     {"!!!!!!", "!!!!"},
        {"C3PO", "XdXX"},   {"日本", "xx"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
        assert_feature(QKV_FEAT_SHAPE, 0, cases[i][0], cases[i][1]);
}

static void test_featurizer_and_unseen_tags(void **state)
{
    (void)state;
    qkv_corpus train, dev;
    qkv_error err;
    assert_int_equal(qkv_corpus_read(&train, FILES "basic.conllu", NULL, &err), QKV_OK);
    assert_int_equal(qkv_corpus_read(&dev, FILES "unseen_tag.conllu", NULL, &err), QKV_OK);
    qkv_feature_config cfg = {.word = 1, .lower = 1, .prefix_max = 2, .suffix_max = 3, .shape = 1,
                              .word_min_count = 1, .affix_min_count = 1, .shape_min_count = 1};
    qkv_featurizer fz;
    if (qkv_featurizer_build(&fz, &cfg, &train, &err) != QKV_OK)
        fail_msg("%s", err.msg);
    const char *names[] = {"word", "lower", "prefix1", "prefix2", "suffix1", "suffix2", "suffix3", "shape"};
    assert_int_equal(qkv_featurizer_n_features(&fz), 8);
    for (int f = 0; f < 8; f++)
        assert_string_equal(qkv_featurizer_name(&fz, f), names[f]);
    assert_int_equal(qkv_featurizer_vocab_size(&fz, 0), 8); /* UNK + 7 forms */
    /* shapes of The cat sleeps . Dogs bark ! = Xxx xxx xxxx . Xxxx xxxx ! */
    assert_int_equal(qkv_featurizer_vocab_size(&fz, 7), 1 + 6);
    assert_int_equal(qkv_featurizer_n_tags(&fz), 4); /* NOUN VERB PUNCT (2 each), DET */
    assert_string_equal(qkv_featurizer_tag(&fz, 0), "NOUN");
    assert_string_equal(qkv_featurizer_tag(&fz, 3), "DET");

    qkv_dataset ds;
    qkv_warnings warnings = {0};
    if (qkv_dataset_encode(&ds, &fz, &dev, &warnings, &err) != QKV_OK)
        fail_msg("%s", err.msg);
    assert_int_equal(ds.n_words, 5);
    assert_int_equal(ds.n_unknown_tags, 3);
    const int32_t tags[] = {3, -1, -1, -1, 1};
    assert_memory_equal(ds.tags, tags, sizeof tags);
    assert_int_equal(warnings.n, 3);
    assert_string_equal(warnings.msgs[0], FILES "unseen_tag.conllu:2: tag \"NEWTAG\" is not among the 4 training "
                                          "tags (2 words); they count as errors");
    assert_string_equal(warnings.msgs[1], FILES "unseen_tag.conllu:5: tag \"OTHER\" is not among the 4 training "
                                          "tags (1 word); they count as errors");
    /* DET and VERB known, NEWTAG and OTHER not: 2 of the file's 4 tags, 3 of its 5 words */
    assert_string_equal(warnings.msgs[2], FILES "unseen_tag.conllu: the tag sets differ: 2 of its 4 tags in UPOS "
                                          "(field 4) (3 of 5 tagged words, 60.0%) are not among the 4 training tags");
    /* The -> word "The" (known), "A" unknown, "zebra" unknown; lower "the"; shape of A = X (unseen) */
    assert_int_equal(ds.features[0][0], qkv_vocab_lookup(&fz.kinds[0].vocab, "The", 3));
    assert_true(ds.features[0][0] > 0);
    assert_int_equal(ds.features[0][2], 0);
    assert_int_equal(ds.features[0][3], 0);
    assert_true(ds.features[1][0] > 0);
    assert_int_equal(ds.features[7][2], 0);
    /* "barks": suffix3 "rks" unseen, suffix2 "ks" unseen, suffix1 "s" seen (cat*s*, sleeps) */
    assert_int_equal(ds.features[6][4], 0);
    assert_int_equal(ds.features[5][4], 0);
    assert_true(ds.features[4][4] > 0);
    qkv_dataset_free(&ds);
    qkv_warnings_free(&warnings);

    /* restoring each vocabulary from its strings gives a featurizer that encodes identically */
    qkv_featurizer r;
    assert_int_equal(qkv_featurizer_init(&r, &cfg, &err), QKV_OK);
    for (int f = 0; f < fz.n_kinds; f++) {
        const char *strings[64];
        int n = qkv_vocab_strings(&fz.kinds[f].vocab, strings);
        assert_int_equal(qkv_featurizer_set_vocab(&r, f, strings, n, &err), QKV_OK);
    }
    const char *tstrings[8];
    int nt = qkv_vocab_strings(&fz.tags, tstrings);
    assert_int_equal(qkv_featurizer_set_tags(&r, tstrings, nt, &err), QKV_OK);
    qkv_dataset a, b;
    assert_int_equal(qkv_dataset_encode(&a, &fz, &dev, NULL, &err), QKV_OK);
    assert_int_equal(qkv_dataset_encode(&b, &r, &dev, NULL, &err), QKV_OK);
    for (int f = 0; f < fz.n_kinds; f++)
        assert_memory_equal(a.features[f], b.features[f], (size_t)a.n_words * sizeof(int32_t));
    assert_memory_equal(a.tags, b.tags, (size_t)a.n_words * sizeof(int32_t));
    qkv_dataset_free(&a);
    qkv_dataset_free(&b);
    qkv_featurizer_free(&r);

    cfg.suffix_max = QKV_MAX_AFFIX + 1;
    assert_int_equal(qkv_featurizer_init(&r, &cfg, &err), QKV_ERR);
    assert_string_equal(err.msg, "features: prefix and suffix lengths must be 0..6, got 2 and 7");
    qkv_featurizer_free(&fz);
    qkv_corpus_free(&train);
    qkv_corpus_free(&dev);
}

/* The vocabularies by index (what a checkpoint saves): the kinds, "tags", then "chars"; restoring
 * each from its strings by index encodes identically, characters included. */
static void test_vocabs_by_index(void **state)
{
    (void)state;
    qkv_corpus train;
    qkv_error err;
    assert_int_equal(qkv_corpus_read(&train, FILES "basic.conllu", NULL, &err), QKV_OK);
    qkv_feature_config cfg = {.word = 1, .suffix_max = 1, .word_min_count = 1, .affix_min_count = 1,
                              .shape_min_count = 1, .chars = 1, .char_min_count = 1};
    qkv_featurizer fz, r;
    assert_int_equal(qkv_featurizer_build(&fz, &cfg, &train, &err), QKV_OK);
    assert_int_equal(qkv_featurizer_n_vocabs(&fz), 4);
    const char *names[] = {"word", "suffix1", "tags", "chars"};
    assert_int_equal(qkv_featurizer_init(&r, &cfg, &err), QKV_OK);
    for (int v = 0; v < 4; v++) {
        assert_string_equal(qkv_featurizer_vocab_name(&fz, v), names[v]);
        const char *strings[256];
        assert_true(qkv_vocab_size(qkv_featurizer_vocab(&fz, v)) <= 256);
        int n = qkv_vocab_strings(qkv_featurizer_vocab(&fz, v), strings);
        assert_int_equal(qkv_featurizer_set_strings(&r, v, strings, n, &err), QKV_OK);
    }
    assert_int_equal(qkv_vocab_size(qkv_featurizer_vocab(&fz, 2)), qkv_featurizer_n_tags(&fz));
    assert_int_equal(qkv_vocab_size(qkv_featurizer_vocab(&fz, 3)), qkv_featurizer_n_chars(&fz));
    assert_true(qkv_featurizer_n_chars(&fz) > 2);
    assert_int_equal(qkv_featurizer_set_strings(&r, 4, NULL, 0, &err), QKV_ERR);
    assert_string_equal(err.msg, "features: no vocabulary 4 (there are 4)");
    qkv_dataset a, b;
    assert_int_equal(qkv_dataset_encode(&a, &fz, &train, NULL, &err), QKV_OK);
    assert_int_equal(qkv_dataset_encode(&b, &r, &train, NULL, &err), QKV_OK);
    for (int f = 0; f < 2; f++)
        assert_memory_equal(a.features[f], b.features[f], (size_t)a.n_words * sizeof(int32_t));
    assert_memory_equal(a.tags, b.tags, (size_t)a.n_words * sizeof(int32_t));
    assert_memory_equal(a.char_start, b.char_start, ((size_t)a.n_words + 1) * sizeof(int32_t));
    assert_memory_equal(a.chars, b.chars, (size_t)a.char_start[a.n_words] * sizeof(int32_t));
    qkv_dataset_free(&a);
    qkv_dataset_free(&b);
    qkv_featurizer_free(&r);
    qkv_featurizer_free(&fz);
    cfg.chars = 0; /* without characters: no "chars" */
    assert_int_equal(qkv_featurizer_init(&fz, &cfg, &err), QKV_OK);
    assert_int_equal(qkv_featurizer_n_vocabs(&fz), 3);
    assert_int_equal(qkv_featurizer_n_chars(&fz), 0);
    qkv_featurizer_free(&fz);
    qkv_corpus_free(&train);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_vocab_min_count_and_order),
        cmocka_unit_test(test_vocab_growth_and_restore),
        cmocka_unit_test(test_utf8_affixes),
        cmocka_unit_test(test_shapes),
        cmocka_unit_test(test_featurizer_and_unseen_tags),
        cmocka_unit_test(test_vocabs_by_index),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
