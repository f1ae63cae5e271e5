/* The CoNLL 2018 tag and lemma scores with gold tokenization on a hand-made sentence: each
 * score's count of correct words worked out by hand from the rules of data/ud_tags.h. */
#include "testutil.h"

#include "data/ud_tags.h"

static const char GOLD[] = "1\tThe\tthe\tDET\tDT\tDefinite=Def|PronType=Art\t_\t_\t_\t_\n"
                           "2\tcats\tcat\tNOUN\tNNS\tNumber=Plur\t_\t_\t_\t_\n"
                           "3\tsleeep\tsleep\tVERB\tVBP\tMood=Ind|Typo=Yes|VerbForm=Fin\t_\t_\t_\t_\n"
                           "4\there\t_\tADV\tRB\t_\t_\t_\t_\t_\n"
                           "5\t.\t.\tPUNCT\t.\t_\t_\t_\t_\t_\n\n";

static void test_scores(void **state)
{
    (void)state;
    qkv_corpus c;
    qkv_error err = {0};
    assert_int_equal(qkv_corpus_read_mem(&c, GOLD, sizeof GOLD - 1, "gold.conllu", NULL, &err), QKV_OK);
    const char *upos[] = {"DET", "NOUN", "NOUN", "ADV", "PUNCT"};        /* 4 of 5 */
    const char *xpos[] = {"DT", "NNS", "VBP", "RB", NULL};               /* 4: no value for word 5 */
    /* features in another order (a set), Typo dropped (not universal), "_" = none */
    const char *feats[] = {"PronType=Art|Definite=Def", "Number=Sing", "Mood=Ind|VerbForm=Fin", "_", "_"};
    const char *lemma[] = {"the", "cats", "sleep", "anything", "."};     /* 4: gold "_" takes any */
    const char *const *pred[QKV_TAG_FIELD_COUNT] = {0};
    pred[QKV_TAG_UPOS] = upos, pred[QKV_TAG_XPOS] = xpos, pred[QKV_TAG_FEATS] = feats, pred[QKV_TAG_LEMMA] = lemma;
    qkv_ud_tags r;
    assert_int_equal(qkv_ud_score_tags(&c, pred, &r, &err), QKV_OK);
    long expected[QKV_UD_TAG_SCORES] = {4, 4, 4, 2, 4}; /* AllTags: words 1 and 4 only */
    for (int k = 0; k < QKV_UD_TAG_SCORES; k++) {
        assert_true(r.has[k]);
        if (r.score[k].correct != expected[k] || r.score[k].gold != 5)
            fail_msg("%s: %ld of %ld correct, expected %ld of 5", QKV_UD_TAG_SCORE_NAMES[k], r.score[k].correct,
                     r.score[k].gold, expected[k]);
        tu_assert_close(r.score[k].f1, expected[k] / 5.0, 1e-12);
    }
    pred[QKV_TAG_XPOS] = NULL; /* not predicted: no XPOS, no AllTags */
    assert_int_equal(qkv_ud_score_tags(&c, pred, &r, &err), QKV_OK);
    assert_false(r.has[QKV_UD_XPOS]);
    assert_false(r.has[QKV_UD_ALLTAGS]);
    assert_true(r.has[QKV_UD_LEMMAS]);
    qkv_corpus_free(&c);
}

static void test_universal_feats(void **state)
{
    (void)state;
    char out[64];
    const char *in = "Typo=Yes|Number=Sing|ExtPos=ADP|Case=Nom";
    assert_int_equal(qkv_ud_universal_feats(in, strlen(in), out), strlen("Case=Nom|Number=Sing"));
    assert_string_equal(out, "Case=Nom|Number=Sing");
    assert_int_equal(qkv_ud_universal_feats("_", 1, out), 0);
    assert_string_equal(out, "");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_scores),
        cmocka_unit_test(test_universal_feats),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
