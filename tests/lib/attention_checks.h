/* The attention tests' shared checks (test_attention.c, test_attention_batched.c): the layer as
 * a function of the tape, a plain dense reference written from the formulas, the output
 * against it and the gradients by finite differences. Include after testutil.h (with
 * QKV_TESTUTIL_AUTOGRAD) and mha_fixture.h, with `typedef mha_fixture fixture;`. */
#ifndef QKV_TEST_ATTENTION_CHECKS_H
#define QKV_TEST_ATTENTION_CHECKS_H

#include <math.h>
#include <stdlib.h>

static inline qkv_tensor *mha_fn(qkv_tape *tp, void *user)
{
    fixture *f = user;
    return qkv_mha_forward(tp, &f->m, f->x, (qkv_packed){f->n_sentences, f->off}, &f->keep);
}

/* Reference: dense per sentence and head, straight from the formulas in lib/ops/attention.h. */
static inline void reference(const fixture *f, double *y)
{
    const qkv_mha *m = &f->m;
    int D = f->x->shape[1], T = f->x->shape[0], H = m->opts.n_heads, dh = D / H;
    double scale = m->opts.scale != 0 ? m->opts.scale : 1 / sqrt(dh);
    double *q = calloc((size_t)T * D, sizeof *q), *k = calloc((size_t)T * D, sizeof *k);
    double *v = calloc((size_t)T * D, sizeof *v), *o = calloc((size_t)T * D, sizeof *o);
    qkv_tensor *ws[3] = {m->w_q, m->w_k, m->w_v}, *bs[3] = {m->b_q, m->b_k, m->b_v};
    double *dst[3] = {q, k, v};
    for (int c = 0; c < 3; c++)
        for (int t = 0; t < T; t++)
            for (int i = 0; i < D; i++) {
                double s = bs[c] ? bs[c]->data[i] : 0;
                for (int j = 0; j < D; j++)
                    s += f->x->data[t * D + j] * ws[c]->data[i * D + j];
                dst[c][t * D + i] = s;
            }
    for (int b = 0; b < f->n_sentences; b++) {
        int base = f->off[b], n = f->off[b + 1] - base;
        for (int h = 0; h < H; h++)
            for (int i = 0; i < n; i++) {
                double p[16], mx = -INFINITY, sum = 0;
                int visible = 0;
                bool vis[16];
                for (int j = 0; j < n; j++) {
                    vis[j] = (m->opts.window == 0 || abs(i - j) <= m->opts.window) && (!m->opts.causal || j <= i);
                    double s = 0;
                    for (int c = 0; c < dh; c++)
                        s += q[(base + i) * D + h * dh + c] * k[(base + j) * D + h * dh + c];
                    p[j] = s * scale;
                    if (m->rel_bias) { /* r_h(clip(j - i, -R, R)) */
                        int R = m->opts.rel_clip, d = j - i < -R ? -R : (j - i > R ? R : j - i);
                        p[j] += m->rel_bias->data[h * (2 * R + 1) + d + R];
                    }
                    if (vis[j]) {
                        visible++;
                        mx = fmax(mx, p[j]);
                    }
                }
                for (int j = 0; j < n; j++) {
                    if (!vis[j])
                        p[j] = 0;
                    else if (m->opts.normalize == QKV_ATTN_RELU)
                        p[j] = fmax(p[j], 0) / visible;
                    else
                        sum += (p[j] = exp(p[j] - mx));
                }
                if (m->opts.normalize == QKV_ATTN_SOFTMAX)
                    for (int j = 0; j < n; j++)
                        p[j] /= sum;
                for (int c = 0; c < dh; c++) {
                    double s = 0;
                    for (int j = 0; j < n; j++)
                        s += p[j] * v[(base + j) * D + h * dh + c];
                    o[(base + i) * D + h * dh + c] = s;
                }
            }
    }
    for (int t = 0; t < T; t++)
        for (int i = 0; i < D; i++) {
            double s = m->b_o ? m->b_o->data[i] : 0;
            for (int j = 0; j < D; j++)
                s += o[t * D + j] * m->w_o->data[i * D + j];
            y[t * D + i] = s;
        }
    free(q);
    free(k);
    free(v);
    free(o);
}

/* The layer's output against the reference, for the sentences of bt (count, lengths). */
static inline void check_forward(uint64_t seed, const int *bt, const qkv_attention_opts *opts, bool bias)
{
    qkv_params ps;
    qkv_params_init(&ps);
    fixture f;
    mha_fixture_setup(&f, &ps, seed, 8, bt + 1, bt[0], opts, bias);
    qkv_tape tp;
    qkv_tape_init(&tp, 0);
    qkv_tensor *y = mha_fn(&tp, &f);
    assert_non_null(y);
    double *ref = malloc(y->size * sizeof *ref);
    reference(&f, ref);
    for (size_t i = 0; i < y->size; i++)
        tu_assert_close(y->data[i], ref[i], 1e-12);
    free(ref);
    qkv_tape_free(&tp);
    qkv_params_free(&ps);
}

static inline void check_gradients(uint64_t seed, int d_model, const int *bt, const qkv_attention_opts *opts, bool bias,
                            qkv_rng *tape_rng)
{
    qkv_params ps;
    qkv_params_init(&ps);
    fixture f;
    mha_fixture_setup(&f, &ps, seed, d_model, bt + 1, bt[0], opts, bias);
    qkv_tape tp;
    qkv_tape_init(&tp, 0);
    tp.rng = tape_rng;
    qkv_tensor *ts[10] = {f.x, f.m.w_q, f.m.w_k, f.m.w_v, f.m.w_o, f.m.b_q, f.m.b_k, f.m.b_v, f.m.b_o};
    const char *names[10] = {"x", "w_q", "w_k", "w_v", "w_o", "b_q", "b_k", "b_v", "b_o"};
    int n = bias ? 9 : 5;
    if (f.m.rel_bias) {
        ts[n] = f.m.rel_bias;
        names[n++] = "rel_bias";
    }
    int status = tu_gradcheck_status(&tp, mha_fn, &f, n, ts, names, seed);
    if (status != 0)
        fail_msg("gradcheck failed: seed %llu heads %d window %d causal %d relu %d bias %d dropout %g rel_clip %d",
                 (unsigned long long)seed, opts->n_heads, opts->window, opts->causal, opts->normalize, bias,
                 opts->dropout, opts->rel_clip);
    qkv_tape_free(&tp);
    qkv_params_free(&ps);
}

#endif
