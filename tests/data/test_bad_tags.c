/* Bad data that must not become labels: "_" (no tag) is never a class, is left out of the
 * scores and counted; a tag column without any tag is an error naming it; whitespace in a
 * CoNLL-U UPOS/XPOS field is an error at its line; whitespace around a tag of a column file
 * is not part of the tag. */
#include "testutil.h"

#include "data/dataset.h"
#include "data/features.h"
#include "data/stats.h"

static const qkv_feature_config FEATURES = {1, 1, 2, 2, 1, 1, 1, 1, 0, 1, 0, {QKV_TAG_UPOS}};

static qkv_corpus read_text(const char *text, const char *name, qkv_format format, qkv_tag_field field)
{
    qkv_read_opts o = {format, field, 0, QKV_TAG_SCHEME_NONE, 0, {field}};
    qkv_corpus c;
    qkv_error err;
    if (qkv_corpus_read_mem(&c, text, strlen(text), name, &o, &err) != QKV_OK)
        fail_msg("%s", err.msg);
    return c;
}

static void assert_read_error(const char *text, qkv_format format, const char *expected)
{
    qkv_read_opts o = {format, QKV_TAG_UPOS, 0, QKV_TAG_SCHEME_NONE, 0, {QKV_TAG_UPOS}};
    qkv_corpus c;
    qkv_error err;
    assert_int_equal(qkv_corpus_read_mem(&c, text, strlen(text), "t.conllu", &o, &err), QKV_ERR);
    if (strcmp(err.msg, expected) != 0)
        fail_msg("error\n  %s\nexpected\n  %s", err.msg, expected);
    qkv_corpus_free(&c);
}

/* Two words with UPOS "_" (and a multiword token, whose UPOS is "_" as always, which is no
 * word): no "_" tag, both words encoded as QKV_TAG_NONE, one warning naming the first. */
static const char UNTAGGED[] = "# text = a b cd\n"
                               "1\tThe\t_\tDET\t_\t_\t_\t_\t_\t_\n"
                               "2\tcat\t_\t_\t_\t_\t_\t_\t_\t_\n"
                               "3-4\tcd\t_\t_\t_\t_\t_\t_\t_\t_\n"
                               "3\tc\t_\tNOUN\t_\t_\t_\t_\t_\t_\n"
                               "4\td\t_\t_\t_\t_\t_\t_\t_\t_\n"
                               "\n"
                               "1\tDogs\t_\tNOUN\t_\t_\t_\t_\t_\t_\n"
                               "2\tbark\t_\tVERB\t_\t_\t_\t_\t_\t_\n";

static void test_underscore_is_no_tag(void **state)
{
    (void)state;
    qkv_corpus c = read_text(UNTAGGED, "u.conllu", QKV_FORMAT_AUTO, QKV_TAG_UPOS);
    assert_int_equal(c.n_words, 6);
    assert_int_equal(c.n_multiword, 1);
    assert_string_equal(c.tag_column, "UPOS (field 4)");
    int untagged = 0;
    for (int w = 0; w < c.n_words; w++)
        untagged += qkv_corpus_untagged(&c, w);
    assert_int_equal(untagged, 2);
    qkv_featurizer fz;
    qkv_error err;
    assert_int_equal(qkv_featurizer_build(&fz, &FEATURES, &c, &err), QKV_OK);
    assert_int_equal(qkv_featurizer_n_tags(&fz), 3); /* NOUN, DET, VERB: never "_" */
    assert_int_equal(qkv_vocab_lookup(&fz.tags, "_", 1), -1);
    qkv_dataset ds;
    qkv_warnings warnings = {0};
    assert_int_equal(qkv_dataset_encode(&ds, &fz, &c, &warnings, &err), QKV_OK);
    assert_int_equal(ds.n_untagged, 2);
    assert_int_equal(ds.n_unknown_tags, 0);
    assert_int_equal(ds.tags[1], QKV_TAG_NONE);
    assert_int_equal(ds.tags[3], QKV_TAG_NONE);
    for (int w = 0; w < ds.n_words; w++)
        if (w != 1 && w != 3)
            assert_true(ds.tags[w] >= 0);
    assert_int_equal(warnings.n, 1);
    assert_string_equal(warnings.msgs[0],
                        "u.conllu:3: 2 words have no tag (\"_\" in UPOS (field 4)), the first here; they are not scored");
    assert_int_equal(qkv_dataset_require_tags(&ds, &c, &fz, &err), QKV_OK);
    qkv_warnings_free(&warnings);
    qkv_dataset_free(&ds);
    qkv_corpus_stats st;
    assert_int_equal(qkv_corpus_stats_compute(&st, &c, NULL, &err), QKV_OK);
    assert_int_equal(st.n_untagged, 2);
    assert_int_equal(st.tags.size, 3);
    qkv_corpus_stats_free(&st);
    qkv_featurizer_free(&fz);
    qkv_corpus_free(&c);
}

/* data.tags: xpos on a file whose XPOS column is all "_": no one-tag model, an error naming
 * the file and the column; the same file as a dev set has nothing to score. */
static void test_column_without_tags(void **state)
{
    (void)state;
    qkv_corpus c = read_text(UNTAGGED, "u.conllu", QKV_FORMAT_AUTO, QKV_TAG_XPOS);
    assert_string_equal(c.tag_column, "XPOS (field 5)");
    qkv_featurizer fz;
    qkv_error err;
    assert_int_equal(qkv_featurizer_build(&fz, &FEATURES, &c, &err), QKV_ERR);
    assert_string_equal(err.msg, "u.conllu: no word has a tag in XPOS (field 5): all 6 are \"_\"");
    qkv_corpus train = read_text(UNTAGGED, "u.conllu", QKV_FORMAT_AUTO, QKV_TAG_UPOS);
    assert_int_equal(qkv_featurizer_build(&fz, &FEATURES, &train, &err), QKV_OK);
    qkv_dataset ds;
    assert_int_equal(qkv_dataset_encode(&ds, &fz, &c, NULL, &err), QKV_OK);
    assert_int_equal(ds.n_untagged, 6);
    assert_int_equal(qkv_dataset_require_tags(&ds, &c, &fz, &err), QKV_ERR);
    assert_string_equal(err.msg, "u.conllu: no word has a tag in XPOS (field 5): all 6 are \"_\"");
    qkv_dataset_free(&ds);
    qkv_featurizer_free(&fz);
    qkv_corpus_free(&train);
    qkv_corpus_free(&c);
    /* a columns file: the column is named by its number */
    qkv_corpus cols = read_text("a\t_\nb\t_\n", "u.tsv", QKV_FORMAT_COLUMNS, QKV_TAG_UPOS);
    assert_int_equal(qkv_featurizer_build(&fz, &FEATURES, &cols, &err), QKV_ERR);
    assert_string_equal(err.msg, "u.tsv: no word has a tag in the last field: all 2 are \"_\"");
    qkv_corpus_free(&cols);
}

/* CoNLL-U forbids whitespace in UPOS and XPOS: an error at the line, quoting the field. */
static void test_whitespace_in_conllu_tags(void **state)
{
    (void)state;
    const char *ok = "1\tThe\t_\tDET\t_\t_\t_\t_\t_\t_\n";
    assert_read_error("1\tThe\tthe\tDET\tDT\t_\t_\t_\t_\t_\n2\tcat\t_\tNOUN \t_\t_\t_\t_\t_\t_\n", QKV_FORMAT_AUTO,
                      "t.conllu:2: expected no whitespace in field 4 (UPOS), found \"NOUN \" (CoNLL-U allows "
                      "spaces only in FORM, LEMMA and MISC)");
    assert_read_error("1\tcat\t_\t NOUN\t_\t_\t_\t_\t_\t_\n", QKV_FORMAT_CONLLU,
                      "t.conllu:1: expected no whitespace in field 4 (UPOS), found \" NOUN\" (CoNLL-U allows "
                      "spaces only in FORM, LEMMA and MISC)");
    assert_read_error("1\tcat\t_\tNOUN\tN\xC2\xA0N\t_\t_\t_\t_\t_\n", QKV_FORMAT_CONLLU, /* NBSP in XPOS */
                      "t.conllu:1: expected no whitespace in field 5 (XPOS), found \"N\xC2\xA0N\" (CoNLL-U allows "
                      "spaces only in FORM, LEMMA and MISC)");
    /* spaces in FORM, LEMMA and MISC are fine */
    qkv_corpus c = read_text("1\tNew York\tNew York\tPROPN\tNNP\t_\t_\t_\t_\tSpaceAfter=No x\n", "s.conllu",
                             QKV_FORMAT_AUTO, QKV_TAG_UPOS);
    size_t len;
    const char *tag = qkv_corpus_tag(&c, 0, &len);
    assert_int_equal(len, 5);
    assert_memory_equal(tag, "PROPN", 5);
    qkv_corpus_free(&c);
    c = read_text(ok, "s.conllu", QKV_FORMAT_AUTO, QKV_TAG_UPOS);
    qkv_corpus_free(&c);
}

/* Column files: "O", "O " and " O" are one tag; writing back keeps the whitespace around
 * the substituted tag; a tag field of whitespace only is an error. */
static void test_columns_strip_whitespace(void **state)
{
    (void)state;
    const char *text = "a\tO\nb\tO \nc\t O\nd\t\xE2\x80\x83" "B-PER\xC2\xA0\n\ne\tx\n";
    qkv_read_opts o = {QKV_FORMAT_COLUMNS, QKV_TAG_UPOS, 2, QKV_TAG_SCHEME_NONE, 0, {QKV_TAG_UPOS}};
    qkv_corpus c;
    qkv_error err;
    if (qkv_corpus_read_mem(&c, text, strlen(text), "c.tsv", &o, &err) != QKV_OK)
        fail_msg("%s", err.msg);
    assert_int_equal(c.n_words, 5);
    const char *want[] = {"O", "O", "O", "B-PER", "x"};
    for (int w = 0; w < c.n_words; w++) {
        size_t len;
        const char *tag = qkv_corpus_tag(&c, w, &len);
        if (len != strlen(want[w]) || memcmp(tag, want[w], len))
            fail_msg("word %d: tag \"%.*s\", expected \"%s\"", w, (int)len, tag, want[w]);
    }
    qkv_featurizer fz;
    assert_int_equal(qkv_featurizer_build(&fz, &FEATURES, &c, &err), QKV_OK);
    assert_int_equal(qkv_featurizer_n_tags(&fz), 3);
    qkv_featurizer_free(&fz);
    char *out = NULL;
    size_t out_len = 0;
    FILE *f = open_memstream(&out, &out_len);
    const char *tags[] = {"I", "I", "I", "I", "I"};
    assert_int_equal(qkv_corpus_write(&c, f, tags, &err), QKV_OK);
    fclose(f);
    assert_string_equal(out, "a\tI\nb\tI \nc\t I\nd\t\xE2\x80\x83I\xC2\xA0\n\ne\tI\n");
    free(out);
    qkv_corpus_free(&c);
    /* the tag in column 2 of 4: the fields after it stay as they were */
    if (qkv_corpus_read_mem(&c, "e\tx\tO\t\n", 7, "c4.tsv", &o, &err) != QKV_OK)
        fail_msg("%s", err.msg);
    out = NULL;
    f = open_memstream(&out, &out_len);
    assert_int_equal(qkv_corpus_write(&c, f, tags, &err), QKV_OK);
    fclose(f);
    assert_string_equal(out, "e\tI\tO\t\n");
    free(out);
    qkv_corpus_free(&c);
    /* a line with more fields than the file's first one is an error naming it */
    assert_read_error("a\tO\n\ne\tx\tO\t\n", QKV_FORMAT_COLUMNS,
                      "t.conllu:3: expected 2 TAB-separated fields (as on line 1), found 4");
    assert_read_error("a\tO\nb\t  \n", QKV_FORMAT_COLUMNS, "t.conllu:2: expected a tag in field 2, found only whitespace");
    assert_read_error("a\tO\nb\t\n", QKV_FORMAT_COLUMNS, "t.conllu:2: expected a tag in field 2, found an empty field");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_underscore_is_no_tag),
        cmocka_unit_test(test_column_without_tags),
        cmocka_unit_test(test_whitespace_in_conllu_tags),
        cmocka_unit_test(test_columns_strip_whitespace),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
