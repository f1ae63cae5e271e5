/* The segmenter's lexicon of training chunks (data/seg_lexicon.h): which chunks it keeps and
 * their segmentations, how it overrides predicted labels (sentence ends kept or moved to the
 * chunk's end), and the stored pairs it accepts back. */
#include "testutil.h"

#include "data/seg_lexicon.h"
#include "data/segment.h"

#define W10(id, form, misc) id "\t" form "\t_\t_\t_\t_\t_\t_\t_\t" misc "\n"

/* "don't" twice as do|n't, "know," twice as know|, ; "its" once as it|s, once whole; "said."
 * once; "Cannot." once. */
static const char DOC[] = "# newpar\n"
                          "# text = I don't know, its said.\n"
                          W10("1", "I", "_")
                          W10("2-3", "don't", "_")
                          W10("2", "do", "_")
                          W10("3", "n't", "_")
                          W10("4", "know", "SpaceAfter=No")
                          W10("5", ",", "_")
                          W10("6-7", "its", "_")
                          W10("6", "it", "_")
                          W10("7", "s", "_")
                          W10("8", "said", "SpaceAfter=No")
                          W10("9", ".", "_")
                          "\n"
                          "# newpar\n"
                          "# text = don't know, its Cannot.\n"
                          W10("1-2", "don't", "_")
                          W10("1", "do", "_")
                          W10("2", "n't", "_")
                          W10("3", "know", "SpaceAfter=No")
                          W10("4", ",", "_")
                          W10("5", "its", "_")
                          W10("6-7", "Cannot", "SpaceAfter=No")
                          W10("6", "Can", "_")
                          W10("7", "not", "_")
                          W10("8", ".", "_");

static qkv_seg_text read_doc(void)
{
    qkv_seg_text st;
    qkv_error err = {0};
    if (qkv_seg_read_mem(&st, DOC, strlen(DOC), "doc.conllu", &err))
        fail_msg("%s", err.msg);
    return st;
}

static void entries(const qkv_seg_lexicon *lx, char *out, size_t cap);

/* A token with a space inside (UD allows it): its first chunk ends inside the token, so it is no
 * chunk of its own; the chunk that ends the token is. */
static void test_token_across_space(void **state)
{
    (void)state;
    static const char doc[] = "# text = about 10 000 dollars\n"
                              W10("1", "about", "_")
                              W10("2", "10 000", "_")
                              W10("3", "dollars", "_");
    qkv_seg_text st;
    qkv_error err = {0};
    if (qkv_seg_read_mem(&st, doc, strlen(doc), "space.conllu", &err))
        fail_msg("%s", err.msg);
    qkv_seg_lexicon lx;
    char got[512];
    assert_int_equal(qkv_seg_lexicon_build(&lx, &st, 1, &err), QKV_OK);
    entries(&lx, got, sizeof got);
    assert_string_equal(got, "000=IIT about=IIIIT dollars=IIIIIIT");
    qkv_seg_lexicon_free(&lx);
    qkv_seg_free(&st);
}

/* The lexicon as "chunk=seg chunk=seg ...". */
static void entries(const qkv_seg_lexicon *lx, char *out, size_t cap)
{
    out[0] = '\0';
    for (size_t i = 0; i < lx->n; i++)
        snprintf(out + strlen(out), cap - strlen(out), "%s%s=%s", i ? " " : "", lx->chunks[i], lx->segs[i]);
}

static void test_build(void **state)
{
    (void)state;
    qkv_seg_text st = read_doc();
    qkv_seg_lexicon lx;
    qkv_error err = {0};
    char got[512];
    /* every chunk of 2+ characters segmented one way ("its" is not); "I" is one character */
    assert_int_equal(qkv_seg_lexicon_build(&lx, &st, 1, &err), QKV_OK);
    entries(&lx, got, sizeof got);
    assert_string_equal(got, "Cannot.=IIWIITT don't=IWIIT know,=IIITT said.=IIITT");
    qkv_seg_lexicon_free(&lx);
    /* seen twice or more */
    assert_int_equal(qkv_seg_lexicon_build(&lx, &st, 2, &err), QKV_OK);
    entries(&lx, got, sizeof got);
    assert_string_equal(got, "don't=IWIIT know,=IIITT");
    qkv_seg_lexicon_free(&lx);
    qkv_seg_free(&st);
}

/* Labels as a string of label names, and back. */
static void set_labels(uint8_t *labels, const char *names)
{
    for (size_t i = 0; names[i]; i++)
        labels[i] = (uint8_t)(strchr("IWTSO", names[i]) - "IWTSO");
}

static void label_names(const uint8_t *labels, int n, char *out)
{
    for (int i = 0; i < n; i++)
        out[i] = QKV_SEG_LABEL_NAMES[labels[i]][0];
    out[n] = '\0';
}

static void test_apply(void **state)
{
    (void)state;
    qkv_seg_text train = read_doc(), raw;
    qkv_seg_lexicon lx;
    qkv_error err = {0};
    assert_int_equal(qkv_seg_lexicon_build(&lx, &train, 1, &err), QKV_OK);
    const char text[] = "don't know, said.\nits Cannot.  x know,";
    assert_int_equal(qkv_seg_init(&raw, "raw", &err), QKV_OK);
    assert_int_equal(qkv_seg_add_raw(&raw, text, strlen(text), 1, &err), QKV_OK);
    assert_int_equal(raw.n_chars, (int)strlen(text));
    uint8_t labels[64];
    char got[64];
    /* predicted: "don't" whole, "know," whole and a sentence end inside it, "said." whole, "its"
       split (not listed: kept), "Cannot." as Can|not|. with S after "Can" */
    set_labels(labels, "IIIITOISIITOIIIISOIWTOIISIITSOOTOIIIIS");
    long changed = qkv_seg_lexicon_apply(&lx, &raw, labels);
    label_names(labels, raw.n_chars, got);
    /* don't -> do|n't; know, -> know , with the sentence end moved to the comma; said. -> said .
       (its S kept); its as predicted; Cannot. -> Can|not . with S at its end; the second
       "know," gets its T, its S stays on the comma */
    assert_string_equal(got, "IWIITOIIITSOIIITSOIWTOIIWIITSOOTOIIITS");
    assert_int_equal(changed, 1 + 3 + 1 + 1 + 1);
    /* applying it again changes nothing; an empty lexicon nothing */
    assert_int_equal(qkv_seg_lexicon_apply(&lx, &raw, labels), 0);
    qkv_seg_lexicon empty = {0};
    assert_int_equal(qkv_seg_lexicon_apply(&empty, &raw, labels), 0);
    assert_int_equal(qkv_seg_lexicon_apply(NULL, &raw, labels), 0);
    qkv_seg_free(&raw);
    qkv_seg_lexicon_free(&lx);
    qkv_seg_free(&train);
}

static void test_set(void **state)
{
    (void)state;
    qkv_seg_lexicon lx;
    qkv_error err = {0};
    const char *chunks[] = {"ab", "caf\xC3\xA9,"}, *segs[] = {"WT", "IIITT"};
    assert_int_equal(qkv_seg_lexicon_set(&lx, 2, chunks, segs, &err), QKV_OK);
    assert_int_equal(lx.n, 2);
    assert_string_equal(lx.chunks[1], "caf\xC3\xA9,");
    assert_string_equal(lx.segs[1], "IIITT");
    qkv_seg_lexicon_free(&lx);
    const char *bad_len[] = {"ab", "cd"}, *bad_segs[] = {"WT", "TTT"};
    assert_int_equal(qkv_seg_lexicon_set(&lx, 2, bad_len, bad_segs, &err), QKV_ERR);
    assert_non_null(strstr(err.msg, "pair 2: segmentation \"TTT\" is not one of I, W, T for each of the 2"));
    const char *bad_end[] = {"WI"};
    assert_int_equal(qkv_seg_lexicon_set(&lx, 1, bad_len, bad_end, &err), QKV_ERR);
    assert_non_null(strstr(err.msg, "pair 1: segmentation \"WI\""));
    const char *unsorted[] = {"cd", "ab"}, *ok[] = {"IT", "IT"};
    assert_int_equal(qkv_seg_lexicon_set(&lx, 2, unsorted, ok, &err), QKV_ERR);
    assert_non_null(strstr(err.msg, "pair 2: chunk \"ab\" is not after \"cd\""));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_build),
        cmocka_unit_test(test_token_across_space),
        cmocka_unit_test(test_apply),
        cmocka_unit_test(test_set),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
