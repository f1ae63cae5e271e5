/* The arena: 64-byte alignment, no overlap, overflow blocks merged on reset, and the training
 * loop's guarantee that a step after the first allocates no new blocks. */
#include "testutil.h"

#include "lib/arena.h"
#include "lib/ops/ops.h"
#include "lib/optim/optim.h"

static int aligned64(const void *p) { return ((uintptr_t)p & 63) == 0; }

/* One "step": allocations of varied sizes (about 2.3 MiB in all, more than the first 1 MiB
 * block), each filled with its own byte; then every block is checked intact (no overlap). */
enum { N_ALLOCS = 40 };
static void step(qkv_arena *a)
{
    unsigned char *p[N_ALLOCS];
    size_t size[N_ALLOCS];
    for (int i = 0; i < N_ALLOCS; i++) {
        size[i] = i % 4 == 0 ? 200000 + (size_t)i : (size_t)(i * 37 % 1000);
        p[i] = i % 3 ? qkv_arena_alloc(a, size[i]) : qkv_arena_calloc(a, size[i]);
        assert_non_null(p[i]);
        assert_true(aligned64(p[i]));
        if (i % 3 == 0)
            for (size_t j = 0; j < size[i]; j++)
                if (p[i][j] != 0)
                    fail_msg("qkv_arena_calloc byte %zu of allocation %d is %d", j, i, p[i][j]);
        memset(p[i], i + 1, size[i]);
    }
    for (int i = 0; i < N_ALLOCS; i++)
        for (size_t j = 0; j < size[i]; j++)
            if (p[i][j] != (unsigned char)(i + 1))
                fail_msg("allocation %d byte %zu overwritten", i, j);
}

static void test_alignment(void **state)
{
    (void)state;
    qkv_arena a;
    assert_int_equal(qkv_arena_init(&a, 0), 0);
    const size_t sizes[] = {0, 1, 3, 63, 64, 65, 1000, 4097};
    void *prev = NULL;
    for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; i++) {
        void *p = qkv_arena_alloc(&a, sizes[i]);
        assert_non_null(p);
        assert_true(aligned64(p));
        assert_true(p != prev); /* even a 0-byte allocation is distinct */
        prev = p;
    }
    /* used_total counts rounded sizes: 64+64+64+64+64+128+1024+4160 */
    assert_int_equal(a.used_total, 5632);
    qkv_arena_free(&a);
}

static void test_second_step_allocates_nothing(void **state)
{
    (void)state;
    qkv_arena a;
    assert_int_equal(qkv_arena_init(&a, 0), 0);
    step(&a);
    assert_true(a.mallocs >= 2); /* the first step needed an overflow block */
    size_t peak = a.peak;
    qkv_arena_reset(&a);           /* merges them into one block of the peak size */
    assert_int_equal(a.used_total, 0);
    size_t after_reset = a.mallocs;
    for (int s = 0; s < 3; s++) {  /* identical steps: no malloc, no growth */
        step(&a);
        assert_int_equal(a.mallocs, after_reset);
        assert_int_equal(a.peak, peak);
        qkv_arena_reset(&a);
        assert_int_equal(a.mallocs, after_reset);
    }
    /* a smaller step fits too */
    assert_non_null(qkv_arena_alloc(&a, 1000));
    qkv_arena_reset(&a);
    assert_int_equal(a.mallocs, after_reset);
    qkv_arena_free(&a);
}

/* A step larger than any before grows the arena once; after the next reset it is stable again. */
static void test_growth_then_stable(void **state)
{
    (void)state;
    qkv_arena a;
    assert_int_equal(qkv_arena_init(&a, 4096), 0);
    assert_int_equal(a.mallocs, 1);
    assert_non_null(qkv_arena_alloc(&a, 4000)); /* fits the reserve */
    assert_int_equal(a.mallocs, 1);
    qkv_arena_reset(&a);
    assert_int_equal(a.mallocs, 1);             /* one block: nothing to merge */
    step(&a);
    size_t grown = a.mallocs;
    assert_true(grown > 1);
    qkv_arena_reset(&a);
    assert_int_equal(a.mallocs, grown + 1);     /* the merged block */
    step(&a);
    qkv_arena_reset(&a);
    assert_int_equal(a.mallocs, grown + 1);
    qkv_arena_free(&a);
    assert_int_equal(a.mallocs, 0);
}

/* The real loop: tape reset, forward (linear on a fresh input tensor), backward, clipping,
 * AdamW step. From the second step on, nothing is malloc'd by the arena. */
static void test_training_step_allocates_nothing(void **state)
{
    (void)state;
    qkv_params ps;
    qkv_params_init(&ps);
    qkv_error err;
    qkv_rng rng;
    qkv_rng_seed(&rng, 11);
    qkv_tensor *w = qkv_params_add(&ps, &err, 2, (int[]){400, 300}, "w");
    qkv_tensor *b = qkv_params_add(&ps, &err, 1, (int[]){400}, "b");
    assert_non_null(w);
    assert_non_null(b);
    qkv_init_xavier_uniform(w, &rng);
    qkv_optim_config cfg = qkv_optim_defaults(QKV_OPTIM_ADAMW);
    qkv_optimizer opt;
    assert_int_equal(qkv_optim_init(&opt, &ps, &cfg, &err), QKV_OK);
    static qkv_real dy[200 * 400];
    for (size_t i = 0; i < sizeof dy / sizeof dy[0]; i++)
        dy[i] = (qkv_real)(qkv_rng_uniform(&rng) - 0.5);
    qkv_tape tp;
    assert_int_equal(qkv_tape_init(&tp, 0), 0);
    size_t mallocs_after_first = 0;
    for (int s = 0; s < 4; s++) {
        qkv_tape_reset(&tp);
        if (s == 1)
            mallocs_after_first = tp.arena.mallocs;
        qkv_params_zero_grad(&ps);
        qkv_tensor *x = qkv_tape_tensor2(&tp, 200, 300); /* x 480 KB, y 640 KB, dy 640 KB */
        assert_non_null(x);
        for (size_t i = 0; i < x->size; i++)
            x->data[i] = (qkv_real)qkv_rng_normal(&rng);
        qkv_tensor *y = qkv_linear(&tp, x, w, b);
        assert_non_null(y);
        assert_int_equal(qkv_backward_from(&tp, y, dy), QKV_OK);
        assert_true(isfinite(qkv_clip_grad_norm(&ps, 1.0)));
        qkv_optim_step(&opt, 1e-3);
        if (s >= 1)
            assert_int_equal(tp.arena.mallocs, mallocs_after_first);
    }
    assert_true(mallocs_after_first > 1); /* the first step did overflow the 1 MiB block */
    qkv_tape_free(&tp);
    qkv_optim_free(&opt);
    qkv_params_free(&ps);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_alignment),
        cmocka_unit_test(test_second_step_allocates_nothing),
        cmocka_unit_test(test_growth_then_stable),
        cmocka_unit_test(test_training_step_allocates_nothing),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
