/* The matrices of `qkv positions`: each kind draws its own (lib/nn/positional.h), then the
 * relative biases. See train/positions.h. */
#include "train/positions.h"

#include "lib/ops/rope.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Layer 0's relative biases r_h(clip(j − i, −R, R)), mean over heads, as the next panel. */
static int relative_panel(const qkv_tagger *m, int n, int H, int R, qkv_position_pictures *pp, qkv_error *err)
{
    const qkv_real *rb = qkv_tagger_block(m, 0)->attn.rel_bias->data;
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

/* The 2-D kinds: what layer 0 gives the keys of the grid's centre query, on the grid. A score
 * bias: panel 0 each head's bias [rows, H · cols] side by side, panel 1 their mean [rows, cols];
 * the rotation: mean over pairs of cos(θ(key) − θ(query)), the factor on q·k of equal content. */
static int grid_panels(const qkv_tagger *m, int H, qkv_position_pictures *pp, qkv_error *err)
{
    const qkv_attention_opts *o = &qkv_tagger_block(m, 0)->attn.opts;
    qkv_grid g = o->grid;
    int rows = g.rows, cols = g.cols, n = qkv_grid_len(g), qr = rows / 2, qc = cols / 2;
    int q = g.n_prefix + qr * cols + qc, rotation = o->pos_bias == NULL, dh = m->cfg.encoder.d_model / H;
    qkv_real *s = calloc((size_t)n * H, sizeof *s);
    double theta[dh / 4 + 1];
    qkv_position_panel *heads = &pp->panels[pp->n_panels++], *mean = &pp->panels[pp->n_panels++];
    double *a = s ? qkv_pos_panel_alloc(heads, rows, rotation ? cols : H * cols, "key column", "key row", err) : NULL;
    double *b = a ? qkv_pos_panel_alloc(mean, rows, cols, "key column", "key row", err) : NULL;
    if (!b)
        return free(s), s ? QKV_ERR : qkv_fail(err, "out of memory");
    qkv_rope_angles(dh / 2, o->rope_base > 0 ? o->rope_base : 1, theta);
    const qkv_score_bias sb = {o->pos_bias, qkv_tagger_block(m, 0)->attn.pos_param, o->pos_bias_clip, g};
    for (int h = 0; !rotation && h < H; h++)
        sb.kind->add(&sb, h, H, q, 0, n, s + (size_t)h * n);
    for (int r = 0; r < rows; r++)
        for (int c = 0; c < cols; c++) {
            int j = g.n_prefix + r * cols + c;
            double sum = 0;
            for (int h = 0; !rotation && h < H; h++)
                sum += a[(size_t)r * H * cols + h * cols + c] = s[(size_t)h * n + j];
            for (int i = 0; rotation && i < dh / 4; i++)
                sum += cos((r - qr) * theta[i]) + cos((c - qc) * theta[i]);
            b[(size_t)r * cols + c] = rotation ? sum / (dh / 2) : sum / H;
            if (rotation)
                a[(size_t)r * cols + c] = b[(size_t)r * cols + c];
        }
    free(s);
    heads->blocks = rotation ? 0 : H;
    const char *name = qkv_pos_kinds[m->pos.kind]->name;
    snprintf(heads->title, sizeof heads->title, "%s: layer 0, query at row %d, column %d: %s", name, qr, qc,
             rotation ? "mean over pairs of cos(angle difference)" : "score bias, heads side by side");
    snprintf(mean->title, sizeof mean->title, "%s: %s", name, rotation ? "the same" : "mean over heads");
    return QKV_OK;
}

int qkv_position_pictures_make(const qkv_tagger *m, int n, qkv_position_pictures *pp, qkv_error *err)
{
    memset(pp, 0, sizeof *pp);
    const qkv_tagger_config *cfg = &m->cfg;
    const qkv_pos_kind_desc *kind = qkv_pos_kinds[m->pos.kind];
    int H = cfg->encoder.attn.n_heads;
    int R = cfg->n_layers > 0 ? cfg->encoder.attn.rel_clip : 0;
    if (kind->needs_grid && cfg->n_layers > 0 && qkv_tagger_block(m, 0))
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
