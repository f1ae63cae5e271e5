/* Tokens and Sentences scores of predicted character labels (data/seg_score.h) on a hand-made
 * two-paragraph text, the counts worked out by hand from the labels. */
#include "testutil.h"

#include "data/seg_score.h"

#define W10(id, form, misc) id "\t" form "\t_\t_\t_\t_\t_\t_\t_\t" misc "\n"

/* paragraph 1: "a bc. d" (sentences "a bc." and "d"); paragraph 2: "ef g" (one sentence) */
static const char DOC[] = "# newpar\n"
                          "# text = a bc.\n"
                          W10("1", "a", "_") W10("2", "bc", "SpaceAfter=No") W10("3", ".", "_") "\n"
                          "# text = d\n"
                          W10("1", "d", "_") "\n"
                          "# newpar\n"
                          "# text = ef g\n"
                          W10("1", "ef", "_") W10("2", "g", "_") "\n";

static void test_scores(void **state)
{
    (void)state;
    qkv_seg_text st;
    qkv_error err = {0};
    if (qkv_seg_read_mem(&st, DOC, strlen(DOC), "doc.conllu", &err))
        fail_msg("%s", err.msg);
    /* characters: a _ b c . _ d | e f _ g */
    assert_int_equal(st.n_chars, 7 + 4);
    const char *gold = "TOITSOS" "ITOS";
    for (int i = 0; i < st.n_chars; i++)
        assert_int_equal(QKV_SEG_LABEL_NAMES[st.labels[i]][0], gold[i]);
    qkv_ud_score tok, sent;
    /* the gold labels: everything right (4 + 2 tokens, 2 + 1 sentences) */
    assert_int_equal(qkv_seg_score(&st, st.labels, &tok, &sent, &err), QKV_OK);
    assert_int_equal(tok.gold, 6);
    assert_int_equal(tok.system, 6);
    assert_int_equal(tok.correct, 6);
    assert_int_equal(sent.correct, 3);
    assert_true(tok.f1 == 1.0 && sent.f1 == 1.0);
    /* predicted: "bc." one token (I on c), no sentence end after "." (T), "ef" split (T on e):
     * tokens a, bc., d, e, f, g: a, d, g correct; sentences "a bc. d" and "ef g": "ef g" correct */
    const char *pred = "TOIITOS" "TTOS";
    uint8_t labels[16];
    for (int i = 0; i < st.n_chars; i++)
        for (int k = 0; k < QKV_SEG_COUNT; k++)
            if (QKV_SEG_LABEL_NAMES[k][0] == pred[i])
                labels[i] = (uint8_t)k;
    assert_int_equal(qkv_seg_score(&st, labels, &tok, &sent, &err), QKV_OK);
    assert_int_equal(tok.gold, 6);
    assert_int_equal(tok.system, 6);
    assert_int_equal(tok.correct, 3);
    tu_assert_close(tok.precision, 3.0 / 6, 1e-12);
    tu_assert_close(tok.recall, 3.0 / 6, 1e-12);
    tu_assert_close(tok.f1, 2.0 * 3 / 12, 1e-12);
    assert_int_equal(sent.gold, 3);
    assert_int_equal(sent.system, 2);
    assert_int_equal(sent.correct, 1);
    tu_assert_close(sent.f1, 2.0 / 5, 1e-12);
    qkv_seg_free(&st);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_scores),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
