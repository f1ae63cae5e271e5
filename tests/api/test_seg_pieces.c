/* The segmenter reads a long paragraph in pieces (data/segment.h: qkv_seg_corpus_pieces) and
 * gives the same sentences, tokens and words as when it reads the paragraph whole: the shipped
 * English segmenter sees 24 characters on either side (3 layers of attention within 8), and
 * each piece is read with that context. The paragraph is the EWT sample's sentences ("# text"
 * lines) one a line. */
#include <limits.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "api/segmenter.h"
#include "data/textfile.h"

#define MODEL "data/models/en.h5"
#define SAMPLE "data/ud_english_ewt_sample/en_ewt-sample-dev.conllu.gz"

static void assert_same(const qkv_segmentation *a, const qkv_segmentation *b)
{
    assert_int_equal(a->n_sent, b->n_sent);
    assert_int_equal(a->n_tokens, b->n_tokens);
    assert_int_equal(a->n_words, b->n_words);
    assert_memory_equal(a->sent_start, b->sent_start, ((size_t)a->n_sent + 1) * sizeof *a->sent_start);
    assert_memory_equal(a->tok_start, b->tok_start, (size_t)a->n_tokens * sizeof *a->tok_start);
    assert_memory_equal(a->tok_end, b->tok_end, (size_t)a->n_tokens * sizeof *a->tok_end);
    assert_memory_equal(a->space_after, b->space_after, (size_t)a->n_tokens);
    assert_memory_equal(a->word_start, b->word_start, (size_t)a->n_words * sizeof *a->word_start);
    assert_memory_equal(a->word_end, b->word_end, (size_t)a->n_words * sizeof *a->word_end);
}

/* The segmentation of st by tk read in pieces of `piece` characters. */
static qkv_segmentation segment(qkv_tokenizer *tk, const qkv_seg_text *st, int piece)
{
    qkv_segmentation seg;
    memset(&seg, 0, sizeof seg);
    qkv_error err;
    tk->piece = piece;
    if (qkv_tokenizer_segment(tk, st, &seg, &err))
        fail_msg("%s", err.msg);
    return seg;
}

/* The "# text = " lines of the CoNLL-U text[0..len), one after the other, each ending in '\n'
 * (written over text); their length. */
static size_t text_lines(char *text, size_t len)
{
    static const char key[] = "# text = ";
    size_t out = 0;
    for (size_t at = 0; at < len;) {
        char *end = memchr(text + at, '\n', len - at);
        size_t n = end ? (size_t)(end - (text + at)) : len - at;
        if (n > sizeof key - 1 && !memcmp(text + at, key, sizeof key - 1)) {
            memmove(text + out, text + at + sizeof key - 1, n - (sizeof key - 1));
            out += n - (sizeof key - 1);
            text[out++] = '\n';
        }
        at += n + 1;
    }
    return out;
}

static void test_pieces_read_as_whole(void **state)
{
    (void)state;
    qkv_tokenizer tk;
    qkv_seg_text st;
    qkv_error err;
    char *text = NULL;
    size_t len = 0;
    if (qkv_tokenizer_load(&tk, MODEL, NULL, &err) || qkv_text_read(SAMPLE, &text, &len, &err) ||
        qkv_seg_init(&st, "sample", &err) || qkv_seg_add_raw(&st, text, text_lines(text, len), 1, &err))
        fail_msg("%s", err.msg);
    assert_int_equal(st.n_par, 1);
    assert_true(st.n_chars > 3 * 1024); /* several pieces of the default size */
    qkv_segmentation whole = segment(&tk, &st, INT_MAX / 4);
    qkv_segmentation pieces = segment(&tk, &st, 0);
    qkv_segmentation small = segment(&tk, &st, 100);
    assert_true(whole.n_sent > 20);
    assert_same(&whole, &pieces);
    assert_same(&whole, &small);
    qkv_segmentation_free(&whole);
    qkv_segmentation_free(&pieces);
    qkv_segmentation_free(&small);
    qkv_seg_free(&st);
    free(text);
    qkv_tokenizer_free(&tk);
}

int main(void)
{
    const struct CMUnitTest tests[] = {cmocka_unit_test(test_pieces_read_as_whole)};
    return cmocka_run_group_tests(tests, NULL, NULL);
}
