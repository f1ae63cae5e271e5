/* Score modifiers of attention (lib/ops/attention.h): a bias b(h, i, j) added to the scaled
 * score of query i and key j in head h, before normalization, computed in the kernel (no n×n
 * tensor). A kind is a descriptor: how to add its bias to a row of scores, how its learned
 * values (if any) receive the row's score gradient, and what it requires of the layer. Each kind
 * is its own file (e.g. the relative position biases, lib/ops/rel_bias.h); a new kind is a new
 * file with its descriptor, and attention.c does not change. */
#ifndef QKV_SCORE_BIAS_H
#define QKV_SCORE_BIAS_H

#include <stdbool.h>
#include <stddef.h>

#include "lib/grid.h"
#include "lib/rng.h"
#include "lib/tensor.h"

/* At most this many score biases in one attention call. */
#define QKV_ATTN_MAX_BIASES 4

typedef struct qkv_score_bias qkv_score_bias;

typedef struct qkv_score_bias_kind {
    const char *name;
    /* 0 when b fits a layer of n_heads heads (softmax: whether scores are softmax-normalized);
     * else nonzero with the reason in msg [len] (attention prefixes "attention: "). */
    int (*check)(const qkv_score_bias *b, int n_heads, bool softmax, char *msg, size_t len);
    /* s[j − a] += b(h, i, j) for keys j = a .. e − 1 of query i (positions in the sentence). */
    void (*add)(const qkv_score_bias *b, int h, int n_heads, int i, int a, int e, qkv_real *s);
    /* g [param->size / n_heads], head h's part of the gradient of b->param: adds the score
     * gradient ds[j − a] of keys j = a .. e − 1 of query i. NULL for a constant bias. */
    void (*backward)(const qkv_score_bias *b, int h, int i, int a, int e, const qkv_real *ds, qkv_real *g);
    /* Learned kinds that a layer owns (lib/nn/mha.h creates them when the kind is the layer's
     * opts.pos_bias): the values per head for clip (NULL: none, the kind is constant or its
     * values come from elsewhere), the parameter's name after the layer's prefix, and its
     * initialization of param [n_heads, n_learned(clip)] (NULL: zeros). */
    int (*n_learned)(int clip);
    const char *param_name;
    void (*init)(qkv_tensor *param, int clip, qkv_rng *rng);
} qkv_score_bias_kind;

/* One score bias of an attention call. */
struct qkv_score_bias {
    const qkv_score_bias_kind *kind;
    qkv_tensor *param; /* learned values [n_heads, ...] (gradient through kind->backward), or NULL */
    int clip;          /* the kind's integer parameter (relative biases: the clip R) */
    qkv_grid grid;     /* the 2-D layout of every sentence, for the 2-D kinds (lib/grid.h); the
                          1-D kinds ignore it */
};

#endif
