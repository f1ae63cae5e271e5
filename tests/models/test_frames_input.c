/* The frames input kind (models/frames_input.c): its output against dense·wᵀ + b computed
 * here, a double-precision gradcheck of frames.w and frames.b alone and through a whole network
 * (positions, a transformer, the softmax loss), and its errors. */
#define QKV_TESTUTIL_AUTOGRAD
#include "testutil.h"

#include "lib/ops/ops.h"
#include "models/network.h"

enum { T = 6, B = 2, DI = 4, D = 6, NT = 3 };
static const int32_t OFFSETS[B + 1] = {0, 2, 6};
static const int32_t TAGS[T] = {0, 1, 2, 2, -1, 1};
static float DENSE[T * DI];

static qkv_network_config config(void)
{
    qkv_network_config cfg;
    memset(&cfg, 0, sizeof cfg);
    cfg.input_kind = QKV_INPUT_FRAMES;
    cfg.d_input = DI;
    cfg.n_tags = NT;
    cfg.n_layers = 1;
    cfg.encoder.d_model = D;
    cfg.encoder.d_ff = 8;
    cfg.encoder.attn.n_heads = 2;
    cfg.encoder.activation = QKV_FFN_GELU;
    cfg.encoder.norm_first = true;
    cfg.encoder.ln_eps = 1e-5;
    cfg.positional = QKV_POS_SINUSOIDAL;
    return cfg;
}

static qkv_network_input batch(void)
{
    for (int i = 0; i < T * DI; i++)
        DENSE[i] = (float)sin(0.7 * i + 0.3);
    return (qkv_network_input){.sentences = {B, OFFSETS}, .dense = DENSE};
}

static void test_forward_values(void **state)
{
    (void)state;
    qkv_network_config cfg = config();
    qkv_params ps;
    qkv_params_init(&ps);
    qkv_rng rng;
    qkv_rng_seed(&rng, 4);
    qkv_error err;
    qkv_input in = {.desc = &qkv_frames_input};
    if (in.desc->create(&in, &ps, &rng, &cfg, &err))
        fail_msg("%s", err.msg);
    assert_int_equal(ps.n, 2);
    assert_string_equal(ps.items[0]->name, "frames.w");
    assert_string_equal(ps.items[1]->name, "frames.b");
    qkv_tensor *w = &ps.items[0]->t, *b = &ps.items[1]->t;
    for (int i = 0; i < D; i++)
        b->data[i] = 0.1 * i; /* a bias of its own, so that it is seen in the output */
    qkv_network_input bt = batch();
    qkv_tape tp;
    assert_int_equal(qkv_tape_init(&tp, 0), 0);
    qkv_tensor *y = in.desc->forward(&tp, &in, &bt);
    assert_non_null(y);
    assert_int_equal(y->shape[0], T);
    assert_int_equal(y->shape[1], D);
    for (int t = 0; t < T; t++)
        for (int o = 0; o < D; o++) {
            double want = b->data[o];
            for (int i = 0; i < DI; i++)
                want += (double)DENSE[t * DI + i] * w->data[o * DI + i];
            tu_assert_close(y->data[t * D + o], want, 1e-12);
        }
    assert_int_equal(in.desc->n_tables(&in), 0);
    /* no dense vectors: a tape error, not a crash */
    bt.dense = NULL;
    qkv_tape_reset(&tp);
    assert_null(in.desc->forward(&tp, &in, &bt));
    assert_non_null(strstr(tp.err.msg, "no frame vectors"));
    qkv_tape_free(&tp);
    in.desc->free(&in);
    qkv_params_free(&ps);
    cfg.d_input = 0;
    in = (qkv_input){.desc = &qkv_frames_input};
    qkv_params_init(&ps);
    assert_int_equal(in.desc->create(&in, &ps, &rng, &cfg, &err), QKV_ERR);
    assert_non_null(strstr(err.msg, "d_input"));
    in.desc->free(&in);
    qkv_params_free(&ps);
}

typedef struct {
    qkv_network m;
    qkv_network_input in;
} fixture;

static qkv_tensor *loss_fn(qkv_tape *tp, void *user)
{
    fixture *f = user;
    qkv_tensor *logits = qkv_network_logits(tp, &f->m, &f->in, -1, NULL);
    return qkv_network_loss(tp, &f->m, logits, f->in.sentences, TAGS);
}

static void test_network_gradcheck(void **state)
{
    (void)state;
    fixture f;
    qkv_network_config cfg = config();
    qkv_rng rng;
    qkv_rng_seed(&rng, 5);
    qkv_error err;
    if (qkv_network_init(&f.m, &cfg, &rng, &err))
        fail_msg("%s", err.msg);
    f.in = batch();
    qkv_params *ps = qkv_network_params(&f.m);
    assert_string_equal(ps->items[0]->name, "frames.w");
    qkv_tensor *ts[64];
    const char *names[64];
    int n = ps->n < 64 ? ps->n : 64;
    for (int i = 0; i < n; i++) {
        ts[i] = &ps->items[i]->t;
        names[i] = ps->items[i]->name;
    }
    qkv_tape tp;
    assert_int_equal(qkv_tape_init(&tp, 0), 0);
    qkv_gradcheck_opts opts = QKV_GRADCHECK_DEFAULTS;
    qkv_gradcheck_result res[64];
    int status = qkv_gradcheck(&tp, loss_fn, &f, n, ts, names, &opts, res, &err);
    if (status)
        fail_msg("%s", err.msg);
    qkv_tape_free(&tp);
    qkv_network_free(&f.m);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_forward_values),
        cmocka_unit_test(test_network_gradcheck),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
