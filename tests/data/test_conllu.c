/* CoNLL-U and two-column reader and writer: one tiny file per rule with exact counts, and the
 * error messages. Real UD text: test_sample.c (the committed sample) and test_ewt_corpus.c (the
 * whole EWT, when QKV_EWT_DIR is set). */
#include "testutil.h"

#include "corpus_checks.h"

#define FILES "tests/data/files/"

static void assert_read_error(const char *path, const qkv_read_opts *opts, const char *expected)
{
    qkv_corpus c;
    qkv_error err = {0};
    assert_int_equal(qkv_corpus_read(&c, path, opts, &err), QKV_ERR);
    assert_string_equal(err.msg, expected);
    assert_int_equal(c.n_words, 0);
    qkv_corpus_free(&c);
}

static int span_eq(const qkv_corpus *c, qkv_span sp, const char *s)
{
    return sp.len == strlen(s) && !memcmp(c->text + sp.off, s, sp.len);
}

static void assert_words(const qkv_corpus *c, int n, const char *const *forms, const char *const *tags)
{
    assert_int_equal(c->n_words, n);
    for (int w = 0; w < n; w++) {
        if (!span_eq(c, c->forms[w], forms[w]) || !span_eq(c, c->tags[w], tags[w]))
            fail_msg("word %d: got %.*s/%.*s, expected %s/%s", w, (int)c->forms[w].len, c->text + c->forms[w].off,
                     (int)c->tags[w].len, c->text + c->tags[w].off, forms[w], tags[w]);
    }
}

static const char *BASIC_FORMS[] = {"The", "cat", "sleeps", ".", "Dogs", "bark", "!"};
static const char *BASIC_UPOS[] = {"DET", "NOUN", "VERB", "PUNCT", "NOUN", "VERB", "PUNCT"};
static const char *BASIC_XPOS[] = {"DT", "NN", "VBZ", ".", "NNS", "VBP", "."};

static void check_basic(const char *path)
{
    qkv_corpus c = read_ok(path, NULL);
    assert_int_equal(c.format, QKV_FORMAT_CONLLU);
    assert_int_equal(c.n_sent, 2);
    assert_int_equal(c.sent_start[0], 0);
    assert_int_equal(c.sent_start[1], 4);
    assert_int_equal(c.sent_start[2], 7);
    assert_int_equal(c.n_comments, 3);
    assert_int_equal(c.n_multiword, 0);
    assert_words(&c, 7, BASIC_FORMS, BASIC_UPOS);
    assert_int_equal(c.word_line[0], 3);
    assert_int_equal(c.word_line[4], 9);
    assert_round_trip(&c, NULL, c.text, c.text_len);
    qkv_corpus_free(&c);
}

static void test_basic(void **state)
{
    (void)state;
    check_basic(FILES "basic.conllu");
    qkv_read_opts o = QKV_READ_DEFAULTS;
    o.tag_field = QKV_TAG_XPOS;
    qkv_corpus c = read_ok(FILES "basic.conllu", &o);
    assert_words(&c, 7, BASIC_FORMS, BASIC_XPOS);
    qkv_corpus_free(&c);
}

/* CRLF and BOM twins read exactly like the LF file, and write back as themselves. */
static void test_crlf_and_bom(void **state)
{
    (void)state;
    check_basic(FILES "crlf.conllu");
    check_basic(FILES "bom.conllu");
    qkv_corpus c = read_ok(FILES "crlf.conllu", NULL);
    assert_int_equal(c.text[c.text_len - 2], '\r');
    qkv_corpus_free(&c);
}

static void test_multiword(void **state)
{
    (void)state;
    qkv_corpus c = read_ok(FILES "multiword.conllu", NULL);
    assert_int_equal(c.n_sent, 1);
    assert_int_equal(c.n_multiword, 1);
    const char *forms[] = {"I", "do", "n't", "know"}, *tags[] = {"PRON", "AUX", "PART", "VERB"};
    assert_words(&c, 4, forms, tags);
    /* predicted tags go into the word lines only; the 2-3 line is written unchanged */
    const char *pred[] = {"X", "Y", "Z", "W"};
    const char *expected = "# text = I don't know\n"
                           "1\tI\ti\tX\tPRP\t_\t_\t_\t_\t_\n"
                           "2-3\tdon't\t_\t_\t_\t_\t_\t_\t_\t_\n"
                           "2\tdo\tdo\tY\tVBP\t_\t_\t_\t_\t_\n"
                           "3\tn't\tn't\tZ\tRB\t_\t_\t_\t_\t_\n"
                           "4\tknow\tknow\tW\tVB\t_\t_\t_\t_\t_\n\n";
    assert_round_trip(&c, pred, expected, strlen(expected));
    const char *some[] = {NULL, "LONGER_TAG", NULL, NULL};
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    qkv_error err;
    assert_int_equal(qkv_corpus_write(&c, f, some, &err), QKV_OK);
    fclose(f);
    assert_non_null(strstr(buf, "2\tdo\tdo\tLONGER_TAG\tVBP"));
    assert_non_null(strstr(buf, "1\tI\ti\tPRON\tPRP"));
    free(buf);
    const char *bad[] = {"A\tB", NULL, NULL, NULL};
    f = open_memstream(&buf, &len);
    assert_int_equal(qkv_corpus_write(&c, f, bad, &err), QKV_ERR);
    fclose(f);
    free(buf);
    assert_non_null(strstr(err.msg, "multiword.conllu:2: expected a non-empty tag"));
    qkv_corpus_free(&c);
}

static void test_no_final_newline(void **state)
{
    (void)state;
    qkv_corpus c = read_ok(FILES "no_final_newline.conllu", NULL);
    assert_int_equal(c.n_sent, 2);
    const char *forms[] = {"Hi", "!", "Bye"}, *tags[] = {"INTJ", "PUNCT", "INTJ"};
    assert_words(&c, 3, forms, tags);
    assert_int_equal(qkv_corpus_sent_len(&c, 1), 1);
    assert_true(c.text[c.text_len - 1] != '\n');
    assert_round_trip(&c, NULL, c.text, c.text_len);
    qkv_corpus_free(&c);
}

static void test_empty_nodes(void **state)
{
    (void)state;
    qkv_corpus c = read_ok(FILES "empty_nodes.conllu", NULL);
    assert_int_equal(c.n_sent, 1);
    assert_int_equal(c.n_empty_nodes, 2);
    const char *forms[] = {"Sam", "ran", "and", "Kim", "."}, *tags[] = {"PROPN", "VERB", "CCONJ", "PROPN", "PUNCT"};
    assert_words(&c, 5, forms, tags);
    const char *pred[] = {"a", "b", "c", "d", "e"};
    const char *expected = "0.1\tgap\t_\t_\t_\t_\t_\t_\t_\t_\n"
                           "1\tSam\tsam\ta\tNNP\t_\t_\t_\t_\t_\n"
                           "2\tran\tran\tb\tVBD\t_\t_\t_\t_\t_\n"
                           "2.1\tran\trun\tVERB\tVBD\t_\t_\t_\t0:root\tCopyOf=2\n"
                           "3\tand\tand\tc\tCC\t_\t_\t_\t_\t_\n"
                           "4\tKim\tkim\td\tNNP\t_\t_\t_\t_\t_\n"
                           "5\t.\t.\te\t.\t_\t_\t_\t_\t_\n\n";
    assert_round_trip(&c, pred, expected, strlen(expected));
    qkv_corpus_free(&c);
}

static void test_comments_and_blank_lines(void **state)
{
    (void)state;
    qkv_corpus c = read_ok(FILES "comments.conllu", NULL);
    assert_int_equal(c.n_sent, 2);
    assert_int_equal(c.n_comments, 4);
    const char *forms[] = {"#", "#hashtag", "New York", "ok"}, *tags[] = {"SYM", "X", "PROPN", "INTJ"};
    assert_words(&c, 4, forms, tags);
    assert_int_equal(c.sent_line[0], 3);
    assert_int_equal(c.sent_line[1], 11);
    assert_round_trip(&c, NULL, c.text, c.text_len);
    qkv_corpus_free(&c);
}

static void test_errors(void **state)
{
    (void)state;
    assert_read_error(FILES "bad_fields.conllu", NULL,
                      FILES "bad_fields.conllu:3: expected 10 TAB-separated fields, found 9");
    assert_read_error(FILES "bad_utf8.conllu", NULL,
                      FILES "bad_utf8.conllu:2: invalid UTF-8 at byte 4 of the line (byte 0xFF); expected UTF-8 text");
    assert_read_error(FILES "bad_id.conllu", NULL, FILES "bad_id.conllu:2: expected word ID 2, found 3");
    assert_read_error(FILES "comment_inside.conllu", NULL,
                      FILES "comment_inside.conllu:2: expected a word line or a blank line; comment lines come "
                            "before a sentence's first word line");
    assert_read_error(FILES "empty_field.conllu", NULL,
                      FILES "empty_field.conllu:2: expected a value in field 4 (UPOS), found an empty field (use _ for none)");
    assert_read_error(FILES "bad_multiword.conllu", NULL,
                      FILES "bad_multiword.conllu:4: expected word 3 (covered by a multiword token) before the end of the sentence");
    assert_read_error(FILES "columns_bad.tsv", NULL,
                      FILES "columns_bad.tsv:2: expected at least 2 TAB-separated fields (FORM and tag), found 1");
    assert_read_error(FILES "does_not_exist.conllu", NULL,
                      FILES "does_not_exist.conllu: cannot open: No such file or directory");
}

static void test_columns(void **state)
{
    (void)state;
    qkv_corpus c = read_ok(FILES "columns.tsv", NULL);
    assert_int_equal(c.format, QKV_FORMAT_COLUMNS);
    assert_int_equal(c.n_sent, 2);
    const char *forms[] = {"The", "cat", "sat", "It", "purred"}, *tags[] = {"DT", "NN", "VBD", "PRP", "VBD"};
    assert_words(&c, 5, forms, tags);
    assert_round_trip(&c, NULL, c.text, c.text_len);
    qkv_corpus_free(&c);

    c = read_ok(FILES "columns3.tsv", NULL); /* default: last column */
    const char *f3[] = {"EU", "rejects", "Peter", "Blackburn"}, *ner[] = {"B-ORG", "O", "B-PER", "I-PER"},
               *pos[] = {"NNP", "VBZ", "NNP", "NNP"};
    assert_int_equal(c.n_sent, 2);
    assert_words(&c, 4, f3, ner);
    const char *pred[] = {"1", "2", "3", "4"};
    const char *expected = "EU\tNNP\t1\nrejects\tVBZ\t2\n\nPeter\tNNP\t3\nBlackburn\tNNP\t4";
    assert_round_trip(&c, pred, expected, strlen(expected));
    qkv_corpus_free(&c);
    qkv_read_opts o = QKV_READ_DEFAULTS;
    o.tag_column = 2;
    c = read_ok(FILES "columns3.tsv", &o);
    assert_words(&c, 4, f3, pos);
    qkv_corpus_free(&c);
    o.tag_column = 4;
    assert_read_error(FILES "columns3.tsv", &o,
                      FILES "columns3.tsv:1: expected at least 4 TAB-separated fields (FORM and tag), found 3");
}

/* Column files as they are found: WNUT 2017's whitespace-only lines between sentences and tags
 * with hyphens; CoNLL-2003's space-separated 4 columns and -DOCSTART- lines; a line with another
 * number of fields than the file's first is an error naming it. */
static void test_columns_as_found(void **state)
{
    (void)state;
    qkv_corpus c = read_ok(FILES "wnut_like.conll", NULL);
    assert_int_equal(c.format, QKV_FORMAT_COLUMNS);
    assert_int_equal(c.n_sent, 3); /* "\t" and " \t " lines end sentences; the empty line after " \t " adds none */
    const char *forms[] = {"@paul", "Empire", "State", "From", "The", "Hobbit", "ok"},
               *tags[] = {"O", "B-location", "I-location", "O", "B-creative-work", "I-creative-work", "O"};
    assert_words(&c, 7, forms, tags);
    assert_int_equal(c.sent_start[1], 3);
    assert_int_equal(c.sent_start[2], 6);
    assert_int_equal(c.sent_line[2], 10);
    const char *pred[] = {"O", "B-x", "O", "O", "O", "O", "S-y"};
    const char *expected = "@paul\tO\nEmpire\tB-x\nState\tO\n\t\nFrom\tO\nThe\tO\nHobbit\tO\n \t \n\nok\tS-y\n";
    assert_round_trip(&c, pred, expected, strlen(expected));
    qkv_corpus_free(&c);

    c = read_ok(FILES "conll03.txt", NULL);
    assert_int_equal(c.format, QKV_FORMAT_COLUMNS);
    assert_int_equal(c.n_docstart, 2);
    assert_int_equal(c.n_sent, 3); /* the second -DOCSTART- ends "Peter Blackburn" */
    const char *f3[] = {"EU", "rejects", "German", "Peter", "Blackburn", "BRUSSELS"},
               *ner[] = {"B-ORG", "O", "B-MISC", "B-PER", "I-PER", "B-LOC"},
               *chunk[] = {"B-NP", "B-VP", "B-NP", "B-NP", "I-NP", "B-NP"};
    assert_words(&c, 6, f3, ner);
    assert_int_equal(c.word_line[5], 10);
    const char *p3[] = {"O", "O", "I-MISC", "B-PER", "E-PER", "S-LOC"};
    const char *e3 = "-DOCSTART- -X- -X- O\n\nEU NNP B-NP O\nrejects VBZ B-VP O\nGerman JJ B-NP I-MISC\n\n"
                     "Peter NNP B-NP B-PER\nBlackburn NNP I-NP E-PER\n-DOCSTART- -X- -X- O\nBRUSSELS NNP B-NP S-LOC\n";
    assert_round_trip(&c, p3, e3, strlen(e3));
    qkv_corpus_free(&c);
    qkv_read_opts o = QKV_READ_DEFAULTS;
    o.tag_column = 3;
    c = read_ok(FILES "conll03.txt", &o);
    assert_words(&c, 6, f3, chunk);
    qkv_corpus_free(&c);

    assert_read_error(FILES "columns_uneven.tsv", NULL,
                      FILES "columns_uneven.tsv:4: expected 3 TAB-separated fields (as on line 1), found 2");
    qkv_error err;
    o = QKV_READ_DEFAULTS;
    o.format = QKV_FORMAT_COLUMNS; /* spaces separate fields when the format is chosen ... */
    assert_int_equal(qkv_corpus_read_mem(&c, "a b O\nc  d O\ne O\n", 17, "sp", &o, &err), QKV_ERR);
    assert_string_equal(err.msg, "sp:3: expected 3 space-separated fields (as on line 1), found 2");
    assert_int_equal(qkv_corpus_read_mem(&c, "a b O\nc  d O\n", 12, "sp", &o, &err), QKV_OK);
    assert_int_equal(c.n_words, 2);
    qkv_corpus_free(&c);
    /* ... but not for auto-detected text without -DOCSTART-: plain text is no corpus */
    assert_int_equal(qkv_corpus_read_mem(&c, "The dog barks .\n", 16, "plain", NULL, &err), QKV_ERR);
    assert_string_equal(err.msg, "plain:1: expected at least 2 TAB-separated fields (FORM and tag), found 1");
    /* a CoNLL-U file keeps its strict blank lines: a line of spaces is no sentence break there */
    o = QKV_READ_DEFAULTS;
    o.format = QKV_FORMAT_CONLLU;
    assert_int_equal(qkv_corpus_read_mem(&c, "1\ta\t_\tX\t_\t_\t_\t_\t_\t_\n \n", 22, "u", &o, &err), QKV_ERR);
    assert_string_equal(err.msg, "u:2: expected 10 TAB-separated fields, found 1");
}

/* Inputs in memory: empty input, only blank lines, only comments, a sentence of comments. */
static void test_memory_edge_cases(void **state)
{
    (void)state;
    qkv_corpus c;
    qkv_error err;
    qkv_read_opts o = QKV_READ_DEFAULTS;
    o.format = QKV_FORMAT_CONLLU;
    assert_int_equal(qkv_corpus_read_mem(&c, "", 0, "empty", &o, &err), QKV_OK);
    assert_int_equal(c.n_sent, 0);
    qkv_corpus_free(&c);
    assert_int_equal(qkv_corpus_read_mem(&c, "\n\r\n\n", 4, "blank", &o, &err), QKV_OK);
    assert_int_equal(c.n_sent, 0);
    qkv_corpus_free(&c);
    assert_int_equal(qkv_corpus_read_mem(&c, "# a\n# b", 7, "comments", &o, &err), QKV_OK);
    assert_int_equal(c.n_sent, 1);
    assert_int_equal(c.n_words, 0);
    qkv_corpus_free(&c);
    assert_int_equal(qkv_corpus_read_mem(&c, "1\ta\0b\tc", 7, "nul", &o, &err), QKV_ERR);
    assert_string_equal(err.msg, "nul:1: expected text, found a NUL byte at byte 4 of the line");
    assert_int_equal(qkv_corpus_read_mem(&c, "x\t\xC0\x80", 4, "overlong", NULL, &err), QKV_ERR);
    assert_string_equal(err.msg, "overlong:1: invalid UTF-8 at byte 3 of the line (byte 0xC0); expected UTF-8 text");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_basic),
        cmocka_unit_test(test_crlf_and_bom),
        cmocka_unit_test(test_multiword),
        cmocka_unit_test(test_no_final_newline),
        cmocka_unit_test(test_empty_nodes),
        cmocka_unit_test(test_comments_and_blank_lines),
        cmocka_unit_test(test_errors),
        cmocka_unit_test(test_columns),
        cmocka_unit_test(test_columns_as_found),
        cmocka_unit_test(test_memory_edge_cases),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
