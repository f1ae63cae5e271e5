/* The projection of dense token vectors and the [CLS] token of the image inputs
 * (models/image_input.h). */
#include "models/image_input.h"

#include <stdbool.h>
#include <stdlib.h>

#include "lib/ops/concat.h"
#include "lib/ops/ops.h"
#include "models/network.h"

typedef struct image_input {
    int d_input, d_model;
    qkv_grid grid;
    qkv_tensor *w, *b, *cls;
} image_input;

int qkv_image_grid_check(const char *kind, const qkv_network_config *cfg, qkv_error *err)
{
    if (!qkv_grid_is_2d(cfg->grid) || cfg->grid.n_prefix < 0 || cfg->grid.n_prefix > 1)
        return qkv_fail(err, "%s input: a grid of %d x %d tokens after %d: expected a 2-D grid after 0 or 1", kind,
                        cfg->grid.rows, cfg->grid.cols, cfg->grid.n_prefix);
    return QKV_OK;
}

int qkv_image_cls_create(qkv_params *ps, qkv_rng *rng, const qkv_network_config *cfg, qkv_tensor **cls,
                         qkv_error *err)
{
    *cls = NULL;
    if (cfg->grid.n_prefix != 1)
        return QKV_OK;
    if (!(*cls = qkv_params_add(ps, err, 1, (int[]){cfg->encoder.d_model}, "input.cls")))
        return QKV_ERR;
    qkv_init_normal(*cls, rng, 0.02);
    qkv_params_of(ps, *cls)->no_weight_decay = true;
    return QKV_OK;
}

int qkv_image_check_batch(qkv_tape *tp, const char *kind, const qkv_network_input *batch, int len)
{
    if (!batch->dense) {
        qkv_tape_fail(tp, "%s input: the batch has no token vectors (the model reads images)", kind);
        return QKV_ERR;
    }
    for (int s = 0; s < batch->sentences.n; s++)
        if (qkv_packed_len(batch->sentences, s) != len) {
            qkv_tape_fail(tp, "%s input: a sequence of %d tokens, the model's images have %d", kind,
                          qkv_packed_len(batch->sentences, s), len);
            return QKV_ERR;
        }
    return QKV_OK;
}

qkv_tensor *qkv_image_place_cls(qkv_tape *tp, const char *kind, qkv_tensor *cls, qkv_tensor *y, qkv_packed sentences,
                                bool y_has_prefix)
{
    if (!cls || !y)
        return y;
    const int T = qkv_packed_rows(sentences);
    int32_t *ids = qkv_tape_alloc(tp, (size_t)T * sizeof *ids);
    if (!ids)
        return qkv_tape_fail(tp, "%s input: out of memory", kind);
    for (int s = 0, next = 1; s < sentences.n; s++) {
        int at = sentences.offsets[s], len = qkv_packed_len(sentences, s);
        ids[at] = 0;
        if (y_has_prefix) /* y's row t is token t: the [CLS] token's row unused */
            next = at + 2;
        for (int j = 1; j < len; j++)
            ids[at + j] = next++;
    }
    qkv_tensor *rows = qkv_concat_rows(tp, 2, (qkv_tensor *const[]){cls, y});
    return rows ? qkv_embedding(tp, rows, ids, T) : NULL;
}

int qkv_image_input_create(qkv_input *in, qkv_params *ps, qkv_rng *rng, const qkv_network_config *cfg,
                           qkv_error *err)
{
    if (cfg->d_input < 1)
        return qkv_fail(err, "%s input: token vectors of width %d (no image data?)", in->desc->name, cfg->d_input);
    if (qkv_image_grid_check(in->desc->name, cfg, err))
        return QKV_ERR;
    image_input *m = calloc(1, sizeof *m);
    if (!m)
        return qkv_fail(err, "%s input: out of memory", in->desc->name);
    in->state = m;
    m->d_input = cfg->d_input;
    m->d_model = cfg->encoder.d_model;
    m->grid = cfg->grid;
    m->w = qkv_params_add(ps, err, 2, (int[]){m->d_model, m->d_input}, "input.proj.w");
    m->b = m->w ? qkv_params_add(ps, err, 1, (int[]){m->d_model}, "input.proj.b") : NULL;
    if (!m->b)
        return QKV_ERR;
    qkv_init_xavier_uniform(m->w, rng);
    return qkv_image_cls_create(ps, rng, cfg, &m->cls, err);
}

/* With a [CLS] token: rows of [cls; projected tokens] picked so that each sequence's first
 * token is cls (id 0) and every other token t its projection (id t + 1). */
qkv_tensor *qkv_image_input_forward(qkv_tape *tp, const qkv_input *in, const qkv_network_input *batch)
{
    const image_input *m = in->state;
    if (tp->failed || qkv_image_check_batch(tp, in->desc->name, batch, qkv_grid_len(m->grid)))
        return NULL;
    int T = qkv_packed_rows(batch->sentences);
    qkv_tensor *x = qkv_tape_tensor2(tp, T, m->d_input);
    if (!x)
        return NULL;
    for (size_t i = 0; i < (size_t)T * (size_t)m->d_input; i++)
        x->data[i] = (qkv_real)batch->dense[i];
    qkv_tensor *y = qkv_linear(tp, x, m->w, m->b);
    return qkv_image_place_cls(tp, in->desc->name, m->cls, y, batch->sentences, true);
}

int qkv_image_input_n_tables(const qkv_input *in)
{
    (void)in;
    return 0;
}

void qkv_image_input_free(qkv_input *in)
{
    free(in->state);
    in->state = NULL;
}
