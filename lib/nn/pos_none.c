/* Positional kind none: PE = 0 (only the optional scaling by sqrt(d_model) applies); nothing
 * to draw. See lib/nn/positional.h. */
#include "lib/nn/positional.h"

const qkv_pos_desc qkv_pos_none = {.name = "none", .group = QKV_POS_ADDITIVE, .params = ""};
