/* The tree decoders (lib/tree_decode.c) against brute force: on random score matrices of 1..6
 * words (many seeds), Chu-Liu/Edmonds returns a one-root tree scoring as much as the best of
 * all one-root trees, and Eisner's chart a projective one-root tree scoring as much as the best
 * projective one; the validity check on hand-made trees; errors. */
#include "testutil.h"

#include <string.h>

#include "lib/rng.h"
#include "lib/tree_decode.h"

/* The best score over all head assignments that are one-root trees (projective ones only when
 * asked), by enumerating (n+1)^n assignments. */
static double brute_force(const double *scores, int n, int projective)
{
    int32_t heads[8] = {0};
    double best = -INFINITY;
    for (;;) {
        if (qkv_tree_is_valid(heads, n, projective)) {
            double s = qkv_tree_score(scores, n, heads);
            best = s > best ? s : best;
        }
        int k = 0;
        while (k < n && ++heads[k] > n)
            heads[k++] = 0;
        if (k == n)
            return best;
    }
}

static void random_scores(qkv_rng *rng, double *scores, int n, double spread)
{
    for (int i = 0; i < n * (n + 1); i++)
        scores[i] = spread * qkv_rng_normal(rng);
}

static void test_against_brute_force(void **state)
{
    (void)state;
    qkv_rng rng;
    qkv_rng_seed(&rng, 2017);
    double scores[64];
    int32_t heads[8];
    qkv_error err;
    for (int seed = 0; seed < 300; seed++)
        for (int n = 1; n <= 6; n++) {
            /* large spreads and a strong pull towards ROOT make many-root trees tempting */
            random_scores(&rng, scores, n, seed % 3 == 0 ? 100 : 1);
            for (int i = 0; seed % 2 && i < n; i++)
                scores[i * (n + 1)] += 3;
            for (int projective = 0; projective < 2; projective++) {
                memset(heads, 0xff, sizeof heads);
                assert_int_equal(projective ? qkv_tree_eisner(scores, n, heads, &err)
                                            : qkv_tree_mst(scores, n, heads, &err), QKV_OK);
                if (!qkv_tree_is_valid(heads, n, projective))
                    fail_msg("seed %d, n %d, %s: not a%s one-root tree", seed, n, projective ? "eisner" : "mst",
                             projective ? " projective" : "");
                double want = brute_force(scores, n, projective), got = qkv_tree_score(scores, n, heads);
                if (fabs(got - want) > 1e-9 * (1 + fabs(want)))
                    fail_msg("seed %d, n %d, %s: tree score %.12g, best %.12g", seed, n,
                             projective ? "eisner" : "mst", got, want);
            }
        }
}

/* A long sentence: both decoders return trees, MST at least as good as Eisner. */
static void test_long_sentence(void **state)
{
    (void)state;
    enum { N = 60 };
    static double scores[N * (N + 1)];
    int32_t a[N], b[N];
    qkv_rng rng;
    qkv_rng_seed(&rng, 5);
    random_scores(&rng, scores, N, 1);
    qkv_error err;
    assert_int_equal(qkv_tree_decode(QKV_TREE_MST, scores, N, a, &err), QKV_OK);
    assert_int_equal(qkv_tree_decode(QKV_TREE_EISNER, scores, N, b, &err), QKV_OK);
    assert_true(qkv_tree_is_valid(a, N, 0));
    assert_true(qkv_tree_is_valid(b, N, 1));
    assert_true(qkv_tree_score(scores, N, a) >= qkv_tree_score(scores, N, b) - 1e-9);
}

static void test_validity(void **state)
{
    (void)state;
    assert_true(qkv_tree_is_valid((int32_t[]){2, 0, 2}, 3, 1));
    assert_false(qkv_tree_is_valid((int32_t[]){0, 0, 2}, 3, 0));  /* two ROOT children */
    assert_false(qkv_tree_is_valid((int32_t[]){2, 1, 0}, 3, 0));  /* a cycle 1 <-> 2 */
    assert_false(qkv_tree_is_valid((int32_t[]){1, 0, 2}, 3, 0));  /* word 1 its own head */
    assert_false(qkv_tree_is_valid((int32_t[]){4, 0, 2}, 3, 0));  /* head out of range */
    assert_true(qkv_tree_is_valid((int32_t[]){3, 4, 0, 3}, 4, 0));
    assert_false(qkv_tree_is_valid((int32_t[]){3, 4, 0, 3}, 4, 1)); /* 1->3 crosses 2<-4 */
}

static void test_errors(void **state)
{
    (void)state;
    qkv_error err;
    int32_t heads[2];
    assert_int_equal(qkv_tree_mst((double[]){0}, 0, heads, &err), QKV_ERR);
    assert_non_null(strstr(err.msg, "0 words"));
    assert_int_equal(qkv_tree_eisner((double[]){0, 1, NAN, 2, 3, 4}, 2, heads, &err), QKV_ERR);
    assert_non_null(strstr(err.msg, "head 2 for word 1 is nan"));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_against_brute_force),
        cmocka_unit_test(test_long_sentence),
        cmocka_unit_test(test_validity),
        cmocka_unit_test(test_errors),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
