/* The matrices of `qkv positions`: each kind draws its own (lib/nn/positional.h), then the
 * relative biases. See train/positions.h. */
#include "train/positions.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Layer 0's relative biases r_h(clip(j − i, −R, R)), mean over heads, as the next panel. */
static int relative_panel(const qkv_network *m, int n, int H, int R, qkv_position_pictures *pp, qkv_error *err)
{
    const qkv_real *rb = qkv_network_block(m, 0)->attn.rel_bias->data;
    qkv_position_panel *p = &pp->panels[pp->n_panels++];
    double *rel = qkv_pos_panel_alloc(p, n, n, "key position j", "query position i", err);
    if (!rel)
        return QKV_ERR;
    for (int i = 0; i < n; i++)
        for (int j = 0; j < n; j++) {
            int o = j - i < -R ? -R : (j - i > R ? R : j - i);
            double s = 0;
            for (int h = 0; h < H; h++)
                s += rb[(size_t)h * (2 * R + 1) + o + R];
            rel[(size_t)i * n + j] = s / H;
        }
    snprintf(p->title, sizeof p->title, "relative biases (layer 0, mean over heads, clip %d)", R);
    return QKV_OK;
}

/* The 2-D kinds that act in attention: what layer 0 gives the keys of the grid's centre query,
 * on the grid, as the kind draws it (its draw_grid): panel 0 each head's map side by side (or
 * one), panel 1 their mean. */
static int grid_panels(const qkv_network *m, int H, qkv_position_pictures *pp, qkv_error *err)
{
    const qkv_pos_desc *kind = QKV_POS_DESCS[m->pos.kind];
    const qkv_attention_opts *o = &qkv_network_block(m, 0)->attn.opts;
    qkv_position_panel *heads = &pp->panels[pp->n_panels++], *mean = &pp->panels[pp->n_panels++];
    if (kind->draw_grid(o, qkv_network_block(m, 0)->attn.pos_param, H, m->cfg.encoder.d_model / H, heads, mean, err))
        return QKV_ERR;
    char what[64];
    snprintf(what, sizeof what, "%s", heads->title);
    snprintf(heads->title, sizeof heads->title, "%s: layer 0, query at row %d, column %d: %s", kind->name,
             o->grid.rows / 2, o->grid.cols / 2, what);
    snprintf(what, sizeof what, "%s", mean->title);
    snprintf(mean->title, sizeof mean->title, "%s: %s", kind->name, what);
    return QKV_OK;
}

int qkv_position_pictures_make(const qkv_network *m, int n, qkv_position_pictures *pp, qkv_error *err)
{
    memset(pp, 0, sizeof *pp);
    const qkv_network_config *cfg = &m->cfg;
    const qkv_pos_desc *kind = QKV_POS_DESCS[m->pos.kind];
    int H = cfg->encoder.attn.n_heads;
    int R = cfg->n_layers > 0 ? cfg->encoder.attn.rel_clip : 0;
    if (kind->draw_grid && cfg->n_layers > 0 && qkv_network_block(m, 0))
        return grid_panels(m, H, pp, err);
    if (!kind->draw && R == 0)
        return qkv_fail(err, "the model has no positional encoding (model.positional: %s, no model.attn_rel_clip): "
                        "nothing to draw", kind->name);
    if (kind->drawable)
        n = kind->drawable(&m->pos, n);
    if (kind->draw) {
        pp->n_panels = 2;
        if (kind->draw(&m->pos, n, H, &pp->panels[0], &pp->panels[1], err))
            return QKV_ERR;
    }
    return R > 0 ? relative_panel(m, n, H, R, pp, err) : QKV_OK;
}

void qkv_position_pictures_free(qkv_position_pictures *pp)
{
    for (int k = 0; k < pp->n_panels; k++)
        free(pp->panels[k].data);
    memset(pp, 0, sizeof *pp);
}
