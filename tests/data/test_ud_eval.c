/* The CoNLL 2018 scores of a system file against gold (data/ud_eval.h) on hand-made files whose
 * counts are worked out by hand in the comments. */
#include "testutil.h"

#include "data/ud_eval.h"

#define L(id, form, upos, misc) id "\t" form "\t_\t" upos "\t_\t_\t_\t_\t_\t" misc "\n"

/* "I don't know." and "Yes": 5 tokens, 6 words (don't = do n't), 2 sentences. */
static const char GOLD[] = "# text = I don't know.\n" L("1", "I", "PRON", "_") L("2-3", "don't", "_", "_")
    L("2", "do", "AUX", "_") L("3", "n't", "PART", "_") L("4", "know", "VERB", "SpaceAfter=No")
    L("5", ".", "PUNCT", "_") "\n# text = Yes\n" L("1", "Yes", "INTJ", "_") "\n";

static qkv_ud_eval eval_ok(const char *sys)
{
    qkv_ud_eval r;
    qkv_error err = {0};
    if (qkv_ud_evaluate(GOLD, strlen(GOLD), "gold.conllu", sys, strlen(sys), "sys.conllu", &r, &err))
        fail_msg("%s", err.msg);
    return r;
}

static void assert_score(const qkv_ud_score *s, long gold, long system, long correct)
{
    assert_int_equal(s->gold, gold);
    assert_int_equal(s->system, system);
    assert_int_equal(s->correct, correct);
    tu_assert_close(s->f1, 2.0 * correct / (double)(gold + system), 1e-12);
    tu_assert_close(s->precision, correct / (double)system, 1e-12);
    tu_assert_close(s->recall, correct / (double)gold, 1e-12);
}

static void test_identical(void **state)
{
    (void)state;
    qkv_ud_eval r = eval_ok(GOLD);
    assert_score(&r.tokens, 5, 5, 5);
    assert_score(&r.sentences, 2, 2, 2);
    assert_score(&r.words, 6, 6, 6);
    assert_score(&r.upos, 6, 6, 6);
}

/* One sentence, "don't" one word: the tokens all match, no sentence does; the words I, know, .
 * and Yes align (their spans match), do and n't have no partner in "don't" (no common
 * lowercased FORM); UPOS: VERB for "know" matches, so 4 of the aligned words are right. */
static void test_no_multiword_one_sentence(void **state)
{
    (void)state;
    qkv_ud_eval r = eval_ok(L("1", "I", "PRON", "_") L("2", "don't", "VERB", "_") L("3", "know", "VERB", "_")
                                L("4", ".", "PUNCT", "_") L("5", "Yes", "INTJ", "_") "\n");
    assert_score(&r.tokens, 5, 5, 5);
    assert_score(&r.sentences, 2, 1, 0);
    assert_score(&r.words, 6, 5, 4);
    assert_score(&r.upos, 6, 5, 4);
}

/* A system multiword token "don't" = DO not (case and one word differ): the LCS of (do, n't)
 * and (DO, not) lowercased is "do", which aligns; its UPOS VERB is wrong. "know." as one token
 * matches neither gold token, but both sentences match. */
static void test_multiword_lcs(void **state)
{
    (void)state;
    qkv_ud_eval r = eval_ok(L("1", "I", "PRON", "_") L("2-3", "don't", "_", "_") L("2", "DO", "VERB", "_")
                                L("3", "not", "PART", "_") L("4", "know.", "VERB", "_") "\n"
                                L("1", "Yes", "INTJ", "_"));
    assert_score(&r.tokens, 5, 4, 3);    /* I, don't, Yes */
    assert_score(&r.sentences, 2, 2, 2);
    assert_score(&r.words, 6, 5, 3);     /* I, do, Yes */
    assert_score(&r.upos, 6, 5, 2);      /* I, Yes */
}

/* Words split differently inside a gold multiword token: "do" "n't" against "don" "'t" share no
 * FORM; whitespace inside a FORM does not count. */
static void test_split_differs(void **state)
{
    (void)state;
    qkv_ud_eval r = eval_ok(L("1", "I", "PRON", "_") L("2", "don", "AUX", "_") L("3", "'t", "PART", "_")
                                L("4", "know .", "VERB", "_") "\n" L("1", "Yes", "INTJ", "_") "\n");
    assert_score(&r.tokens, 5, 5, 2); /* I, Yes; "don" ends elsewhere, "know ." is not "know" */
    assert_score(&r.sentences, 2, 2, 2);
    assert_score(&r.words, 6, 5, 2);
}

static void assert_error(const char *sys, const char *expected)
{
    qkv_ud_eval r;
    qkv_error err = {0};
    assert_int_equal(qkv_ud_evaluate(GOLD, strlen(GOLD), "gold.conllu", sys, strlen(sys), "sys.conllu", &r, &err),
                     QKV_ERR);
    assert_string_equal(err.msg, expected);
}

/* A word line with every column the dependency scores read. */
#define D(id, form, lemma, upos, feats, head, deprel) id "\t" form "\t" lemma "\t" upos "\t_\t" feats "\t" head "\t" deprel "\t_\t_\n"
#define F_THE "Definite=Def|PronType=Art"
#define F_VERB "Mood=Ind|Number=Sing|Person=3|Tense=Pres|VerbForm=Fin"

static qkv_ud_eval eval_deps(const char *gold, const char *sys)
{
    qkv_ud_eval r;
    qkv_error err = {0};
    if (qkv_ud_evaluate(gold, strlen(gold), "gold.conllu", sys, strlen(sys), "sys.conllu", &r, &err))
        fail_msg("%s", err.msg);
    return r;
}

/* "The cat sleeps ." (content words: cat nsubj, sleeps root; the is cat's functional child). */
static void test_dependencies(void **state)
{
    (void)state;
    const char *gold = D("1", "The", "the", "DET", F_THE, "2", "det") D("2", "cat", "cat", "NOUN", "Number=Sing", "3", "nsubj")
        D("3", "sleeps", "sleep", "VERB", F_VERB, "0", "root") D("4", ".", ".", "PUNCT", "_", "3", "punct") "\n";
    qkv_ud_eval r = eval_deps(gold, gold);
    assert_score(&r.uas, 4, 4, 4);
    assert_score(&r.las, 4, 4, 4);
    assert_score(&r.mlas, 2, 2, 2);
    assert_score(&r.blex, 2, 2, 2);
    /* cat's head wrong: UAS and LAS 3 of 4 (punctuation counts), MLAS and BLEX 1 of 2 (sleeps) */
    const char *a = D("1", "The", "the", "DET", F_THE, "2", "det") D("2", "cat", "cat", "NOUN", "Number=Sing", "1", "nsubj")
        D("3", "sleeps", "sleep", "VERB", F_VERB, "0", "root") D("4", ".", ".", "PUNCT", "_", "3", "punct") "\n";
    r = eval_deps(gold, a);
    assert_score(&r.uas, 4, 4, 3);
    assert_score(&r.las, 4, 4, 3);
    assert_score(&r.mlas, 2, 2, 1);
    assert_score(&r.blex, 2, 2, 1);
    /* a subtype (nsubj:pass reads as nsubj) and a feature outside the universal ones (Typo) change
     * nothing; sleeps' lemma is wrong (BLEX 1 of 2) and the's Definite is (cat's functional child:
     * MLAS 1 of 2); the label of "." is wrong (LAS 3 of 4) */
    const char *b = D("1", "The", "the", "DET", "Definite=Ind|PronType=Art", "2", "det")
        D("2", "cat", "cat", "NOUN", "Number=Sing|Typo=Yes", "3", "nsubj:pass") D("3", "sleeps", "sleeps", "VERB", F_VERB, "0", "root")
        D("4", ".", ".", "PUNCT", "_", "3", "dep") "\n";
    r = eval_deps(gold, b);
    assert_score(&r.uas, 4, 4, 4);
    assert_score(&r.las, 4, 4, 3);
    assert_score(&r.mlas, 2, 3, 1); /* the system's "." (dep) is a content word */
    assert_score(&r.blex, 2, 3, 1);
    /* the same features in another order are the same features (the task sorts them) */
    const char *c = D("1", "The", "the", "DET", "PronType=Art|Definite=Def", "2", "det")
        D("2", "cat", "cat", "NOUN", "Number=Sing", "3", "nsubj") D("3", "sleeps", "sleep", "VERB", F_VERB, "0", "root")
        D("4", ".", ".", "PUNCT", "_", "3", "punct") "\n";
    r = eval_deps(gold, c);
    assert_score(&r.mlas, 2, 2, 2);
    assert_score(&r.ufeats, 4, 4, 4);
}

/* UAS and LAS count every word: a file where some words have a HEAD and others "_" is refused
 * (gold or system), naming its line; a file with no HEAD at all is scored, gold_arcs 0. */
static void test_heads_missing(void **state)
{
    (void)state;
    const char *gold = D("1", "The", "the", "DET", F_THE, "2", "det") D("2", "cat", "cat", "NOUN", "Number=Sing", "0", "root")
        "\n" D("1", "Cats", "cat", "NOUN", "_", "_", "_") D("2", "sleep", "sleep", "VERB", "_", "_", "_") "\n";
    qkv_ud_eval r;
    qkv_error err = {0};
    assert_int_equal(qkv_ud_evaluate(gold, strlen(gold), "g", gold, strlen(gold), "s", &r, &err), QKV_ERR);
    assert_string_equal(err.msg, "g:4: HEAD (field 7) is no word number where other words have one: UAS and LAS "
                                 "count every word (the CoNLL 2018 scorer refuses such a HEAD)");
    const char *none = D("1", "The", "the", "DET", F_THE, "_", "_") D("2", "cat", "cat", "NOUN", "_", "_", "_") "\n";
    const char *full = D("1", "The", "the", "DET", F_THE, "2", "det") D("2", "cat", "cat", "NOUN", "_", "0", "root") "\n";
    const char *part = D("1", "The", "the", "DET", F_THE, "2", "det") D("2", "cat", "cat", "NOUN", "_", "x", "root") "\n";
    assert_int_equal(qkv_ud_evaluate(full, strlen(full), "g", part, strlen(part), "s", &r, &err), QKV_ERR);
    assert_string_equal(err.msg, "s:2: HEAD (field 7) is no word number where other words have one: UAS and LAS "
                                 "count every word (the CoNLL 2018 scorer refuses such a HEAD)");
    r = eval_deps(none, full);
    assert_int_equal(r.gold_arcs, 0);
    r = eval_deps(full, none);
    assert_int_equal(r.gold_arcs, 2);
    assert_score(&r.uas, 2, 2, 0);
}

/* XPOS, UFeats, AllTags and Lemmas of aligned words: a gold of one sentence "Cats sleep ." with
 * every column, a system that tokenizes it alike and differs in some columns. */
#define F(id, form, lemma, upos, xpos, feats) id "\t" form "\t" lemma "\t" upos "\t" xpos "\t" feats "\t_\t_\t_\t_\n"
static void test_tag_columns(void **state)
{
    (void)state;
    static const char gold[] = "# text = Cats sleep .\n" F("1", "Cats", "cat", "NOUN", "NNS", "Number=Plur")
        F("2", "sleep", "_", "VERB", "VBP", "Mood=Ind|Typo=Yes") F("3", ".", ".", "PUNCT", ".", "_") "\n";
    /* word 1: lemma wrong; word 2: xpos wrong, feats the same once Typo (not universal) is dropped,
     * any lemma (gold _); word 3: feats wrong */
    static const char sys[] = "# text = Cats sleep .\n" F("1", "Cats", "cats", "NOUN", "NNS", "Number=Plur")
        F("2", "sleep", "slept", "VERB", "VB", "Mood=Ind") F("3", ".", ".", "PUNCT", ".", "Number=Sing") "\n";
    qkv_ud_eval r;
    qkv_error err = {0};
    assert_int_equal(qkv_ud_evaluate(gold, strlen(gold), "g", sys, strlen(sys), "s", &r, &err), QKV_OK);
    assert_score(&r.upos, 3, 3, 3);
    assert_score(&r.xpos, 3, 3, 2);
    assert_score(&r.ufeats, 3, 3, 2);
    assert_score(&r.alltags, 3, 3, 1); /* word 1 only */
    assert_score(&r.lemmas, 3, 3, 2);  /* words 2 and 3 */
}

static void test_errors(void **state)
{
    (void)state;
    assert_error(L("1", "I", "PRON", "_") L("2", "dont", "VERB", "_"),
                 "sys.conllu: its text differs from gold.conllu's at character 5 (whitespace not counted): \"t\" where "
                 "the gold has \"'tknow.Yes\"");
    assert_error("1\tI\t_\n", "sys.conllu:1: expected 10 TAB-separated fields (a CoNLL-U word line)");
    assert_error(L("1-2", "Idon't", "_", "_") L("1", "I", "PRON", "_") "\n",
                 "sys.conllu:1: the sentence ends before the words of this multiword token");
    assert_error(L("x", "I", "PRON", "_"), "sys.conllu:1: expected an ID (N, N-M or N.M) in field 1, found \"x\"");
    assert_error(L("1", " ", "PRON", "_"), "sys.conllu:1: the FORM is empty or only whitespace");
    assert_error(L("1", "I\rx", "PRON", "_"), "sys.conllu:1: expected a line ending in LF or CR LF, found a CR "
                                            "inside the line at byte 4 (no field holds a CR)");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_identical),
        cmocka_unit_test(test_no_multiword_one_sentence),
        cmocka_unit_test(test_multiword_lcs),
        cmocka_unit_test(test_split_differs),
        cmocka_unit_test(test_dependencies),
        cmocka_unit_test(test_heads_missing),
        cmocka_unit_test(test_tag_columns),
        cmocka_unit_test(test_errors),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
