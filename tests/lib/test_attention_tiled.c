/* The tiled attention kernel (lib/ops/attention_tiled.c): forward values against a dense
 * double reference written here from the formulas (windows, causal, relu, relative biases,
 * ALiBi, dropout with the counter-based mask of lib/ops/attention.h), the same outputs and
 * gradients as the stored kernel on random packed batches (banded, biased, rotary, causal,
 * relu, and batches that auto splits between the kernels), double-precision gradient checks,
 * tape memory linear in the sentence length, and its refusals. Sentences of up to 150 tokens
 * cross several query tiles (32 rows) and key tiles (64 keys). */
#define QKV_TESTUTIL_AUTOGRAD
#include "testutil.h"

#include "lib/nn/mha.h"
#include "mha_fixture.h"
#include "lib/ops/alibi.h"
#include "lib/ops/ops.h"

typedef mha_fixture fixture;

static qkv_tensor *mha_fn(qkv_tape *tp, void *user)
{
    fixture *f = user;
    return qkv_mha_forward(tp, &f->m, f->x, (qkv_packed){f->n_sentences, f->off}, NULL);
}

/* x [T, D] · w^T + b into y [T, D] (b may be NULL). */
static void project(const fixture *f, const qkv_tensor *w, const qkv_tensor *b, const double *x, double *y)
{
    int T = f->off[f->n_sentences], D = w->shape[0];
    for (int t = 0; t < T; t++)
        for (int i = 0; i < D; i++) {
            double s = b ? b->data[i] : 0;
            for (int j = 0; j < D; j++)
                s += x[t * D + j] * w->data[i * D + j];
            y[t * D + i] = s;
        }
}

/* One row of the reference: query i of sentence at base (n tokens), head h; o_i [dh]. seed:
 * the block's dropout key (dropout > 0). */
static void reference_row(const fixture *f, const double *q, const double *k, const double *v, int base, int n,
                          int h, int i, uint64_t seed, double *oi)
{
    const qkv_attention_opts *o = &f->m.opts;
    int D = f->x->shape[1], H = o->n_heads, dh = D / H;
    double scale = o->scale != 0 ? o->scale : 1 / sqrt(dh), mx = -INFINITY, sum = 0;
    double *p = calloc((size_t)n, sizeof *p);
    bool *vis = calloc((size_t)n, sizeof *vis);
    int visible = 0;
    for (int j = 0; j < n; j++) {
        vis[j] = (o->window == 0 || abs(i - j) <= o->window) && (!o->causal || j <= i);
        visible += vis[j];
        double s = 0;
        for (int c = 0; c < dh; c++)
            s += q[(base + i) * D + h * dh + c] * k[(base + j) * D + h * dh + c];
        p[j] = s * scale;
        if (f->m.rel_bias) {
            int R = o->rel_clip, d = j - i < -R ? -R : (j - i > R ? R : j - i);
            p[j] += f->m.rel_bias->data[h * (2 * R + 1) + d + R];
        }
        if (o->pos_bias) /* ALiBi, heads a power of two: slope 2^(-8 (h + 1) / H) */
            p[j] -= pow(2.0, -8.0 * (h + 1) / H) * abs(i - j);
        if (vis[j] && p[j] > mx)
            mx = p[j];
    }
    for (int j = 0; j < n; j++) {
        if (!vis[j])
            p[j] = 0;
        else if (o->normalize == QKV_ATTN_RELU)
            p[j] = p[j] > 0 ? p[j] / visible : 0;
        else
            sum += p[j] = exp(p[j] - mx);
    }
    for (int j = 0; j < n; j++) {
        if (o->normalize == QKV_ATTN_SOFTMAX)
            p[j] /= sum;
        if (o->dropout > 0)
            p[j] = qkv_rng_uniform_at(seed, (uint64_t)i * n + j) < o->dropout ? 0 : p[j] / (1 - o->dropout);
        for (int c = 0; c < dh; c++)
            oi[c] += p[j] * v[(base + j) * D + h * dh + c];
    }
    free(p);
    free(vis);
}

/* Reference Y [T, D] of the layer, dense per sentence and head. rng: the tape's generator
 * before the forward call (the blocks' dropout keys are its next B · H numbers), or NULL. */
static void reference(const fixture *f, qkv_rng *rng, double *y)
{
    const qkv_mha *m = &f->m;
    int D = f->x->shape[1], T = f->off[f->n_sentences], H = m->opts.n_heads, dh = D / H;
    size_t sz = (size_t)T * D;
    double *x = malloc(sz * sizeof *x), *q = malloc(sz * sizeof *q), *k = malloc(sz * sizeof *k);
    double *v = malloc(sz * sizeof *v), *o = calloc(sz, sizeof *o);
    for (size_t t = 0; t < sz; t++)
        x[t] = f->x->data[t];
    project(f, m->w_q, m->b_q, x, q);
    project(f, m->w_k, m->b_k, x, k);
    project(f, m->w_v, m->b_v, x, v);
    for (int b = 0; b < f->n_sentences; b++)
        for (int h = 0; h < H; h++) {
            uint64_t seed = rng ? qkv_rng_next(rng) : 0;
            for (int i = 0; i < f->off[b + 1] - f->off[b]; i++)
                reference_row(f, q, k, v, f->off[b], f->off[b + 1] - f->off[b], h, i, seed,
                              o + (size_t)(f->off[b] + i) * D + h * dh);
        }
    project(f, m->w_o, m->b_o, o, y);
    free(x);
    free(q);
    free(k);
    free(v);
    free(o);
}

static const int batches[3][5] = {{1, 150}, {3, 70, 1, 37}, {4, 33, 96, 2, 64}}; /* count, lengths */

/* The options of case c: heads, window, causal, relu, relative biases, ALiBi, dropout. */
static qkv_attention_opts case_opts(int c, bool dropout)
{
    static const int windows[4] = {0, 5, 40, 100};
    qkv_attention_opts o = {.n_heads = 1 << (c % 3), .window = windows[(c / 3) % 4], .causal = (c / 2) % 2,
                            .normalize = c % 5 == 4 ? QKV_ATTN_RELU : QKV_ATTN_SOFTMAX, .rel_clip = c % 4 == 1 ? 3 : 0,
                            .kernel = QKV_ATTN_KERNEL_TILED};
    if (o.normalize == QKV_ATTN_SOFTMAX && c % 3 == 2)
        o.pos_bias = &qkv_alibi_kind;
    if (c % 7 == 3)
        o.scale = 0.6;
    if (dropout)
        o.dropout = 0.3;
    return o;
}

static void test_forward_matches_reference(void **state)
{
    (void)state;
    for (int c = 0; c < 24; c++) {
        qkv_attention_opts opts = case_opts(c, c % 4 == 2);
        const int *bt = batches[c % 3];
        qkv_params ps;
        qkv_params_init(&ps);
        fixture f;
        mha_fixture_setup(&f, &ps, 500 + (uint64_t)c, 8, bt + 1, bt[0], &opts, c % 2);
        qkv_rng rng, before;
        qkv_rng_seed(&rng, 40 + (uint64_t)c);
        before = rng;
        qkv_tape tp;
        qkv_tape_init(&tp, 0);
        tp.rng = &rng;
        qkv_tensor *y = mha_fn(&tp, &f);
        assert_non_null(y);
        double *ref = malloc(y->size * sizeof *ref);
        reference(&f, opts.dropout > 0 ? &before : NULL, ref);
        for (size_t i = 0; i < y->size; i++)
            tu_assert_close(y->data[i], ref[i], 1e-12);
        free(ref);
        qkv_tape_free(&tp);
        qkv_params_free(&ps);
    }
}

/* Y and the gradients of sum(Y ⊙ R) of every parameter with the layer's kernel; out [T·D +
 * Σ sizes]. */
static void run_kernel(fixture *f, qkv_params *ps, qkv_attn_kernel kernel, double *out)
{
    f->m.opts.kernel = kernel;
    qkv_tape tp;
    qkv_tape_init(&tp, 0);
    qkv_tensor *y = mha_fn(&tp, f);
    assert_non_null(y);
    qkv_real *r = malloc(y->size * sizeof *r);
    qkv_rng rng;
    qkv_rng_seed(&rng, 77);
    for (size_t i = 0; i < y->size; i++)
        r[i] = (qkv_real)(2 * qkv_rng_uniform(&rng) - 1);
    qkv_params_zero_grad(ps);
    assert_int_equal(qkv_backward_from(&tp, y, r), QKV_OK);
    size_t at = 0;
    for (size_t i = 0; i < y->size; i++)
        out[at++] = y->data[i];
    for (int p = 0; p < ps->n; p++)
        for (size_t i = 0; i < ps->items[p]->t.size; i++)
            out[at++] = ps->items[p]->t.grad ? ps->items[p]->t.grad[i] : 0;
    free(r);
    qkv_tape_free(&tp);
}

/* The tiled kernel (and auto, splitting a batch between the kernels) against the stored one:
 * outputs and all gradients, no dropout (the kernels draw different masks), with rotary
 * embeddings in some cases. */
static void test_same_as_stored(void **state)
{
    (void)state;
    for (int c = 0; c < 24; c++) {
        qkv_attention_opts opts = case_opts(c, false);
        if (c % 4 == 3 && (8 / opts.n_heads) % 2 == 0)
            opts.rope_base = 10000;
        const int *bt = batches[c % 3];
        qkv_params ps;
        qkv_params_init(&ps);
        fixture f;
        mha_fixture_setup(&f, &ps, 700 + (uint64_t)c, 8, bt + 1, bt[0], &opts, c % 2);
        size_t total = (size_t)f.off[f.n_sentences] * 8;
        for (int p = 0; p < ps.n; p++)
            total += ps.items[p]->t.size;
        double *stored = malloc(total * sizeof *stored), *tiled = malloc(total * sizeof *tiled);
        run_kernel(&f, &ps, QKV_ATTN_KERNEL_STORED, stored);
        f.m.opts.tiled_above = c % 2 ? 0 : 50; /* auto: all tiled, or only the sentences over 50 */
        run_kernel(&f, &ps, c % 3 == 1 ? QKV_ATTN_KERNEL_AUTO : QKV_ATTN_KERNEL_TILED, tiled);
        for (size_t i = 0; i < total; i++)
            tu_assert_close(tiled[i], stored[i], 1e-12 * (1 + fabs(stored[i])));
        free(stored);
        free(tiled);
        qkv_params_free(&ps);
    }
}

/* A constant mask: query i sees only keys j >= i - 70, so the late queries of a 150-token
 * sentence see nothing in the first key tile (keys 0..63) of their whole-sentence band. */
static int far_mask_check(const qkv_score_bias *b, int n_heads, bool softmax, char *msg, size_t len)
{
    (void)b, (void)n_heads, (void)msg, (void)len;
    return !softmax;
}

static void far_mask_add(const qkv_score_bias *b, int h, int n_heads, int i, int a, int e, qkv_real *s)
{
    (void)b, (void)h, (void)n_heads;
    for (int j = a; j < e; j++)
        if (j < i - 70)
            s[j - a] = -INFINITY;
}

static const qkv_score_bias_kind far_mask = {.name = "far_mask", .check = far_mask_check, .add = far_mask_add};

/* A key tile whose every score is −inf, before any visible key of the row: the tiled kernel's
 * running maximum is still −inf there, and its row must stay as the stored kernel's. */
static void test_masked_first_tile(void **state)
{
    (void)state;
    qkv_attention_opts opts = {.n_heads = 2, .pos_bias = &far_mask, .kernel = QKV_ATTN_KERNEL_TILED};
    const int len[] = {150};
    qkv_params ps;
    qkv_params_init(&ps);
    fixture f;
    mha_fixture_setup(&f, &ps, 31, 8, len, 1, &opts, true);
    size_t total = (size_t)f.off[f.n_sentences] * 8;
    for (int p = 0; p < ps.n; p++)
        total += ps.items[p]->t.size;
    double *stored = malloc(total * sizeof *stored), *tiled = malloc(total * sizeof *tiled);
    run_kernel(&f, &ps, QKV_ATTN_KERNEL_STORED, stored);
    run_kernel(&f, &ps, QKV_ATTN_KERNEL_TILED, tiled);
    for (size_t i = 0; i < total; i++) {
        assert_true(isfinite(tiled[i]));
        tu_assert_close(tiled[i], stored[i], 1e-12 * (1 + fabs(stored[i])));
    }
    free(stored);
    free(tiled);
    qkv_params_free(&ps);
}

static void check_gradients(uint64_t seed, const int *bt, const qkv_attention_opts *opts, bool bias)
{
    qkv_params ps;
    qkv_params_init(&ps);
    fixture f;
    mha_fixture_setup(&f, &ps, seed, 4, bt + 1, bt[0], opts, bias);
    qkv_rng rng;
    qkv_rng_seed(&rng, seed);
    qkv_tape tp;
    qkv_tape_init(&tp, 0);
    tp.rng = &rng;
    qkv_tensor *ts[10] = {f.x, f.m.w_q, f.m.w_k, f.m.w_v, f.m.w_o, f.m.b_q, f.m.b_k, f.m.b_v, f.m.b_o};
    const char *names[10] = {"x", "w_q", "w_k", "w_v", "w_o", "b_q", "b_k", "b_v", "b_o"};
    int n = bias ? 9 : 5;
    if (f.m.rel_bias) {
        ts[n] = f.m.rel_bias;
        names[n++] = "rel_bias";
    }
    if (tu_gradcheck_status(&tp, mha_fn, &f, n, ts, names, seed) != 0)
        fail_msg("gradcheck failed: seed %llu heads %d window %d causal %d relu %d rel_clip %d alibi %d rope %g "
                 "dropout %g", (unsigned long long)seed, opts->n_heads, opts->window, opts->causal, opts->normalize,
                 opts->rel_clip, opts->pos_bias != NULL, opts->rope_base, opts->dropout);
    qkv_tape_free(&tp);
    qkv_params_free(&ps);
}

static void test_gradcheck(void **state)
{
    (void)state;
    static const int bt[] = {2, 70, 5};
    for (int c = 0; c < 10; c++) {
        qkv_attention_opts opts = case_opts(c, c >= 7);
        opts.n_heads = 1 + c % 2;
        if (opts.pos_bias && opts.n_heads == 1)
            opts.n_heads = 2;
        if (c == 3 || c == 8)
            opts.rope_base = 100;
        if (opts.window == 100)
            opts.window = 20;
        check_gradients(900 + (uint64_t)c, bt, &opts, c % 2);
    }
}

/* The check can fail: the tiled backward scaled by 1.01 is caught. */
static void test_gradcheck_catches_fault(void **state)
{
    (void)state;
    qkv_params ps;
    qkv_params_init(&ps);
    qkv_attention_opts opts = {.n_heads = 2, .kernel = QKV_ATTN_KERNEL_TILED};
    fixture f;
    static const int bt[] = {1, 40};
    mha_fixture_setup(&f, &ps, 3, 4, bt + 1, bt[0], &opts, false);
    qkv_tape tp;
    qkv_tape_init(&tp, 0);
    tp.fault_op = "attention";
    qkv_tensor *ts[1] = {f.x};
    const char *names[1] = {"x"};
    assert_int_not_equal(tu_gradcheck_status(&tp, mha_fn, &f, 1, ts, names, 3), 0);
    qkv_tape_free(&tp);
    qkv_params_free(&ps);
}

/* The most tape memory of a forward and backward pass over one sentence of n tokens. */
static size_t tape_peak(int n, qkv_attn_kernel kernel)
{
    qkv_attention_opts opts = {.n_heads = 2, .kernel = kernel};
    qkv_params ps;
    qkv_params_init(&ps);
    fixture f;
    mha_fixture_setup(&f, &ps, 11, 8, (int[]){n}, 1, &opts, true);
    qkv_tape tp;
    qkv_tape_init(&tp, 0);
    qkv_tensor *y = mha_fn(&tp, &f);
    assert_non_null(y);
    qkv_real *r = calloc(y->size, sizeof *r);
    r[0] = 1;
    assert_int_equal(qkv_backward_from(&tp, y, r), QKV_OK);
    size_t peak = tp.arena.peak;
    free(r);
    qkv_tape_free(&tp);
    qkv_params_free(&ps);
    return peak;
}

/* Tiled: no n × n anything; doubling n at most doubles the tape (plus the fixed scratch). The
 * stored kernel keeps n² values per head. */
static void test_memory_linear(void **state)
{
    (void)state;
    size_t t1 = tape_peak(1000, QKV_ATTN_KERNEL_TILED), t2 = tape_peak(2000, QKV_ATTN_KERNEL_TILED);
    size_t s2 = tape_peak(2000, QKV_ATTN_KERNEL_STORED);
    size_t square = (size_t)2 * 2000 * 2000 * sizeof(qkv_real);
    if (!(s2 >= square && t2 < square / 20 && t2 <= 2 * t1 + 64 * 1024))
        fail_msg("tape bytes: tiled n=1000 %zu, n=2000 %zu; stored n=2000 %zu; n² per head %zu", t1, t2, s2, square);
}

/* Keeping the weights runs the stored kernel; bad kernel options are tape errors. */
static void test_keep_and_errors(void **state)
{
    (void)state;
    qkv_attention_opts opts = {.n_heads = 2, .kernel = QKV_ATTN_KERNEL_TILED};
    qkv_params ps;
    qkv_params_init(&ps);
    fixture f;
    mha_fixture_setup(&f, &ps, 13, 4, (int[]){6}, 1, &opts, false);
    qkv_tape tp;
    qkv_tape_init(&tp, 0);
    assert_non_null(qkv_mha_forward(&tp, &f.m, f.x, (qkv_packed){1, f.off}, &f.keep));
    double row = 0;
    for (int j = 0; j < 6; j++)
        row += qkv_attention_weight(&f.keep, 0, 1, 2, j);
    tu_assert_close(row, 1.0, 1e-12);
    f.m.opts.kernel = (qkv_attn_kernel)7;
    assert_null(mha_fn(&tp, &f));
    assert_non_null(strstr(tp.err.msg, "kernel 7"));
    qkv_tape_reset(&tp);
    f.m.opts.kernel = QKV_ATTN_KERNEL_AUTO;
    f.m.opts.tiled_above = -1;
    assert_null(mha_fn(&tp, &f));
    assert_non_null(strstr(tp.err.msg, "tiled_above -1"));
    qkv_tape_free(&tp);
    qkv_params_free(&ps);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_forward_matches_reference),
        cmocka_unit_test(test_same_as_stored),
        cmocka_unit_test(test_masked_first_tile),
        cmocka_unit_test(test_gradcheck),
        cmocka_unit_test(test_gradcheck_catches_fault),
        cmocka_unit_test(test_memory_linear),
        cmocka_unit_test(test_keep_and_errors),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
