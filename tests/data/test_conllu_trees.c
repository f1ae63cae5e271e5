/* HEAD and DEPREL of CoNLL-U (data/conllu.c, conllu_trees.c, conllu_write.c): heads read beside
 * every tag column, DEPREL as the tag column, multiword tokens and empty nodes not words, the
 * tree checks' file:line errors (HEAD out of range, not a number, a word its own head, a cycle,
 * no root, two roots), sentences without heads left alone, and heads written back with every
 * other byte (multiword tokens, empty nodes, DEPS) as read. */
#include "testutil.h"

#include <stdlib.h>
#include <string.h>

#include "data/corpus.h"

static const char GOOD[] = "# text = Don't go.\n"
                           "1-2\tDon't\t_\t_\t_\t_\t_\t_\t_\t_\n"
                           "1\tDo\tdo\tAUX\tVBP\t_\t3\taux\t3:aux\t_\n"
                           "2\tn't\tnot\tPART\tRB\t_\t3\tadvmod\t3:advmod\t_\n"
                           "3\tgo\tgo\tVERB\tVB\t_\t0\troot\t0:root\t_\n"
                           "3.1\tgo\tgo\tVERB\tVB\t_\t_\t_\t3:conj\t_\n"
                           "4\t.\t.\tPUNCT\t.\t_\t3\tpunct\t3:punct\t_\n"
                           "\n"
                           "1\tHi\thi\tINTJ\tUH\t_\t_\t_\t_\t_\n"
                           "\n";

static qkv_corpus read_mem(const char *text, qkv_tag_field field)
{
    qkv_corpus c;
    qkv_error err = {0};
    qkv_read_opts opts = QKV_READ_DEFAULTS;
    opts.tag_field = field;
    if (qkv_corpus_read_mem(&c, text, strlen(text), "t.conllu", &opts, &err))
        fail_msg("%s", err.msg);
    return c;
}

static void test_read_heads(void **state)
{
    (void)state;
    qkv_corpus c = read_mem(GOOD, QKV_TAG_DEPREL);
    assert_int_equal(c.n_words, 5);
    const int32_t want[5] = {3, 3, 0, 3, -1};
    const char *labels[5] = {"aux", "advmod", "root", "punct", "_"};
    for (int w = 0; w < 5; w++) {
        size_t len;
        const char *tag = qkv_corpus_tag(&c, w, &len);
        assert_int_equal(c.heads[w], want[w]);
        assert_true(len == strlen(labels[w]) && !memcmp(tag, labels[w], len));
    }
    assert_int_equal(qkv_corpus_n_heads(&c), 4);
    qkv_error err;
    assert_int_equal(qkv_corpus_check_trees(&c, &err), QKV_OK);
    qkv_corpus_free(&c);
}

static void assert_tree_error(const char *text, const char *want)
{
    qkv_corpus c = read_mem(text, QKV_TAG_UPOS);
    qkv_error err = {0};
    assert_int_equal(qkv_corpus_check_trees(&c, &err), QKV_ERR);
    if (strcmp(err.msg, want))
        fail_msg("got \"%s\", expected \"%s\"", err.msg, want);
    qkv_corpus_free(&c);
}

#define W(id, head) id "\tw\tw\tX\tX\t_\t" head "\tdep\t_\t_\n"

static void test_tree_errors(void **state)
{
    (void)state;
    assert_tree_error(W("1", "0") W("2", "3") "\n", "t.conllu:2: HEAD 3 of word 2 is out of range: the sentence has 2 words");
    assert_tree_error(W("1", "0") W("2", "x") "\n", "t.conllu:2: expected HEAD (field 7) to be a word number 0..2 or _");
    assert_tree_error(W("1", "0") W("2", "2") "\n", "t.conllu:2: word 2 is its own HEAD");
    assert_tree_error("# c\n" W("1", "2") W("2", "1") "\n", "t.conllu:2: no word of this sentence has HEAD 0 (the root)");
    assert_tree_error(W("1", "0") W("2", "0") "\n", "t.conllu:2: a second word with HEAD 0 (word 2): a tree has one root");
    assert_tree_error(W("1", "0") "\n" W("1", "0") W("2", "3") W("3", "2") "\n",
                      "t.conllu:4: word 2 is in a cycle of heads (HEAD never reaches 0)");
}

static void test_write_heads(void **state)
{
    (void)state;
    qkv_corpus c = read_mem(GOOD, QKV_TAG_DEPREL);
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    const char *tags[5] = {"nsubj", NULL, "root", "punct", "root"};
    const int32_t heads[5] = {2, -1, 0, 1, 0};
    qkv_error err;
    assert_int_equal(qkv_corpus_write_parsed(&c, f, tags, heads, &err), QKV_OK);
    fclose(f);
    const char *want = "# text = Don't go.\n"
                       "1-2\tDon't\t_\t_\t_\t_\t_\t_\t_\t_\n"
                       "1\tDo\tdo\tAUX\tVBP\t_\t2\tnsubj\t_\t_\n" /* a new HEAD: DEPS cleared */
                       "2\tn't\tnot\tPART\tRB\t_\t3\tadvmod\t3:advmod\t_\n"
                       "3\tgo\tgo\tVERB\tVB\t_\t0\troot\t_\t_\n"
                       "3.1\tgo\tgo\tVERB\tVB\t_\t_\t_\t3:conj\t_\n"
                       "4\t.\t.\tPUNCT\t.\t_\t1\tpunct\t_\t_\n"
                       "\n"
                       "1\tHi\thi\tINTJ\tUH\t_\t0\troot\t_\t_\n"
                       "\n";
    assert_string_equal(buf, want);
    free(buf);
    qkv_corpus_free(&c);
    /* tags from UPOS (before HEAD on the line) and heads together */
    c = read_mem(GOOD, QKV_TAG_UPOS);
    f = open_memstream(&buf, &len);
    const char *upos[5] = {"VERB", NULL, NULL, NULL, NULL};
    assert_int_equal(qkv_corpus_write_parsed(&c, f, upos, heads, &err), QKV_OK);
    fclose(f);
    assert_non_null(strstr(buf, "1\tDo\tdo\tVERB\tVBP\t_\t2\taux\t_\t_\n"));
    free(buf);
    qkv_corpus_free(&c);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_read_heads),
        cmocka_unit_test(test_tree_errors),
        cmocka_unit_test(test_write_heads),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
