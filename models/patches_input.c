/* The patches input kind (models/kinds.h): an image cut into model.patch_size x patch_size
 * squares, each flattened (its pixels row-major, channels innermost) and projected to d_model,
 * as ViT does (Dosovitskiy et al. 2021, section 3.1; models/image_input.h). An image of rows x
 * cols pixels is a grid of rows/p x cols/p tokens. */
#include "models/image_input.h"
#include "models/network.h"

static int patch(const qkv_network_config *cfg) { return cfg->patch_size; }

const qkv_input_desc qkv_patches_input = {
    .name = "patches",
    .param_prefixes = (const char *const[]){"input.", NULL},
    .patch = patch,
    .create = qkv_image_input_create,
    .forward = qkv_image_input_forward,
    .n_tables = qkv_image_input_n_tables,
    .free = qkv_image_input_free,
};
