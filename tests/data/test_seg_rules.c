/* The segmenter's decoding rules (data/seg_rules.h) and the abbreviations of its lexicon
 * (data/seg_lexicon.h): labels as a poor model gives them, the segmentation they decode to
 * without the rules (wrong) and with them. */
#include "testutil.h"

#include "data/seg_lexicon.h"
#include "data/seg_rules.h"
#include "data/segment.h"

#define W10(id, form, misc) id "\t" form "\t_\t_\t_\t_\t_\t_\t_\t" misc "\n"

/* The segmentation of text (one paragraph) with labels (one letter of IWTSO per character),
 * corrected by the rules with lx when rules, as "tok tok | tok" (" | " between sentences, "+"
 * between the words of a multiword token) into out. */
static void segment(const char *text, const char *labels, const qkv_seg_lexicon *lx, bool rules, char *out,
                    size_t cap)
{
    qkv_seg_text st;
    qkv_segmentation seg;
    memset(&seg, 0, sizeof seg);
    qkv_error err = {0};
    assert_int_equal(qkv_seg_init(&st, "raw", &err), QKV_OK);
    assert_int_equal(qkv_seg_add_raw(&st, text, strlen(text), 1, &err), QKV_OK);
    assert_int_equal((size_t)st.n_chars, strlen(labels));
    uint8_t l[256];
    for (int i = 0; i < st.n_chars; i++)
        l[i] = (uint8_t)(strchr("IWTSO", labels[i]) - "IWTSO");
    if (rules)
        qkv_seg_rules_apply(lx, &st, l);
    assert_int_equal(qkv_seg_decode(&st, 0, l, &seg, &err), QKV_OK);
    out[0] = '\0';
    for (int s = 0; s < seg.n_sent; s++)
        for (int t = seg.sent_start[s]; t < seg.sent_start[s + 1]; t++) {
            snprintf(out + strlen(out), cap - strlen(out), "%s", t == 0 ? "" : t == seg.sent_start[s] ? " | " : " ");
            for (int w = seg.tok_word[t]; w < seg.tok_word[t + 1]; w++)
                snprintf(out + strlen(out), cap - strlen(out), "%s%.*s", w > seg.tok_word[t] ? "+" : "",
                         (int)(st.char_off[seg.word_end[w]] - st.char_off[seg.word_start[w]]),
                         st.text + st.char_off[seg.word_start[w]]);
        }
    qkv_segmentation_free(&seg);
    qkv_seg_free(&st);
}

static void check(const char *text, const char *labels, const qkv_seg_lexicon *lx, const char *without,
                  const char *with)
{
    char got[1024];
    segment(text, labels, lx, false, got, sizeof got);
    assert_string_equal(got, without);
    segment(text, labels, lx, true, got, sizeof got);
    assert_string_equal(got, with);
}

/* "Dr." and "p.m." inside sentences, "etc" "." ending one, "No." once inside and twice at the
 * end (no abbreviation: not more often inside). */
static const char DOC[] = "# newpar\n"
                          "# text = Dr. Lee came at 5 p.m. etc.\n"
                          W10("1", "Dr.", "_")
                          W10("2", "Lee", "_")
                          W10("3", "came", "_")
                          W10("4", "at", "_")
                          W10("5", "5", "_")
                          W10("6", "p.m.", "_")
                          W10("7", "etc", "SpaceAfter=No")
                          W10("8", ".", "_")
                          "\n"
                          "# text = Say No. now\n"
                          W10("1", "Say", "_")
                          W10("2", "No.", "_")
                          W10("3", "now", "_")
                          "\n"
                          "# text = No.\n"
                          W10("1", "No.", "_")
                          "\n"
                          "# text = No.\n"
                          W10("1", "No.", "_");

static void test_abbrevs_learned(void **state)
{
    (void)state;
    qkv_seg_text st;
    qkv_error err = {0};
    if (qkv_seg_read_mem(&st, DOC, strlen(DOC), "doc.conllu", &err))
        fail_msg("%s", err.msg);
    qkv_seg_lexicon lx;
    assert_int_equal(qkv_seg_lexicon_build(&lx, &st, 1, &err), QKV_OK);
    assert_int_equal(lx.n_abbrevs, 2);
    assert_string_equal(lx.abbrevs[0], "Dr.");
    assert_string_equal(lx.abbrevs[1], "p.m.");
    assert_true(qkv_seg_lexicon_is_abbrev(&lx, "Dr.", 3));
    assert_false(qkv_seg_lexicon_is_abbrev(&lx, "No.", 3));
    assert_false(qkv_seg_lexicon_is_abbrev(&lx, "etc.", 4));
    /* a sentence end after "Dr." and "p.m." (the model's), none with the rules */
    check("Dr. Lee came at 5 p.m. on (Dr. Who) day.", "IISOIITOIIITOITOTOIIISOITOTIISOIITTOIITS", &lx,
          "Dr. | Lee came at 5 p.m. | on ( Dr. | Who ) day .", "Dr. Lee came at 5 p.m. on ( Dr. Who ) day .");
    /* stored abbreviations are read back; out of order is an error */
    const char *stored[] = {"U.S.", "etc."}, *bad[] = {"etc.", "U.S."}, *dotless[] = {"Dr"};
    assert_int_equal(qkv_seg_lexicon_set_abbrevs(&lx, 2, stored, &err), QKV_OK);
    assert_true(qkv_seg_lexicon_is_abbrev(&lx, "etc.", 4));
    assert_false(qkv_seg_lexicon_is_abbrev(&lx, "Dr.", 3));
    assert_int_equal(qkv_seg_lexicon_set_abbrevs(&lx, 2, bad, &err), QKV_ERR);
    assert_non_null(strstr(err.msg, "abbreviation 2"));
    assert_int_equal(qkv_seg_lexicon_set_abbrevs(&lx, 1, dotless, &err), QKV_ERR);
    qkv_seg_lexicon_free(&lx);
    qkv_seg_free(&st);
}

/* A lexicon without abbreviations (a segmenter file made before they were kept): its chunks of
 * one token ending with "." are. */
static void test_abbrevs_from_chunks(void **state)
{
    (void)state;
    const char *chunks[] = {"Mr.", "it."}, *segs[] = {"IIT", "ITT"};
    qkv_seg_lexicon lx;
    qkv_error err = {0};
    assert_int_equal(qkv_seg_lexicon_set(&lx, 2, chunks, segs, &err), QKV_OK);
    assert_true(qkv_seg_lexicon_is_abbrev(&lx, "Mr.", 3));
    assert_false(qkv_seg_lexicon_is_abbrev(&lx, "it.", 3));
    check("Mr. X", "IISOS", &lx, "Mr. | X", "Mr. X");
    qkv_seg_lexicon_free(&lx);
}

/* E-mail addresses and URLs: one token, no sentence end inside; trailing punctuation is not
 * theirs, a bracket they open is. */
static void test_addresses(void **state)
{
    (void)state;
    check("to jane.doe@example.org now", "ITOIIIISIIIIIIIIIIIIIITOIIS", NULL, "to jane. | doe@example.org now",
          "to jane.doe@example.org now");
    check("see https://a.org/x_(y). Ok", "IITOIIIITIIIIIIIIIIIITTSOIS", NULL, "see https ://a.org/x_(y ) . | Ok",
          "see https://a.org/x_(y) . | Ok");
    check("(www.a.com)", "TIIIISIIIIS", NULL, "( www.a | .com)", "( www.a.com )");
    check("a@b", "IIS", NULL, "a@b", "a@b"); /* no domain: no address */
}

/* An emoji is one token of its own: split from a word, its skin tone and ZWJ sequence kept. */
static void test_emoji(void **state)
{
    (void)state;
    /* great + thumbs up + skin tone; family (man ZWJ woman ZWJ girl) + "!" */
    check("great\xF0\x9F\x91\x8D\xF0\x9F\x8F\xBD \xF0\x9F\x91\xA8\xE2\x80\x8D\xF0\x9F\x91\xA9\xE2\x80\x8D\xF0\x9F\x91\xA7!",
          "IIIIIIIOITIIIS", NULL,
          "great\xF0\x9F\x91\x8D\xF0\x9F\x8F\xBD \xF0\x9F\x91\xA8\xE2\x80\x8D\xF0\x9F\x91\xA9\xE2\x80\x8D\xF0\x9F\x91\xA7!",
          "great \xF0\x9F\x91\x8D\xF0\x9F\x8F\xBD \xF0\x9F\x91\xA8\xE2\x80\x8D\xF0\x9F\x91\xA9\xE2\x80\x8D\xF0\x9F\x91\xA7 !");
    check("\xC2\xA9 2020", "TOIIIS", NULL, "\xC2\xA9 2020", "\xC2\xA9 2020"); /* (c): no emoji */
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_abbrevs_learned),
        cmocka_unit_test(test_abbrevs_from_chunks),
        cmocka_unit_test(test_addresses),
        cmocka_unit_test(test_emoji),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
