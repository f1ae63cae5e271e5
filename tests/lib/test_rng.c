/* The seeded generator: known values, seed determinism, exact save/restore of the state,
 * bounds of qkv_rng_below, and the moments of uniform and normal draws. */
#include "testutil.h"

#include "lib/rng.h"

/* Known values, from a separate Python implementation of splitmix64 seeding and xoshiro256**
 * written from Blackman & Vigna's published reference code (run with /usr/bin/python3). The
 * first splitmix64 output for seed 0, 0xe220a8397b1dcdaf, is the commonly published one. */
static void test_known_values(void **state)
{
    (void)state;
    qkv_rng r;
    qkv_rng_seed(&r, 0);
    assert_true(r.s[0] == 0xe220a8397b1dcdafULL);
    qkv_rng_seed(&r, 42);
    assert_true(r.s[0] == 0xbdd732262feb6e95ULL);
    assert_true(r.s[3] == 0x581ce1ff0e4ae394ULL);
    const uint64_t expected[4] = {0x15780b2e0c2ec716ULL, 0x6104d9866d113a7eULL, 0xae17533239e499a1ULL,
                                  0xecb8ad4703b360a1ULL};
    for (int i = 0; i < 4; i++)
        assert_true(qkv_rng_next(&r) == expected[i]);
}

/* A mixed sequence of draws, as a training step would make. */
static void draw(qkv_rng *r, double out[400])
{
    for (int i = 0; i < 100; i++) {
        out[4 * i] = (double)qkv_rng_next(r);
        out[4 * i + 1] = qkv_rng_uniform(r);
        out[4 * i + 2] = qkv_rng_normal(r);
        out[4 * i + 3] = (double)qkv_rng_below(r, 1000 + (uint64_t)i);
    }
}

static void test_seed_determinism(void **state)
{
    (void)state;
    qkv_rng a, b, c;
    qkv_rng_seed(&a, 1234);
    qkv_rng_seed(&b, 1234);
    qkv_rng_seed(&c, 1235);
    double da[400], db[400], dc[400];
    draw(&a, da);
    draw(&b, db);
    draw(&c, dc);
    assert_memory_equal(da, db, sizeof da);
    int same = 0;
    for (int i = 0; i < 400; i++)
        same += da[i] == dc[i];
    assert_true(same < 40); /* only some of the small-range draws may coincide */
}

static void test_save_restore(void **state)
{
    (void)state;
    qkv_rng r;
    qkv_rng_seed(&r, 99);
    double warm[400], first[400], second[400];
    draw(&r, warm); /* advance into the sequence */
    qkv_rng saved = r; /* the whole state is the struct: a checkpoint copies its four words */
    draw(&r, first);
    r = saved;
    draw(&r, second);
    assert_memory_equal(first, second, sizeof first);
    /* restoring into a different generator works the same */
    qkv_rng other;
    qkv_rng_seed(&other, 7);
    memcpy(other.s, saved.s, sizeof other.s);
    draw(&other, second);
    assert_memory_equal(first, second, sizeof first);
}

static void test_below_bounds(void **state)
{
    (void)state;
    qkv_rng r;
    qkv_rng_seed(&r, 5);
    const uint64_t ns[] = {1, 2, 3, 7, 1000, (1ULL << 63) + 1, UINT64_MAX};
    for (size_t k = 0; k < sizeof ns / sizeof ns[0]; k++)
        for (int i = 0; i < 10000; i++) {
            uint64_t x = qkv_rng_below(&r, ns[k]);
            if (x >= ns[k])
                fail_msg("qkv_rng_below(%llu) returned %llu", (unsigned long long)ns[k], (unsigned long long)x);
        }
    /* n = 6, 60000 draws: each count is 10000 +- 5 standard deviations (sd = 91.3) */
    int counts[6] = {0};
    for (int i = 0; i < 60000; i++)
        counts[qkv_rng_below(&r, 6)]++;
    for (int k = 0; k < 6; k++)
        if (abs(counts[k] - 10000) > 457)
            fail_msg("value %d drawn %d times of 60000", k, counts[k]);
    /* n = 3 * 2^62: a plain x % n would give [0, 2^62) probability 1/2; unbiased it is 1/3
     * (3000 draws: expected 1000, sd 25.8) */
    int low = 0;
    for (int i = 0; i < 3000; i++)
        low += qkv_rng_below(&r, 3ULL << 62) < (1ULL << 62);
    if (abs(low - 1000) > 130)
        fail_msg("%d of 3000 draws below 2^62, expected about 1000", low);
}

static void test_uniform_and_normal_moments(void **state)
{
    (void)state;
    qkv_rng r;
    qkv_rng_seed(&r, 2024);
    const int n = 100000;
    double sum = 0, sum2 = 0;
    for (int i = 0; i < n; i++) {
        double u = qkv_rng_uniform(&r);
        assert_true(u >= 0 && u < 1);
        sum += u;
        sum2 += u * u;
    }
    /* U(0,1): mean 1/2 (sd of the mean 0.0009), variance 1/12 = 0.0833 */
    tu_assert_close(sum / n, 0.5, 0.005);
    tu_assert_close(sum2 / n - (sum / n) * (sum / n), 1.0 / 12, 0.002);
    double s1 = 0, s2 = 0, s3 = 0, s4 = 0;
    for (int i = 0; i < n; i++) {
        double z = qkv_rng_normal(&r);
        assert_true(isfinite(z));
        s1 += z;
        s2 += z * z;
        s3 += z * z * z;
        s4 += z * z * z * z;
    }
    /* N(0,1) over 1e5 draws: mean 0 (sd 0.0032), variance 1 (sd 0.0045), skewness 0 (sd 0.008),
     * kurtosis 3 (sd 0.015); tolerances are about 5 standard deviations */
    double mean = s1 / n, var = s2 / n - mean * mean;
    tu_assert_close(mean, 0, 0.016);
    tu_assert_close(var, 1, 0.025);
    tu_assert_close(s3 / n, 0, 0.04);
    tu_assert_close(s4 / n, 3, 0.08);
}

static void test_shuffle_is_permutation(void **state)
{
    (void)state;
    qkv_rng r;
    qkv_rng_seed(&r, 3);
    int a[50], seen[50] = {0}, moved = 0;
    for (int i = 0; i < 50; i++)
        a[i] = i;
    qkv_rng_shuffle(&r, a, 50);
    for (int i = 0; i < 50; i++) {
        assert_true(a[i] >= 0 && a[i] < 50);
        seen[a[i]]++;
        moved += a[i] != i;
    }
    for (int i = 0; i < 50; i++)
        assert_int_equal(seen[i], 1);
    assert_true(moved > 40); /* expected 49 */
    qkv_rng_shuffle(&r, a, 0); /* empty and single-element shuffles are no-ops */
    qkv_rng_shuffle(&r, a, 1);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_known_values),
        cmocka_unit_test(test_seed_determinism),
        cmocka_unit_test(test_save_restore),
        cmocka_unit_test(test_below_bounds),
        cmocka_unit_test(test_uniform_and_normal_moments),
        cmocka_unit_test(test_shuffle_is_permutation),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
