/* bf16 products on oneDNN's matmul primitive; see lib/gemm/bf16.h. */
#include "lib/gemm/bf16.h"

#ifdef QKV_HAVE_ONEDNN

#include <dnnl.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

typedef struct {
    int32_t ta, tb, m, n, k, lda, ldb, ldc;
    uint32_t alpha, beta; /* the bits of the floats: one plan per value */
} plan_key;

/* The primitives of one shape and the memory descriptors they take. */
typedef struct {
    plan_key key;
    dnnl_primitive_t reorder_a, reorder_b, matmul;
    dnnl_memory_desc_t a_f32, b_f32, a_bf16, b_bf16, c_f32, scratch;
    size_t a_bytes, b_bytes, scratch_bytes;
} plan;

/* Open addressing, never emptied: a slot once set keeps its plan for the life of the process,
 * so readers need no lock (an acquire load sees a plan fully made). */
#define SLOTS 1024
_Static_assert(SLOTS > QKV_GEMM_BF16_PLANS && (SLOTS & (SLOTS - 1)) == 0, "a power of two above the plans");
static _Atomic(plan *) slots[SLOTS];
static atomic_int n_plans;
static pthread_mutex_t fill_lock = PTHREAD_MUTEX_INITIALIZER;

static pthread_once_t engine_once = PTHREAD_ONCE_INIT;
static dnnl_engine_t engine;
static atomic_long fallbacks;

/* Each thread's stream and work buffer: A and B in bf16, then the scratchpad. */
typedef struct {
    dnnl_stream_t stream;
    unsigned char *buf;
    size_t cap;
} workspace;
static _Thread_local workspace ws;

#define TRY(x)                                                                                                        \
    do {                                                                                                              \
        if ((x) != dnnl_success)                                                                                      \
            goto fail;                                                                                                \
    } while (0)

static void make_engine(void)
{
    if (dnnl_engine_create(&engine, dnnl_cpu, 0) != dnnl_success)
        engine = NULL;
}

static uint32_t float_bits(float x)
{
    uint32_t u;
    memcpy(&u, &x, sizeof u);
    return u;
}

static float bits_float(uint32_t u)
{
    float x;
    memcpy(&x, &u, sizeof x);
    return x;
}

static size_t hash_key(const plan_key *k)
{
    const unsigned char *p = (const unsigned char *)k;
    uint64_t h = 1469598103934665603ull; /* FNV-1a */
    for (size_t i = 0; i < sizeof *k; i++)
        h = (h ^ p[i]) * 1099511628211ull;
    return (size_t)(h ^ (h >> 29));
}

/* op(X) [rows, cols] of a row-major X with row stride ld (X^T when trans). */
static dnnl_status_t strided(dnnl_memory_desc_t *md, bool trans, int rows, int cols, int ld, dnnl_data_type_t dt)
{
    dnnl_dims_t dims = {rows, cols}, strides = {trans ? 1 : ld, trans ? ld : 1};
    return dnnl_memory_desc_init_by_strides(md, 2, dims, dt, strides);
}

static size_t align64(size_t n)
{
    return (n + 63) & ~(size_t)63;
}

static void plan_free(plan *p)
{
    if (!p)
        return;
    if (p->reorder_a)
        dnnl_primitive_destroy(p->reorder_a);
    if (p->reorder_b)
        dnnl_primitive_destroy(p->reorder_b);
    if (p->matmul)
        dnnl_primitive_destroy(p->matmul);
    free(p);
}

/* The primitive of pd; *scratch grows to its scratchpad's bytes. */
static dnnl_status_t primitive_of(dnnl_primitive_t *prim, dnnl_primitive_desc_t pd, size_t *scratch)
{
    size_t s = dnnl_memory_desc_get_size(dnnl_primitive_desc_query_md(pd, dnnl_query_scratchpad_md, 0));
    if (s > *scratch)
        *scratch = s;
    dnnl_status_t st = dnnl_primitive_create(prim, pd);
    dnnl_primitive_desc_destroy(pd);
    return st;
}

/* The matmul (bf16 A and B in the layouts it prefers, float C with stride ldc, alpha as the
 * output scale, beta as a sum post-op) and the reorders of the float A and B into them. */
static plan *plan_create(const plan_key *key)
{
    plan *p = calloc(1, sizeof *p);
    dnnl_primitive_attr_t attr = NULL;
    dnnl_post_ops_t post_ops = NULL;
    dnnl_primitive_desc_t pd = NULL;
    if (!p || !engine)
        goto fail;
    p->key = *key;
    float alpha = bits_float(key->alpha), beta = bits_float(key->beta);
    dnnl_memory_desc_t a_any, b_any;
    dnnl_dims_t a_dims = {key->m, key->k}, b_dims = {key->k, key->n};
    dnnl_matmul_desc_t desc;
    TRY(strided(&p->a_f32, key->ta, key->m, key->k, key->lda, dnnl_f32));
    TRY(strided(&p->b_f32, key->tb, key->k, key->n, key->ldb, dnnl_f32));
    TRY(strided(&p->c_f32, false, key->m, key->n, key->ldc, dnnl_f32));
    TRY(dnnl_memory_desc_init_by_tag(&a_any, 2, a_dims, dnnl_bf16, dnnl_format_tag_any));
    TRY(dnnl_memory_desc_init_by_tag(&b_any, 2, b_dims, dnnl_bf16, dnnl_format_tag_any));
    TRY(dnnl_primitive_attr_create(&attr));
    TRY(dnnl_primitive_attr_set_scratchpad_mode(attr, dnnl_scratchpad_mode_user));
    if (alpha != 1)
        TRY(dnnl_primitive_attr_set_output_scales(attr, 1, 0, &alpha));
    if (beta != 0) {
        TRY(dnnl_post_ops_create(&post_ops));
        TRY(dnnl_post_ops_append_sum(post_ops, beta));
        TRY(dnnl_primitive_attr_set_post_ops(attr, post_ops));
    }
    TRY(dnnl_matmul_desc_init(&desc, &a_any, &b_any, NULL, &p->c_f32));
    TRY(dnnl_primitive_desc_create(&pd, &desc, attr, engine, NULL));
    p->a_bf16 = *dnnl_primitive_desc_query_md(pd, dnnl_query_src_md, 0);
    p->b_bf16 = *dnnl_primitive_desc_query_md(pd, dnnl_query_weights_md, 0);
    p->a_bytes = align64(dnnl_memory_desc_get_size(&p->a_bf16));
    p->b_bytes = align64(dnnl_memory_desc_get_size(&p->b_bf16));
    TRY(primitive_of(&p->matmul, pd, &p->scratch_bytes));
    pd = NULL;
    dnnl_primitive_attr_destroy(attr);
    attr = NULL;
    TRY(dnnl_primitive_attr_create(&attr));
    TRY(dnnl_primitive_attr_set_scratchpad_mode(attr, dnnl_scratchpad_mode_user));
    TRY(dnnl_reorder_primitive_desc_create(&pd, &p->a_f32, engine, &p->a_bf16, engine, attr));
    TRY(primitive_of(&p->reorder_a, pd, &p->scratch_bytes));
    pd = NULL;
    TRY(dnnl_reorder_primitive_desc_create(&pd, &p->b_f32, engine, &p->b_bf16, engine, attr));
    TRY(primitive_of(&p->reorder_b, pd, &p->scratch_bytes));
    pd = NULL;
    dnnl_dims_t s_dims = {p->scratch_bytes ? (dnnl_dim_t)p->scratch_bytes : 1};
    TRY(dnnl_memory_desc_init_by_tag(&p->scratch, 1, s_dims, dnnl_u8, dnnl_a));
    dnnl_primitive_attr_destroy(attr);
    if (post_ops)
        dnnl_post_ops_destroy(post_ops);
    return p;
fail:
    if (pd)
        dnnl_primitive_desc_destroy(pd);
    if (attr)
        dnnl_primitive_attr_destroy(attr);
    if (post_ops)
        dnnl_post_ops_destroy(post_ops);
    plan_free(p);
    return NULL;
}

/* The table's plan of key, made if new; past QKV_GEMM_BF16_PLANS a plan for this call only
 * (*temporary set: the caller frees it). NULL when oneDNN failed. */
static plan *find_plan(const plan_key *key, bool *temporary)
{
    size_t h = hash_key(key);
    *temporary = false;
    for (size_t i = 0; i < SLOTS; i++) {
        plan *p = atomic_load_explicit(&slots[(h + i) & (SLOTS - 1)], memory_order_acquire);
        if (!p)
            break;
        if (!memcmp(&p->key, key, sizeof *key))
            return p;
    }
    pthread_mutex_lock(&fill_lock);
    size_t slot = 0;
    for (size_t i = 0; i < SLOTS; i++) { /* again: another thread may have added it meanwhile */
        slot = (h + i) & (SLOTS - 1);
        plan *p = atomic_load_explicit(&slots[slot], memory_order_relaxed);
        if (!p)
            break;
        if (!memcmp(&p->key, key, sizeof *key)) {
            pthread_mutex_unlock(&fill_lock);
            return p;
        }
    }
    plan *p = NULL;
    if (atomic_load_explicit(&n_plans, memory_order_relaxed) >= QKV_GEMM_BF16_PLANS) {
        *temporary = true;
    } else if ((p = plan_create(key))) {
        atomic_store_explicit(&slots[slot], p, memory_order_release);
        atomic_fetch_add_explicit(&n_plans, 1, memory_order_relaxed);
    }
    pthread_mutex_unlock(&fill_lock);
    return *temporary ? plan_create(key) : p;
}

static int grow_workspace(size_t bytes)
{
    if (!ws.stream && dnnl_stream_create(&ws.stream, engine, dnnl_stream_default_flags) != dnnl_success) {
        ws.stream = NULL;
        return -1;
    }
    if (bytes <= ws.cap)
        return 0;
    size_t cap = align64(bytes + bytes / 2);
    unsigned char *buf = aligned_alloc(64, cap);
    if (!buf)
        return -1;
    free(ws.buf);
    ws.buf = buf;
    ws.cap = cap;
    return 0;
}

static int execute(dnnl_primitive_t prim, int n, const dnnl_exec_arg_t *args)
{
    return dnnl_primitive_execute(prim, ws.stream, n, args) == dnnl_success ? 0 : -1;
}

/* Runs plan p on float A, B and C: both reorders into the work buffer, then the matmul. */
static int plan_run(const plan *p, const float *a, const float *b, float *c)
{
    enum { A32, B32, A16, B16, C32, SCRATCH, N_MEM };
    if (grow_workspace(p->a_bytes + p->b_bytes + p->scratch_bytes))
        return -1;
    const dnnl_memory_desc_t *mds[N_MEM] = {&p->a_f32, &p->b_f32, &p->a_bf16, &p->b_bf16, &p->c_f32, &p->scratch};
    void *data[N_MEM] = {(void *)a, (void *)b, ws.buf, ws.buf + p->a_bytes, c, ws.buf + p->a_bytes + p->b_bytes};
    dnnl_memory_t mem[N_MEM] = {NULL};
    int rc = -1;
    for (int i = 0; i < N_MEM; i++)
        if (dnnl_memory_create(&mem[i], mds[i], engine, data[i]) != dnnl_success)
            goto done;
    const dnnl_exec_arg_t ra[] = {{DNNL_ARG_FROM, mem[A32]}, {DNNL_ARG_TO, mem[A16]}, {DNNL_ARG_SCRATCHPAD, mem[SCRATCH]}};
    const dnnl_exec_arg_t rb[] = {{DNNL_ARG_FROM, mem[B32]}, {DNNL_ARG_TO, mem[B16]}, {DNNL_ARG_SCRATCHPAD, mem[SCRATCH]}};
    const dnnl_exec_arg_t mm[] = {{DNNL_ARG_SRC, mem[A16]}, {DNNL_ARG_WEIGHTS, mem[B16]}, {DNNL_ARG_DST, mem[C32]},
                                  {DNNL_ARG_SCRATCHPAD, mem[SCRATCH]}};
    if (execute(p->reorder_a, 3, ra) || execute(p->reorder_b, 3, rb) || execute(p->matmul, 4, mm) ||
        dnnl_stream_wait(ws.stream) != dnnl_success)
        goto done;
    rc = 0;
done:
    for (int i = 0; i < N_MEM; i++)
        if (mem[i])
            dnnl_memory_destroy(mem[i]);
    return rc;
}

void qkv_gemm_bf16(bool trans_a, bool trans_b, int m, int n, int k, float alpha, const float *a, int lda,
                   const float *b, int ldb, float beta, float *c, int ldc)
{
    if (m <= 0 || n <= 0)
        return;
    if (k <= 0) { /* alpha times an empty sum */
        for (int i = 0; i < m; i++)
            for (int j = 0; j < n; j++)
                c[(size_t)i * ldc + j] = beta == 0 ? 0 : beta * c[(size_t)i * ldc + j];
        return;
    }
    pthread_once(&engine_once, make_engine);
    plan_key key = {trans_a, trans_b, m, n, k, lda, ldb, ldc, float_bits(alpha), float_bits(beta)};
    bool temporary;
    plan *p = find_plan(&key, &temporary);
    if (!p || plan_run(p, a, b, c)) {
        atomic_fetch_add_explicit(&fallbacks, 1, memory_order_relaxed);
        dnnl_sgemm(trans_a ? 'T' : 'N', trans_b ? 'T' : 'N', m, n, k, alpha, a, lda, b, ldb, beta, c, ldc);
    }
    if (temporary)
        plan_free(p);
}

long qkv_gemm_bf16_fallbacks(void)
{
    return atomic_load(&fallbacks);
}

int qkv_gemm_bf16_plans(void)
{
    return atomic_load(&n_plans);
}

#else /* no oneDNN: qkv_gemm never calls these (qkv_gemm_set_precision refuses bf16) */

#include <stdlib.h>

void qkv_gemm_bf16(bool trans_a, bool trans_b, int m, int n, int k, float alpha, const float *a, int lda,
                   const float *b, int ldb, float beta, float *c, int ldc)
{
    (void)trans_a, (void)trans_b, (void)m, (void)n, (void)k, (void)alpha, (void)a, (void)lda, (void)b, (void)ldb;
    (void)beta, (void)c, (void)ldc;
    abort();
}

long qkv_gemm_bf16_fallbacks(void)
{
    return 0;
}

int qkv_gemm_bf16_plans(void)
{
    return 0;
}

#endif
