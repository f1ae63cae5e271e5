/* Lemma edit scripts on hand-made cases: the script of a (form, lemma) pair, written out by hand
 * from the rules of data/lemma_script.h, gives the lemma back; a script learned from one form
 * gives the analogous lemma for another; a script that deletes more than a form has does not
 * apply. */
#include "testutil.h"

#include "data/lemma_script.h"

static void assert_script(const char *form, const char *lemma, const char *expected)
{
    char out[QKV_LEMMA_SCRIPT_ROOM(64, 64)];
    long n = qkv_lemma_script(form, strlen(form), lemma, strlen(lemma), out);
    if (n < 0 || strcmp(out, expected) || (size_t)n != strlen(expected))
        fail_msg("%s -> %s: script \"%s\", expected \"%s\"", form, lemma, n < 0 ? "(error)" : out, expected);
    char back[QKV_LEMMA_ROOM(64, 256)];
    long m = qkv_lemma_apply(out, (size_t)n, form, strlen(form), back);
    if (m < 0 || strcmp(back, lemma))
        fail_msg("%s with \"%s\" gives \"%s\", expected \"%s\"", form, out, m < 0 ? "(no)" : back, lemma);
}

static void assert_apply(const char *script, const char *form, const char *expected)
{
    char out[QKV_LEMMA_ROOM(64, 64)];
    long n = qkv_lemma_apply(script, strlen(script), form, strlen(form), out);
    if (!expected) {
        if (n >= 0)
            fail_msg("\"%s\" applied to %s gave \"%s\", expected no lemma", script, form, out);
        return;
    }
    if (n < 0 || strcmp(out, expected))
        fail_msg("\"%s\" applied to %s gave \"%s\", expected \"%s\"", script, form, n < 0 ? "(no)" : out, expected);
}

static void test_suffix_and_prefix_edits(void **state)
{
    (void)state;
    assert_script("dogs", "dog", "L0;-0+;-1+");
    assert_script("flies", "fly", "L0;-0+;-3+y");
    assert_script("walked", "walk", "L0;-0+;-2+");
    assert_script("dog", "dog", "L0;-0+;-0+");
    assert_script("unhappy", "happy", "L0;-2+;-0+");    /* a prefix deleted */
    assert_script("gegangen", "gehen", "L0;-0+;-6+hen"); /* longest common substring "ge" at the start */
}

static void test_casing(void **state)
{
    (void)state;
    assert_script("The", "the", "L0;-0+;-0+");
    assert_script("apple", "Apple", "U0L1;-0+;-0+");
    assert_script("IBM", "IBM", "U0;-0+;-0+");
    assert_script("iPhones", "iPhone", "L0U1L2;-0+;-1+");
    assert_script("Ölen", "Öl", "U0L1;-0+;-2+");        /* non-ASCII upper case */
    /* characters without case continue the run they are in: "U.S." is all upper, as "IBM" */
    assert_script("U.S.", "U.S.", "U0;-0+;-0+");
    assert_script("3D", "3D", "U0;-0+;-0+");
    assert_script("p.m.", "p.m.", "L0;-0+;-0+");
    assert_script("Jean-Pierre", "Jean-Pierre", "U0L1U5L6;-0+;-0+");
}

/* A form without lower case letters never gets a lemma in which an upper case letter is
 * followed by characters without case and then a lower case letter ("U.s." for "U.S."), as a
 * title-case script of a model trained before the runs above gives it. */
static void test_initialisms(void **state)
{
    (void)state;
    assert_apply("U0L1;-0+;-0+", "U.S.", "U.S.");
    assert_apply("U0L1;-0+;-0+", "D.C.", "D.C.");
    assert_apply("U0L1;-0+;-1+", "U.S.", "U.S");
    assert_apply("U0L1U2L3;-0+;-0+", "U.S.", "U.S.");
    assert_apply("L0;-0+;-0+", "A.M.", "a.m.");
    assert_apply("U0L1;-0+;-0+", "CHERNOBYL", "Chernobyl");
    assert_apply("U0L1;-0+;-0+", "Ph.D.", "Ph.d."); /* the form has lower case: the script's */
}

static void test_whole_lemma(void **state)
{
    (void)state;
    assert_script("was", "be", "L0;=be");                /* nothing in common */
    assert_script("a;b", "x;b;", "L0;=x;b;");            /* an addition holding ';' */
    assert_script("", "", "L0;=");
}

static void test_scripts_generalise(void **state)
{
    (void)state;
    assert_apply("L0;-0+;-2+", "jumped", "jump");
    assert_apply("L0;-0+;-3+y", "tries", "try");
    assert_apply("U0L1;-0+;-0+", "PARIS", "Paris");
    assert_apply("L0;=be", "is", "be");
    assert_apply("K;-0+;-1+", "iPads", "iPad");
}

static void test_scripts_that_do_not_apply(void **state)
{
    (void)state;
    assert_apply("L0;-0+;-3+y", "is", NULL);  /* deletes 3 of 2 characters */
    assert_apply("L0;-1+;-1+", "ab", "");     /* deletes all of them: applies */
    assert_apply("L0;-2+;-2+", "abc", NULL);
    assert_apply("nonsense", "abc", NULL);
    assert_apply("X0;-0+;-0+", "abc", NULL);
    assert_apply("L0;-0+", "abc", NULL);
    assert_apply("L0;-x+;-0+", "abc", NULL);
}

static void test_needs(void **state)
{
    (void)state;
    assert_int_equal(qkv_lemma_script_needs("L0;-0+;-3+y", 11), 3);  /* deletes 3, adds y */
    assert_int_equal(qkv_lemma_script_needs("L0;-1+;-1+", 10), 3);   /* adds nothing: one left */
    assert_int_equal(qkv_lemma_script_needs("L0;-0+;-0+", 10), 1);
    assert_int_equal(qkv_lemma_script_needs("L0;=be", 6), 0);
    assert_int_equal(qkv_lemma_script_needs("L0;=", 4), -1);          /* only the empty lemma */
    assert_int_equal(qkv_lemma_script_needs("nonsense", 8), -1);
    /* a form of that many characters gets a non-empty lemma, one fewer none */
    assert_apply("L0;-0+;-3+y", "ies", "y");
    assert_apply("L0;-1+;-1+", "abc", "b");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_suffix_and_prefix_edits),
        cmocka_unit_test(test_casing),
        cmocka_unit_test(test_initialisms),
        cmocka_unit_test(test_whole_lemma),
        cmocka_unit_test(test_scripts_generalise),
        cmocka_unit_test(test_scripts_that_do_not_apply),
        cmocka_unit_test(test_needs),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
