/* Sentences of one length that see all of it (images) run the attention's blocks as batched
 * products (lib/ops/attention_batched.c): their output against the reference, their gradients
 * by finite differences (with dropout, relu and the relative biases), and the per-block path's
 * values and gradients with the same dropout masks. */
#define QKV_TESTUTIL_AUTOGRAD
#include "testutil.h"

#include "lib/nn/mha.h"
#include "lib/ops/ops.h"
#include "mha_fixture.h"
typedef mha_fixture fixture;
#include "attention_checks.h"

/* The output and the gradients of x, w_q, w_v and the relative biases (when there are) for the
 * output gradient dy, the tape's dropout drawn from seed; into out, in that order. */
static size_t output_and_gradients(uint64_t seed, const int *bt, const qkv_attention_opts *opts, double *out)
{
    qkv_params ps;
    qkv_params_init(&ps);
    fixture f;
    mha_fixture_setup(&f, &ps, 500, 8, bt + 1, bt[0], opts, true);
    qkv_rng rng;
    qkv_rng_seed(&rng, seed);
    qkv_tape tp;
    qkv_tape_init(&tp, 0);
    tp.rng = &rng;
    qkv_tensor *y = mha_fn(&tp, &f);
    assert_non_null(y);
    qkv_real *dy = malloc(y->size * sizeof *dy);
    for (size_t i = 0; i < y->size; i++)
        dy[i] = (qkv_real)qkv_rng_normal(&rng);
    assert_int_equal(qkv_backward_from(&tp, y, dy), QKV_OK);
    size_t n = 0;
    for (size_t i = 0; i < y->size; i++)
        out[n++] = y->data[i];
    const qkv_tensor *ts[] = {f.x, f.m.w_q, f.m.w_v, f.m.rel_bias};
    for (int t = 0; t < 4; t++)
        for (size_t i = 0; ts[t] && i < ts[t]->size; i++)
            out[n++] = ts[t]->grad[i];
    free(dy);
    qkv_tape_free(&tp);
    qkv_params_free(&ps);
    return n;
}

static void test_batched_blocks(void **state)
{
    (void)state;
    static const int same[] = {3, 5, 5, 5};
    qkv_rng rng;
    qkv_rng_seed(&rng, 7);
    int cfg = 0;
    for (int heads = 1; heads <= 2; heads++)
        for (int window = 0; window <= 6; window += 6) /* 6: wider than the sentences */
            for (int variant = 0; variant < 4; variant++, cfg++) {
                qkv_attention_opts opts = {.n_heads = heads, .window = window,
                                           .normalize = (variant & 1) ? QKV_ATTN_RELU : QKV_ATTN_SOFTMAX,
                                           .rel_clip = cfg % 3, .scale = cfg % 5 == 0 ? 0.7 : 0};
                check_forward(600 + (uint64_t)cfg, same, &opts, variant & 2);
                check_gradients(700 + (uint64_t)cfg, 4, same, &opts, variant & 2, NULL);
                opts.dropout = 0.3;
                check_gradients(800 + (uint64_t)cfg, 4, same, &opts, variant & 2, &rng);
                enum { MAX = 4096 };
                double *batched = malloc(MAX * sizeof *batched), *blocks = malloc(MAX * sizeof *blocks);
                for (int drop = 0; drop < 2; drop++) {
                    opts.dropout = drop ? 0.3 : 0;
                    long before = qkv_attention_batched_passes;
                    size_t n = output_and_gradients(900 + (uint64_t)cfg, same, &opts, batched);
                    assert_int_equal(qkv_attention_batched_passes, before + 1);
                    qkv_attention_batch_blocks = false;
                    assert_int_equal(output_and_gradients(900 + (uint64_t)cfg, same, &opts, blocks), n);
                    assert_int_equal(qkv_attention_batched_passes, before + 1);
                    qkv_attention_batch_blocks = true;
                    assert_true(n >= 15 * 8 * 2 + 2 * 8 * 8 && n <= MAX); /* y, dx, dw_q, dw_v */
                    for (size_t i = 0; i < n; i++)
                        tu_assert_close(batched[i], blocks[i], 1e-12);
                }
                free(batched);
                free(blocks);
            }
    /* A window of 3 in sentences of 5: the band is as wide as the sentence, but the first and
     * last words do not see each other, so the blocks run one by one. */
    long before = qkv_attention_batched_passes;
    for (int heads = 1; heads <= 2; heads++) {
        qkv_attention_opts opts = {.n_heads = heads, .window = 3};
        check_forward(650 + (uint64_t)heads, same, &opts, true);
        check_gradients(750 + (uint64_t)heads, 4, same, &opts, true, NULL);
    }
    assert_int_equal(qkv_attention_batched_passes, before);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_batched_blocks),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
