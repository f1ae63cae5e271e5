/* The conv_patches input kind (models/kinds.h): a convolutional stem under the attention blocks,
 * self-attention over a CNN's feature map as in the hybrid ViT (Dosovitskiy et al. 2021, section
 * 3.1) and in Xiao et al. 2021, "Early convolutions help transformers see better":
 *
 *   image [rows, cols, channels] -> model.stem_layers blocks of a 3 x 3 convolution (stride 1,
 *   padding 1, model.stem_channels channels), layer norm over each pixel's channels and
 *   model.activation (lib/nn/conv2d_block.h, no pooling) -> [rows, cols, c] -> the patch
 *   embedding, a p x p convolution of stride p to d_model channels (p = model.patch_size) ->
 *   (rows/p) x (cols/p) tokens [d_model], with model.cls_token the learned [CLS] vector first.
 *
 * The batch holds the image as the patches input reads it (p x p patches, data/idx.h): the stem
 * puts the pixels back in place, so the token grid, the data, the augmentation, the positions,
 * the [CLS] token and the heads are those of the patches input. With 0 stem layers the patch
 * embedding reads the image itself (the patches input's map, its weight in another layout).
 * Parameters: input.stem.<i>.conv.weight [c, c_in, 3, 3] and .conv.bias [c] (c_in the image's
 * channels for block 0, else c; U(±1/sqrt(c_in·9)) as nn.Conv2d), input.stem.<i>.ln.gain and
 * .ln.bias [c]; input.proj.w [d_model, c, p, p] (Xavier uniform over fans c·p·p and d_model) and
 * input.proj.b [d_model] (0); input.cls [d_model] (N(0, 0.02^2), not weight-decayed) with the
 * [CLS] token only. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "lib/nn/conv2d_block.h"
#include "lib/ops/ops.h"
#include "models/image_input.h"
#include "models/network.h"

enum { STEM_KERNEL = 3 };

typedef struct conv_patches {
    int p, channels, d_model, n_stem;
    qkv_grid grid; /* the tokens' grid: (rows/p) x (cols/p) after n_prefix */
    qkv_tensor *w, *b, *cls;
    qkv_conv2d_block stem[];
} conv_patches;

static int patch(const qkv_network_config *cfg) { return cfg->patch_size; }

static int check(const qkv_network_config *cfg, qkv_error *err)
{
    const int p = cfg->patch_size;
    if (p < 1 || cfg->d_input < 1 || cfg->d_input % (p * p))
        return qkv_fail(err, "conv_patches input: token vectors of width %d are not patches of %d x %d pixels (no "
                        "image data?)", cfg->d_input, p, p);
    if (qkv_image_grid_check("conv_patches", cfg, err))
        return QKV_ERR;
    if (cfg->stem_layers < 0 || cfg->stem_layers > QKV_NETWORK_MAX_LAYERS || (cfg->stem_layers && cfg->stem_channels < 1))
        return qkv_fail(err, "conv_patches input: %d stem layers of %d channels (model.stem_layers 0..%d, "
                        "model.stem_channels >= 1)", cfg->stem_layers, cfg->stem_channels, QKV_NETWORK_MAX_LAYERS);
    return QKV_OK;
}

static int create(qkv_input *in, qkv_params *ps, qkv_rng *rng, const qkv_network_config *cfg, qkv_error *err)
{
    if (check(cfg, err))
        return QKV_ERR;
    conv_patches *m = calloc(1, sizeof *m + (size_t)cfg->stem_layers * sizeof m->stem[0]);
    if (!m)
        return qkv_fail(err, "conv_patches input: out of memory");
    in->state = m;
    *m = (conv_patches){.p = cfg->patch_size, .channels = cfg->d_input / (cfg->patch_size * cfg->patch_size),
                        .d_model = cfg->encoder.d_model, .grid = cfg->grid};
    int c = m->channels;
    for (int i = 0; i < cfg->stem_layers; i++) {
        char prefix[64];
        snprintf(prefix, sizeof prefix, "input.stem.%d", i);
        if (qkv_conv2d_block_create(&m->stem[i], ps, rng, prefix, c, cfg->stem_channels, STEM_KERNEL,
                                    QKV_CNN2D_POOL_NONE, cfg->encoder.activation, cfg->encoder.ln_eps, err))
            return QKV_ERR;
        m->n_stem = i + 1;
        c = cfg->stem_channels;
    }
    m->w = qkv_params_add(ps, err, 4, (int[]){m->d_model, c, m->p, m->p}, "input.proj.w");
    m->b = m->w ? qkv_params_add(ps, err, 1, (int[]){m->d_model}, "input.proj.b") : NULL;
    if (!m->b)
        return QKV_ERR;
    qkv_init_uniform(m->w, rng, sqrt(6.0 / ((double)c * m->p * m->p + m->d_model)));
    return qkv_image_cls_create(ps, rng, cfg, &m->cls, err);
}

/* The n images of the batch's patches as pixels [n·rows·cols, channels] (lib/ops/conv2d.c's
 * layout): value (py·p + px)·channels + ch of the patch at grid (gy, gx) is pixel (gy·p + py,
 * gx·p + px). The prefix tokens' rows are skipped. */
static qkv_tensor *image_pixels(qkv_tape *tp, const conv_patches *m, const qkv_network_input *batch)
{
    const int n = batch->sentences.n, p = m->p, ch = m->channels, gc = m->grid.cols;
    const int rows = m->grid.rows * p, cols = gc * p, width = p * p * ch;
    qkv_tensor *x = qkv_tape_tensor2(tp, n * rows * cols, ch);
    if (!x)
        return NULL;
    for (int b = 0; b < n; b++)
        for (int y = 0; y < rows; y++)
            for (int xx = 0; xx < cols; xx++) {
                int token = batch->sentences.offsets[b] + m->grid.n_prefix + (y / p) * gc + xx / p;
                const float *src = batch->dense + (size_t)token * width + ((y % p) * p + xx % p) * ch;
                qkv_real *dst = x->data + (((size_t)b * rows + y) * cols + xx) * ch;
                for (int k = 0; k < ch; k++)
                    dst[k] = (qkv_real)src[k];
            }
    return x;
}

static qkv_tensor *forward(qkv_tape *tp, const qkv_input *in, const qkv_network_input *batch)
{
    const conv_patches *m = in->state;
    if (tp->failed)
        return NULL;
    const int n = batch->sentences.n;
    if (qkv_image_check_batch(tp, "conv_patches", batch, qkv_grid_len(m->grid)))
        return NULL;
    qkv_grid g = {m->grid.rows * m->p, m->grid.cols * m->p, 0};
    qkv_tensor *x = image_pixels(tp, m, batch);
    for (int i = 0; x && i < m->n_stem; i++)
        x = qkv_conv2d_block_forward(tp, &m->stem[i], x, n, &g);
    qkv_tensor *y = x ? qkv_conv2d(tp, x, m->w, m->b, n, g, m->p, 0, NULL) : NULL;
    return qkv_image_place_cls(tp, "conv_patches", m->cls, y, batch->sentences, false);
}

static int n_tables(const qkv_input *in)
{
    (void)in;
    return 0;
}

static void release(qkv_input *in)
{
    free(in->state);
    in->state = NULL;
}

const qkv_input_desc qkv_conv_patches_input = {
    .name = "conv_patches",
    .param_prefixes = (const char *const[]){"input.", NULL},
    .patch = patch,
    .create = create,
    .forward = forward,
    .n_tables = n_tables,
    .free = release,
};
