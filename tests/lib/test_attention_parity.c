/* Parity with torch.nn.MultiheadAttention: outputs and gradients of sum(Y ⊙ R) against the
 * committed fixtures of tests/reference/make_fixtures.py, one sentence and a packed batch
 * (which torch ran one sentence at a time), to 1e-5 relative. */
#define QKV_TESTUTIL_AUTOGRAD
#include "testutil.h"

#include "h5fixture.h"
#include "lib/nn/mha.h"

typedef struct {
    qkv_mha m;
    qkv_tensor *x;
    int32_t *off;
    int n_sentences;
} fixture;

static qkv_tensor *mha_fn(qkv_tape *tp, void *user)
{
    fixture *f = user;
    return qkv_mha_forward(tp, &f->m, f->x, (qkv_packed){f->n_sentences, f->off}, NULL);
}

static void check_group(const char *group)
{
    hid_t file = h5f_open("attention.h5");
    hid_t g = H5Gopen2(file, group, H5P_DEFAULT);
    assert_true(g >= 0);
    int n_heads = h5f_attr_int(g, "n_heads");
    size_t n_off = h5f_size(g, "offsets");
    fixture f = {0};
    f.n_sentences = (int)n_off - 1;
    f.off = malloc(n_off * sizeof *f.off);
    h5f_read(g, "offsets", f.off, n_off, true);
    int T = f.off[f.n_sentences], d = (int)(h5f_size(g, "x") / (size_t)T);
    qkv_params ps;
    qkv_params_init(&ps);
    qkv_rng rng;
    qkv_rng_seed(&rng, 1);
    qkv_error err;
    qkv_attention_opts opts = {.n_heads = n_heads};
    assert_int_equal(qkv_mha_create(&f.m, &ps, &rng, "attn", d, &opts, true, &err), QKV_OK);
    f.x = qkv_params_add(&ps, &err, 2, (int[]){T, d}, "x");
    h5f_read(g, "x", f.x->data, f.x->size, false);
    char name[256];
    for (int i = 0; i < ps.n; i++)
        if (strcmp(ps.items[i]->name, "x") != 0) {
            snprintf(name, sizeof name, "params/%s", ps.items[i]->name + strlen("attn."));
            h5f_read(g, name, ps.items[i]->t.data, ps.items[i]->t.size, false);
        }
    qkv_tape tp;
    qkv_tape_init(&tp, 0);
    qkv_tensor *y = mha_fn(&tp, &f);
    assert_non_null(y);
    h5f_assert_close(g, "y", y->data, y->size);
    qkv_real *r = malloc(y->size * sizeof *r);
    h5f_read(g, "r", r, y->size, false);
    qkv_params_zero_grad(&ps);
    assert_int_equal(qkv_backward_from(&tp, y, r), QKV_OK);
    for (int i = 0; i < ps.n; i++) {
        const char *pn = ps.items[i]->name;
        snprintf(name, sizeof name, "grads/%s", strcmp(pn, "x") == 0 ? "x" : pn + strlen("attn."));
        h5f_assert_close(g, name, ps.items[i]->t.grad, ps.items[i]->t.size);
    }
    free(r);
    free(f.off);
    qkv_tape_free(&tp);
    qkv_params_free(&ps);
    H5Gclose(g);
    H5Fclose(file);
}

static void test_mha_single_sentence(void **state)
{
    (void)state;
    check_group("mha_single");
}

static void test_mha_packed_batch(void **state)
{
    (void)state;
    check_group("mha_packed");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_mha_single_sentence),
        cmocka_unit_test(test_mha_packed_batch),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
