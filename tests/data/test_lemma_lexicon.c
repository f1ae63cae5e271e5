/* The lemma lexicon of training forms (data/lemma_lexicon.h): which keys it keeps (least count,
 * agreement), keys by UPOS or by form alone, the case of the lemma it gives a form written in
 * another case, the stored entries it accepts back, and a failed allocation as an error. */
#include "testutil.h"

#include "data/corpus.h"
#include "data/lemma_lexicon.h"
#include "malloc_hook.h"

#if MALLOC_HOOKED
static bool fail_mallocs; /* every allocation fails while it is set */
static bool malloc_hook(void) { return !fail_mallocs; }
#endif

#define W(id, form, lemma, upos) id "\t" form "\t" lemma "\t" upos "\t_\t_\t_\t_\t_\t_\n"

/* grew/VERB 3 times (once sentence-initial "Grew"), the/DET twice (once "The"), Apple/PROPN
 * twice, saw 2 times a VERB (see) and 2 times a NOUN (saw), left/VERB once leave and once
 * left, once/ADV once, a word without lemma. */
static const char DOC[] = W("1", "Grew", "grow", "VERB") W("2", "the", "the", "DET") W("3", "Apple", "Apple", "PROPN")
    W("4", "saw", "see", "VERB") W("5", "left", "leave", "VERB") W("6", "x", "_", "X") "\n"
    W("1", "The", "the", "DET") W("2", "grew", "grow", "VERB") W("3", "saw", "saw", "NOUN") W("4", "saw", "see", "VERB")
    W("5", "grew", "grow", "VERB") W("6", "left", "left", "VERB") W("7", "once", "once", "ADV")
    W("8", "Apple", "Apple", "PROPN") W("9", "saw", "saw", "NOUN") "\n";

static qkv_corpus read_doc(void)
{
    qkv_corpus c;
    qkv_error err = {0};
    if (qkv_corpus_read_mem(&c, DOC, strlen(DOC), "doc.conllu", &QKV_READ_DEFAULTS, &err))
        fail_msg("%s", err.msg);
    return c;
}

/* The lemma lx gives form with upos, or "-" for none. */
static const char *lemma(const qkv_lemma_lexicon *lx, const char *form, const char *upos)
{
    static char out[256];
    bool found;
    qkv_error err;
    if (qkv_lemma_lexicon_lemma(lx, form, strlen(form), upos, out, &found, &err))
        fail_msg("%s", err.msg);
    return found ? out : "-";
}

static void test_by_upos(void **state)
{
    (void)state;
    qkv_corpus c = read_doc();
    qkv_lemma_lexicon lx;
    qkv_error err = {0};
    assert_int_equal(qkv_lemma_lexicon_build(&lx, &c, true, 2, &err), QKV_OK);
    /* kept: apple/PROPN, grew/VERB, saw/NOUN, saw/VERB, the/DET; not left (1 of 2 agree), once, x */
    assert_int_equal(lx.n, 5);
    assert_string_equal(lx.keys[0], "apple\tPROPN");
    assert_string_equal(lx.keys[4], "the\tDET");
    assert_string_equal(lemma(&lx, "grew", "VERB"), "grow");
    assert_string_equal(lemma(&lx, "Grew", "VERB"), "grow"); /* sentence-initial: lowercased as trained */
    assert_string_equal(lemma(&lx, "GREW", "VERB"), "grow");
    assert_string_equal(lemma(&lx, "The", "DET"), "the");
    assert_string_equal(lemma(&lx, "Apple", "PROPN"), "Apple");
    assert_string_equal(lemma(&lx, "APPLE", "PROPN"), "Apple"); /* the training case of the lemma */
    assert_string_equal(lemma(&lx, "saw", "VERB"), "see");
    assert_string_equal(lemma(&lx, "saw", "NOUN"), "saw");
    assert_string_equal(lemma(&lx, "saw", "ADJ"), "-");
    assert_string_equal(lemma(&lx, "saw", NULL), "-");
    assert_string_equal(lemma(&lx, "left", "VERB"), "-");
    assert_string_equal(lemma(&lx, "once", "ADV"), "-");
    assert_string_equal(lemma(&lx, "x", "X"), "-");
    qkv_lemma_lexicon_free(&lx);
    assert_int_equal(qkv_lemma_lexicon_build(&lx, &c, true, 1, &err), QKV_OK);
    assert_string_equal(lemma(&lx, "once", "ADV"), "once");
    assert_string_equal(lemma(&lx, "left", "VERB"), "-");
    qkv_lemma_lexicon_free(&lx);
    assert_int_equal(qkv_lemma_lexicon_build(&lx, &c, true, 0, &err), QKV_OK);
    assert_int_equal(lx.n, 0);
    assert_string_equal(lemma(&lx, "grew", "VERB"), "-");
    qkv_lemma_lexicon_free(&lx);
    qkv_corpus_free(&c);
}

static void test_by_form(void **state)
{
    (void)state;
    qkv_corpus c = read_doc();
    qkv_lemma_lexicon lx;
    qkv_error err = {0};
    assert_int_equal(qkv_lemma_lexicon_build(&lx, &c, false, 2, &err), QKV_OK);
    assert_int_equal(lx.n, 3); /* apple, grew, the; saw's lemmas disagree without the UPOS */
    assert_string_equal(lemma(&lx, "Grew", NULL), "grow");
    assert_string_equal(lemma(&lx, "Grew", "NOUN"), "grow"); /* the UPOS is not read */
    assert_string_equal(lemma(&lx, "saw", NULL), "-");
    qkv_lemma_lexicon_free(&lx);
    qkv_corpus_free(&c);
}

static void test_set(void **state)
{
    (void)state;
    qkv_corpus c = read_doc();
    qkv_lemma_lexicon built, lx = {0};
    qkv_error err = {0};
    assert_int_equal(qkv_lemma_lexicon_build(&built, &c, true, 2, &err), QKV_OK);
    assert_int_equal(qkv_lemma_lexicon_set(&lx, built.n, built.keys, built.scripts, true, &err), QKV_OK);
    assert_int_equal(lx.n, built.n);
    for (size_t i = 0; i < lx.n; i++) {
        assert_string_equal(lx.keys[i], built.keys[i]);
        assert_string_equal(lx.scripts[i], built.scripts[i]);
    }
    assert_string_equal(lemma(&lx, "GREW", "VERB"), "grow");
    assert_int_equal(qkv_lemma_lexicon_set(&lx, built.n, built.keys, built.scripts, false, &err), QKV_ERR);
    assert_non_null(strstr(err.msg, "entry 1: key \"apple\tPROPN\" has a TAB, but the model has no UPOS column"));
    const char *unsorted[] = {"b\tX", "a\tX"}, *scripts[] = {"L0;-0+;-0+", "L0;-0+;-0+"};
    assert_int_equal(qkv_lemma_lexicon_set(&lx, 2, unsorted, scripts, true, &err), QKV_ERR);
    assert_non_null(strstr(err.msg, "entry 2: key \"a\tX\" is not after \"b\tX\""));
    const char *no_tab[] = {"a"};
    assert_int_equal(qkv_lemma_lexicon_set(&lx, 1, no_tab, scripts, true, &err), QKV_ERR);
    assert_non_null(strstr(err.msg, "entry 1: key \"a\" has no TAB before a UPOS"));
    const char *bad_script[] = {"Q9"};
    assert_int_equal(qkv_lemma_lexicon_set(&lx, 1, no_tab, bad_script, false, &err), QKV_ERR);
    assert_non_null(strstr(err.msg, "entry 1: \"Q9\" is not a lemma edit script"));
    assert_int_equal(lx.n, 0);
    qkv_lemma_lexicon_free(&lx);
    qkv_lemma_lexicon_free(&built);
    qkv_corpus_free(&c);
}

static void test_not_conllu(void **state)
{
    (void)state;
    const char text[] = "grew\tVERB\n\n";
    qkv_corpus c;
    qkv_error err = {0};
    if (qkv_corpus_read_mem(&c, text, strlen(text), "two.tsv", &QKV_READ_DEFAULTS, &err))
        fail_msg("%s", err.msg);
    qkv_lemma_lexicon lx;
    assert_int_equal(qkv_lemma_lexicon_build(&lx, &c, true, 2, &err), QKV_ERR);
    assert_non_null(strstr(err.msg, "two.tsv: a lemma lexicon is read from a CoNLL-U file"));
    qkv_lemma_lexicon_free(&lx);
    qkv_corpus_free(&c);
}

/* A form too long for the key's room on the stack takes a malloc: its failure is an error, not
 * a form the lexicon lacks. */
static void test_out_of_memory(void **state)
{
    (void)state;
    if (!MALLOC_HOOKED)
        skip();
#if MALLOC_HOOKED
    qkv_corpus c = read_doc();
    qkv_lemma_lexicon lx;
    qkv_error err = {0};
    assert_int_equal(qkv_lemma_lexicon_build(&lx, &c, false, 1, &err), QKV_OK);
    char form[400], out[1024];
    memset(form, 'a', sizeof form - 1);
    form[sizeof form - 1] = '\0';
    bool found = true;
    fail_mallocs = true;
    int status = qkv_lemma_lexicon_lemma(&lx, form, strlen(form), NULL, out, &found, &err);
    fail_mallocs = false;
    assert_int_equal(status, QKV_ERR);
    assert_false(found);
    assert_non_null(strstr(err.msg, "out of memory for the lemma lexicon's key of a form of 399 bytes"));
    assert_int_equal(qkv_lemma_lexicon_lemma(&lx, form, strlen(form), NULL, out, &found, &err), QKV_OK);
    assert_false(found);
    qkv_lemma_lexicon_free(&lx);
    qkv_corpus_free(&c);
#endif
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_by_upos),
        cmocka_unit_test(test_by_form),
        cmocka_unit_test(test_set),
        cmocka_unit_test(test_not_conllu),
        cmocka_unit_test(test_out_of_memory),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
