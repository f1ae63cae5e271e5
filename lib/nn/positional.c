/* Positional encodings: forward and backward. See lib/nn/positional.h. */
#include "lib/nn/positional.h"

#include "lib/ops/ops.h"

#include <math.h>
#include <string.h>

const char *const QKV_POS_KIND_NAMES[] = {"none", "sinusoidal", "learned", "rope", "alibi", "floater", NULL};
_Static_assert(sizeof QKV_POS_KIND_NAMES / sizeof QKV_POS_KIND_NAMES[0] == QKV_POS_COUNT + 1,
               "one name per qkv_pos_kind");
const char *const QKV_POS_OVERFLOW_NAMES[] = {"error", "clamp", NULL};
_Static_assert(sizeof QKV_POS_OVERFLOW_NAMES / sizeof QKV_POS_OVERFLOW_NAMES[0] == QKV_POS_OVERFLOW_COUNT + 1,
               "one name per qkv_pos_overflow");

void qkv_sinusoidal(int p, int d_model, qkv_real *pe)
{
    for (int c = 0; c < d_model; c++) {
        int two_i = c - c % 2;
        double angle = (double)p / pow(10000.0, (double)two_i / (double)d_model);
        pe[c] = (qkv_real)(c % 2 == 0 ? sin(angle) : cos(angle));
    }
}

int qkv_positional_create(qkv_positional *pos, qkv_pos_kind kind, int d_model, int max_len, bool scale_input,
                          qkv_params *ps, qkv_rng *rng, const char *prefix, qkv_error *err)
{
    memset(pos, 0, sizeof *pos);
    if (d_model < 1)
        return qkv_fail(err, "%s: d_model %d must be positive", prefix, d_model);
    if ((unsigned)kind >= QKV_POS_COUNT)
        return qkv_fail(err, "%s: unknown positional encoding kind %d", prefix, (int)kind);
    pos->kind = kind;
    pos->d_model = d_model;
    pos->max_len = max_len;
    pos->scale_input = scale_input;
    if (kind == QKV_POS_LEARNED) {
        if (max_len < 1)
            return qkv_fail(err, "%s: learned positions need max_len >= 1, got %d", prefix, max_len);
        pos->table = qkv_params_add(ps, err, 2, (int[]){max_len, d_model}, "%s.table", prefix);
        if (!pos->table)
            return QKV_ERR;
        qkv_params_of(ps, pos->table)->no_weight_decay = true;
        qkv_init_normal(pos->table, rng, 0.02);
    }
    if (kind == QKV_POS_FLOATER)
        return qkv_floater_create(&pos->floater, ps, rng, prefix, d_model, err);
    return QKV_OK;
}

qkv_tensor *qkv_positional_apply(qkv_tape *tp, const qkv_positional *pos, qkv_tensor *x, qkv_segments sentences)
{
    if (tp->failed)
        return NULL;
    char sx[64];
    int D = pos->d_model;
    if (x->rank != 2 || x->shape[1] != D)
        return qkv_tape_fail(tp, "positional: x is %s, expected [T, %d]", qkv_shape_str(x, sx, sizeof sx), D);
    qkv_real scale = pos->scale_input ? (qkv_real)sqrt((double)D) : 1;
    qkv_tensor *pe = pos->kind == QKV_POS_LEARNED ? pos->table : NULL;
    int longest = 0;
    for (int b = 0; sentences.offsets && b < sentences.n; b++)
        if (qkv_segments_len(sentences, b) > longest)
            longest = qkv_segments_len(sentences, b);
    if (pos->kind == QKV_POS_FLOATER && longest > 0) /* the ODE solved up to the longest sentence */
        pe = qkv_floater_positions(tp, &pos->floater, longest);
    if (pos->kind == QKV_POS_SINUSOIDAL) { /* a constant table up to the longest sentence */
        if (longest > 0) {
            pe = qkv_tape_tensor2(tp, longest, D);
            if (!pe)
                return NULL;
            for (int p = 0; p < longest; p++)
                qkv_sinusoidal(p, D, pe->data + (size_t)p * D);
        }
    }
    return qkv_add_positions(tp, x, sentences, scale, pe, pos->overflow == QKV_POS_OVERFLOW_CLAMP);
}
