/* Rotary embeddings (lib/ops/rope.h) and ALiBi (lib/ops/alibi.h): hand-computed rotations,
 * the relative property, the slopes of the paper's reference for 8 and 6 heads, attention with
 * each against a dense reference written here from the formulas (with windows, causal masks
 * and relative biases), double-precision gradient checks, and the option errors. */
#include "optest.h"

#include "lib/nn/mha.h"
#include "mha_fixture.h"
#include "lib/ops/alibi.h"
#include "lib/ops/rope.h"

typedef struct {
    qkv_tensor *x;
    int32_t off[8];
    int n, heads;
    double base;
} rope_fixture;

static qkv_tensor *rope_fn(qkv_tape *tp, void *user)
{
    rope_fixture *f = user;
    return qkv_rope(tp, f->x, (qkv_packed){f->n, f->off}, f->heads, f->base);
}

/* Base 100, d_head 4: θ = (1, 0.1). Row (1, 0, 0, 1) at position p becomes
 * (cos p, sin p, −sin 0.1p, cos 0.1p); positions restart with each sentence. */
static void test_rope_values(void **state)
{
    (void)state;
    ot_env e;
    ot_init(&e, 1);
    double v[5 * 8];
    for (int t = 0; t < 5; t++)
        for (int c = 0; c < 8; c++)
            v[t * 8 + c] = (c % 4 == 0 || c % 4 == 3) ? 1 : 0;
    rope_fixture f = {.off = {0, 3, 5}, .n = 2, .heads = 2, .base = 100};
    f.x = ot_values(&e, "x", 2, (int[]){5, 8}, v);
    qkv_tensor *y = rope_fn(&e.tp, &f);
    assert_non_null(y);
    const int pos[5] = {0, 1, 2, 0, 1};
    for (int t = 0; t < 5; t++)
        for (int h = 0; h < 2; h++) {
            const qkv_real *r = y->data + t * 8 + h * 4;
            double p = pos[t];
            tu_assert_close(r[0], cos(p), 1e-12);
            tu_assert_close(r[1], sin(p), 1e-12);
            tu_assert_close(r[2], -sin(0.1 * p), 1e-12);
            tu_assert_close(r[3], cos(0.1 * p), 1e-12);
        }
    ot_free(&e);
}

/* q_i · k_j after rotation depends on i and j only through j − i. */
static void test_rope_relative(void **state)
{
    (void)state;
    ot_env e;
    ot_init(&e, 2);
    rope_fixture f = {.off = {0, 12}, .n = 1, .heads = 1, .base = 10000};
    qkv_tensor *q = ot_param2(&e, "q", 1, 6), *k = ot_param2(&e, "k", 1, 6);
    f.x = ot_param2(&e, "x", 12, 6); /* row t = q for even t, k for odd t */
    for (int t = 0; t < 12; t++)
        memcpy(f.x->data + t * 6, (t % 2 ? k : q)->data, 6 * sizeof(qkv_real));
    qkv_tensor *y = rope_fn(&e.tp, &f);
    assert_non_null(y);
    double dots[3];
    for (int i = 0; i < 3; i++) { /* (q at 2, k at 5), (q at 4, k at 7), (q at 8, k at 11) */
        int qi = (int[]){2, 4, 8}[i];
        dots[i] = 0;
        for (int c = 0; c < 6; c++)
            dots[i] += y->data[qi * 6 + c] * y->data[(qi + 3) * 6 + c];
    }
    tu_assert_close(dots[1], dots[0], 1e-12);
    tu_assert_close(dots[2], dots[0], 1e-12);
    double plain = 0;
    for (int c = 0; c < 6; c++)
        plain += q->data[c] * k->data[c];
    assert_true(fabs(plain - dots[0]) > 1e-3); /* the rotation did change the product */
    ot_free(&e);
}

static void test_rope_gradcheck_and_errors(void **state)
{
    (void)state;
    ot_env e;
    ot_init(&e, 3);
    rope_fixture f = {.off = {0, 4, 5, 11}, .n = 3, .heads = 2, .base = 10};
    f.x = ot_param2(&e, "x", 11, 8);
    tu_assert_gradcheck(&e.tp, rope_fn, &f, 1, (qkv_tensor *[]){f.x}, (const char *[]){"x"});
    qkv_tape_reset(&e.tp);
    f.heads = 4; /* d_head 2 */
    tu_assert_gradcheck(&e.tp, rope_fn, &f, 1, (qkv_tensor *[]){f.x}, (const char *[]){"x"});
    qkv_tape_reset(&e.tp);
    f.heads = 8; /* d_head 1 */
    assert_null(rope_fn(&e.tp, &f));
    assert_non_null(strstr(e.tp.err.msg, "rope: d_head 1 is odd"));
    qkv_tape_reset(&e.tp);
    f.heads = 2;
    f.base = 0;
    assert_null(rope_fn(&e.tp, &f));
    assert_non_null(strstr(e.tp.err.msg, "rope: base 0 must be positive"));
    ot_free(&e);
}

static void test_alibi_slopes(void **state)
{
    (void)state;
    for (int h = 0; h < 8; h++) /* 2^-1 .. 2^-8 */
        tu_assert_close(qkv_alibi_slope(h, 8), pow(2, -(h + 1)), 1e-15);
    const double six[6] = {0.25, 0.0625, 0.015625, 0.00390625, 0.5, 0.125}; /* the reference's get_slopes(6) */
    for (int h = 0; h < 6; h++)
        tu_assert_close(qkv_alibi_slope(h, 6), six[h], 1e-15);
    tu_assert_close(qkv_alibi_slope(0, 1), 1.0 / 256, 1e-15);
    tu_assert_close(qkv_alibi_slope(2, 3), pow(2, -2), 1e-15); /* 3 heads: 2^-4, 2^-8, then 2^-2 */
}

/* ---- attention with rope / alibi against a dense reference ---- */


static qkv_tensor *mha_fn(qkv_tape *tp, void *user)
{
    mha_fixture *f = user;
    return qkv_mha_forward(tp, &f->m, f->x, (qkv_packed){f->n_sentences, f->off}, NULL);
}

/* Rotates vector v [dh] for position p, directly from the RoFormer formula. */
static void rotate(double *v, int dh, int p, double base)
{
    for (int i = 0; i < dh / 2; i++) {
        double a = p * pow(base, -2.0 * i / dh), x0 = v[2 * i], x1 = v[2 * i + 1];
        v[2 * i] = x0 * cos(a) - x1 * sin(a);
        v[2 * i + 1] = x0 * sin(a) + x1 * cos(a);
    }
}

static void reference(const mha_fixture *f, double *y)
{
    const qkv_mha *m = &f->m;
    const qkv_attention_opts *o = &m->opts;
    int D = f->x->shape[1], T = f->x->shape[0], H = o->n_heads, dh = D / H;
    double *qkv = calloc((size_t)T * 3 * D, sizeof *qkv), *out = calloc((size_t)T * D, sizeof *out);
    qkv_tensor *ws[3] = {m->w_q, m->w_k, m->w_v}, *bs[3] = {m->b_q, m->b_k, m->b_v};
    for (int c = 0; c < 3; c++)
        for (int t = 0; t < T; t++)
            for (int i = 0; i < D; i++) {
                double s = bs[c]->data[i];
                for (int j = 0; j < D; j++)
                    s += f->x->data[t * D + j] * ws[c]->data[i * D + j];
                qkv[t * 3 * D + c * D + i] = s;
            }
    for (int b = 0; b < f->n_sentences; b++) {
        int base = f->off[b], n = f->off[b + 1] - base;
        if (o->rope_base > 0)
            for (int t = 0; t < n; t++)
                for (int c = 0; c < 2; c++)
                    for (int h = 0; h < H; h++)
                        rotate(qkv + (base + t) * 3 * D + c * D + h * dh, dh, t, o->rope_base);
        for (int h = 0; h < H; h++)
            for (int i = 0; i < n; i++) {
                double p[16], mx = -INFINITY, sum = 0;
                for (int j = 0; j < n; j++) {
                    bool vis = (o->window == 0 || abs(i - j) <= o->window) && (!o->causal || j <= i);
                    double s = 0;
                    for (int c = 0; c < dh; c++)
                        s += qkv[(base + i) * 3 * D + h * dh + c] * qkv[(base + j) * 3 * D + D + h * dh + c];
                    s /= sqrt(dh);
                    if (o->rel_clip) {
                        int R = o->rel_clip, d = j - i < -R ? -R : (j - i > R ? R : j - i);
                        s += m->rel_bias->data[h * (2 * R + 1) + d + R];
                    }
                    if (o->pos_bias)
                        s -= qkv_alibi_slope(h, H) * abs(i - j);
                    p[j] = vis ? s : -INFINITY;
                    mx = fmax(mx, p[j]);
                }
                for (int j = 0; j < n; j++)
                    sum += (p[j] = exp(p[j] - mx));
                for (int c = 0; c < dh; c++) {
                    double s = 0;
                    for (int j = 0; j < n; j++)
                        s += p[j] / sum * qkv[(base + j) * 3 * D + 2 * D + h * dh + c];
                    out[(base + i) * D + h * dh + c] = s;
                }
            }
    }
    for (int t = 0; t < T; t++)
        for (int i = 0; i < D; i++) {
            double s = m->b_o->data[i];
            for (int j = 0; j < D; j++)
                s += out[t * D + j] * m->w_o->data[i * D + j];
            y[t * D + i] = s;
        }
    free(qkv);
    free(out);
}

static const int lens[3] = {7, 2, 5};

/* Each of rope and alibi, with full, windowed and causal attention and relative biases:
 * forward against the reference, then a gradient check of every input. */
static void test_attention_rope_alibi(void **state)
{
    (void)state;
    for (int cfg = 0; cfg < 16; cfg++) {
        qkv_attention_opts opts = {.n_heads = (cfg & 8) ? 3 : 2, .window = (cfg & 1) ? 2 : 0,
                                   .causal = (cfg & 2) != 0, .rel_clip = (cfg & 4) ? 2 : 0};
        if (cfg % 2 == (cfg >> 2) % 2)
            opts.rope_base = 10; /* a small base: large angles within 7 positions */
        else
            opts.pos_bias = &qkv_alibi_kind;
        if (cfg == 5 || cfg == 10)
            opts.rope_base = 100, opts.pos_bias = &qkv_alibi_kind; /* both at once */
        qkv_params ps;
        qkv_params_init(&ps);
        mha_fixture f;
        mha_fixture_setup(&f, &ps, 500 + (uint64_t)cfg, 12, lens, 3, &opts, true);
        qkv_tape tp;
        qkv_tape_init(&tp, 0);
        qkv_tensor *y = mha_fn(&tp, &f);
        assert_non_null(y);
        double *ref = malloc(y->size * sizeof *ref);
        reference(&f, ref);
        for (size_t i = 0; i < y->size; i++)
            tu_assert_close(y->data[i], ref[i], 1e-12);
        free(ref);
        qkv_tape_reset(&tp);
        qkv_tensor *ts[10] = {f.x, f.m.w_q, f.m.w_k, f.m.w_v, f.m.w_o, f.m.b_q, f.m.b_k, f.m.b_v, f.m.b_o, f.m.rel_bias};
        const char *names[10] = {"x", "w_q", "w_k", "w_v", "w_o", "b_q", "b_k", "b_v", "b_o", "rel_bias"};
        if (tu_gradcheck_status(&tp, mha_fn, &f, f.m.rel_bias ? 10 : 9, ts, names, 900 + (uint64_t)cfg) != 0)
            fail_msg("gradcheck failed: cfg %d heads %d window %d causal %d rel_clip %d rope %g alibi %d", cfg,
                     opts.n_heads, opts.window, opts.causal, opts.rel_clip, opts.rope_base,
                     opts.pos_bias != NULL);
        qkv_tape_free(&tp);
        qkv_params_free(&ps);
    }
}

/* ALiBi by hand: zero query and key weights leave only the biases, so head h weighs key j by
 * exp(−m_h|i − j|) / Z; with identity value and output maps, y[i][h] = Σ_j P_h(i, j) x[j][h]. */
static void test_alibi_hand_values(void **state)
{
    (void)state;
    qkv_params ps;
    qkv_params_init(&ps);
    qkv_attention_opts opts = {.n_heads = 2, .pos_bias = &qkv_alibi_kind};
    mha_fixture f;
    mha_fixture_setup(&f, &ps, 7, 2, (int[]){4}, 1, &opts, true);
    qkv_tensor *zero[6] = {f.m.w_q, f.m.w_k, f.m.b_q, f.m.b_k, f.m.b_v, f.m.b_o};
    for (int k = 0; k < 6; k++)
        memset(zero[k]->data, 0, zero[k]->size * sizeof(qkv_real));
    for (int k = 0; k < 4; k++) {
        f.m.w_v->data[k] = f.m.w_o->data[k] = (k == 0 || k == 3);
        f.x->data[2 * k] = k;          /* head 0 reads the positions */
        f.x->data[2 * k + 1] = k * k;  /* head 1 their squares */
    }
    qkv_tape tp;
    qkv_tape_init(&tp, 0);
    qkv_tensor *y = mha_fn(&tp, &f);
    assert_non_null(y);
    const double m[2] = {1.0 / 16, 1.0 / 256};
    for (int i = 0; i < 4; i++)
        for (int h = 0; h < 2; h++) {
            double num = 0, z = 0;
            for (int j = 0; j < 4; j++) {
                double w = exp(-m[h] * abs(i - j));
                z += w;
                num += w * (h ? j * j : j);
            }
            tu_assert_close(y->data[i * 2 + h], num / z, 1e-12);
        }
    tu_assert_close(y->data[0], (exp(-1.0 / 16) + 2 * exp(-2.0 / 16) + 3 * exp(-3.0 / 16)) /
                                    (1 + exp(-1.0 / 16) + exp(-2.0 / 16) + exp(-3.0 / 16)), 1e-12);
    qkv_tape_free(&tp);
    qkv_params_free(&ps);
}

static void test_attention_option_errors(void **state)
{
    (void)state;
    qkv_params ps;
    qkv_params_init(&ps);
    qkv_attention_opts opts = {.n_heads = 4, .rope_base = 10000};
    mha_fixture f;
    mha_fixture_setup(&f, &ps, 8, 12, lens, 3, &opts, true); /* d_head 3 */
    qkv_tape tp;
    qkv_tape_init(&tp, 0);
    assert_null(mha_fn(&tp, &f));
    assert_non_null(strstr(tp.err.msg, "rope needs a positive finite base (got 10000) and an even d_head (got 3)"));
    qkv_tape_reset(&tp);
    f.m.opts.rope_base = 0;
    f.m.opts.pos_bias = &qkv_alibi_kind;
    f.m.opts.normalize = QKV_ATTN_RELU;
    assert_null(mha_fn(&tp, &f));
    assert_non_null(strstr(tp.err.msg, "alibi needs softmax normalization"));
    qkv_tape_free(&tp);
    qkv_params_free(&ps);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_rope_values),
        cmocka_unit_test(test_rope_relative),
        cmocka_unit_test(test_rope_gradcheck_and_errors),
        cmocka_unit_test(test_alibi_slopes),
        cmocka_unit_test(test_attention_rope_alibi),
        cmocka_unit_test(test_alibi_hand_values),
        cmocka_unit_test(test_attention_option_errors),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
