/* The biaffine parser head (models/biaffine_head.c): its arc scores against the formula over its
 * own MLP outputs computed here, a double-precision gradient check of its loss through every
 * parameter and the input, predictions that are trees (projective ones with eisner), and the
 * loss of a batch without gold heads. */
#define QKV_TESTUTIL_AUTOGRAD
#include "testutil.h"

#include <string.h>

#include "lib/ops/ops.h"
#include "models/biaffine_head.h"

enum { T = 9, B = 3, L = 3, D = 4 };
static const int32_t OFFSETS[B + 1] = {0, 1, 5, 9};
static const int32_t TAGS[T] = {0, 1, 2, 0, 1, 2, -1, 0, 1};
static const int32_t HEADS[T] = {0, 2, 0, 4, 2, 0, 1, -1, 3};

typedef struct {
    qkv_params ps;
    qkv_head h;
    qkv_tensor *x;
} fixture;

static void make(fixture *f, qkv_tree_decoder decoder)
{
    memset(f, 0, sizeof *f);
    qkv_params_init(&f->ps);
    qkv_rng rng;
    qkv_rng_seed(&rng, 11);
    qkv_error err;
    qkv_head_spec spec = {.kind = QKV_OUTPUT_BIAFFINE, .prefix = "", .n_tags = L,
                          .biaffine = {.arc_dim = 3, .label_dim = 2, .decoder = decoder}};
    if (qkv_head_create(&f->h, &f->ps, &rng, D, &spec, &err))
        fail_msg("%s", err.msg);
    for (int i = 0; i < f->ps.n; i++) /* the biaffine weights start at zero: give every one a value */
        qkv_init_normal(&f->ps.items[i]->t, &rng, 0.7);
    f->x = tu_param(&f->ps, &rng, "x", 2, (int[]){T, D});
}

static qkv_tensor *loss_fn(qkv_tape *tp, void *user)
{
    fixture *f = user;
    return f->h.desc->loss(tp, &f->h, f->x, (qkv_packed){B, OFFSETS}, &(qkv_gold){.tags = TAGS, .arcs = HEADS});
}

static const qkv_real *param(const fixture *f, const char *name)
{
    return qkv_params_find(&f->ps, name)->t.data;
}

/* relu(w x + b) of row t, for the role named `role` ("arc_mlp.dep", ...), into out [n]. */
static void role(const fixture *f, const char *name, int n, int t, double *out)
{
    char w[64], b[64];
    snprintf(w, sizeof w, "%s.w", name);
    snprintf(b, sizeof b, "%s.b", name);
    for (int i = 0; i < n; i++) {
        double v = param(f, b)[i];
        for (int k = 0; k < D; k++)
            v += (double)param(f, w)[i * D + k] * f->x->data[t * D + k];
        out[i] = v > 0 ? v : 0;
    }
}

static void test_arc_scores(void **state)
{
    (void)state;
    fixture f;
    make(&f, QKV_TREE_MST);
    qkv_tape tp;
    assert_int_equal(qkv_tape_init(&tp, 0), 0);
    tp.no_grad = true;
    qkv_tensor *s = qkv_biaffine_head_arcs(&tp, &f.h, f.x, (qkv_packed){B, OFFSETS});
    assert_non_null(s);
    for (int b = 0; b < B; b++)
        for (int t = OFFSETS[b]; t < OFFSETS[b + 1]; t++)
            for (int j = 0; j <= OFFSETS[b + 1] - OFFSETS[b]; j++) {
                double dep[3], head[3], want = 0;
                role(&f, "arc_mlp.dep", 3, t, dep);
                if (j == 0)
                    for (int i = 0; i < 3; i++)
                        head[i] = param(&f, "arc.root")[i];
                else
                    role(&f, "arc_mlp.head", 3, OFFSETS[b] + j - 1, head);
                for (int a = 0; a < 3; a++)
                    for (int c = 0; c < 3; c++)
                        want += dep[a] * param(&f, "arc.U")[a * 3 + c] * head[c];
                for (int c = 0; c < 3; c++)
                    want += param(&f, "arc.u")[c] * head[c];
                tu_assert_close(s->data[t * s->shape[1] + j], want, 1e-12);
            }
    qkv_tape_free(&tp);
    qkv_head_free(&f.h);
    qkv_params_free(&f.ps);
}

static void test_gradcheck(void **state)
{
    (void)state;
    fixture f;
    make(&f, QKV_TREE_MST);
    qkv_tape tp;
    assert_int_equal(qkv_tape_init(&tp, 0), 0);
    qkv_tensor *ts[32];
    const char *names[32];
    for (int i = 0; i < f.ps.n; i++)
        ts[i] = &f.ps.items[i]->t, names[i] = f.ps.items[i]->name;
    tu_assert_gradcheck(&tp, loss_fn, &f, f.ps.n, ts, names);
    qkv_tape_free(&tp);
    qkv_head_free(&f.h);
    qkv_params_free(&f.ps);
}

static void test_predict_trees(void **state)
{
    (void)state;
    for (int dec = 0; dec < QKV_TREE_DECODER_COUNT; dec++) {
        fixture f;
        make(&f, (qkv_tree_decoder)dec);
        qkv_tape tp;
        assert_int_equal(qkv_tape_init(&tp, 0), 0);
        tp.no_grad = true;
        int32_t pred[T], heads[T];
        double sum = 0;
        qkv_error err;
        assert_int_equal(f.h.desc->predict(&tp, &f.h, f.x, (qkv_packed){B, OFFSETS}, NULL,
                                           &(qkv_prediction){pred, heads, &sum, NULL}, &err),
                         QKV_OK);
        for (int b = 0; b < B; b++)
            assert_true(qkv_tree_is_valid(heads + OFFSETS[b], OFFSETS[b + 1] - OFFSETS[b], dec == QKV_TREE_EISNER));
        qkv_tape_reset(&tp);
        tp.no_grad = false;
        assert_null(f.h.desc->loss(&tp, &f.h, f.x, (qkv_packed){B, OFFSETS}, &(qkv_gold){.tags = TAGS, .arcs = NULL}));
        assert_non_null(strstr(tp.err.msg, "no gold heads"));
        qkv_tape_free(&tp);
        qkv_head_free(&f.h);
        qkv_params_free(&f.ps);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_arc_scores),
        cmocka_unit_test(test_gradcheck),
        cmocka_unit_test(test_predict_trees),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
