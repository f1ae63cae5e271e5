/* bf16 products (train.precision: bf16, lib/gemm/bf16.h) in the float build. With oneDNN: C =
 * alpha · op(A) op(B) + beta · C equals a double reference computed on A and B rounded to bf16
 * (round to nearest even, rounded here bit by bit) to the rounding of a float sum, for every
 * transposition, row strides wider than the matrices, beta 0 over NaN, K = 0 and the models'
 * shapes; ties round to even; products inside an OpenMP region, many shapes at once from
 * several threads, more shapes than the table holds; a shape's primitives are made once.
 * Without oneDNN: bf16 is refused with a message naming the package. */
#include "testutil.h"

#include <omp.h>
#include <stdint.h>

#include "gemm/gemm_check.h"
#include "lib/gemm/backend.h"
#include "lib/gemm/bf16.h"

/* x rounded to bfloat16 (8 bits of mantissa), to nearest, ties to even. */
static double bf16_round(float x)
{
    uint32_t u;
    memcpy(&u, &x, sizeof u);
    if ((u & 0x7f800000u) == 0x7f800000u)
        return x;
    u += 0x7fffu + ((u >> 16) & 1u);
    u &= 0xffff0000u;
    float r;
    memcpy(&r, &u, sizeof r);
    return r;
}

static void use_bf16(void)
{
    qkv_error err;
    if (qkv_gemm_set_precision(QKV_PRECISION_BF16, &err))
        fail_msg("%s", err.msg);
    assert_string_equal(qkv_gemm_precision_name(), "bf16");
}

static void use_f32(void)
{
    qkv_error err;
    assert_int_equal(qkv_gemm_set_precision(QKV_PRECISION_F32, &err), QKV_OK);
    assert_string_equal(qkv_gemm_precision_name(), "f32");
}

static void test_values_every_transposition(void **state)
{
    (void)state;
    if (!qkv_gemm_have_onednn())
        skip();
    use_bf16();
    qkv_rng rng;
    qkv_rng_seed(&rng, 11);
    const int sizes[][3] = {{1, 1, 1}, {3, 5, 7}, {17, 9, 33}, {40, 64, 32}, {70, 3, 129}};
    for (size_t s = 0; s < sizeof sizes / sizeof *sizes; s++)
        for (int tr = 0; tr < 4; tr++)
            for (int wide = 0; wide < 3; wide++) {
                product p = {.ta = tr & 1, .tb = tr >> 1, .m = sizes[s][0], .n = sizes[s][1], .k = sizes[s][2],
                             .alpha = wide == 1 ? -0.5f : 1.0f, .beta = wide == 1 ? 0.75f : wide == 2 ? 1.0f : 0.0f};
                p.lda = (p.ta ? p.m : p.k) + 3 * (wide > 0);
                p.ldb = (p.tb ? p.k : p.n) + 5 * (wide > 0);
                p.ldc = p.n + 2 * (wide > 0);
                assert_int_equal(run_product(&p, bf16_round, &rng), 0);
            }
    assert_int_equal(qkv_gemm_bf16_fallbacks(), 0);
    use_f32();
}

/* The inputs are rounded to nearest, ties to even, not cut: 1 + 3·2^-8 (halfway between 1 + 2^-7
 * and 1 + 2^-6) becomes 1 + 2^-6; 1 + 2^-8 (halfway between 1 and 1 + 2^-7) becomes 1; just above
 * that half, 1 + 2^-7. Products and sums of these are exact in float. */
static void test_round_to_nearest_even(void **state)
{
    (void)state;
    if (!qkv_gemm_have_onednn())
        skip();
    use_bf16();
    const float x[] = {1 + 3 * 0x1p-8f, 1 + 0x1p-8f, 1 + 0x1p-8f + 0x1p-20f, -(1 + 3 * 0x1p-8f)};
    const float want[] = {1 + 0x1p-6f, 1, 1 + 0x1p-7f, -(1 + 0x1p-6f)};
    for (int i = 0; i < 4; i++) {
        float one = 1, c = NAN;
        qkv_gemm(false, false, 1, 1, 1, 1, &x[i], 1, &one, 1, 0, &c, 1);
        assert_true(c == want[i]);
        qkv_gemm(false, false, 1, 1, 1, 1, &one, 1, &x[i], 1, 0, &c, 1); /* B is rounded too */
        assert_true(c == want[i]);
    }
    float row[4], ones[4] = {1, 1, 1, 1}, c = NAN; /* a sum of K = 4 (the dot-product instructions) */
    memcpy(row, x, sizeof row);
    qkv_gemm(false, false, 1, 1, 4, 1, row, 4, ones, 1, 0, &c, 1);
    assert_true(c == want[0] + want[1] + want[2] + want[3]);
    use_f32();
}

/* K = 0 scales C by beta (zeros with beta 0, even over NaN); M = 0 or N = 0 touches nothing. */
static void test_empty_sums(void **state)
{
    (void)state;
    if (!qkv_gemm_have_onednn())
        skip();
    use_bf16();
    qkv_rng rng;
    qkv_rng_seed(&rng, 5);
    product p = {.m = 4, .n = 6, .k = 0, .lda = 1, .ldb = 6, .ldc = 7, .alpha = 1, .beta = 0.5f};
    assert_int_equal(run_product(&p, bf16_round, &rng), 0);
    p.beta = 0;
    assert_int_equal(run_product(&p, bf16_round, &rng), 0);
    float c[1] = {3.0f}, a[1] = {1.0f};
    qkv_gemm(false, false, 0, 1, 1, 1, a, 1, a, 1, 0, c, 1);
    qkv_gemm(false, false, 1, 0, 1, 1, a, 1, a, 1, 0, c, 1);
    assert_true(c[0] == 3.0f);
    use_f32();
}

/* The shapes of the shipped models' products, forward and weight gradient, at 1,000 rows; a
 * shape's primitives are made once, however often it runs. */
static void test_model_shapes(void **state)
{
    (void)state;
    if (!qkv_gemm_have_onednn())
        skip();
    use_bf16();
    qkv_rng rng;
    qkv_rng_seed(&rng, 3);
    const int shapes[][3] = {{1000, 512, 128}, {1000, 768, 192}, {1000, 192, 768}, {64, 64, 32}, {128, 128, 1000}};
    for (int rep = 0; rep < 2; rep++) {
        int plans0 = qkv_gemm_bf16_plans();
        for (size_t s = 0; s < sizeof shapes / sizeof *shapes; s++) {
            int m = shapes[s][0], n = shapes[s][1], k = shapes[s][2];
            product fwd = {.tb = true, .m = m, .n = n, .k = k, .lda = k, .ldb = k, .ldc = n, .alpha = 1};
            product wgrad = {.ta = true, .m = n, .n = k, .k = m, .lda = n, .ldb = k, .ldc = k, .alpha = 1, .beta = 1};
            assert_int_equal(run_product(&fwd, bf16_round, &rng), 0);
            assert_int_equal(run_product(&wgrad, bf16_round, &rng), 0);
        }
        if (rep == 1)
            assert_int_equal(qkv_gemm_bf16_plans(), plans0); /* the second time: no new primitives */
    }
    assert_int_equal(qkv_gemm_bf16_fallbacks(), 0);
    use_f32();
}

/* Inside an OpenMP region (the ops call products there, lib/gemm_rows.c): every thread gets the
 * values of the product outside it; then threads run many new shapes at once, which fills the
 * table from several threads. */
static void test_inside_parallel_region(void **state)
{
    (void)state;
    if (!qkv_gemm_have_onednn())
        skip();
    use_bf16();
    const int m = 96, n = 80, k = 72, threads = 2;
    qkv_rng rng;
    qkv_rng_seed(&rng, 9);
    float *a = random_floats(&rng, (size_t)m * k), *b = random_floats(&rng, (size_t)n * k);
    float *outside = calloc((size_t)m * n, sizeof *outside), *inside = calloc((size_t)threads * m * n, sizeof *inside);
    qkv_gemm(false, true, m, n, k, 1, a, k, b, k, 0, outside, n);
#pragma omp parallel for num_threads(threads)
    for (int t = 0; t < threads; t++)
        qkv_gemm(false, true, m, n, k, 1, a, k, b, k, 0, inside + (size_t)t * m * n, n);
    for (int t = 0; t < threads; t++)
        for (int i = 0; i < m * n; i++)
            assert_true(fabsf(inside[(size_t)t * m * n + i] - outside[i]) <= 1e-5f * (1 + fabsf(outside[i])));
    int wrong = 0;
#pragma omp parallel for num_threads(threads) schedule(dynamic, 1) reduction(+ : wrong)
    for (int s = 0; s < 48; s++) {
        qkv_rng r;
        qkv_rng_seed(&r, 100 + (uint64_t)s);
        product p = {.ta = s & 1, .tb = (s >> 1) & 1, .m = 5 + s, .n = 7 + s % 5, .k = 3 + s % 11, .alpha = 1,
                     .beta = (s % 3) ? 1.0f : 0.0f};
        p.lda = p.ta ? p.m : p.k;
        p.ldb = p.tb ? p.k : p.n;
        p.ldc = p.n;
        wrong += run_product(&p, bf16_round, &r);
    }
    assert_int_equal(wrong, 0);
    assert_int_equal(qkv_gemm_bf16_fallbacks(), 0);
    use_f32();
    free(a);
    free(b);
    free(outside);
    free(inside);
}

/* More shapes than the table holds: the rest still compute, on primitives made for the call. */
static void test_beyond_the_table(void **state)
{
    (void)state;
    if (!qkv_gemm_have_onednn())
        skip();
    use_bf16();
    qkv_rng rng;
    qkv_rng_seed(&rng, 21);
    for (int s = 1; s <= QKV_GEMM_BF16_PLANS + 8; s++) {
        product p = {.tb = true, .m = s, .n = 3, .k = 2, .lda = 2, .ldb = 2, .ldc = 3, .alpha = 1};
        assert_int_equal(run_product(&p, bf16_round, &rng), 0);
    }
    assert_int_equal(qkv_gemm_bf16_plans(), QKV_GEMM_BF16_PLANS);
    assert_int_equal(qkv_gemm_bf16_fallbacks(), 0);
    use_f32();
}

/* bf16 with oneDNN; without it an error naming the package, and the products stay float. */
static void test_choice(void **state)
{
    (void)state;
    qkv_error err;
    assert_string_equal(qkv_gemm_precision_name(), "f32"); /* the default */
    if (qkv_gemm_have_onednn()) {
        assert_int_equal(qkv_gemm_set_precision(QKV_PRECISION_BF16, &err), QKV_OK);
        assert_true(qkv_gemm_bf16_on);
    } else {
        assert_int_equal(qkv_gemm_set_precision(QKV_PRECISION_BF16, &err), QKV_ERR);
        assert_non_null(strstr(err.msg, "train.precision: bf16: this build has no oneDNN"));
        assert_non_null(strstr(err.msg, "libdnnl-dev"));
        assert_false(qkv_gemm_bf16_on);
    }
    assert_int_equal(qkv_gemm_set_precision(QKV_PRECISION_COUNT, &err), QKV_ERR);
    use_f32();
    assert_false(qkv_gemm_bf16_on);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_choice),          cmocka_unit_test(test_values_every_transposition),
        cmocka_unit_test(test_round_to_nearest_even), cmocka_unit_test(test_empty_sums),
        cmocka_unit_test(test_model_shapes),    cmocka_unit_test(test_inside_parallel_region),
        cmocka_unit_test(test_beyond_the_table),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
