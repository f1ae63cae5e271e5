/* A small image model over a batch of images, shared by the image model tests
 * (test_image_model.c, test_conv_patches_input.c): the config of one pre-norm transformer
 * block (2 attention heads, GELU) under the class head, the parameters drawn N(0, 0.5^2)
 * (nothing zero, no unit or softmax saturated) and double-precision gradient checks of the
 * parameters. Include after testutil.h (with QKV_TESTUTIL_AUTOGRAD). */
#ifndef QKV_TEST_IMAGE_FIXTURE_H
#define QKV_TEST_IMAGE_FIXTURE_H

#include <string.h>

#include "models/network.h"

typedef struct {
    qkv_network m;
    qkv_network_input in;
    const int32_t *tags; /* [T] each image's class on its first token, < 0 (no tag) on the others */
    qkv_tensor *r;       /* for a test's own loss: fixed weights (may be NULL) */
} image_fixture;

/* The config of a model of width d over sequences of at most max_len tokens, with a class head
 * of n_classes classes; the input, positions and grid are the test's. */
static inline qkv_network_config image_fixture_config(int d, int n_classes, int max_len)
{
    qkv_network_config cfg;
    memset(&cfg, 0, sizeof cfg);
    cfg.n_tags = n_classes;
    cfg.n_layers = 1;
    cfg.encoder.d_model = d;
    cfg.encoder.d_ff = 5;
    cfg.encoder.attn.n_heads = 2;
    cfg.encoder.activation = QKV_FFN_GELU;
    cfg.encoder.norm_first = true;
    cfg.encoder.ln_eps = 1e-5;
    cfg.max_len = max_len;
    cfg.output = QKV_OUTPUT_CLASS;
    return cfg;
}

/* m built from cfg, every parameter drawn N(0, 0.5^2) from seed. */
static inline void image_fixture_init(qkv_network *m, const qkv_network_config *cfg, uint64_t seed)
{
    qkv_rng rng;
    qkv_rng_seed(&rng, seed);
    qkv_error err;
    if (qkv_network_init(m, cfg, &rng, &err))
        fail_msg("%s", err.msg);
    for (int i = 0; i < m->params.n; i++)
        qkv_init_normal(&m->params.items[i]->t, &rng, 0.5);
}

/* The model's loss (its heads' loss over the encoder's output) of the batch f->in against
 * f->tags: a qkv_forward_fn. */
static inline qkv_tensor *image_fixture_loss(qkv_tape *tp, void *user)
{
    image_fixture *f = user;
    const int32_t *tags[1] = {f->tags};
    return qkv_network_heads_loss(tp, &f->m, qkv_network_hidden(tp, &f->m, &f->in, -1, NULL), f->in.sentences, tags,
                                 NULL, 0, NULL);
}

/* The gradient check of fn(f) for every parameter of f->m whose name begins with prefix ("":
 * all), without dropout; returns how many parameters it checked. */
static inline int image_fixture_gradcheck(image_fixture *f, qkv_forward_fn fn, const char *prefix)
{
    f->m.cfg.encoder.dropout = 0;
    int n = 0;
    qkv_tensor **ts = calloc((size_t)f->m.params.n, sizeof *ts);
    const char **names = calloc((size_t)f->m.params.n, sizeof *names);
    for (int i = 0; i < f->m.params.n; i++)
        if (!strncmp(f->m.params.items[i]->name, prefix, strlen(prefix))) {
            ts[n] = &f->m.params.items[i]->t;
            names[n++] = f->m.params.items[i]->name;
        }
    qkv_tape tp;
    qkv_tape_init(&tp, 0);
    tu_assert_gradcheck(&tp, fn, f, n, ts, names);
    qkv_tape_free(&tp);
    free(ts);
    free(names);
    return n;
}

#endif
