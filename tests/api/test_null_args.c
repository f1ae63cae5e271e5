/* The NULL rule of include/qkv/qkv.h, function by function: a NULL where something is needed
 * (model, path, words, tags, text) makes a function that can fail fail with its error (also
 * without an error pointer), and the others answer for no model (0, NULL); NULL for nothing
 * (error, a free) is fine. No model file is needed: every call here has a NULL model or path. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include <qkv/qkv.h>

/* The call fails and says so: with an error pointer a message, without one no crash. */
static void expect_message(char *error, const char *part)
{
    assert_non_null(error);
    assert_non_null(strstr(error, part));
    free(error);
}

static void test_open(void **state)
{
    (void)state;
    char *error = NULL;
    assert_null(qkv_model_open(NULL, &error));
    expect_message(error, "no path");
    assert_null(qkv_model_open(NULL, NULL));
    assert_null(qkv_model_open_named(NULL, &error));
    expect_message(error, "not a model name");
    assert_null(qkv_model_open_named(NULL, NULL));
}

static void test_tag(void **state)
{
    (void)state;
    const char *words[] = {"a"}, *tags[1];
    char *error = NULL;
    assert_int_not_equal(qkv_model_tag(NULL, words, 1, tags, &error), 0);
    expect_message(error, "no model");
    assert_int_not_equal(qkv_model_tag(NULL, words, 1, tags, NULL), 0);
    assert_int_not_equal(qkv_model_tag(NULL, NULL, 1, NULL, NULL), 0);
    const char *const *sentences[] = {words};
    error = NULL;
    assert_int_not_equal(qkv_model_tag_sentences(NULL, sentences, (const int[]){1}, 1, tags, &error), 0);
    expect_message(error, "no model");
    assert_int_not_equal(qkv_model_tag_sentences(NULL, NULL, NULL, 1, NULL, NULL), 0);
    error = NULL;
    assert_null(qkv_model_tag_words(NULL, sentences, (const int[]){1}, 1, &error));
    expect_message(error, "no model");
    assert_null(qkv_model_tag_words(NULL, NULL, NULL, 1, NULL));
    float probs[1];
    error = NULL;
    assert_int_not_equal(qkv_model_tag_probs(NULL, words, 1, 1, tags, probs, &error), 0);
    expect_message(error, "no model");
    assert_int_not_equal(qkv_model_tag_probs(NULL, NULL, 1, 1, NULL, NULL, NULL), 0);
    int heads[1];
    error = NULL;
    assert_int_not_equal(qkv_model_parse(NULL, words, 1, tags, heads, &error), 0);
    expect_message(error, "no model");
    assert_int_not_equal(qkv_model_parse(NULL, NULL, 1, NULL, NULL, NULL), 0);
}

static void test_queries(void **state)
{
    (void)state;
    assert_int_equal(qkv_model_n_tags(NULL), 0);
    assert_null(qkv_model_tag_name(NULL, 0));
    assert_null(qkv_model_tag_name(NULL, -1));
    assert_int_equal(qkv_model_has_segmenter(NULL), 0);
    assert_int_equal(qkv_model_max_words(NULL), 0);
    char *error = NULL;
    assert_int_not_equal(qkv_model_set_max_words(NULL, 5, &error), 0);
    expect_message(error, "no model");
    assert_int_not_equal(qkv_model_set_max_words(NULL, 5, NULL), 0);
}

static void test_segmenter_and_text(void **state)
{
    (void)state;
    char *error = NULL;
    assert_int_not_equal(qkv_model_open_segmenter(NULL, "seg.h5", &error), 0);
    expect_message(error, "no model");
    assert_int_not_equal(qkv_model_open_segmenter(NULL, NULL, NULL), 0);
    error = NULL;
    assert_null(qkv_model_tag_text(NULL, "Some text.", 10, &error));
    expect_message(error, "no model");
    assert_null(qkv_model_tag_text(NULL, NULL, 0, NULL));
    error = NULL;
    assert_null(qkv_model_segment_text(NULL, "Some text.", 10, &error));
    expect_message(error, "no model");
    assert_null(qkv_model_segment_text(NULL, NULL, 0, NULL));
}

static void test_frees(void **state)
{
    (void)state;
    qkv_text_free(NULL);
    qkv_model_free(NULL);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_open),
        cmocka_unit_test(test_tag),
        cmocka_unit_test(test_queries),
        cmocka_unit_test(test_segmenter_and_text),
        cmocka_unit_test(test_frees),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
