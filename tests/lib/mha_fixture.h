/* A multi-head attention layer over a packed batch of random inputs, shared by the attention
 * tests (test_attention.c, test_rope_alibi.c). Include after testutil.h. */
#ifndef QKV_TEST_MHA_FIXTURE_H
#define QKV_TEST_MHA_FIXTURE_H

#include "lib/nn/mha.h"

typedef struct {
    qkv_mha m;
    qkv_tensor *x;            /* [T, d_model] */
    int32_t off[8];           /* sentence offsets, n_sentences + 1 of them */
    int n_sentences;
    qkv_attention_weights keep; /* for the tests that keep the attention weights */
} mha_fixture;

/* Builds the layer's parameters (N(0, 0.5^2), so that softmax is not saturated) and
 * x ~ N(0, 1) for sentences of lens[0..n_sentences-1] words. */
static inline void mha_fixture_setup(mha_fixture *f, qkv_params *ps, uint64_t seed, int d_model, const int *lens,
                                     int n_sentences, const qkv_attention_opts *opts, bool bias)
{
    memset(f, 0, sizeof *f);
    qkv_rng rng;
    qkv_rng_seed(&rng, seed);
    qkv_error err;
    if (qkv_mha_create(&f->m, ps, &rng, "attn", d_model, opts, bias, &err) != QKV_OK)
        fail_msg("%s", err.msg);
    for (int i = 0; i < ps->n; i++)
        qkv_init_normal(&ps->items[i]->t, &rng, 0.5);
    f->n_sentences = n_sentences;
    for (int b = 0; b < n_sentences; b++)
        f->off[b + 1] = f->off[b] + lens[b];
    f->x = tu_param(ps, &rng, "x", 2, (int[]){f->off[n_sentences], d_model});
}

#endif
