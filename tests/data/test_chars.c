/* Character ids per word (data/chars.c): the vocabulary of code points with its two word
 * markers, min_count, long words keeping both ends, UTF-8, save/restore, and their packing
 * into datasets and batches beside the word features. */
#include "testutil.h"

#include <string.h>

#include "data/batch.h"
#include "data/dataset.h"
#include "data/features.h"

static const char TRAIN[] = "1\tThe\t_\tDET\t_\t_\t_\t_\t_\t_\n"
                            "2\tcat\t_\tNOUN\t_\t_\t_\t_\t_\t_\n"
                            "3\tnaïve\t_\tADJ\t_\t_\t_\t_\t_\t_\n"
                            "\n"
                            "1\tcats\t_\tNOUN\t_\t_\t_\t_\t_\t_\n"
                            "2\t!\t_\tPUNCT\t_\t_\t_\t_\t_\t_\n"
                            "\n";

static qkv_corpus read_text(const char *text, const char *name)
{
    qkv_corpus c;
    qkv_error err;
    if (qkv_corpus_read_mem(&c, text, strlen(text), name, NULL, &err) != QKV_OK)
        fail_msg("%s", err.msg);
    return c;
}

static qkv_featurizer build(const qkv_corpus *c, int char_min_count)
{
    qkv_feature_config cfg = QKV_FEATURE_DEFAULTS;
    cfg.chars = 1;
    cfg.char_min_count = char_min_count;
    qkv_featurizer fz;
    qkv_error err;
    if (qkv_featurizer_build(&fz, &cfg, c, &err) != QKV_OK)
        fail_msg("%s", err.msg);
    return fz;
}

static int32_t id(const qkv_featurizer *fz, const char *ch)
{
    return qkv_vocab_lookup(&fz->chars, ch, strlen(ch));
}

static void test_vocabulary_and_ids(void **state)
{
    (void)state;
    qkv_corpus c = read_text(TRAIN, "train");
    qkv_featurizer fz = build(&c, 1);
    assert_true(fz.has_chars);
    /* UNK, the two markers, T h e c a t n a ï v s ! minus repeats: T h e c a t n ï v s ! */
    assert_int_equal(fz.chars.size, 3 + 11);
    assert_int_equal(fz.char_bow, id(&fz, QKV_CHAR_BOW));
    assert_int_equal(fz.char_eow, id(&fz, QKV_CHAR_EOW));
    assert_true(fz.char_bow > 0 && fz.char_eow > 0 && fz.char_bow != fz.char_eow);
    /* the markers occur once per word (5), more than any character: ids 1 and 2 */
    assert_int_equal(fz.char_bow, 1);
    assert_int_equal(fz.char_eow, 2);

    int32_t out[QKV_WORD_CHAR_IDS];
    int n = qkv_featurizer_char_ids(&fz, "cat", 3, out);
    int32_t cat[] = {1, id(&fz, "c"), id(&fz, "a"), id(&fz, "t"), 2};
    assert_int_equal(n, 5);
    assert_memory_equal(out, cat, sizeof cat);
    /* a two-byte code point is one id; an unseen character (z, upper-case C) is UNK */
    n = qkv_featurizer_char_ids(&fz, "ïzC", strlen("ïzC"), out);
    int32_t mixed[] = {1, id(&fz, "ï"), 0, 0, 2};
    assert_int_equal(n, 5);
    assert_memory_equal(out, mixed, sizeof mixed);
    assert_true(id(&fz, "ï") > 0);
    /* an empty form gives the two markers */
    assert_int_equal(qkv_featurizer_char_ids(&fz, "", 0, out), 2);

    /* a word of 25 code points keeps its first 10 and last 10 */
    const char *lng = "tttttttttthhhhhaaaaaaaaaa"; /* 10 t, 5 h (dropped), 10 a */
    n = qkv_featurizer_char_ids(&fz, lng, strlen(lng), out);
    assert_int_equal(n, QKV_WORD_CHAR_IDS);
    for (int i = 1; i <= 10; i++)
        assert_int_equal(out[i], id(&fz, "t"));
    for (int i = 11; i <= 20; i++)
        assert_int_equal(out[i], id(&fz, "a"));
    assert_int_equal(out[21], 2);
    /* exactly QKV_WORD_CHARS code points: all kept */
    const char *edge = "tttttttttthhhhhhhhhh";
    n = qkv_featurizer_char_ids(&fz, edge, strlen(edge), out);
    assert_int_equal(n, QKV_WORD_CHAR_IDS);
    assert_int_equal(out[11], id(&fz, "h"));

    /* restoring from the saved strings gives the same ids; a list without markers is an error */
    const char *strings[32];
    int ns = qkv_vocab_strings(&fz.chars, strings);
    qkv_feature_config cfg = QKV_FEATURE_DEFAULTS;
    cfg.chars = 1;
    qkv_featurizer r;
    qkv_error err;
    assert_int_equal(qkv_featurizer_init(&r, &cfg, &err), QKV_OK);
    assert_int_equal(qkv_featurizer_set_chars(&r, strings, ns, &err), QKV_OK);
    int32_t again[QKV_WORD_CHAR_IDS];
    assert_int_equal(qkv_featurizer_char_ids(&r, "naïve!", strlen("naïve!"), again), 8);
    qkv_featurizer_char_ids(&fz, "naïve!", strlen("naïve!"), out);
    assert_memory_equal(out, again, 8 * sizeof *out);
    const char *no_markers[] = {QKV_UNK, "a", "b"};
    assert_int_equal(qkv_featurizer_set_chars(&r, no_markers, 3, &err), QKV_ERR);
    assert_non_null(strstr(err.msg, "lacks the word markers"));
    qkv_featurizer_free(&r);

    /* without characters, set_chars is refused */
    cfg.chars = 0;
    assert_int_equal(qkv_featurizer_init(&r, &cfg, &err), QKV_OK);
    assert_int_equal(qkv_featurizer_set_chars(&r, strings, ns, &err), QKV_ERR);
    qkv_featurizer_free(&r);
    qkv_featurizer_free(&fz);
    qkv_corpus_free(&c);
}

static void test_min_count(void **state)
{
    (void)state;
    qkv_corpus c = read_text(TRAIN, "train");
    qkv_featurizer fz = build(&c, 2);
    /* seen twice or more: T? no (once). h (The), e (The, naïve), c a t (cat, cats), s? once. */
    assert_true(id(&fz, "a") > 0 && id(&fz, "c") > 0 && id(&fz, "t") > 0 && id(&fz, "e") > 0);
    assert_int_equal(id(&fz, "T"), 0);
    assert_int_equal(id(&fz, "ï"), 0);
    assert_int_equal(id(&fz, "!"), 0);
    assert_int_equal(fz.char_bow, 1);
    qkv_featurizer_free(&fz);
    /* a corpus of fewer words than min_count still has both markers */
    fz = build(&c, 1000);
    assert_int_equal(fz.chars.size, 3);
    assert_true(fz.char_bow > 0 && fz.char_eow > 0 && fz.char_bow != fz.char_eow);
    qkv_featurizer_free(&fz);
    qkv_corpus empty = read_text("", "empty");
    fz = build(&empty, 1);
    assert_int_equal(fz.chars.size, 3);
    qkv_featurizer_free(&fz);
    qkv_corpus_free(&empty);
    qkv_corpus_free(&c);
}

static void test_dataset_and_batch(void **state)
{
    (void)state;
    qkv_corpus c = read_text(TRAIN, "train");
    qkv_featurizer fz = build(&c, 1);
    qkv_dataset ds;
    qkv_error err;
    assert_int_equal(qkv_dataset_encode(&ds, &fz, &c, NULL, &err), QKV_OK);
    /* The cat naïve cats ! : 3+2, 3+2, 5+2, 4+2, 1+2 ids */
    int32_t starts[] = {0, 5, 10, 17, 23, 26};
    assert_memory_equal(ds.char_start, starts, sizeof starts);
    for (int w = 0; w < ds.n_words; w++) {
        size_t len;
        const char *form = qkv_corpus_form(&c, w, &len);
        int32_t out[QKV_WORD_CHAR_IDS];
        int n = qkv_featurizer_char_ids(&fz, form, len, out);
        assert_int_equal(n, ds.char_start[w + 1] - ds.char_start[w]);
        assert_memory_equal(out, ds.chars + ds.char_start[w], (size_t)n * sizeof *out);
    }

    /* a batch in evaluation order (shorter sentence first) packs the ids of its words in order */
    qkv_batch_plan plan;
    assert_int_equal(qkv_batch_plan_make(&plan, &ds, 100, NULL, &err), QKV_OK);
    assert_int_equal(plan.n_batches, 1);
    qkv_batch b;
    assert_int_equal(qkv_batch_alloc(&b, ds.n_features, false, plan.max_sent, plan.max_tokens, &err), QKV_OK);
    assert_int_equal(qkv_batch_fill(&b, &ds, &plan, 0, &err), QKV_ERR);
    assert_non_null(strstr(err.msg, "no room for them"));
    qkv_batch_free(&b);
    assert_int_equal(qkv_batch_alloc(&b, ds.n_features, true, plan.max_sent, plan.max_tokens, &err), QKV_OK);
    assert_int_equal(qkv_batch_fill(&b, &ds, &plan, 0, &err), QKV_OK);
    assert_int_equal(b.n_tokens, 5);
    assert_int_equal(b.n_chars, 26);
    assert_int_equal(b.sent_ids[0], 1); /* "cats !" (2 words) before "The cat naïve" */
    int32_t offsets[] = {0, 6, 9, 14, 19, 26};
    assert_memory_equal(b.char_offsets, offsets, sizeof offsets);
    assert_memory_equal(b.chars, ds.chars + 17, 9 * sizeof(int32_t));
    assert_memory_equal(b.chars + 9, ds.chars, 17 * sizeof(int32_t));
    qkv_batch_free(&b);
    qkv_batch_plan_free(&plan);
    qkv_dataset_free(&ds);
    qkv_featurizer_free(&fz);
    qkv_corpus_free(&c);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_vocabulary_and_ids),
        cmocka_unit_test(test_min_count),
        cmocka_unit_test(test_dataset_and_batch),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
