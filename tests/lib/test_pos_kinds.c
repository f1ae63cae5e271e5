/* The table of positional kinds (lib/nn/positional.h), walked by name: every kind named in
 * QKV_POS_KIND_NAMES has a descriptor of that name and an entry in this test's references, and
 * for each, a positional encoding followed by one attention layer set up by the kind
 * (qkv_positional_attention) matches a dense double-precision reference built from that
 * entry, passes a gradient check of every input and parameter, and draws its pictures. A new
 * kind fails here until it gets its reference row. Also: the score biases on attention's node. */
#include "optest.h"

#include "floater_reference.h"
#include "lib/nn/mha.h"
#include "lib/nn/positional.h"
#include "lib/ops/alibi.h"
#include "lib/ops/rel_bias.h"

#include "lib/ops/grid_bias.h"

enum { D = 8, HEADS = 2, DH = D / HEADS, NSENT = 3, MAX_N = 7, MAX_LEN = 7, MAX_T = 21 };
static const int lens_1d[NSENT] = {5, 2, 4};
/* The 2-D kinds' sentences: a [CLS]-like prefix token and a 2 × 3 grid, 7 tokens each. */
static const qkv_grid GRID = {.rows = 2, .cols = 3, .n_prefix = 1};
static const int lens_2d[NSENT] = {7, 7, 7};
#define ROPE_BASE 10.0 /* a small base: large angles within 5 positions */
#define CLIP_2D 1      /* rel2d: offsets beyond ±1 (dx = ±2 on 3 columns) are clipped */

typedef struct {
    qkv_positional pos;
    qkv_mha m;
    qkv_tensor *x;
    int32_t off[NSENT + 1];
    const int *lens;
} fixture;

/* pe [n, D] = the reference PE of positions 0 .. n − 1. */
static void sinusoidal_ref(const qkv_positional *pos, int n, double *pe)
{
    (void)pos;
    for (int p = 0; p < n; p++)
        for (int c = 0; c < D; c++) {
            double angle = p / pow(10000.0, (double)(c - c % 2) / D);
            pe[p * D + c] = c % 2 ? cos(angle) : sin(angle);
        }
}

static void learned_ref(const qkv_positional *pos, int n, double *pe)
{
    for (int k = 0; k < n * D; k++)
        pe[k] = pos->table->data[k];
}

/* The 1-D sinusoid of p over n dimensions into pe[0 .. n). */
static void sinusoid(int p, int n, double *pe)
{
    for (int c = 0; c < n; c++) {
        double angle = p / pow(10000.0, (double)(c - c % 2) / n);
        pe[c] = c % 2 ? cos(angle) : sin(angle);
    }
}

/* Token p of a sequence on GRID: 0 for the [CLS] token, else its row's sinusoid over the first
 * D/2 dimensions and its column's over the last D/2. */
static void sinusoidal2d_ref(const qkv_positional *pos, int n, double *pe)
{
    (void)pos;
    for (int p = 0; p < n; p++) {
        for (int c = 0; c < D; c++)
            pe[p * D + c] = 0;
        if (p < GRID.n_prefix)
            continue;
        int g = p - GRID.n_prefix;
        sinusoid(g / GRID.cols, D / 2, pe + p * D);
        sinusoid(g % GRID.cols, D / 2, pe + p * D + D / 2);
    }
}

/* 0 for the [CLS] token, else row_table[row] + col_table[col]. */
static void learned2d_ref(const qkv_positional *pos, int n, double *pe)
{
    for (int p = 0; p < n; p++)
        for (int c = 0; c < D; c++) {
            int g = p - GRID.n_prefix;
            pe[p * D + c] = p < GRID.n_prefix ? 0
                                              : pos->row_table->data[(g / GRID.cols) * D + c] +
                                                    pos->col_table->data[(g % GRID.cols) * D + c];
        }
}

static void floater_ref(const qkv_positional *pos, int n, double *pe) { floater_reference(&pos->floater, n, pe); }

static double alibi_ref(const fixture *f, int h, int i, int j)
{
    (void)f;
    const double slope[HEADS] = {1.0 / 16, 1.0 / 256}; /* 2^(−8h/2), h = 1, 2 */
    return -slope[h] * abs(i - j);
}

/* Row and column of token t of a GRID sentence (t >= 1). */
static int grid_row(int t) { return (t - 1) / 3; }
static int grid_col(int t) { return (t - 1) % 3; }

static double rel2d_ref(const fixture *f, int h, int i, int j)
{
    const qkv_tensor *w = f->m.pos_param; /* [HEADS, 3 · 3 + 1] */
    assert_int_equal(w->shape[1], 10);
    if (i == 0 || j == 0)
        return w->data[h * 10 + 9];
    int dy = grid_row(j) - grid_row(i), dx = grid_col(j) - grid_col(i);
    dx = dx > 1 ? 1 : dx < -1 ? -1 : dx;
    return w->data[h * 10 + (dy + 1) * 3 + dx + 1];
}

static double quadratic_ref(const fixture *f, int h, int i, int j)
{
    const qkv_tensor *v = f->m.pos_param; /* [HEADS, 3]: centre y, centre x, width */
    if (i == 0 || j == 0)
        return 0;
    double ey = grid_row(j) - grid_row(i) - v->data[h * 3], ex = grid_col(j) - grid_col(i) - v->data[h * 3 + 1];
    return -v->data[h * 3 + 2] * (ey * ey + ex * ex);
}

typedef struct {
    const char *name;
    void (*pe)(const qkv_positional *pos, int n, double *pe); /* NULL: PE = 0 */
    int rotates;                                               /* q and k: 1 by RoFormer's formula, 2 axially */
    double (*bias)(const fixture *f, int h, int i, int j);     /* a score bias, or NULL */
    double sim_diag;                                           /* its picture: sim[i][i] (NAN: none) */
    bool grid;                                                 /* on GRID sentences */
} kind_ref;

static const kind_ref refs[] = {
    {"none", NULL, 0, NULL, NAN, false},
    {"sinusoidal", sinusoidal_ref, 0, NULL, 1, false},
    {"learned", learned_ref, 0, NULL, 1, false},
    {"rope", NULL, 1, NULL, 1, false},
    {"alibi", NULL, 0, alibi_ref, 0, false},
    {"floater", floater_ref, 0, NULL, 1, false},
    {"rel2d", NULL, 0, rel2d_ref, NAN, true},
    {"quadratic2d", NULL, 0, quadratic_ref, NAN, true},
    {"rope2d", NULL, 2, NULL, NAN, true},
    {"sinusoidal2d", sinusoidal2d_ref, 0, NULL, 1, true},
    {"learned2d", learned2d_ref, 0, NULL, 1, true},
};

static const kind_ref *ref_of(const char *name)
{
    for (size_t k = 0; k < sizeof refs / sizeof refs[0]; k++)
        if (strcmp(refs[k].name, name) == 0)
            return &refs[k];
    return NULL;
}

static qkv_tensor *model_fn(qkv_tape *tp, void *user)
{
    fixture *f = user;
    qkv_packed s = {NSENT, f->off};
    return qkv_mha_forward(tp, &f->m, qkv_positional_apply(tp, &f->pos, f->x, s), s, NULL);
}

static void setup(fixture *f, qkv_params *ps, qkv_pos_kind kind, bool grid, uint64_t seed)
{
    memset(f, 0, sizeof *f);
    qkv_rng rng;
    qkv_rng_seed(&rng, seed);
    qkv_error err;
    if (qkv_positional_create_grid(&f->pos, kind, D, MAX_LEN, grid ? GRID : (qkv_grid){0, 0, 0}, true, ps, &rng,
                                   "pos", &err) != QKV_OK)
        fail_msg("%s", err.msg);
    f->pos.rope_base = ROPE_BASE;
    f->pos.clip_2d = CLIP_2D;
    qkv_attention_opts opts = {.n_heads = HEADS, .rope_base = 99, .rope_2d = true, .pos_bias = &qkv_alibi_kind};
    if (grid)
        opts.grid = GRID;
    qkv_positional_attention(&f->pos, &opts); /* resets them, then sets the kind's */
    if (qkv_mha_create(&f->m, ps, &rng, "attn", D, &opts, true, &err) != QKV_OK)
        fail_msg("%s", err.msg);
    for (int i = 0; i < ps->n; i++) /* nonzero everywhere, N(0, 0.5^2): softmax not saturated */
        qkv_init_normal(&ps->items[i]->t, &rng, 0.5);
    f->lens = grid ? lens_2d : lens_1d;
    for (int b = 0; b < NSENT; b++)
        f->off[b + 1] = f->off[b] + f->lens[b];
    f->x = tu_param(ps, &rng, "x", 2, (int[]){f->off[NSENT], D});
}

/* q [T, 3D] = the row's projection (with its bias) of x [T, D] by w [D, D] into column block c. */
static void project_ref(const qkv_tensor *w, const qkv_tensor *bias, const double *x, int T, int c, double *qkv)
{
    for (int t = 0; t < T; t++)
        for (int i = 0; i < D; i++) {
            double s = bias->data[i];
            for (int j = 0; j < D; j++)
                s += x[t * D + j] * w->data[i * D + j];
            qkv[t * 3 * D + c * D + i] = s;
        }
}

/* One head's attention of query i of a sentence at rows base .. base + n − 1. */
static void head_ref(const fixture *f, const double *qkv, int base, int n, int h, int i, const kind_ref *r,
                     double *out)
{
    double p[MAX_N], mx = -INFINITY, sum = 0;
    for (int j = 0; j < n; j++) {
        double s = 0;
        for (int c = 0; c < DH; c++)
            s += qkv[(base + i) * 3 * D + h * DH + c] * qkv[(base + j) * 3 * D + D + h * DH + c];
        p[j] = s / sqrt(DH) + (r->bias ? r->bias(f, h, i, j) : 0);
        mx = fmax(mx, p[j]);
    }
    for (int j = 0; j < n; j++)
        sum += (p[j] = exp(p[j] - mx));
    for (int c = 0; c < DH; c++) {
        double s = 0;
        for (int j = 0; j < n; j++)
            s += p[j] / sum * qkv[(base + j) * 3 * D + 2 * D + h * DH + c];
        out[(base + i) * D + h * DH + c] = s;
    }
}

/* y [T, D] of model_fn in double: x·sqrt(D) + PE, the projections, the rotation, the heads
 * with the kind's bias, the output projection. */
static void reference(const fixture *f, const kind_ref *r, double *y)
{
    int T = f->off[NSENT];
    double x[MAX_T * D], pe[MAX_N * D] = {0}, qkv[MAX_T * 3 * D], o[MAX_T * D];
    if (r->pe)
        r->pe(&f->pos, MAX_N, pe);
    for (int b = 0; b < NSENT; b++)
        for (int t = f->off[b]; t < f->off[b + 1]; t++)
            for (int c = 0; c < D; c++)
                x[t * D + c] = f->x->data[t * D + c] * sqrt(D) + pe[(t - f->off[b]) * D + c];
    const qkv_mha *m = &f->m;
    project_ref(m->w_q, m->b_q, x, T, 0, qkv);
    project_ref(m->w_k, m->b_k, x, T, 1, qkv);
    project_ref(m->w_v, m->b_v, x, T, 2, qkv);
    for (int b = 0; b < NSENT; b++) {
        int base = f->off[b], n = f->lens[b];
        for (int t = 0; r->rotates && t < n; t++) /* y[2i] = x[2i] cos − x[2i+1] sin, ... */
            for (int c = 0; c < 2 * D; c += 2) {
                double *v = qkv + (base + t) * 3 * D + c, a = t * pow(ROPE_BASE, -(double)(c % DH) / DH);
                if (r->rotates == 2) { /* pair 0 of a head by the row, pair 1 by the column, θ = 1 */
                    assert_int_equal(DH, 4);
                    a = t == 0 ? 0 : (c % DH == 0 ? grid_row(t) : grid_col(t));
                }
                double x0 = v[0], x1 = v[1];
                v[0] = x0 * cos(a) - x1 * sin(a);
                v[1] = x0 * sin(a) + x1 * cos(a);
            }
        for (int h = 0; h < HEADS; h++)
            for (int i = 0; i < n; i++)
                head_ref(f, qkv, base, n, h, i, r, o);
    }
    for (int t = 0; t < T; t++)
        for (int i = 0; i < D; i++) {
            double s = m->b_o->data[i];
            for (int j = 0; j < D; j++)
                s += o[t * D + j] * m->w_o->data[i * D + j];
            y[t * D + i] = s;
        }
}

/* The kind's two pictures: finite, n × n similarity with the expected diagonal. */
static void check_draw(const fixture *f, const qkv_pos_desc *k, const kind_ref *r)
{
    if (!k->draw) {
        assert_true(isnan(r->sim_diag));
        return;
    }
    assert_non_null(k->draws);
    qkv_pos_panel enc = {0}, sim = {0};
    qkv_error err;
    int n = k->drawable ? k->drawable(&f->pos, 9) : 9;
    if (k->draw(&f->pos, n, HEADS, &enc, &sim, &err) != QKV_OK)
        fail_msg("%s: %s", k->name, err.msg);
    assert_int_equal(enc.rows, n);
    assert_int_equal(sim.rows, n);
    assert_int_equal(sim.cols, n);
    assert_non_null(strstr(enc.title, k->name));
    for (int k2 = 0; k2 < enc.rows * enc.cols; k2++)
        assert_true(isfinite(enc.data[k2]));
    for (int i = f->pos.grid.n_prefix; i < n; i++) /* a token before the grid has PE 0: cosine 0 */
        tu_assert_close(sim.data[i * n + i], r->sim_diag, 1e-12);
    free(enc.data);
    free(sim.data);
}

static void check_kind(const char *name, uint64_t seed)
{
    int kind = 0;
    while (QKV_POS_KIND_NAMES[kind] && strcmp(QKV_POS_KIND_NAMES[kind], name) != 0)
        kind++;
    assert_in_range(kind, 0, QKV_POS_COUNT - 1);
    const qkv_pos_desc *k = QKV_POS_DESCS[kind];
    const kind_ref *r = ref_of(name);
    if (!r)
        fail_msg("positional kind %s has no reference in tests/lib/test_pos_kinds.c", name);
    assert_string_equal(k->name, name);
    assert_true((k->group == QKV_POS_ADDITIVE) == !k->attention); /* rotations and biases act in attention */
    assert_true(!k->pe || k->group == QKV_POS_ADDITIVE);
    qkv_params ps;
    qkv_params_init(&ps);
    fixture f;
    setup(&f, &ps, (qkv_pos_kind)kind, r->grid, seed);
    assert_true(k->needs_grid == r->grid);
    /* `qkv positions` draws a 2-D kind that acts in attention over the grid (draw_grid), the
     * others by their draw */
    assert_true(!k->draw_grid || (k->needs_grid && k->attention && k->draws && !k->draw));
    assert_true(!(k->needs_grid && k->attention) || k->draw_grid);
    assert_true((f.m.opts.rope_base > 0) == (r->rotates > 0));
    assert_true(f.m.opts.rope_2d == (r->rotates == 2));
    assert_true((f.m.opts.pos_bias != NULL) == (r->bias != NULL));
    qkv_tape tp;
    qkv_tape_init(&tp, 0);
    qkv_tensor *y = model_fn(&tp, &f);
    if (!y)
        fail_msg("%s: %s", name, tp.err.msg);
    double ref[MAX_T * D];
    reference(&f, r, ref);
    for (size_t i = 0; i < y->size; i++)
        tu_assert_close(y->data[i], ref[i], 1e-12);
    qkv_tape_reset(&tp);
    qkv_tensor *ts[32];
    const char *names[32];
    for (int i = 0; i < ps.n; i++)
        ts[i] = &ps.items[i]->t, names[i] = ps.items[i]->name;
    if (tu_gradcheck_status(&tp, model_fn, &f, ps.n, ts, names, seed + 100) != 0)
        fail_msg("gradcheck failed: positional kind %s", name);
    check_draw(&f, k, r);
    qkv_tape_free(&tp);
    qkv_params_free(&ps);
}

static void test_every_kind(void **state)
{
    (void)state;
    for (int k = 0; QKV_POS_KIND_NAMES[k]; k++) {
        print_message("    %s\n", QKV_POS_KIND_NAMES[k]);
        check_kind(QKV_POS_KIND_NAMES[k], 40 + (uint64_t)k);
    }
}

/* The attention node's inputs are x, the six projections and the learned score biases only (a
 * constant bias such as ALiBi's adds none): relative biases and ALiBi together make 8, within
 * the tape's QKV_MAX_INPUTS; more learned biases than fit are a tape error. */
static void test_bias_inputs(void **state)
{
    (void)state;
    qkv_params ps;
    qkv_params_init(&ps);
    qkv_rng rng;
    qkv_rng_seed(&rng, 5);
    qkv_error err;
    qkv_mha m;
    qkv_attention_opts opts = {.n_heads = HEADS, .rel_clip = 2, .pos_bias = &qkv_alibi_kind};
    if (qkv_mha_create(&m, &ps, &rng, "attn", D, &opts, true, &err) != QKV_OK)
        fail_msg("%s", err.msg);
    qkv_tensor *x = tu_param(&ps, &rng, "x", 2, (int[]){4, D});
    int32_t off[] = {0, 4};
    qkv_tape tp;
    qkv_tape_init(&tp, 0);
    assert_non_null(qkv_mha_forward(&tp, &m, x, (qkv_packed){1, off}, NULL));
    const qkv_node *node = &tp.nodes[tp.n_nodes - 2];
    assert_string_equal(node->op, "attention");
    assert_int_equal(node->n_in, 8);
    assert_ptr_equal(node->in[7], m.rel_bias);
    qkv_tape_reset(&tp);
    const qkv_attention_proj proj = {m.w_q, m.w_k, m.w_v, m.b_q, m.b_k, m.b_v};
    const qkv_score_bias two[2] = {qkv_rel_bias(m.rel_bias, 2), qkv_rel_bias(m.rel_bias, 2)};
    assert_null(qkv_attention(&tp, x, (qkv_packed){1, off}, &proj, two, 2, &opts, NULL));
    assert_non_null(strstr(tp.err.msg, "attention: 2 learned score biases, at most 1"));
    qkv_tape_free(&tp);
    qkv_params_free(&ps);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_every_kind),
        cmocka_unit_test(test_bias_inputs),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
