/* Attention over a 2-D grid of tokens (lib/grid.h): the 2-D window (local2d,
 * lib/ops/grid_bias.h), the axial 2-D rotation (lib/ops/rope.h, qkv_rope_rotate_2d) and the
 * learned 2-D score biases (rel2d, quadratic2d) of one attention layer (lib/nn/mha.h), each
 * against a dense double-precision reference written here from the formulas (the window as
 * full attention with the keys outside it removed), with and without a prefix token, with a
 * double-precision gradient check; and their errors. */
#include "optest.h"

#include "lib/nn/mha.h"
#include "lib/ops/grid_bias.h"

enum { D = 16, HEADS = 2, DH = D / HEADS, ROWS = 3, COLS = 4, NSENT = 2, MAX_T = NSENT * (ROWS * COLS + 1) };
#define BASE 10.0

typedef struct {
    int n_prefix, window_2d;
    bool rope_2d;
    const qkv_score_bias_kind *pos_bias; /* rel2d (clip 1), quadratic2d or NULL */
} grid_case;

typedef struct {
    grid_case c;
    qkv_grid grid;
    qkv_mha m;
    qkv_tensor *x;
    int32_t off[NSENT + 1];
} fixture;

static qkv_tensor *layer_fn(qkv_tape *tp, void *user)
{
    fixture *f = user;
    return qkv_mha_forward(tp, &f->m, f->x, (qkv_packed){NSENT, f->off}, NULL);
}

static void setup(fixture *f, qkv_params *ps, grid_case c, uint64_t seed)
{
    memset(f, 0, sizeof *f);
    f->c = c;
    f->grid = (qkv_grid){.rows = ROWS, .cols = COLS, .n_prefix = c.n_prefix};
    qkv_attention_opts opts = {.n_heads = HEADS, .grid = f->grid, .window_2d = c.window_2d, .rope_2d = c.rope_2d,
                               .rope_base = c.rope_2d ? BASE : 0, .pos_bias = c.pos_bias, .pos_bias_clip = 1};
    qkv_rng rng;
    qkv_rng_seed(&rng, seed);
    qkv_error err;
    if (qkv_mha_create(&f->m, ps, &rng, "attn", D, &opts, true, &err) != QKV_OK)
        fail_msg("%s", err.msg);
    assert_true((f->m.pos_param != NULL) == (c.pos_bias != NULL));
    for (int i = 0; i < ps->n; i++)
        qkv_init_normal(&ps->items[i]->t, &rng, 0.5);
    for (int b = 0; b < NSENT; b++)
        f->off[b + 1] = f->off[b] + qkv_grid_len(f->grid);
    f->x = tu_param(ps, &rng, "x", 2, (int[]){f->off[NSENT], D});
}

/* The bias of query i and key j (positions in the sentence) in head h; −∞ outside the window. */
static double bias_ref(const fixture *f, int h, int i, int j)
{
    int P = f->c.n_prefix;
    if (i < P || j < P) /* rel2d: the prefix column (3·3); the others: nothing */
        return f->c.pos_bias == &qkv_rel2d_bias_kind ? f->m.pos_param->data[h * 10 + 9] : 0;
    int dy = (j - P) / COLS - (i - P) / COLS, dx = (j - P) % COLS - (i - P) % COLS;
    if (f->c.window_2d > 0 && (abs(dy) > f->c.window_2d || abs(dx) > f->c.window_2d))
        return -INFINITY;
    const qkv_real *v = f->m.pos_param ? f->m.pos_param->data : NULL;
    if (f->c.pos_bias == &qkv_rel2d_bias_kind) {
        int cy = dy < -1 ? -1 : dy > 1 ? 1 : dy, cx = dx < -1 ? -1 : dx > 1 ? 1 : dx;
        return v[h * 10 + (cy + 1) * 3 + cx + 1];
    }
    if (f->c.pos_bias == &qkv_quadratic_bias_kind) {
        double ey = dy - v[h * 3], ex = dx - v[h * 3 + 1];
        return -v[h * 3 + 2] * (ey * ey + ex * ex);
    }
    return 0;
}

/* Rotates the D columns of row (token t of its sentence) axially: in each head pairs 0, 1 by
 * the row at frequencies 1 and BASE^(−1/2), pairs 2, 3 by the column at the same two. */
static void rotate_ref(const fixture *f, int t, double *row)
{
    int P = f->c.n_prefix;
    if (t < P)
        return;
    int r = (t - P) / COLS, c = (t - P) % COLS;
    for (int h = 0; h < HEADS; h++)
        for (int i = 0; i < DH / 2; i++) {
            double a = (i < 2 ? r : c) * pow(BASE, -(double)(i % 2) / 2);
            double *v = row + h * DH + 2 * i, x0 = v[0], x1 = v[1];
            v[0] = x0 * cos(a) - x1 * sin(a);
            v[1] = x0 * sin(a) + x1 * cos(a);
        }
}

/* o [D] of token i of the sentence whose rows start at base (n tokens): each head's softmax
 * over the keys with a finite score. */
static void attend_ref(const fixture *f, const double *q, const double *k, const double *v, int base, int n, int i,
                       double *o)
{
    for (int h = 0; h < HEADS; h++) {
        double s[MAX_T], mx = -INFINITY, sum = 0;
        for (int j = 0; j < n; j++) {
            double dot = 0;
            for (int c = 0; c < DH; c++)
                dot += q[(base + i) * D + h * DH + c] * k[(base + j) * D + h * DH + c];
            s[j] = dot / sqrt(DH) + bias_ref(f, h, i, j);
            mx = fmax(mx, s[j]);
        }
        for (int j = 0; j < n; j++)
            sum += (s[j] = isinf(s[j]) ? 0 : exp(s[j] - mx));
        for (int c = 0; c < DH; c++) {
            double acc = 0;
            for (int j = 0; j < n; j++)
                acc += s[j] / sum * v[(base + j) * D + h * DH + c];
            o[h * DH + c] = acc;
        }
    }
}

/* y [T, D] = (attention of x) w_o^T + b_o in double. */
static void reference(const fixture *f, double *y)
{
    int T = f->off[NSENT], n = qkv_grid_len(f->grid);
    static double q[MAX_T * D], k[MAX_T * D], v[MAX_T * D];
    double *out[3] = {q, k, v};
    const qkv_tensor *w[3] = {f->m.w_q, f->m.w_k, f->m.w_v}, *b[3] = {f->m.b_q, f->m.b_k, f->m.b_v};
    for (int m = 0; m < 3; m++)
        for (int t = 0; t < T; t++)
            for (int r = 0; r < D; r++) {
                double s = b[m]->data[r];
                for (int c = 0; c < D; c++)
                    s += f->x->data[t * D + c] * w[m]->data[r * D + c];
                out[m][t * D + r] = s;
            }
    for (int t = 0; f->c.rope_2d && t < T; t++) {
        rotate_ref(f, t % n, q + t * D);
        rotate_ref(f, t % n, k + t * D);
    }
    for (int t = 0; t < T; t++) {
        double o[D];
        attend_ref(f, q, k, v, t - t % n, n, t % n, o);
        for (int r = 0; r < D; r++) {
            double s = f->m.b_o->data[r];
            for (int c = 0; c < D; c++)
                s += o[c] * f->m.w_o->data[r * D + c];
            y[t * D + r] = s;
        }
    }
}

static void check_case(grid_case c, uint64_t seed)
{
    qkv_params ps;
    qkv_params_init(&ps);
    fixture f;
    setup(&f, &ps, c, seed);
    qkv_tape tp;
    qkv_tape_init(&tp, 0);
    qkv_tensor *y = layer_fn(&tp, &f);
    if (!y)
        fail_msg("%s", tp.err.msg);
    double ref[MAX_T * D];
    reference(&f, ref);
    for (size_t i = 0; i < y->size; i++)
        tu_assert_close(y->data[i], ref[i], 1e-12);
    qkv_tape_reset(&tp);
    qkv_tensor *ts[16];
    const char *names[16];
    for (int i = 0; i < ps.n; i++)
        ts[i] = &ps.items[i]->t, names[i] = ps.items[i]->name;
    tu_assert_gradcheck(&tp, layer_fn, &f, ps.n, ts, names);
    qkv_tape_free(&tp);
    qkv_params_free(&ps);
}

static void test_window(void **state)
{
    (void)state;
    check_case((grid_case){.n_prefix = 0, .window_2d = 1}, 1); /* the band narrowed to ±(cols + 1) */
    check_case((grid_case){.n_prefix = 1, .window_2d = 1}, 2); /* the prefix token sees and is seen by all */
    check_case((grid_case){.n_prefix = 0, .window_2d = 2}, 3);
    int direct = qkv_attention_direct_max_width;
    qkv_attention_direct_max_width = 0; /* the BLAS tiles in the forward pass too */
    check_case((grid_case){.n_prefix = 1, .window_2d = 1, .rope_2d = true}, 10);
    check_case((grid_case){.n_prefix = 0, .window_2d = 1, .pos_bias = &qkv_quadratic_bias_kind}, 11);
    qkv_attention_direct_max_width = direct;
}

static void test_rope_2d(void **state)
{
    (void)state;
    check_case((grid_case){.n_prefix = 0, .rope_2d = true}, 4);
    check_case((grid_case){.n_prefix = 1, .rope_2d = true}, 5);
}

static void test_learned_biases(void **state)
{
    (void)state;
    check_case((grid_case){.n_prefix = 1, .pos_bias = &qkv_rel2d_bias_kind}, 6);
    check_case((grid_case){.n_prefix = 0, .pos_bias = &qkv_quadratic_bias_kind}, 7);
    check_case((grid_case){.n_prefix = 1, .pos_bias = &qkv_quadratic_bias_kind}, 8);
    check_case((grid_case){.n_prefix = 1, .window_2d = 1, .rope_2d = true, .pos_bias = &qkv_rel2d_bias_kind}, 9);
}

/* The quadratic encoding's initialization: centres in [−1, 1]², widths 1. */
static void test_quadratic_init(void **state)
{
    (void)state;
    qkv_params ps;
    qkv_params_init(&ps);
    qkv_rng rng;
    qkv_rng_seed(&rng, 3);
    qkv_error err;
    qkv_mha m;
    qkv_attention_opts opts = {.n_heads = 4, .pos_bias = &qkv_quadratic_bias_kind};
    assert_int_equal(qkv_mha_create(&m, &ps, &rng, "attn", D, &opts, false, &err), QKV_OK);
    assert_string_equal(qkv_params_of(&ps, m.pos_param)->name, "attn.quadratic");
    assert_true(qkv_params_of(&ps, m.pos_param)->no_weight_decay);
    for (int h = 0; h < 4; h++) {
        assert_true(fabs(m.pos_param->data[h * 3]) <= 1 && fabs(m.pos_param->data[h * 3 + 1]) <= 1);
        tu_assert_close(m.pos_param->data[h * 3 + 2], 1, 0);
    }
    qkv_params_free(&ps);
}

/* The layer's forward error message for opts over sentences of lens. */
static void expect_error(qkv_attention_opts opts, int d_model, const int *lens, int n, const char *msg)
{
    qkv_params ps;
    qkv_params_init(&ps);
    qkv_rng rng;
    qkv_rng_seed(&rng, 3);
    qkv_error err;
    qkv_mha m;
    assert_int_equal(qkv_mha_create(&m, &ps, &rng, "attn", d_model, &opts, false, &err), QKV_OK);
    int32_t off[4] = {0};
    for (int b = 0; b < n; b++)
        off[b + 1] = off[b] + lens[b];
    qkv_tensor *x = tu_param(&ps, &rng, "x", 2, (int[]){off[n], d_model});
    qkv_tape tp;
    qkv_tape_init(&tp, 0);
    assert_null(qkv_mha_forward(&tp, &m, x, (qkv_packed){n, off}, NULL));
    if (!strstr(tp.err.msg, msg))
        fail_msg("got \"%s\", expected \"%s\"", tp.err.msg, msg);
    qkv_tape_free(&tp);
    qkv_params_free(&ps);
}

static void test_errors(void **state)
{
    (void)state;
    const qkv_grid g = {.rows = 2, .cols = 2, .n_prefix = 1};
    const int five[] = {5, 5}, mixed[] = {5, 4};
    expect_error((qkv_attention_opts){.n_heads = 2, .window_2d = 1}, D, five, 2,
                 "attention: local2d needs a 2-D grid of tokens, got rows 0, cols 0");
    expect_error((qkv_attention_opts){.n_heads = 2, .pos_bias = &qkv_quadratic_bias_kind}, D, five, 2,
                 "attention: quadratic2d needs a 2-D grid");
    expect_error((qkv_attention_opts){.n_heads = 2, .window_2d = 1, .grid = g, .normalize = QKV_ATTN_RELU}, D, five,
                 2, "a 2-D window needs softmax normalization");
    expect_error((qkv_attention_opts){.n_heads = 2, .window_2d = 1, .grid = g}, D, mixed, 2,
                 "attention: sentence 1 has 4 tokens, the grid 2 x 2 (+1) has 5");
    expect_error((qkv_attention_opts){.n_heads = 2, .rope_2d = true, .rope_base = 10, .grid = g}, 12, five, 2,
                 "2-D rope needs a 2-D grid (got 2 x 2) and d_head a multiple of 4 (got 6)");
    expect_error((qkv_attention_opts){.n_heads = 2, .rope_2d = true, .rope_base = 10}, D, five, 2,
                 "2-D rope needs a 2-D grid (got 0 x 0)");
    expect_error((qkv_attention_opts){.n_heads = 2, .rope_2d = true, .rope_base = 10, .grid = g}, D, mixed, 2,
                 "sentence 1 has 4 tokens");
    expect_error((qkv_attention_opts){.n_heads = 2, .pos_bias = &qkv_rel2d_bias_kind, .grid = g}, D, five, 2,
                 "rel2d clip 0 must be >= 1");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_window),          cmocka_unit_test(test_rope_2d),
        cmocka_unit_test(test_learned_biases),  cmocka_unit_test(test_quadratic_init),
        cmocka_unit_test(test_errors),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
