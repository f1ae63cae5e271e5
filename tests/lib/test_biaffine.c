/* The biaffine ops (lib/ops/biaffine.c): arc scores, the cross-entropy over candidate heads,
 * the gather of head vectors and bilinear label scores. Forward values against direct sums in
 * double written here from the formulas (Dozat and Manning 2017), double-precision gradient
 * checks over packed batches of several lengths (one-word sentences included), checks that the
 * gradient check catches a 1% error in each backward, and tape errors. */
#include "optest.h"

#include "lib/ops/biaffine.h"

typedef struct {
    qkv_tensor *dep, *head, *root, *U, *u, *scores, *a, *b, *W;
    int32_t off[8], heads[32];
    int n_sent;
} fixture;

static qkv_packed sents(fixture *f) { return (qkv_packed){f->n_sent, f->off}; }

static qkv_tensor *arcs_fn(qkv_tape *tp, void *user)
{
    fixture *f = user;
    return qkv_biaffine_arcs(tp, f->dep, f->head, f->root, f->U, f->u, sents(f));
}

static qkv_tensor *arc_loss_fn(qkv_tape *tp, void *user)
{
    fixture *f = user;
    return qkv_arc_cross_entropy(tp, arcs_fn(tp, user), sents(f), f->heads, 0);
}

static qkv_tensor *ce_fn(qkv_tape *tp, void *user)
{
    fixture *f = user;
    return qkv_arc_cross_entropy(tp, f->scores, sents(f), f->heads, 0);
}

static qkv_tensor *gather_fn(qkv_tape *tp, void *user)
{
    fixture *f = user;
    return qkv_gather_heads(tp, f->head, f->root, sents(f), f->heads);
}

static qkv_tensor *bilinear_fn(qkv_tape *tp, void *user)
{
    fixture *f = user;
    return qkv_bilinear(tp, f->a, f->b, f->W);
}

/* Lengths 3, 1, 4 (8 words), d = 3; heads valid for each sentence, one ignored. */
static void make(fixture *f, ot_env *e, bool prior)
{
    *f = (fixture){.n_sent = 3, .off = {0, 3, 4, 8}, .heads = {2, 0, 2, 0, 0, 1, -1, 3}};
    f->dep = ot_param2(e, "dep", 8, 3);
    f->head = ot_param2(e, "head", 8, 3);
    f->root = ot_param(e, "root", 1, (int[]){3});
    f->U = ot_param2(e, "U", 3, 3);
    f->u = prior ? ot_param(e, "u", 1, (int[]){3}) : NULL;
}

/* s[t, j] from the formula, in double. */
static double arc_ref(const fixture *f, int s, int t, int j)
{
    const int d = 3, o = f->off[s];
    const qkv_real *h = j == 0 ? f->root->data : f->head->data + (size_t)(o + j - 1) * d;
    double v = 0;
    for (int a = 0; a < d; a++)
        for (int b = 0; b < d; b++)
            v += (double)f->dep->data[t * d + a] * f->U->data[a * d + b] * h[b];
    for (int b = 0; f->u && b < d; b++)
        v += (double)f->u->data[b] * h[b];
    return v;
}

static void test_arcs_forward(void **state)
{
    (void)state;
    for (int prior = 0; prior < 2; prior++) {
        ot_env e;
        ot_init(&e, 3 + prior);
        fixture f;
        make(&f, &e, prior);
        qkv_tensor *y = arcs_fn(&e.tp, &f);
        assert_non_null(y);
        assert_int_equal(y->shape[0], 8);
        assert_int_equal(y->shape[1], 5);
        for (int s = 0; s < 3; s++)
            for (int t = f.off[s]; t < f.off[s + 1]; t++)
                for (int j = 0; j < 5; j++)
                    tu_assert_close(y->data[t * 5 + j], j <= f.off[s + 1] - f.off[s] ? arc_ref(&f, s, t, j) : 0.0,
                                    1e-12);
        ot_free(&e);
    }
}

static void test_arc_loss_forward(void **state)
{
    (void)state;
    ot_env e;
    ot_init(&e, 7);
    fixture f;
    make(&f, &e, true);
    f.scores = ot_param2(&e, "scores", 8, 5);
    /* a padded column far above the others must not count */
    f.scores->data[3 * 5 + 4] = 50;
    double want = 0;
    int count = 0;
    for (int s = 0; s < 3; s++)
        for (int t = f.off[s]; t < f.off[s + 1]; t++) {
            if (f.heads[t] < 0)
                continue;
            double z = 0;
            for (int j = 0; j <= f.off[s + 1] - f.off[s]; j++)
                z += exp((double)f.scores->data[t * 5 + j]);
            want += log(z) - f.scores->data[t * 5 + f.heads[t]];
            count++;
        }
    qkv_tensor *y = ce_fn(&e.tp, &f);
    assert_non_null(y);
    tu_assert_close(y->data[0], want / count, 1e-12);
    ot_free(&e);
}

static void test_gather_bilinear_forward(void **state)
{
    (void)state;
    ot_env e;
    ot_init(&e, 9);
    fixture f;
    make(&f, &e, false);
    qkv_tensor *g = gather_fn(&e.tp, &f);
    assert_non_null(g);
    const int src[8] = {1, -1, 1, -1, -1, 4, -2, 6}; /* -1 root, -2 zeros */
    for (int t = 0; t < 8; t++)
        for (int k = 0; k < 3; k++)
            tu_assert_close(g->data[t * 3 + k],
                            src[t] == -2 ? 0.0 : src[t] == -1 ? f.root->data[k] : f.head->data[src[t] * 3 + k], 0);
    f.a = ot_param2(&e, "a", 4, 3);
    f.b = ot_param2(&e, "b", 4, 2);
    f.W = ot_param(&e, "W", 3, (int[]){5, 3, 2});
    qkv_tensor *y = bilinear_fn(&e.tp, &f);
    assert_non_null(y);
    for (int n = 0; n < 4; n++)
        for (int l = 0; l < 5; l++) {
            double v = 0;
            for (int i = 0; i < 3; i++)
                for (int j = 0; j < 2; j++)
                    v += (double)f.a->data[n * 3 + i] * f.W->data[(l * 3 + i) * 2 + j] * f.b->data[n * 2 + j];
            tu_assert_close(y->data[n * 5 + l], v, 1e-12);
        }
    ot_free(&e);
}

static void test_gradchecks(void **state)
{
    (void)state;
    for (int prior = 0; prior < 2; prior++) {
        ot_env e;
        ot_init(&e, 21 + prior);
        fixture f;
        make(&f, &e, prior);
        qkv_tensor *ts[5] = {f.dep, f.head, f.root, f.U, f.u};
        const char *names[5] = {"dep", "head", "root", "U", "u"};
        tu_assert_gradcheck(&e.tp, arcs_fn, &f, prior ? 5 : 4, ts, names);
        tu_assert_gradcheck(&e.tp, arc_loss_fn, &f, prior ? 5 : 4, ts, names);
        ot_assert_gradcheck_catches(&e.tp, "biaffine_arcs", arcs_fn, &f, prior ? 5 : 4, ts, names);
        ot_assert_gradcheck_catches(&e.tp, "arc_cross_entropy", arc_loss_fn, &f, prior ? 5 : 4, ts, names);
        qkv_tensor *gs[2] = {f.head, f.root};
        const char *gnames[2] = {"head", "root"};
        tu_assert_gradcheck(&e.tp, gather_fn, &f, 2, gs, gnames);
        ot_assert_gradcheck_catches(&e.tp, "gather_heads", gather_fn, &f, 2, gs, gnames);
        f.a = ot_param2(&e, "a", 4, 3);
        f.b = ot_param2(&e, "b", 4, 2);
        f.W = ot_param(&e, "W", 3, (int[]){5, 3, 2});
        qkv_tensor *bs[3] = {f.a, f.b, f.W};
        const char *bnames[3] = {"a", "b", "W"};
        tu_assert_gradcheck(&e.tp, bilinear_fn, &f, 3, bs, bnames);
        ot_assert_gradcheck_catches(&e.tp, "bilinear", bilinear_fn, &f, 3, bs, bnames);
        ot_free(&e);
    }
}

static void test_errors(void **state)
{
    (void)state;
    ot_env e;
    ot_init(&e, 5);
    fixture f;
    make(&f, &e, true);
    f.heads[3] = 2; /* the one-word sentence has candidates 0..1 */
    assert_null(arc_loss_fn(&e.tp, &f));
    assert_non_null(strstr(e.tp.err.msg, "head 2 of row 3 is outside 0..1"));
    qkv_tape_reset(&e.tp);
    assert_null(gather_fn(&e.tp, &f));
    assert_non_null(strstr(e.tp.err.msg, "gather_heads: head 2"));
    qkv_tape_reset(&e.tp);
    f.U = ot_param2(&e, "U2", 3, 2);
    assert_null(arcs_fn(&e.tp, &f));
    assert_non_null(strstr(e.tp.err.msg, "biaffine_arcs: dep"));
    ot_free(&e);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_arcs_forward),
        cmocka_unit_test(test_arc_loss_forward),
        cmocka_unit_test(test_gather_bilinear_forward),
        cmocka_unit_test(test_gradchecks),
        cmocka_unit_test(test_errors),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
