/* The pixels input kind (models/kinds.h): each pixel of an image is a token, its channels the
 * token's vector, projected to d_model (models/image_input.h). An image of rows x cols pixels is
 * a grid of rows x cols tokens. */
#include "models/image_input.h"
#include "models/network.h"

static int patch(const qkv_network_config *cfg)
{
    (void)cfg;
    return 1;
}

const qkv_input_desc qkv_pixels_input = {
    .name = "pixels",
    .param_prefixes = (const char *const[]){"input.", NULL},
    .patch = patch,
    .create = qkv_image_input_create,
    .forward = qkv_image_input_forward,
    .n_tables = qkv_image_input_n_tables,
    .free = qkv_image_input_free,
};
