/* Positional encodings: the table of kinds, and what all kinds share (create, apply, the
 * attention options, the pictures of the additive and the 2-D score-bias kinds). See lib/nn/positional.h; each kind
 * is in lib/nn/pos_<name>.c. */
#include "lib/nn/positional.h"

#include "lib/ops/ops.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define QKV_POS_NAME_ROW(id, name) #name,
const char *const QKV_POS_KIND_NAMES[] = {QKV_POS_KINDS(QKV_POS_NAME_ROW) NULL};
#undef QKV_POS_NAME_ROW
_Static_assert(sizeof QKV_POS_KIND_NAMES / sizeof QKV_POS_KIND_NAMES[0] == QKV_POS_COUNT + 1,
               "one name per qkv_pos_kind");

#define QKV_POS_DECLARE_ROW(id, name) extern const qkv_pos_desc qkv_pos_##name;
QKV_POS_KINDS(QKV_POS_DECLARE_ROW)
#undef QKV_POS_DECLARE_ROW
#define QKV_POS_TABLE_ROW(id, name) &qkv_pos_##name,
const qkv_pos_desc *const QKV_POS_DESCS[] = {QKV_POS_KINDS(QKV_POS_TABLE_ROW)};
#undef QKV_POS_TABLE_ROW
_Static_assert(sizeof QKV_POS_DESCS / sizeof QKV_POS_DESCS[0] == QKV_POS_COUNT, "one descriptor per qkv_pos_kind");

const char *const QKV_POS_OVERFLOW_NAMES[] = {"error", "clamp", NULL};
_Static_assert(sizeof QKV_POS_OVERFLOW_NAMES / sizeof QKV_POS_OVERFLOW_NAMES[0] == QKV_POS_OVERFLOW_COUNT + 1,
               "one name per qkv_pos_overflow");

int qkv_positional_create(qkv_positional *pos, qkv_pos_kind kind, int d_model, int max_len, bool scale_input,
                          qkv_params *ps, qkv_rng *rng, const char *prefix, qkv_error *err)
{
    return qkv_positional_create_grid(pos, kind, d_model, max_len, (qkv_grid){0, 0, 0}, scale_input, ps, rng, prefix,
                                      err);
}

int qkv_positional_create_grid(qkv_positional *pos, qkv_pos_kind kind, int d_model, int max_len, qkv_grid grid,
                               bool scale_input, qkv_params *ps, qkv_rng *rng, const char *prefix, qkv_error *err)
{
    memset(pos, 0, sizeof *pos);
    pos->grid = grid;
    if (d_model < 1)
        return qkv_fail(err, "%s: d_model %d must be positive", prefix, d_model);
    if ((unsigned)kind >= QKV_POS_COUNT)
        return qkv_fail(err, "%s: unknown positional encoding kind %d", prefix, (int)kind);
    pos->kind = kind;
    pos->d_model = d_model;
    pos->max_len = max_len;
    pos->scale_input = scale_input;
    const qkv_pos_desc *k = QKV_POS_DESCS[kind];
    if (k->needs_grid && !qkv_grid_is_2d(grid))
        return qkv_fail(err, "%s: positional kind %s needs tokens on a 2-D grid (an image input), the input is 1-D",
                        prefix, k->name);
    return k->create ? k->create(pos, ps, rng, prefix, err) : QKV_OK;
}

qkv_tensor *qkv_positional_apply(qkv_tape *tp, const qkv_positional *pos, qkv_tensor *x, qkv_packed sentences)
{
    if (tp->failed)
        return NULL;
    char sx[64];
    int D = pos->d_model;
    if (x->rank != 2 || x->shape[1] != D)
        return qkv_tape_fail(tp, "positional: x is %s, expected [T, %d]", qkv_shape_str(x, sx, sizeof sx), D);
    qkv_real scale = pos->scale_input ? (qkv_real)sqrt((double)D) : 1;
    int longest = 0;
    for (int b = 0; sentences.offsets && b < sentences.n; b++)
        if (qkv_packed_len(sentences, b) > longest)
            longest = qkv_packed_len(sentences, b);
    const qkv_pos_desc *k = QKV_POS_DESCS[pos->kind];
    qkv_tensor *pe = k->pe ? k->pe(tp, pos, longest) : NULL;
    if (tp->failed)
        return NULL;
    return qkv_add_positions(tp, x, sentences, scale, pe, pos->overflow == QKV_POS_OVERFLOW_CLAMP);
}

void qkv_positional_attention(const qkv_positional *pos, qkv_attention_opts *opts)
{
    opts->rope_base = 0;
    opts->rope_2d = false;
    opts->pos_bias = NULL;
    opts->pos_bias_clip = 0;
    const qkv_pos_desc *k = QKV_POS_DESCS[pos->kind];
    if (k->attention)
        k->attention(pos, opts);
}

double *qkv_pos_panel_alloc(qkv_pos_panel *p, int rows, int cols, const char *xlabel, const char *ylabel,
                            qkv_error *err)
{
    p->data = calloc((size_t)rows * (size_t)cols, sizeof *p->data);
    if (!p->data)
        return qkv_fail(err, "out of memory"), NULL;
    p->rows = rows;
    p->cols = cols;
    p->xlabel = xlabel;
    p->ylabel = ylabel;
    return p->data;
}

/* sim [n, n] = the cosine of rows i and j of pe [n, d] (0 when either is zero). */
static void cosines(const double *pe, int n, int d, double *sim)
{
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
}

int qkv_pos_draw_additive(const qkv_positional *pos, int n, int n_heads, qkv_pos_panel *enc, qkv_pos_panel *sim,
                          qkv_error *err)
{
    (void)n_heads;
    const qkv_pos_desc *k = QKV_POS_DESCS[pos->kind];
    int d = pos->d_model;
    qkv_tape tp;
    if (qkv_tape_init(&tp, 0) != 0)
        return qkv_fail(err, "out of memory");
    tp.no_grad = true;
    qkv_tensor *pe = k->pe(&tp, pos, n);
    double *e = NULL, *s = NULL;
    if (!pe)
        qkv_fail(err, "%s: %s", k->name, tp.failed ? tp.err.msg : "no encoding");
    else if ((e = qkv_pos_panel_alloc(enc, n, d, "dimension", "position", err)) &&
             (s = qkv_pos_panel_alloc(sim, n, n, "position j", "position i", err))) {
        int rows = pe->shape[0];
        for (int p = 0; p < n; p++)
            for (int c = 0; c < d; c++)
                e[(size_t)p * d + c] = pe->data[(size_t)(p < rows ? p : rows - 1) * d + c];
        cosines(e, n, d, s);
        snprintf(enc->title, sizeof enc->title, "%s: PE(position)", k->name);
        snprintf(sim->title, sizeof sim->title, "%s: cosine of PE(i) and PE(j)", k->name);
    }
    qkv_tape_free(&tp);
    return s ? QKV_OK : QKV_ERR;
}

int qkv_pos_draw_score_bias_grid(const qkv_attention_opts *opts, qkv_tensor *param, int n_heads, int d_head,
                                 qkv_pos_panel *heads, qkv_pos_panel *mean, qkv_error *err)
{
    (void)d_head;
    qkv_grid g = opts->grid;
    int H = n_heads, rows = g.rows, cols = g.cols, n = qkv_grid_len(g);
    int q = g.n_prefix + rows / 2 * cols + cols / 2;
    qkv_real *s = calloc((size_t)n * H, sizeof *s);
    double *a = s ? qkv_pos_panel_alloc(heads, rows, H * cols, "key column", "key row", err) : NULL;
    double *b = a ? qkv_pos_panel_alloc(mean, rows, cols, "key column", "key row", err) : NULL;
    if (!b)
    {
        bool had = s != NULL;
        free(s);
        return had ? QKV_ERR : qkv_fail(err, "out of memory");
    }
    const qkv_score_bias sb = {opts->pos_bias, param, opts->pos_bias_clip, g};
    for (int h = 0; h < H; h++)
        sb.kind->add(&sb, h, H, q, 0, n, s + (size_t)h * n);
    for (int r = 0; r < rows; r++)
        for (int c = 0; c < cols; c++) {
            int j = g.n_prefix + r * cols + c;
            double sum = 0;
            for (int h = 0; h < H; h++)
                sum += a[(size_t)r * H * cols + h * cols + c] = s[(size_t)h * n + j];
            b[(size_t)r * cols + c] = sum / H;
        }
    free(s);
    heads->blocks = H;
    snprintf(heads->title, sizeof heads->title, "score bias, heads side by side");
    snprintf(mean->title, sizeof mean->title, "mean over heads");
    return QKV_OK;
}
