/* Plain text as a corpus (qkv tag --format text): every byte of the input is in a token, a
 * separator or an error naming the user's line; line numbers are the text's, not those of the
 * CoNLL-U made from it. */
#include "testutil.h"

#include "data/corpus.h"

static qkv_corpus read_text_ok(const char *data, size_t len)
{
    qkv_corpus c;
    qkv_error err = {0};
    if (qkv_corpus_read_text(&c, data, len, "<stdin>", &err) != QKV_OK)
        fail_msg("%s", err.msg);
    return c;
}

static void assert_text_error(const char *data, size_t len, const char *expected)
{
    qkv_corpus c;
    qkv_error err = {0};
    assert_int_equal(qkv_corpus_read_text(&c, data, len, "<stdin>", &err), QKV_ERR);
    assert_string_equal(err.msg, expected);
    assert_int_equal(c.n_words, 0);
    qkv_corpus_free(&c);
}

static void assert_form(const qkv_corpus *c, int w, const char *form, int line)
{
    size_t len;
    const char *s = qkv_corpus_form(c, w, &len);
    if (len != strlen(form) || memcmp(s, form, len) || c->word_line[w] != line)
        fail_msg("word %d: '%.*s' on line %d, expected '%s' on line %d", w, (int)len, s, c->word_line[w], form, line);
}

static void test_lines_are_the_users(void **state)
{
    (void)state;
    /* a byte-order mark, CRLF, blank lines and lines of blanks, TABs, no final newline */
    static const char text[] = "\xEF\xBB\xBFThe cat\r\n\n   \nsat\ton  the\r\n\nmat";
    qkv_corpus c = read_text_ok(text, sizeof text - 1);
    assert_int_equal(c.format, QKV_FORMAT_CONLLU);
    assert_int_equal(c.n_sent, 3);
    assert_int_equal(c.n_words, 6);
    const char *forms[] = {"The", "cat", "sat", "on", "the", "mat"};
    const int lines[] = {1, 1, 4, 4, 4, 6};
    for (int w = 0; w < 6; w++)
        assert_form(&c, w, forms[w], lines[w]);
    assert_int_equal(c.sent_line[0], 1);
    assert_int_equal(c.sent_line[1], 4);
    assert_int_equal(c.sent_line[2], 6);
    qkv_corpus_free(&c);
}

/* Control characters other than the separators stay in their token: nothing is dropped. */
static void test_control_bytes_are_kept(void **state)
{
    (void)state;
    static const char text[] = "a\x01" "b \x1b[0m\x7f\nc\x0b" "d\x0c\n";
    qkv_corpus c = read_text_ok(text, sizeof text - 1);
    assert_int_equal(c.n_words, 3);
    assert_form(&c, 0, "a\x01" "b", 1);
    assert_form(&c, 1, "\x1b[0m\x7f", 1);
    assert_form(&c, 2, "c\x0b" "d\x0c", 2);
    qkv_corpus_free(&c);
}

/* Unicode White_Space separates tokens as a space does: U+00A0, U+2003, U+3000, U+202F, U+1680;
 * a line of them only is no sentence. U+200B (zero width space) is not White_Space. */
static void test_unicode_white_space_separates(void **state)
{
    (void)state;
    static const char text[] = "a\xC2\xA0" "b\xE3\x80\x80" "c\xE2\x80\x83" "d\xE2\x80\xAF" "e\xE1\x9A\x80" "f\n"
                               "\xE3\x80\x80\xC2\xA0\n"
                               "\xE3\x80\x80g\xE2\x80\x8Bh\xC2\xA0\n";
    qkv_corpus c = read_text_ok(text, sizeof text - 1);
    assert_int_equal(c.n_sent, 2);
    assert_int_equal(c.n_words, 7);
    static const char *const forms[] = {"a", "b", "c", "d", "e", "f"};
    for (int w = 0; w < 6; w++)
        assert_form(&c, w, forms[w], 1);
    assert_form(&c, 6, "g\xE2\x80\x8Bh", 3);
    qkv_corpus_free(&c);
}

/* A token is scanned a character at a time: the continuation byte of "\xC3\xA0" (U+00E0) followed by
 * a space once decoded as U+0020 on its own and cut "Déjà vu" inside the "à". */
static void test_multibyte_letters_stay_whole(void **state)
{
    (void)state;
    static const char text[] = "D\xC3\xA9j\xC3\xA0 vu \xC3\xA0\xC3\xA0 x\xE2\x80\xA0 y\n";
    qkv_corpus c = read_text_ok(text, sizeof text - 1);
    assert_int_equal(c.n_sent, 1);
    assert_int_equal(c.n_words, 5);
    static const char *const forms[] = {"D\xC3\xA9j\xC3\xA0", "vu", "\xC3\xA0\xC3\xA0", "x\xE2\x80\xA0", "y"};
    for (int w = 0; w < 5; w++)
        assert_form(&c, w, forms[w], 1);
    qkv_corpus_free(&c);
}

static void test_nul_and_bad_utf8_name_the_line(void **state)
{
    (void)state;
    /* a NUL once ended the input silently: the rest was dropped, exit status 0 */
    static const char nul[] = "the cat\nsat on\nthe\0mat\nand more\n";
    assert_text_error(nul, sizeof nul - 1, "<stdin>:3: expected text, found a NUL byte at byte 4 of the line");
    static const char nul_first[] = "\0";
    assert_text_error(nul_first, 1, "<stdin>:1: expected text, found a NUL byte at byte 1 of the line");
    static const char latin1[] = "ok\n\nna\xefve\n";
    assert_text_error(latin1, sizeof latin1 - 1,
                      "<stdin>:3: invalid UTF-8 at byte 3 of the line (byte 0xEF); expected UTF-8 text");
    static const char cut[] = "caf\xc3";
    assert_text_error(cut, sizeof cut - 1,
                      "<stdin>:1: invalid UTF-8 at byte 4 of the line (byte 0xC3); expected UTF-8 text");
}

static void test_empty_input(void **state)
{
    (void)state;
    qkv_corpus c = read_text_ok("", 0);
    assert_int_equal(c.n_sent, 0);
    assert_int_equal(c.n_words, 0);
    qkv_corpus_free(&c);
    c = read_text_ok(" \n\r\n\t", 5);
    assert_int_equal(c.n_words, 0);
    qkv_corpus_free(&c);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_lines_are_the_users),
        cmocka_unit_test(test_control_bytes_are_kept),
        cmocka_unit_test(test_unicode_white_space_separates),
        cmocka_unit_test(test_multibyte_letters_stay_whole),
        cmocka_unit_test(test_nul_and_bad_utf8_name_the_line),
        cmocka_unit_test(test_empty_input),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
