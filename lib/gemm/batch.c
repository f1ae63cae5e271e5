/* Batched small products; see lib/gemm/batch.h. */
#include "lib/gemm/batch.h"

#include <string.h>

#include "lib/blas.h"
#include "lib/gemm_rows.h"
#include "lib/parallel.h"

static void batch_loop(int count, bool ta, bool tb, int m, int n, int k, qkv_real alpha, const qkv_real *a,
                       const qkv_real *b, qkv_real *c)
{
    const size_t sa = (size_t)m * k, sb = (size_t)k * n, sc = (size_t)m * n;
    int blas = qkv_blas_single();
    QKV_FOR_THREADS(qkv_parallel_threads((double)count * m * n * k), static, int, i, count, {
        qkv_gemm(ta, tb, m, n, k, alpha, a + i * sa, ta ? m : k, b + i * sb, tb ? k : n, 0, c + i * sc, n);
    });
    qkv_blas_restore(blas);
}

#if defined(QKV_HAVE_ONEDNN) && !QKV_REAL_IS_DOUBLE

#include <dnnl.h>
#include <pthread.h>

typedef struct {
    int count, ta, tb, m, n, k;
    float alpha;
} plan_key;

typedef struct {
    plan_key key;
    dnnl_primitive_t matmul;
    dnnl_memory_desc_t a, b, c;
} plan;

static plan plans[QKV_GEMM_BATCH_PLANS];
static int n_plans;
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static dnnl_engine_t engine;
static _Thread_local dnnl_stream_t stream; /* each calling thread its own */

/* op(X_i) [rows, cols] of the batch: X^T's strides when trans (X stored [cols, rows]). */
static dnnl_status_t batch_md(dnnl_memory_desc_t *md, int count, bool trans, int rows, int cols)
{
    dnnl_dims_t dims = {count, rows, cols};
    dnnl_dims_t strides = {(dnnl_dim_t)rows * cols, trans ? 1 : cols, trans ? rows : 1};
    return dnnl_memory_desc_init_by_strides(md, 3, dims, dnnl_f32, strides);
}

/* The matmul of key into p; false when oneDNN refused (the caller loops instead). */
static bool plan_make(plan *p, const plan_key *key)
{
    memset(p, 0, sizeof *p);
    p->key = *key;
    dnnl_primitive_attr_t attr = NULL;
    dnnl_primitive_desc_t pd = NULL;
    dnnl_matmul_desc_t desc;
    bool ok = batch_md(&p->a, key->count, key->ta, key->m, key->k) == dnnl_success &&
              batch_md(&p->b, key->count, key->tb, key->k, key->n) == dnnl_success &&
              batch_md(&p->c, key->count, false, key->m, key->n) == dnnl_success &&
              dnnl_primitive_attr_create(&attr) == dnnl_success &&
              (key->alpha == 1 || dnnl_primitive_attr_set_output_scales(attr, 1, 0, &key->alpha) == dnnl_success) &&
              dnnl_matmul_desc_init(&desc, &p->a, &p->b, NULL, &p->c) == dnnl_success &&
              dnnl_primitive_desc_create(&pd, &desc, attr, engine, NULL) == dnnl_success &&
              dnnl_primitive_create(&p->matmul, pd) == dnnl_success;
    if (pd)
        dnnl_primitive_desc_destroy(pd);
    if (attr)
        dnnl_primitive_attr_destroy(attr);
    return ok;
}

/* The primitive of key, made if new; NULL when the table is full or oneDNN failed. */
static const plan *find_plan(const plan_key *key)
{
    const plan *found = NULL;
    pthread_mutex_lock(&lock);
    if (!engine && dnnl_engine_create(&engine, dnnl_cpu, 0) != dnnl_success)
        engine = NULL;
    for (int i = 0; engine && i < n_plans && !found; i++)
        if (!memcmp(&plans[i].key, key, sizeof *key))
            found = &plans[i];
    if (engine && !found && n_plans < QKV_GEMM_BATCH_PLANS && plan_make(&plans[n_plans], key))
        found = &plans[n_plans++];
    pthread_mutex_unlock(&lock);
    return found;
}

/* Runs p on a, b, c; false when oneDNN failed. */
static bool plan_run(const plan *p, const float *a, const float *b, float *c)
{
    if (!stream && dnnl_stream_create(&stream, engine, dnnl_stream_default_flags) != dnnl_success)
        return (stream = NULL), false;
    dnnl_memory_t mem[3] = {NULL};
    bool ok = dnnl_memory_create(&mem[0], &p->a, engine, (void *)a) == dnnl_success &&
              dnnl_memory_create(&mem[1], &p->b, engine, (void *)b) == dnnl_success &&
              dnnl_memory_create(&mem[2], &p->c, engine, c) == dnnl_success;
    if (ok) {
        const dnnl_exec_arg_t args[] = {{DNNL_ARG_SRC, mem[0]}, {DNNL_ARG_WEIGHTS, mem[1]}, {DNNL_ARG_DST, mem[2]}};
        ok = dnnl_primitive_execute(p->matmul, stream, 3, args) == dnnl_success &&
             dnnl_stream_wait(stream) == dnnl_success;
    }
    for (int i = 0; i < 3; i++)
        if (mem[i])
            dnnl_memory_destroy(mem[i]);
    return ok;
}

void qkv_gemm_batch(int count, bool trans_a, bool trans_b, int m, int n, int k, qkv_real alpha, const qkv_real *a,
                    const qkv_real *b, qkv_real *c)
{
    if (count <= 0 || m <= 0 || n <= 0)
        return;
    if (qkv_gemm_onednn && !qkv_gemm_bf16_on && k > 0) {
        plan_key key = {count, trans_a, trans_b, m, n, k, alpha};
        const plan *p = find_plan(&key);
        if (p && plan_run(p, a, b, c))
            return;
    }
    batch_loop(count, trans_a, trans_b, m, n, k, alpha, a, b, c);
}

int qkv_gemm_batch_plans(void)
{
    pthread_mutex_lock(&lock);
    int n = n_plans;
    pthread_mutex_unlock(&lock);
    return n;
}

#else

int qkv_gemm_batch_plans(void)
{
    return 0;
}

void qkv_gemm_batch(int count, bool trans_a, bool trans_b, int m, int n, int k, qkv_real alpha, const qkv_real *a,
                    const qkv_real *b, qkv_real *c)
{
    if (count > 0 && m > 0 && n > 0)
        batch_loop(count, trans_a, trans_b, m, n, k, alpha, a, b, c);
}

#endif
