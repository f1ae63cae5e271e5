/* The frame scores (data/frame_scores.h) on hand-made cases whose answers are counted by hand. */
#include "testutil.h"

#include "data/frame_scores.h"

static void test_edit_distance(void **state)
{
    (void)state;
    qkv_error err;
    int64_t d;
    const int32_t kitten[] = {'k', 'i', 't', 't', 'e', 'n'}, sitting[] = {'s', 'i', 't', 't', 'i', 'n', 'g'};
    assert_int_equal(qkv_edit_distance(kitten, 6, sitting, 7, &d, &err), QKV_OK);
    assert_int_equal(d, 3); /* k->s, e->i, +g */
    assert_int_equal(qkv_edit_distance(kitten, 0, sitting, 7, &d, &err), QKV_OK);
    assert_int_equal(d, 7);
    assert_int_equal(qkv_edit_distance(kitten, 6, sitting, 0, &d, &err), QKV_OK);
    assert_int_equal(d, 6);
    const int32_t ab[] = {1, 2}, ba[] = {2, 1};
    assert_int_equal(qkv_edit_distance(ab, 2, ba, 2, &d, &err), QKV_OK);
    assert_int_equal(d, 2); /* no transpositions */
}

static void test_frame_accuracy(void **state)
{
    (void)state;
    const int32_t pred[] = {0, 1, 2, 2, 3}, gold[] = {0, 1, 1, 2, -1};
    qkv_frame_score s = qkv_frame_accuracy_counts(pred, gold, 5);
    assert_int_equal(s.n, 5);
    assert_int_equal(s.errors, 2); /* frame 2, and the unseen gold of frame 4 */
    tu_assert_close(qkv_frame_score_rate(s), 0.4, 1e-12);
}

static void test_phone_error_rate(void **state)
{
    (void)state;
    qkv_error err;
    /* sentence 0: frames sil sil 3 3 4 4 sil 4 5 5 -> runs 3 4 4 5 (silence splits the two 4s)
     * against reference 3 4 5: one insertion. sentence 1: frames 6 6 7 -> 6 7 against 6 8 7 9:
     * two deletions. PER = 3 / 7. */
    const int32_t pred[] = {0, 0, 3, 3, 4, 4, 0, 4, 5, 5, 6, 6, 7};
    const int32_t offsets[] = {0, 10, 13};
    const int32_t ref[] = {3, 4, 5, 6, 8, 7, 9};
    const int64_t ref_start[] = {0, 3, 7};
    qkv_frame_score s;
    assert_int_equal(qkv_phone_error_counts(pred, offsets, 2, ref, ref_start, 0, &s, &err), QKV_OK);
    assert_int_equal(s.n, 7);
    assert_int_equal(s.errors, 3);
    /* a perfect collapse scores 0 */
    const int32_t p2[] = {0, 3, 3, 3, 4, 5, 5, 0};
    const int32_t o2[] = {0, 8};
    assert_int_equal(qkv_phone_error_counts(p2, o2, 1, ref, ref_start, 0, &s, &err), QKV_OK);
    assert_int_equal(s.errors, 0);
    assert_int_equal(s.n, 3);
}

static void test_word_majority(void **state)
{
    (void)state;
    qkv_error err;
    /* sentence 0: word 0 frames predict 1 1 2 (majority 1, gold 1: right); word 1 frames 2 3
     * (tie: the smaller id 2; gold 3: wrong); a silent frame (word -1) in between.
     * sentence 1: word 0 has no frames (never spoken: not scored); word 1 predicts 4 4 (gold 4). */
    const int32_t pred[] = {1, 1, 2, 0, 3, 2, 4, 4};
    const int32_t gold[] = {1, 1, 1, 0, 3, 3, 4, 4};
    const int32_t word[] = {0, 0, 0, -1, 1, 1, 1, 1};
    const int32_t offsets[] = {0, 6, 8};
    qkv_frame_score s;
    assert_int_equal(qkv_word_majority_counts(pred, gold, word, offsets, 2, 5, &s, &err), QKV_OK);
    assert_int_equal(s.n, 3);
    assert_int_equal(s.errors, 1);
}

/* Word indices need not be small, dense or in order: the votes are grouped by sorting the
 * frames, so the time depends on the frames, not on the largest index (2e9 here). */
static void test_word_majority_sparse(void **state)
{
    (void)state;
    qkv_error err;
    /* word 2e9: frames 0 and 2 predict 1 1 (gold of frame 0: 1, right); word 7: frames 1 and 3
     * predict 2 3 (tie: 2; gold of frame 1: 2, right); word 5: frame 4 predicts 0 (gold 4). */
    const int32_t pred[] = {1, 2, 1, 3, 0};
    const int32_t gold[] = {1, 2, 0, 0, 4};
    const int32_t word[] = {2000000000, 7, 2000000000, 7, 5};
    const int32_t offsets[] = {0, 5};
    qkv_frame_score s;
    assert_int_equal(qkv_word_majority_counts(pred, gold, word, offsets, 1, 5, &s, &err), QKV_OK);
    assert_int_equal(s.n, 3);
    assert_int_equal(s.errors, 1);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_edit_distance),
        cmocka_unit_test(test_frame_accuracy),
        cmocka_unit_test(test_phone_error_rate),
        cmocka_unit_test(test_word_majority),
        cmocka_unit_test(test_word_majority_sparse),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
