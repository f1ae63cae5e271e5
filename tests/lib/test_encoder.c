/* Encoder block: parameter names, double-precision gradient checks of the whole block
 * (pre-LN and post-LN, relu and gelu, windows, dropout) on packed batches, and parity with
 * torch.nn.TransformerEncoderLayer(norm_first=True, dropout=0) from the committed fixtures. */
#define QKV_TESTUTIL_AUTOGRAD
#include "testutil.h"

#include "h5fixture.h"
#include "lib/nn/encoder.h"

typedef struct {
    qkv_encoder_block blk;
    qkv_tensor *x;
    int32_t off[8];
    int n_sentences;
} fixture;

static qkv_tensor *block_fn(qkv_tape *tp, void *user)
{
    fixture *f = user;
    return qkv_encoder_block_forward(tp, &f->blk, f->x, (qkv_packed){f->n_sentences, f->off}, NULL);
}

static void test_parameter_names(void **state)
{
    (void)state;
    qkv_params ps;
    qkv_params_init(&ps);
    qkv_rng rng;
    qkv_rng_seed(&rng, 1);
    qkv_error err;
    qkv_encoder_block blk;
    qkv_encoder_opts opts = {.d_model = 8, .d_ff = 16, .attn = {.n_heads = 2}, .attn_bias = true, .norm_first = true};
    assert_int_equal(qkv_encoder_block_create(&blk, &ps, &rng, "encoder.layers.0", &opts, &err), QKV_OK);
    const char *names[] = {"attn.w_q", "attn.w_k", "attn.w_v", "attn.w_o", "attn.b_q", "attn.b_o", "ln1.gain",
                           "ln1.bias", "ffn.w1", "ffn.b1", "ffn.w2", "ffn.b2", "ln2.gain", "ln2.bias"};
    char name[128];
    for (int i = 0; i < 14; i++) {
        snprintf(name, sizeof name, "encoder.layers.0.%s", names[i]);
        if (!qkv_params_find(&ps, name))
            fail_msg("parameter %s missing", name);
    }
    assert_int_equal(ps.n, 16);
    assert_int_equal(qkv_params_find(&ps, "encoder.layers.0.ffn.w1")->t.shape[0], 16);
    tu_assert_close(qkv_params_find(&ps, "encoder.layers.0.ln2.gain")->t.data[3], 1.0, 0);
    opts.attn.n_heads = 3;
    assert_int_equal(qkv_encoder_block_create(&blk, &ps, &rng, "encoder.layers.1", &opts, &err), QKV_ERR);
    assert_non_null(strstr(err.msg, "n_heads 3 does not divide d_model 8"));
    qkv_params_free(&ps);
}

static void check_block(uint64_t seed, const int *bt, const qkv_encoder_opts *opts, qkv_rng *tape_rng)
{
    qkv_params ps;
    qkv_params_init(&ps);
    qkv_rng rng;
    qkv_rng_seed(&rng, seed);
    qkv_error err;
    fixture f;
    memset(&f, 0, sizeof f);
    if (qkv_encoder_block_create(&f.blk, &ps, &rng, "enc", opts, &err) != QKV_OK)
        fail_msg("%s", err.msg);
    for (int i = 0; i < ps.n; i++) /* non-trivial gains and biases */
        qkv_init_normal(&ps.items[i]->t, &rng, 0.5);
    f.n_sentences = bt[0];
    for (int b = 0; b < bt[0]; b++)
        f.off[b + 1] = f.off[b] + bt[b + 1];
    f.x = tu_param(&ps, &rng, "x", 2, (int[]){f.off[bt[0]], opts->d_model});
    qkv_tape tp;
    qkv_tape_init(&tp, 0);
    tp.rng = tape_rng;
    qkv_tensor *ts[20];
    const char *names[20];
    for (int i = 0; i < ps.n; i++) {
        ts[i] = &ps.items[i]->t;
        names[i] = ps.items[i]->name;
    }
    qkv_gradcheck_opts go = QKV_GRADCHECK_DEFAULTS; /* 17 tensors: more than tu_gradcheck_status holds */
    go.seed = seed;
    qkv_gradcheck_result res[20];
    qkv_error gerr = {0};
    assert_true(ps.n <= 20);
    if (qkv_gradcheck(&tp, block_fn, &f, ps.n, ts, names, &go, res, &gerr) != 0)
        fail_msg("encoder gradcheck failed: seed %llu norm_first %d gelu %d window %d dropout %g: %s",
                 (unsigned long long)seed, opts->norm_first, opts->activation, opts->attn.window, opts->dropout,
                 gerr.msg);
    qkv_tape_free(&tp);
    qkv_params_free(&ps);
}

static void test_gradcheck(void **state)
{
    (void)state;
    static const int batches[4][5] = {{1, 1}, {2, 3, 7}, {4, 2, 5, 1, 4}, {3, 7, 6, 3}};
    for (int v = 0; v < 8; v++) {
        qkv_encoder_opts opts = {.d_model = 4, .d_ff = 6, .attn = {.n_heads = 2, .window = (v & 4) ? 1 : 0},
                                 .attn_bias = v != 3, .norm_first = !(v & 1),
                                 .activation = (v & 2) ? QKV_FFN_GELU : QKV_FFN_RELU};
        check_block(30 + (uint64_t)v, batches[v % 4], &opts, NULL);
    }
    qkv_rng rng;
    qkv_rng_seed(&rng, 3);
    qkv_encoder_opts opts = {.d_model = 4, .d_ff = 6, .attn = {.n_heads = 2, .dropout = 0.2}, .attn_bias = true,
                             .norm_first = true, .dropout = 0.3};
    check_block(40, batches[3], &opts, &rng);
}

static void check_parity(const char *group)
{
    hid_t file = h5f_open("attention.h5");
    hid_t g = H5Gopen2(file, group, H5P_DEFAULT);
    assert_true(g >= 0);
    fixture f;
    memset(&f, 0, sizeof f);
    size_t n_off = h5f_size(g, "offsets");
    f.n_sentences = (int)n_off - 1;
    h5f_read(g, "offsets", f.off, n_off, true);
    int T = f.off[f.n_sentences], d = (int)(h5f_size(g, "x") / (size_t)T);
    char act[16] = {0};
    hid_t a = H5Aopen(g, "activation", H5P_DEFAULT);
    hid_t at = H5Aget_type(a);
    if (H5Tis_variable_str(at)) {
        char *s = NULL;
        H5Aread(a, at, &s);
        snprintf(act, sizeof act, "%s", s);
        H5free_memory(s);
    }
    H5Tclose(at);
    H5Aclose(a);
    qkv_encoder_opts opts = {.d_model = d, .d_ff = h5f_attr_int(g, "d_ff"),
                             .attn = {.n_heads = h5f_attr_int(g, "n_heads")}, .attn_bias = true, .norm_first = true,
                             .activation = strcmp(act, "gelu") == 0 ? QKV_FFN_GELU : QKV_FFN_RELU};
    assert_true(strcmp(act, "gelu") == 0 || strcmp(act, "relu") == 0);
    qkv_params ps;
    qkv_params_init(&ps);
    qkv_rng rng;
    qkv_rng_seed(&rng, 1);
    qkv_error err;
    assert_int_equal(qkv_encoder_block_create(&f.blk, &ps, &rng, "enc", &opts, &err), QKV_OK);
    char name[256];
    for (int i = 0; i < ps.n; i++) {
        snprintf(name, sizeof name, "params/%s", ps.items[i]->name + strlen("enc."));
        h5f_read(g, name, ps.items[i]->t.data, ps.items[i]->t.size, false);
    }
    f.x = qkv_params_add(&ps, &err, 2, (int[]){T, d}, "x");
    h5f_read(g, "x", f.x->data, f.x->size, false);
    qkv_tape tp;
    qkv_tape_init(&tp, 0);
    qkv_tensor *y = block_fn(&tp, &f);
    assert_non_null(y);
    h5f_assert_close(g, "y", y->data, y->size);
    qkv_real *r = malloc(y->size * sizeof *r);
    h5f_read(g, "r", r, y->size, false);
    qkv_params_zero_grad(&ps);
    assert_int_equal(qkv_backward_from(&tp, y, r), QKV_OK);
    for (int i = 0; i < ps.n; i++) {
        const char *pn = ps.items[i]->name;
        snprintf(name, sizeof name, "grads/%s", strcmp(pn, "x") == 0 ? "x" : pn + strlen("enc."));
        h5f_assert_close(g, name, ps.items[i]->t.grad, ps.items[i]->t.size);
    }
    free(r);
    qkv_tape_free(&tp);
    qkv_params_free(&ps);
    H5Gclose(g);
    H5Fclose(file);
}

static void test_parity_relu(void **state)
{
    (void)state;
    check_parity("encoder_relu");
}

static void test_parity_gelu(void **state)
{
    (void)state;
    check_parity("encoder_gelu");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_parameter_names),
        cmocka_unit_test(test_gradcheck),
        cmocka_unit_test(test_parity_relu),
        cmocka_unit_test(test_parity_gelu),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
