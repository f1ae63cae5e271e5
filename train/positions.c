/* The matrices of `qkv positions`. See train/positions.h. */
#include "train/positions.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/ops/alibi.h"

static double *panel(qkv_position_pictures *pp, int rows, int cols, const char *xl, const char *yl, qkv_error *err)
{
    qkv_position_panel *p = &pp->panels[pp->n_panels];
    p->data = calloc((size_t)rows * (size_t)cols, sizeof *p->data);
    if (!p->data)
        return qkv_fail(err, "out of memory"), NULL;
    p->rows = rows;
    p->cols = cols;
    p->xlabel = xl;
    p->ylabel = yl;
    pp->n_panels++;
    return p->data;
}

/* PE [n, d] of the additive kinds; NULL after an error. */
static double *additive(const qkv_tagger *m, int n, qkv_error *err)
{
    const qkv_positional *pos = &m->pos;
    int d = pos->d_model;
    double *pe = calloc((size_t)n * (size_t)d, sizeof *pe);
    qkv_real *row = malloc((size_t)d * sizeof *row);
    if (!pe || !row) {
        free(pe);
        free(row);
        return qkv_fail(err, "out of memory"), NULL;
    }
    if (pos->kind == QKV_POS_FLOATER) {
        qkv_tape tp;
        if (qkv_tape_init(&tp, 0) != 0) {
            free(pe);
            free(row);
            return qkv_fail(err, "out of memory"), NULL;
        }
        tp.no_grad = true;
        qkv_tensor *y = qkv_floater_positions(&tp, &pos->floater, n);
        if (!y)
            qkv_fail(err, "floater: %s", tp.err.msg);
        for (size_t k = 0; y && k < (size_t)n * d; k++)
            pe[k] = y->data[k];
        qkv_tape_free(&tp);
        if (!y) {
            free(pe);
            pe = NULL;
        }
    } else
        for (int p = 0; p < n; p++) {
            if (pos->kind == QKV_POS_SINUSOIDAL)
                qkv_sinusoidal(p, d, row);
            else /* learned; clamped past the table */
                memcpy(row, pos->table->data + (size_t)(p < pos->max_len ? p : pos->max_len - 1) * d,
                       (size_t)d * sizeof *row);
            for (int c = 0; c < d; c++)
                pe[(size_t)p * d + c] = row[c];
        }
    free(row);
    return pe;
}

int qkv_position_pictures_make(const qkv_tagger *m, int n, qkv_position_pictures *pp, qkv_error *err)
{
    memset(pp, 0, sizeof *pp);
    const qkv_tagger_config *cfg = &m->cfg;
    qkv_pos_kind kind = m->pos.kind;
    int d = cfg->encoder.d_model, H = cfg->encoder.attn.n_heads, dh = d / H;
    int R = cfg->n_layers > 0 ? cfg->encoder.attn.rel_clip : 0;
    if (kind == QKV_POS_NONE && R == 0)
        return qkv_fail(err, "the model has no positional encoding (model.positional: none, no model.attn_rel_clip): "
                        "nothing to draw");
    if (kind == QKV_POS_LEARNED && m->pos.overflow != QKV_POS_OVERFLOW_CLAMP && n > m->pos.max_len)
        n = m->pos.max_len;
    const char *name = QKV_POS_KIND_NAMES[kind];
    if (kind == QKV_POS_SINUSOIDAL || kind == QKV_POS_LEARNED || kind == QKV_POS_FLOATER) {
        double *pe = additive(m, n, err), *enc, *sim;
        if (!pe)
            return QKV_ERR;
        if (!(enc = panel(pp, n, d, "dimension", "position", err)) ||
            !(sim = panel(pp, n, n, "position j", "position i", err))) {
            free(pe);
            return QKV_ERR;
        }
        memcpy(enc, pe, (size_t)n * d * sizeof *pe);
        for (int i = 0; i < n; i++)
            for (int j = 0; j < n; j++) {
                double dot = 0, ni = 0, nj = 0;
                for (int c = 0; c < d; c++) {
                    dot += pe[(size_t)i * d + c] * pe[(size_t)j * d + c];
                    ni += pe[(size_t)i * d + c] * pe[(size_t)i * d + c];
                    nj += pe[(size_t)j * d + c] * pe[(size_t)j * d + c];
                }
                sim[(size_t)i * n + j] = ni > 0 && nj > 0 ? dot / sqrt(ni * nj) : 0;
            }
        free(pe);
        snprintf(pp->panels[0].title, sizeof pp->panels[0].title, "%s: PE(position)", name);
        snprintf(pp->panels[1].title, sizeof pp->panels[1].title, "%s: cosine of PE(i) and PE(j)", name);
    } else if (kind == QKV_POS_ROPE) {
        double base = cfg->rope_base;
        double *enc = panel(pp, n, dh / 2, "pair i", "position p", err);
        double *sim = enc ? panel(pp, n, n, "key position j", "query position i", err) : NULL;
        if (!sim)
            return QKV_ERR;
        for (int p = 0; p < n; p++)
            for (int i = 0; i < dh / 2; i++)
                enc[(size_t)p * (dh / 2) + i] = cos(p * pow(base, -2.0 * i / dh));
        for (int a = 0; a < n; a++)
            for (int b = 0; b < n; b++) {
                double s = 0;
                for (int i = 0; i < dh / 2; i++)
                    s += cos((b - a) * pow(base, -2.0 * i / dh));
                sim[(size_t)a * n + b] = s / (dh / 2);
            }
        snprintf(pp->panels[0].title, sizeof pp->panels[0].title, "rope: cos(p θ_i), base %g", base);
        snprintf(pp->panels[1].title, sizeof pp->panels[1].title, "rope: mean over pairs of cos((j - i) θ_i)");
    } else if (kind == QKV_POS_ALIBI) {
        double *enc = panel(pp, n, H, "head h", "distance p", err);
        double *sim = enc ? panel(pp, n, n, "key position j", "query position i", err) : NULL;
        if (!sim)
            return QKV_ERR;
        for (int p = 0; p < n; p++)
            for (int h = 0; h < H; h++)
                enc[(size_t)p * H + h] = -qkv_alibi_slope(h, H) * p;
        for (int i = 0; i < n; i++)
            for (int j = 0; j < n; j++) {
                double s = 0;
                for (int h = 0; h < H; h++)
                    s -= qkv_alibi_slope(h, H) * abs(i - j);
                sim[(size_t)i * n + j] = s / H;
            }
        snprintf(pp->panels[0].title, sizeof pp->panels[0].title, "alibi: score bias -m_h p");
        snprintf(pp->panels[1].title, sizeof pp->panels[1].title, "alibi: score bias, mean over heads");
    }
    if (R > 0) {
        const qkv_real *rb = qkv_tagger_block(m, 0)->attn.rel_bias->data;
        double *rel = panel(pp, n, n, "key position j", "query position i", err);
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
        snprintf(pp->panels[pp->n_panels - 1].title, sizeof pp->panels[0].title,
                 "relative biases (layer 0, mean over heads, clip %d)", R);
    }
    return QKV_OK;
}

void qkv_position_pictures_free(qkv_position_pictures *pp)
{
    for (int k = 0; k < pp->n_panels; k++)
        free(pp->panels[k].data);
    memset(pp, 0, sizeof *pp);
}
