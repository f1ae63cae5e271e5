/* The arena: 64-byte alignment, no overlap, blocks kept and reused by a reset, overflow blocks
 * growing with the capacity, marks and their release (and the tape's keep_only over them), and
 * the training loop's guarantee that a step after the first allocates no new blocks. */
#include "testutil.h"

#include "lib/arena.h"
#include "lib/ops/ops.h"
#include "lib/optim/optim.h"

static int aligned64(const void *p) { return ((uintptr_t)p & 63) == 0; }

/* One "step": allocations of varied sizes (about 2.4 MiB in all, more than the first 2 MiB
 * block), each filled with its own byte; then every block is checked intact (no overlap). */
enum { N_ALLOCS = 40 };
static void step(qkv_arena *a)
{
    unsigned char *p[N_ALLOCS];
    size_t size[N_ALLOCS];
    for (int i = 0; i < N_ALLOCS; i++) {
        size[i] = i % 4 == 0 ? 250000 + (size_t)i : (size_t)(i * 37 % 1000);
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
    qkv_arena_reset(&a);           /* keeps the blocks, empty */
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
    assert_int_equal(a.mallocs, 1);
    step(&a);
    size_t grown = a.mallocs;
    assert_true(grown > 1);
    qkv_arena_reset(&a);
    assert_int_equal(a.mallocs, grown);         /* kept, not merged */
    step(&a);
    qkv_arena_reset(&a);
    assert_int_equal(a.mallocs, grown);
    qkv_arena_free(&a);
    assert_int_equal(a.mallocs, 0);
    assert_null(a.first);
}

/* After a reset the same sequence of allocations gets the same addresses: the pages a step
 * touched are used again, not returned and faulted in anew. */
static void test_reset_reuses_memory(void **state)
{
    (void)state;
    qkv_arena a;
    assert_int_equal(qkv_arena_init(&a, 0), 0);
    const size_t sizes[] = {100, 3u << 20, 5000, 1u << 20, 7u << 20, 64};
    enum { N = sizeof sizes / sizeof sizes[0] };
    void *first[N];
    for (int i = 0; i < N; i++)
        assert_non_null(first[i] = qkv_arena_alloc(&a, sizes[i]));
    size_t blocks = a.mallocs;
    for (int round = 0; round < 3; round++) {
        qkv_arena_reset(&a);
        for (int i = 0; i < N; i++)
            assert_ptr_equal(qkv_arena_alloc(&a, sizes[i]), first[i]);
        assert_int_equal(a.mallocs, blocks);
    }
    qkv_arena_free(&a);
}

/* Steps of growing size: each overflow block is at least the capacity before it, so the blocks'
 * number grows with the logarithm of the largest step, not with its size. */
static void test_overflow_blocks_grow(void **state)
{
    (void)state;
    qkv_arena a;
    assert_int_equal(qkv_arena_init(&a, 0), 0);
    size_t total = 0;
    for (int s = 1; s <= 64; s++) {
        qkv_arena_reset(&a);
        for (int i = 0; i < 4 * s; i++) /* s MiB in 256 KiB pieces */
            assert_non_null(qkv_arena_alloc(&a, 256u << 10));
        total = (size_t)s << 20;
    }
    assert_true(a.cap_total >= total);
    assert_true(a.cap_total <= 2 * total + (2u << 20)); /* at most doubling past the need */
    assert_true(a.mallocs <= 7); /* 2, 2, 4, 8, 16, 32 MiB blocks (64 MiB) and one more */
    qkv_arena_free(&a);
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
    static qkv_real dy[400 * 400];
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
        qkv_tensor *x = qkv_tape_tensor2(&tp, 400, 300); /* x 960 KB, y 1.3 MB, dy 1.3 MB */
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
    assert_true(mallocs_after_first > 1); /* the first step did overflow the 2 MiB block */
    qkv_tape_free(&tp);
    qkv_optim_free(&opt);
    qkv_params_free(&ps);
}

/* Release forgets what came after the mark, also in later blocks, and keeps what came before. */
static void test_mark_and_release(void **state)
{
    (void)state;
    qkv_arena a;
    assert_int_equal(qkv_arena_init(&a, 0), 0);
    qkv_arena_mark empty = qkv_arena_mark_now(&a);
    unsigned char *before = qkv_arena_alloc(&a, 1000);
    memset(before, 7, 1000);
    qkv_arena_mark m = qkv_arena_mark_now(&a);
    unsigned char *after = qkv_arena_alloc(&a, 1000);
    assert_non_null(qkv_arena_alloc(&a, 3u << 20)); /* into a second block */
    size_t blocks = a.mallocs, total = a.used_total;
    qkv_arena_release(&a, m);
    assert_int_equal(a.used_total, 1024);
    assert_ptr_equal(qkv_arena_alloc(&a, 1000), after); /* the same room again */
    assert_non_null(qkv_arena_alloc(&a, 3u << 20));
    assert_int_equal(a.mallocs, blocks);
    assert_int_equal(a.used_total, total);
    for (int i = 0; i < 1000; i++)
        assert_int_equal(before[i], 7);
    qkv_arena_release(&a, empty); /* a mark of the empty arena: a reset */
    assert_int_equal(a.used_total, 0);
    assert_ptr_equal(qkv_arena_alloc(&a, 1000), before);
    qkv_arena_free(&a);
}

/* qkv_tape_keep_only: in an evaluation tape, a stack of "layers" (each allocating more than its
 * output) keeps its output's values and the memory of one layer; a recording tape keeps all. */
static void test_tape_keep_only(void **state)
{
    (void)state;
    for (int no_grad = 0; no_grad < 2; no_grad++) {
        qkv_tape tp;
        assert_int_equal(qkv_tape_init(&tp, 0), 0);
        tp.no_grad = no_grad;
        qkv_tensor *x = qkv_tape_tensor2(&tp, 100, 50);
        for (size_t i = 0; i < x->size; i++)
            x->data[i] = (qkv_real)i;
        for (int layer = 1; layer <= 8; layer++) {
            qkv_arena_mark m = qkv_tape_mark(&tp);
            assert_non_null(qkv_tape_alloc(&tp, 1u << 20)); /* the layer's own activations */
            qkv_tensor *y = qkv_tape_tensor2(&tp, 100, 50);
            for (size_t i = 0; i < y->size; i++)
                y->data[i] = x->data[i] + 1;
            x = qkv_tape_keep_only(&tp, m, y);
            assert_non_null(x);
            if (!no_grad)
                assert_ptr_equal(x, y);
            assert_int_equal(x->shape[0], 100);
            assert_int_equal(x->shape[1], 50);
            for (size_t i = 0; i < x->size; i++)
                if (x->data[i] != (qkv_real)(i + (size_t)layer))
                    fail_msg("layer %d value %zu: %g", layer, i, (double)x->data[i]);
        }
        if (no_grad)
            assert_true(tp.arena.peak < (2u << 20)); /* one layer's MiB, not eight */
        else
            assert_true(tp.arena.peak > (8u << 20));
        qkv_tape_free(&tp);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_alignment),
        cmocka_unit_test(test_second_step_allocates_nothing),
        cmocka_unit_test(test_growth_then_stable),
        cmocka_unit_test(test_reset_reuses_memory),
        cmocka_unit_test(test_overflow_blocks_grow),
        cmocka_unit_test(test_mark_and_release),
        cmocka_unit_test(test_tape_keep_only),
        cmocka_unit_test(test_training_step_allocates_nothing),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
