/* "No malloc in the training loop", measured: this program replaces malloc and its relatives
 * with versions that count calls (tests/malloc_hook.h), then checks that after a first warm-up
 * step and the reset that follows it, whole steps (forward, backward, clipping, optimizer
 * update, tape reset) call none of them.
 * Under AddressSanitizer, which owns malloc itself, the test is skipped.
 *
 * OpenBLAS runs on one thread here: Debian's pthread build of OpenBLAS mallocs a 512 KB work
 * area on every multi-threaded GEMM call (seen in dgemm_thread_nn/tn), which is outside qkv's
 * control; the single-threaded path allocates nothing. */
#include "testutil.h"

#include "lib/blas.h"
#include "lib/ops/ops.h"
#include "lib/optim/optim.h"
#include "malloc_hook.h"

#define COUNTING MALLOC_HOOKED
#if COUNTING
static long n_allocs;
static bool malloc_hook(void)
{
    __atomic_add_fetch(&n_allocs, 1, __ATOMIC_RELAXED);
    return true;
}
static long allocs(void) { return __atomic_load_n(&n_allocs, __ATOMIC_RELAXED); }
#endif

/* The counter works: a malloc is seen. */
static void test_counter_counts(void **state)
{
    (void)state;
    if (!COUNTING)
        skip();
#if COUNTING
    long before = allocs();
    void *volatile p = malloc(16);
    free(p);
    assert_int_equal(allocs(), before + 1);
#endif
}

static void run(qkv_optim_kind kind, int rows)
{
#if COUNTING
    qkv_params ps;
    qkv_params_init(&ps);
    qkv_error err;
    qkv_rng rng;
    qkv_rng_seed(&rng, 3);
    /* 2 x 200 x 300 weights: 60000 elements each, above the OpenMP threshold */
    qkv_tensor *w1 = qkv_params_add(&ps, &err, 2, (int[]){200, 300}, "w1");
    qkv_tensor *w2 = qkv_params_add(&ps, &err, 2, (int[]){300, 200}, "w2");
    qkv_tensor *b = qkv_params_add(&ps, &err, 1, (int[]){200}, "b");
    qkv_params_find(&ps, "b")->no_weight_decay = true;
    qkv_init_xavier_uniform(w1, &rng);
    qkv_init_xavier_uniform(w2, &rng);
    qkv_optim_config cfg = qkv_optim_defaults(kind);
    qkv_optimizer opt;
    assert_int_equal(qkv_optim_init(&opt, &ps, &cfg, &err), QKV_OK);
    qkv_tape tp;
    assert_int_equal(qkv_tape_init(&tp, 0), 0);
    qkv_real *dy = __libc_malloc((size_t)rows * 300 * sizeof *dy);
    for (int i = 0; i < rows * 300; i++)
        dy[i] = (qkv_real)qkv_rng_normal(&rng);
    long before = 0;
    for (int s = 0; s < 3; s++) {
        qkv_tape_reset(&tp); /* after the first step: merges the arena's blocks (mallocs) */
        if (s == 1)
            before = allocs();
        qkv_params_zero_grad(&ps);
        qkv_tensor *x = qkv_tape_tensor2(&tp, rows, 300);
        assert_non_null(x);
        for (size_t i = 0; i < x->size; i++)
            x->data[i] = (qkv_real)qkv_rng_normal(&rng);
        qkv_tensor *h = qkv_linear(&tp, x, w1, b);
        qkv_tensor *y = qkv_matmul(&tp, h, w2, false, true); /* [rows, 200] · [300, 200]^T */
        assert_non_null(y);
        assert_int_equal(qkv_backward_from(&tp, y, dy), QKV_OK);
        qkv_clip_grad_norm(&ps, 1.0);
        qkv_optim_step(&opt, 1e-3);
    }
    qkv_tape_reset(&tp);
    long during = allocs() - before;
    qkv_tape_free(&tp);
    qkv_optim_free(&opt);
    qkv_params_free(&ps);
    __libc_free(dy);
    if (during != 0)
        fail_msg("%s: %ld allocations in two training steps after the first", QKV_OPTIM_KIND_NAMES[kind], during);
#else
    (void)kind;
    (void)rows;
#endif
}

static void test_steps_allocate_nothing(void **state)
{
    (void)state;
    if (!COUNTING)
        skip();
    openblas_set_num_threads(1);
    run(QKV_OPTIM_SGD, 64);
    run(QKV_OPTIM_ADAM, 64);
    run(QKV_OPTIM_ADAMW, 1000); /* activations over 1 MiB: the arena merges after step 1 */
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_counter_counts),
        cmocka_unit_test(test_steps_allocate_nothing),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
