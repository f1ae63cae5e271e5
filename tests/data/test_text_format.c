/* Raw text told from CoNLL-U and column files (data/text_format.h): a CoNLL-U word line, or two
 * lines in a row of TAB-separated fields without spaces, is an error naming its line, in
 * qkv_text_other_format and in the sentence-a-line reader (qkv_corpus_read_text); prose with
 * TABs, a single line of TAB-separated words and lines of different field counts are text. */
#include "testutil.h"

#include "data/corpus.h"
#include "data/text_format.h"

#define COLUMNS_MSG(line, n)                                                                                        \
    "t.txt:" #line ": these lines are " #n " TAB-separated fields without spaces (a column file, a word and its "   \
    "tags a line), not raw text: to tag a column file, name the model before it and no --format text (qkv tag "     \
    "MODEL FILE)"

/* text read line by line as qkv_text_other_format sees it: NULL when every line passes, else the
 * error (static). */
static const char *check(const char *text)
{
    static qkv_error err;
    qkv_text_format_run run = {0, 0};
    int line = 1;
    for (const char *p = text; *p; line++) {
        const char *nl = strchr(p, '\n');
        size_t n = nl ? (size_t)(nl - p) : strlen(p);
        if (qkv_text_other_format(p, n, "t.txt", line, &run, &err))
            return err.msg;
        p += n + (nl != NULL);
    }
    return NULL;
}

static void test_formats(void **state)
{
    (void)state;
    /* text */
    assert_null(check("The cat sat.\nA line\twith a TAB .\n\nword\ttag\n"));
    assert_null(check("one\ttwo\n\nthree\tfour\n"));        /* single lines between blank lines */
    assert_null(check("a\tb\nc\td\te\n"));                  /* different numbers of fields */
    assert_null(check("\tindented\n\tindented too\n"));     /* an empty first field */
    assert_null(check("a b\tc\nd e\tf\n"));                 /* spaces in a field */
    assert_null(check("a\u00a0b\tc\nd\u00a0e\tf\n"));       /* a no-break space is a blank too */
    /* a column file (WNUT 2017's layout), and the first line of the run named */
    assert_string_equal(check("@paul\tO\nEmpire\tB-location\nState\tI-location\n"), COLUMNS_MSG(1, 2));
    assert_string_equal(check("Hi there\n\nPeter\tNNP\tB-PER\nBlack\tNNP\tI-PER\n"), COLUMNS_MSG(3, 3));
    /* a CoNLL-U word line */
    assert_string_equal(check("# text = a\n1\ta\t_\t_\t_\t_\t_\t_\t_\t_\n"),
                        "t.txt:2: this is a CoNLL-U word line (10 TAB-separated fields), not raw text: to tag a "
                        "CoNLL-U file, name the model before it and no --format text (qkv tag MODEL FILE)");
}

/* The sentence-a-line reader (qkv tag MODEL FILE --format text) applies the same rule; CRs before
 * the line ends do not hide a column file. */
static void test_read_text(void **state)
{
    (void)state;
    const char *cols = "Hello world\r\n\r\nPeter\tB-PER\r\nran\tO\r\n";
    qkv_corpus c;
    qkv_error err;
    assert_int_equal(qkv_corpus_read_text(&c, cols, strlen(cols), "t.txt", &err), QKV_ERR);
    assert_string_equal(err.msg, COLUMNS_MSG(3, 2));
    const char *text = "A line\twith a TAB .\nand\tmore\n";
    assert_int_equal(qkv_corpus_read_text(&c, text, strlen(text), "t.txt", &err), QKV_OK);
    assert_int_equal(c.n_words, 8);
    qkv_corpus_free(&c);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_formats),
        cmocka_unit_test(test_read_text),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
