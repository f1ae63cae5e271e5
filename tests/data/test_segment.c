/* Character labels from hand-made CoNLL-U (data/segment.h): the labels of each character, the
 * paragraphs, the labels read back into sentences, tokens and multiword tokens, the CoNLL-U
 * written from them, errors naming the file's line, and any labels giving a valid segmentation. */
#include "testutil.h"

#include "data/segment.h"
#include "data/utf8.h"
#include "lib/rng.h"

#define W10(id, form, misc) id "\t" form "\t_\t_\t_\t_\t_\t_\t_\t" misc "\n"

static const char DOC[] = "# newdoc id = d1\n"
                          "# newpar id = p1\n"
                          "# sent_id = 1\n"
                          "# text = I don't know, she said.\n" /* line 4 */
                          W10("1", "I", "_")
                          W10("2-3", "don't", "_")
                          W10("2", "do", "_")
                          W10("3", "n't", "_")
                          W10("4", "know", "SpaceAfter=No")
                          W10("5", ",", "_")
                          W10("6", "she", "_")
                          W10("7", "said", "SpaceAfter=No")
                          W10("7.1", "said", "_")
                          W10("8", ".", "_")
                          "\n"
                          "# sent_id = 2\n"
                          "# text = It costs $1,234.50!\n" /* line 17 */
                          W10("1", "It", "_")
                          W10("2", "costs", "_")
                          W10("3", "$", "SpaceAfter=No")
                          W10("4", "1,234.50", "SpaceAfter=No")
                          W10("5", "!", "_")
                          "\n"
                          "# newpar\n"
                          "# text = Cannot.\n" /* line 25 */
                          W10("1-2", "Cannot", "SpaceAfter=No")
                          W10("1", "Can", "_")
                          W10("2", "not", "_")
                          W10("3", ".", "_");

static qkv_seg_text read_ok(const char *data)
{
    qkv_seg_text st;
    qkv_error err = {0};
    if (qkv_seg_read_mem(&st, data, strlen(data), "doc.conllu", &err))
        fail_msg("%s", err.msg);
    return st;
}

/* The characters of paragraph p and their label names, as two strings. */
static void par_strings(const qkv_seg_text *st, int p, char *chars, char *labels)
{
    int b = st->par_start[p], e = st->par_start[p + 1];
    size_t n = st->char_off[e] - st->char_off[b];
    memcpy(chars, st->text + st->char_off[b], n);
    chars[n] = '\0';
    for (int i = b; i < e; i++)
        labels[i - b] = QKV_SEG_LABEL_NAMES[st->labels[i]][0];
    labels[e - b] = '\0';
}

static void test_labels(void **state)
{
    (void)state;
    qkv_seg_text st = read_ok(DOC);
    assert_int_equal(st.n_par, 2);
    assert_int_equal(st.n_sent, 3);
    assert_int_equal(st.n_tokens, 7 + 5 + 2);
    assert_int_equal(st.n_words, 8 + 5 + 3);
    assert_int_equal(st.n_unsplit, 0);
    char chars[128], labels[128];
    par_strings(&st, 0, chars, labels);
    assert_string_equal(chars, "I don't know, she said. It costs $1,234.50!");
    assert_string_equal(labels, "TOIWIITOIIITTOIITOIIITSOITOIIIITOTIIIIIIITS");
    par_strings(&st, 1, chars, labels);
    assert_string_equal(chars, "Cannot.");
    assert_string_equal(labels, "IIWIITS");
    /* each character comes from its sentence's # text line; the space between two sentences
       from the first one's */
    assert_int_equal(st.char_line[0], 4);
    assert_int_equal(st.char_line[23], 4);
    assert_int_equal(st.char_line[24], 17);
    assert_int_equal(st.char_line[st.par_start[1]], 25);
    qkv_seg_free(&st);
}

/* A sentence whose last token has SpaceAfter=No joins the next one without a space. */
static void test_no_space_between_sentences(void **state)
{
    (void)state;
    qkv_seg_text st = read_ok("# newpar\n# text = Hi!\n" W10("1", "Hi", "SpaceAfter=No") W10("2", "!", "SpaceAfter=No")
                              "\n# text = Yo\n" W10("1", "Yo", "_"));
    char chars[64], labels[64];
    assert_int_equal(st.n_par, 1);
    par_strings(&st, 0, chars, labels);
    assert_string_equal(chars, "Hi!Yo");
    assert_string_equal(labels, "ITSIS");
    qkv_seg_free(&st);
}

/* Without # newpar and # newdoc anywhere, every sentence is a paragraph; a multiword token whose
 * words do not spell it is one word (counted). */
static void test_sentence_paragraphs_and_unsplit(void **state)
{
    (void)state;
    qkv_seg_text st = read_ok("# text = del mar\n" W10("1-2", "del", "_") W10("1", "de", "_") W10("2", "el", "_")
                              W10("3", "mar", "_") "\n\n# comment only\n\n# text = b\n" W10("1", "b", "_"));
    assert_int_equal(st.n_par, 2);
    assert_int_equal(st.n_unsplit, 1);
    char chars[64], labels[64];
    par_strings(&st, 0, chars, labels);
    assert_string_equal(chars, "del mar");
    assert_string_equal(labels, "IITOIIS");
    par_strings(&st, 1, chars, labels);
    assert_string_equal(labels, "S");
    qkv_seg_free(&st);
}

static void assert_read_error(const char *data, const char *expected)
{
    qkv_seg_text st;
    qkv_error err = {0};
    assert_int_equal(qkv_seg_read_mem(&st, data, strlen(data), "bad.conllu", &err), QKV_ERR);
    assert_string_equal(err.msg, expected);
    assert_int_equal(st.n_chars, 0);
    qkv_seg_free(&st);
}

static void test_errors(void **state)
{
    (void)state;
    assert_read_error("# text = a b\n" W10("1", "a", "_") W10("2", "c", "_"),
                      "bad.conllu:3: FORM \"c\" is not the text at its place in # text (line 1): \"b\"");
    assert_read_error("# text = a b\n" W10("1", "a", "SpaceAfter=No") W10("2", "b", "_"),
                      "bad.conllu:2: \"a\" has SpaceAfter=No, but # text (line 1) has whitespace after it");
    assert_read_error("# text = ab\n" W10("1", "a", "_") W10("2", "b", "_"),
                      "bad.conllu:2: # text (line 1) has no whitespace after \"a\": expected SpaceAfter=No in its MISC "
                      "(a file whose MISC column was blanked, like the shipped EWT sample, cannot train or score "
                      "a segmenter)");
    assert_read_error("# text = a b.\n" W10("1", "a", "_") W10("2", "b", "_"),
                      "bad.conllu:3: # text (line 1) goes on after the last token \"b\": \".\"");
    assert_read_error("\n\n# sent_id = 1\n" W10("1", "a", "_"),
                      "bad.conllu:3: the sentence has no \"# text = ...\" comment (the segmenter learns from it)");
    assert_read_error("# text = a\n1\ta\t_\n", "bad.conllu:2: expected 10 TAB-separated fields (a CoNLL-U word line)");
    assert_read_error("# text = a\n" W10("x", "a", "_"), "bad.conllu:2: expected an ID (N, N-M or N.M) in field 1, found \"x\"");
    assert_read_error("# text = ab\n" W10("1-2", "ab", "_") W10("1", "a", "_"),
                      "bad.conllu:1: the sentence ends inside a multiword token (expected word 2)");
    assert_read_error("# text = a\xff\n" W10("1", "a", "_"), "bad.conllu:1: invalid UTF-8 or a NUL byte at byte 11 of the line");
}

static char *write_all(const qkv_seg_text *st, const qkv_segmentation *seg)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    assert_non_null(f);
    qkv_error err = {0};
    for (int s = 0; s < seg->n_sent; s++) {
        char id[16];
        snprintf(id, sizeof id, "%d", s + 1);
        if (qkv_seg_write_sentence(f, st, seg, s, id, &err))
            fail_msg("%s", err.msg);
    }
    fclose(f);
    return buf;
}

/* The gold labels read back give the sentences (# newpar before a paragraph's first), tokens,
 * multiword tokens and SpaceAfter. */
static void test_decode_gold(void **state)
{
    (void)state;
    qkv_seg_text st = read_ok(DOC);
    qkv_segmentation seg;
    memset(&seg, 0, sizeof seg);
    qkv_error err = {0};
    for (int p = 0; p < st.n_par; p++)
        assert_int_equal(qkv_seg_decode(&st, p, NULL, &seg, &err), QKV_OK);
    assert_int_equal(seg.n_sent, 3);
    assert_int_equal(seg.sent_par[1], 0);
    assert_int_equal(seg.sent_par[2], 1);
    char *out = write_all(&st, &seg);
    assert_string_equal(out, "# newpar\n# sent_id = 1\n# text = I don't know, she said.\n"
                             W10("1", "I", "_") W10("2-3", "don't", "_") W10("2", "do", "_") W10("3", "n't", "_")
                             W10("4", "know", "SpaceAfter=No") W10("5", ",", "_") W10("6", "she", "_")
                             W10("7", "said", "SpaceAfter=No") W10("8", ".", "_") "\n"
                             "# sent_id = 2\n# text = It costs $1,234.50!\n"
                             W10("1", "It", "_") W10("2", "costs", "_") W10("3", "$", "SpaceAfter=No")
                             W10("4", "1,234.50", "SpaceAfter=No") W10("5", "!", "_") "\n"
                             "# newpar\n# sent_id = 3\n# text = Cannot.\n"
                             W10("1-2", "Cannot", "SpaceAfter=No") W10("1", "Can", "_") W10("2", "not", "_")
                             W10("3", ".", "_") "\n");
    free(out);
    qkv_segmentation_free(&seg);
    qkv_seg_free(&st);
}

/* Decodes paragraph 0 of st from its labels written as letters of "IWTSO", one a character. */
static void decode_letters(const qkv_seg_text *st, const char *letters, qkv_segmentation *seg)
{
    size_t n = strlen(letters);
    uint8_t *labels = malloc(n + 1);
    assert_non_null(labels);
    for (size_t i = 0; i < n; i++)
        labels[i] = (uint8_t)(strchr("IWTSO", letters[i]) - "IWTSO");
    memset(seg, 0, sizeof *seg);
    qkv_error err = {0};
    assert_int_equal(qkv_seg_decode(st, 0, labels, seg, &err), QKV_OK);
    free(labels);
}

/* Raw text with predicted labels: whitespace labelled I inside a token stays in it, other
 * whitespace separates; a newline is written as a space in # text, and in SpacesAfter (\n, \s for
 * a space) when the whitespace after a token is not one space; the paragraph's end ends the sentence. */
static void test_decode_raw(void **state)
{
    (void)state;
    qkv_seg_text st;
    qkv_error err = {0};
    assert_int_equal(qkv_seg_init(&st, "in.txt", &err), QKV_OK);
    static const char text[] = "New York\nis  big";
    assert_int_equal(qkv_seg_add_raw(&st, text, sizeof text - 1, 3, &err), QKV_OK);
    assert_int_equal(st.n_par, 1);
    assert_int_equal(st.char_line[8], 3);
    assert_int_equal(st.char_line[9], 4);
    static const char lab[] = "IIIIIIIT" "O" "IT" "IO" "IIS"; /* the space after "is" labelled I */
    qkv_segmentation seg;
    decode_letters(&st, lab, &seg);
    char *out = write_all(&st, &seg);
    assert_string_equal(out, "# newpar\n# sent_id = 1\n# text = New York is  big\n" W10("1", "New York", "SpacesAfter=\\n")
                             W10("2", "is", "SpacesAfter=\\s\\s")
                             W10("3", "big", "_") "\n");
    free(out);
    qkv_segmentation_free(&seg);
    qkv_seg_free(&st);
}

/* SpacesAfter spells a character that breaks a line other than LF and CR (FF, NEL, U+2028, VT)
 * as \u and four hex digits, so no MISC column breaks a CoNLL-U line; a no-break space stays as
 * it is. A run cut to fit the buffer ends before an escape, never inside one. */
static void test_misc_escapes(void **state)
{
    (void)state;
    qkv_seg_text st;
    qkv_error err = {0};
    assert_int_equal(qkv_seg_init(&st, "in.txt", &err), QKV_OK);
    static const char text[] = "a\fb\xc2\x85" "c\xe2\x80\xa8\xc2\xa0" "d\v\te\f\f\fg";
    assert_int_equal(qkv_seg_add_raw(&st, text, sizeof text - 1, 1, &err), QKV_OK);
    static const char lab[] = "TOTOTOOTOOTOOOS";
    assert_int_equal(st.char_off[st.n_chars], sizeof text - 1);
    assert_int_equal(st.n_chars, (int)sizeof lab - 1);
    qkv_segmentation seg;
    decode_letters(&st, lab, &seg);
    assert_int_equal(seg.n_tokens, 6);
    static const char *const want[] = {"SpacesAfter=\\u000C", "SpacesAfter=\\u0085", "SpacesAfter=\\u2028\xc2\xa0",
                                       "SpacesAfter=\\u000B\\t", "SpacesAfter=\\u000C\\u000C\\u000C", "_"};
    char buf[64];
    for (int t = 0; t < 6; t++)
        assert_string_equal(qkv_seg_token_misc(&st, &seg, 0, t, buf, sizeof buf), want[t]);
    assert_string_equal(qkv_seg_token_misc(&st, &seg, 0, 4, buf, 24), "SpacesAfter=\\u000C");
    qkv_segmentation_free(&seg);
    qkv_seg_free(&st);
}

static bool is_ws(const qkv_seg_text *st, int i)
{
    int n;
    return qkv_utf8_is_space(qkv_utf8_decode(st->text + st->char_off[i], st->char_off[i + 1] - st->char_off[i], &n));
}

/* Any labels: every non-whitespace character is in exactly one token and one word, tokens and
 * words neither begin nor end with whitespace, words lie in their token in order, sentences
 * hold tokens, and the text between tokens is whitespace. */
static void test_decode_any_labels(void **state)
{
    (void)state;
    static const char text[] = " a b\tcd  e\xc2\xa0" "f. g ";
    qkv_rng rng;
    qkv_rng_seed(&rng, 5);
    for (int trial = 0; trial < 2000; trial++) {
        qkv_seg_text st;
        qkv_error err = {0};
        assert_int_equal(qkv_seg_init(&st, "x", &err), QKV_OK);
        assert_int_equal(qkv_seg_add_raw(&st, text, sizeof text - 1, 1, &err), QKV_OK);
        uint8_t labels[64];
        for (int i = 0; i < st.n_chars; i++)
            labels[i] = (uint8_t)(qkv_rng_next(&rng) % QKV_SEG_COUNT);
        qkv_segmentation seg;
        memset(&seg, 0, sizeof seg);
        assert_int_equal(qkv_seg_decode(&st, 0, labels, &seg, &err), QKV_OK);
        int covered[64] = {0};
        assert_true(seg.n_sent >= 1);
        assert_int_equal(seg.sent_start[0], 0);
        assert_int_equal(seg.sent_start[seg.n_sent], seg.n_tokens);
        for (int s = 0; s < seg.n_sent; s++)
            assert_true(seg.sent_start[s + 1] > seg.sent_start[s]);
        for (int t = 0; t < seg.n_tokens; t++) {
            int b = seg.tok_start[t], e = seg.tok_end[t];
            assert_true(b < e);
            assert_true(t == 0 || b >= seg.tok_end[t - 1]);
            assert_false(is_ws(&st, b) || is_ws(&st, e - 1));
            assert_true(seg.tok_word[t + 1] > seg.tok_word[t]);
            for (int w = seg.tok_word[t]; w < seg.tok_word[t + 1]; w++) {
                assert_true(seg.word_start[w] >= b && seg.word_end[w] <= e && seg.word_start[w] < seg.word_end[w]);
                assert_false(is_ws(&st, seg.word_start[w]) || is_ws(&st, seg.word_end[w] - 1));
                assert_true(w == seg.tok_word[t] || seg.word_start[w] >= seg.word_end[w - 1]);
                for (int i = seg.word_start[w]; i < seg.word_end[w]; i++)
                    covered[i]++;
            }
        }
        for (int i = 0; i < st.n_chars; i++) {
            if (!is_ws(&st, i) && covered[i] != 1)
                fail_msg("trial %d: character %d in %d words", trial, i, covered[i]);
        }
        qkv_segmentation_free(&seg);
        qkv_seg_free(&st);
    }
}

/* Whatever the labels, sentences, tokens and words begin and end only at extended grapheme
 * cluster boundaries (UAX #29): never between a letter and its combining mark, inside a ZWJ
 * emoji sequence, before a variation selector or between the two halves of a flag. The
 * characters that continue a cluster are written out here, not computed. */
static void test_decode_grapheme_clusters(void **state)
{
    (void)state;
    /* 0 e, 1 U+0301, 2 x, 3 space, 4 U+1F469, 5 ZWJ, 6 U+1F4BB, 7 space, 8 a, 9 U+2764, 10 U+FE0F,
     * 11 space, 12 U+1F1EB, 13 U+1F1F7, 14 b, 15 '.', 16 U+0915, 17 U+094D (virama) */
    static const char text[] = "e\xCC\x81x \xF0\x9F\x91\xA9\xE2\x80\x8D\xF0\x9F\x92\xBB a\xE2\x9D\xA4\xEF\xB8\x8F "
                               "\xF0\x9F\x87\xAB\xF0\x9F\x87\xB7" "b.\xE0\xA4\x95\xE0\xA5\x8D";
    static const bool continues[18] = {[1] = true, [5] = true, [6] = true, [10] = true, [13] = true, [17] = true};
    qkv_rng rng;
    qkv_rng_seed(&rng, 7);
    for (int trial = 0; trial < 2000; trial++) {
        qkv_seg_text st;
        qkv_error err = {0};
        assert_int_equal(qkv_seg_init(&st, "x", &err), QKV_OK);
        assert_int_equal(qkv_seg_add_raw(&st, text, sizeof text - 1, 1, &err), QKV_OK);
        assert_int_equal(st.n_chars, 18);
        uint8_t labels[18];
        for (int i = 0; i < st.n_chars; i++)
            labels[i] = (uint8_t)(qkv_rng_next(&rng) % QKV_SEG_COUNT);
        if (trial == 0)
            memset(labels, QKV_SEG_SENT_END, sizeof labels); /* a sentence after every character */
        qkv_segmentation seg;
        memset(&seg, 0, sizeof seg);
        assert_int_equal(qkv_seg_decode(&st, 0, labels, &seg, &err), QKV_OK);
        for (int t = 0; t < seg.n_tokens; t++) {
            if (continues[seg.tok_start[t]] || (seg.tok_end[t] < 18 && continues[seg.tok_end[t]]))
                fail_msg("trial %d: token %d is characters %d..%d", trial, t, seg.tok_start[t], seg.tok_end[t] - 1);
            for (int w = seg.tok_word[t]; w < seg.tok_word[t + 1]; w++)
                if (continues[seg.word_start[w]] || (seg.word_end[w] < 18 && continues[seg.word_end[w]]))
                    fail_msg("trial %d: word %d is characters %d..%d", trial, w, seg.word_start[w], seg.word_end[w] - 1);
        }
        if (trial == 0)
            assert_int_equal(seg.n_tokens, 18 - 3 - 6); /* one per cluster that is not a space */
        qkv_segmentation_free(&seg);
        qkv_seg_free(&st);
    }
}

/* The characters as a corpus: one word per character (TAB and LF read as spaces), a sentence per
 * paragraph, labels as tags or "_". */
static void test_corpus(void **state)
{
    (void)state;
    qkv_seg_text st = read_ok(DOC);
    qkv_corpus c;
    qkv_error err = {0};
    assert_int_equal(qkv_seg_corpus(&c, &st, true, &err), QKV_OK);
    assert_int_equal(c.n_sent, 2);
    assert_int_equal(c.n_words, st.n_chars);
    assert_int_equal(qkv_corpus_sent_len(&c, 1), 7);
    assert_int_equal(c.sent_line[1], 25);
    size_t len;
    const char *f = qkv_corpus_form(&c, 3, &len);
    assert_int_equal(len, 1);
    assert_int_equal(f[0], 'o');
    f = qkv_corpus_tag(&c, 3, &len);
    assert_int_equal(len, 1);
    assert_int_equal(f[0], 'W');
    assert_false(qkv_corpus_untagged(&c, 3));
    qkv_corpus_free(&c);
    assert_int_equal(qkv_seg_corpus(&c, &st, false, &err), QKV_OK);
    assert_true(qkv_corpus_untagged(&c, 3));
    qkv_corpus_free(&c);
    qkv_seg_free(&st);

    assert_int_equal(qkv_seg_init(&st, "in.txt", &err), QKV_OK);
    assert_int_equal(qkv_seg_add_raw(&st, "a\tb\nc", 5, 1, &err), QKV_OK);
    assert_int_equal(qkv_seg_corpus(&c, &st, false, &err), QKV_OK);
    f = qkv_corpus_form(&c, 1, &len);
    assert_int_equal(f[0], ' ');
    f = qkv_corpus_form(&c, 3, &len);
    assert_int_equal(f[0], ' ');
    assert_int_equal(c.word_line[4], 2);
    qkv_corpus_free(&c);
    qkv_seg_free(&st);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_labels),
        cmocka_unit_test(test_no_space_between_sentences),
        cmocka_unit_test(test_sentence_paragraphs_and_unsplit),
        cmocka_unit_test(test_errors),
        cmocka_unit_test(test_decode_gold),
        cmocka_unit_test(test_decode_raw),
        cmocka_unit_test(test_misc_escapes),
        cmocka_unit_test(test_decode_any_labels),
        cmocka_unit_test(test_decode_grapheme_clusters),
        cmocka_unit_test(test_corpus),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
