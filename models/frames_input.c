/* The frames input kind (models/kinds.h): dense token vectors (speech frames, data/frames.h;
 * batch->dense [T, d_input]) projected to d_model by one linear map, x = dense·wᵀ + b.
 * Stacking k frames into one token (a lower frame rate, as in Sak et al. 2015, "Fast and
 * accurate recurrent neural network acoustic models for speech recognition") happens when the
 * corpus is read (data.frame_stack, data/frames.h), so that the tokens the encoder, the
 * positions and the heads see, and their labels, are the stacked ones; d_input is then
 * k·n_mels. Parameters: frames.w [d_model, d_input] (Xavier uniform), frames.b [d_model] (0). */
#include <stdlib.h>

#include "lib/ops/ops.h"
#include "models/network.h"

typedef struct frames {
    int d_input;
    qkv_tensor *w, *b;
} frames;

static int create(qkv_input *in, qkv_params *ps, qkv_rng *rng, const qkv_network_config *cfg, qkv_error *err)
{
    if (cfg->d_input < 1)
        return qkv_fail(err, "frames input: d_input (the width of a frame vector) must be >= 1, got %d", cfg->d_input);
    frames *f = calloc(1, sizeof *f);
    if (!f)
        return qkv_fail(err, "frames input: out of memory");
    in->state = f;
    f->d_input = cfg->d_input;
    int d = cfg->encoder.d_model;
    f->w = qkv_params_add(ps, err, 2, (int[]){d, cfg->d_input}, "frames.w");
    f->b = f->w ? qkv_params_add(ps, err, 1, (int[]){d}, "frames.b") : NULL;
    if (!f->b)
        return QKV_ERR;
    if (rng)
        qkv_init_xavier_uniform(f->w, rng);
    qkv_init_constant(f->b, 0.0);
    qkv_params_of(ps, f->b)->no_weight_decay = true;
    return QKV_OK;
}

static qkv_tensor *forward(qkv_tape *tp, const qkv_input *in, const qkv_network_input *batch)
{
    const frames *f = in->state;
    if (!batch->dense)
        return qkv_tape_fail(tp, "frames input: the batch has no frame vectors (a frame model needs a frame corpus)");
    int T = qkv_packed_rows(batch->sentences);
    qkv_tensor *x = qkv_tape_tensor2(tp, T, f->d_input);
    if (!x)
        return NULL;
    for (size_t i = 0; i < (size_t)T * f->d_input; i++)
        x->data[i] = (qkv_real)batch->dense[i];
    return qkv_linear(tp, x, f->w, f->b);
}

static int n_tables(const qkv_input *in)
{
    (void)in;
    return 0;
}

static const qkv_tensor *table_rows(const qkv_input *in, const qkv_network_input *batch, int i, const int32_t **ids,
                                    int *n_ids)
{
    (void)in, (void)batch, (void)i;
    *ids = NULL;
    *n_ids = 0;
    return NULL;
}

static void release(qkv_input *in)
{
    free(in->state);
    in->state = NULL;
}

const qkv_input_desc qkv_frames_input = {
    .name = "frames",
    .param_prefixes = (const char *const[]){"frames.", NULL},
    .create = create,
    .forward = forward,
    .n_tables = n_tables,
    .table_rows = table_rows,
    .free = release,
};
