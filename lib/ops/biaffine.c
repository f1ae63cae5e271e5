/* Biaffine arc scores, the cross-entropy over candidate heads, the gather of head vectors and
 * bilinear label scores, forward then backward (lib/ops/biaffine.h; Dozat and Manning 2017).
 *
 * Arcs, per sentence of n words starting at row o: H = [root; head[o .. o+n-1]] [n+1, d],
 * DU = dep U [T, d] (one GEMM over the batch), S = DU_s H^T + 1 (H u)^T [n, n+1]. Backward with
 * G = dS [n, n+1]: dDU_s = G H, dH = G^T DU_s + (colsum G) u^T, du += H^T colsum G, then
 * ddep = dDU U^T, dU = dep^T dDU. */
#include "lib/ops/biaffine.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "lib/blas.h"
#include "lib/ops/op_util.h"
#include "lib/vmath.h"

static int longest(qkv_packed s)
{
    int m = 0;
    for (int i = 0; i < s.n; i++)
        m = qkv_packed_len(s, i) > m ? qkv_packed_len(s, i) : m;
    return m;
}

/* H of sentence i into buf [(n+1), d]. */
static void head_block(const qkv_real *head, const qkv_real *root, int o, int n, int d, qkv_real *buf)
{
    memcpy(buf, root, (size_t)d * sizeof *buf);
    memcpy(buf + d, head + (size_t)o * d, (size_t)n * d * sizeof *buf);
}

/* ---- arcs --------------------------------------------------------------------------------- */

typedef struct {
    qkv_packed sent;
    qkv_real *du; /* [T, d] = dep U */
} arcs_saved;

static void arcs_backward(qkv_tape *tp, qkv_node *node);

static bool arcs_shapes_ok(qkv_tape *tp, const qkv_tensor *dep, const qkv_tensor *head, const qkv_tensor *root,
                           const qkv_tensor *U, const qkv_tensor *u)
{
    char s1[64], s2[64];
    if (!dep || !head || !root || !U) {
        qkv_tape_fail(tp, "biaffine_arcs: dep, head, root and U are required");
        return false;
    }
    int d = qkv_cols(dep);
    if (dep->rank != 2 || !qkv_same_shape(dep, head) || root->size != (size_t)d || U->rank != 2 ||
        U->shape[0] != d || U->shape[1] != d || (u && u->size != (size_t)d)) {
        qkv_tape_fail(tp, "biaffine_arcs: dep %s and head %s must be [T, d] with root [d], U [d, d], u [d] (U is %s)",
                      qkv_shape_str(dep, s1, sizeof s1), qkv_shape_str(head, s2, sizeof s2),
                      qkv_shape_str(U, s1, sizeof s1));
        return false;
    }
    return true;
}

qkv_tensor *qkv_biaffine_arcs(qkv_tape *tp, qkv_tensor *dep, qkv_tensor *head, qkv_tensor *root, qkv_tensor *U,
                              qkv_tensor *u, qkv_packed sentences)
{
    QKV_PROFILE_SCOPE("biaffine_arcs", QKV_PROF_FWD);
    if (tp->failed || !arcs_shapes_ok(tp, dep, head, root, U, u))
        return NULL;
    const qkv_packed sent = qkv_tape_packed(tp, "biaffine_arcs", sentences, dep, true);
    if (!sent.offsets)
        return NULL;
    const int T = dep->shape[0], d = dep->shape[1], C = longest(sent) + 1;
    qkv_tensor *y = qkv_tape_tensor2(tp, T, C);
    arcs_saved *s = qkv_tape_alloc(tp, sizeof *s);
    qkv_real *du = qkv_tape_alloc(tp, (size_t)T * d * sizeof *du);
    qkv_real *hb = qkv_tape_alloc(tp, (size_t)C * d * sizeof *hb);
    if (!y || !s || !du || !hb)
        return NULL;
    memset(y->data, 0, y->size * sizeof *y->data);
    qkv_gemm(false, false, T, d, d, 1, dep->data, d, U->data, d, 0, du, d);
    for (int i = 0; i < sent.n; i++) {
        const int o = sent.offsets[i], n = qkv_packed_len(sent, i);
        head_block(head->data, root->data, o, n, d, hb);
        qkv_gemm(false, true, n, n + 1, d, 1, du + (size_t)o * d, d, hb, d, 0, y->data + (size_t)o * C, C);
        for (int j = 0; u && j <= n; j++) {
            double p = 0;
            for (int k = 0; k < d; k++)
                p += (double)hb[(size_t)j * d + k] * u->data[k];
            for (int t = 0; t < n; t++)
                y->data[(size_t)(o + t) * C + j] += (qkv_real)p;
        }
    }
    *s = (arcs_saved){.sent = sent, .du = du};
    qkv_tensor *inputs[5] = {dep, head, root, U, u};
    qkv_node *node = qkv_tape_record(tp, "biaffine_arcs", arcs_backward, y, 5, inputs);
    if (node)
        node->saved = s;
    return y;
}

/* Sentence i's part of the backward: dDU rows into ddu, dH into dhead/droot, du. */
static void arcs_backward_sentence(const qkv_node *node, const arcs_saved *s, int i, qkv_real *hb, qkv_real *dh,
                                   qkv_real *ddu, qkv_real *dhead, qkv_real *droot, qkv_real *du_grad)
{
    const qkv_tensor *head = node->in[1], *root = node->in[2], *u = node->in[4], *y = node->out;
    const int d = head->shape[1], C = y->shape[1], o = s->sent.offsets[i], n = qkv_packed_len(s->sent, i);
    const qkv_real *g = y->grad + (size_t)o * C;
    head_block(head->data, root->data, o, n, d, hb);
    if (ddu) /* dDU_s [n, d] = G [n, n+1] H [n+1, d] */
        qkv_gemm(false, false, n, d, n + 1, 1, g, C, hb, d, 1, ddu + (size_t)o * d, d);
    if (!dhead && !droot && !du_grad)
        return;
    /* dH [n+1, d] = G^T DU_s + colsum(G) u^T */
    qkv_gemm(true, false, n + 1, d, n, 1, g, C, s->du + (size_t)o * d, d, 0, dh, d);
    for (int j = 0; j <= n; j++) {
        double cs = 0;
        for (int t = 0; t < n; t++)
            cs += g[(size_t)t * C + j];
        for (int k = 0; u && k < d; k++) {
            dh[(size_t)j * d + k] += (qkv_real)cs * u->data[k];
            if (du_grad)
                du_grad[k] += (qkv_real)cs * hb[(size_t)j * d + k];
        }
    }
    for (int k = 0; droot && k < d; k++)
        droot[k] += dh[k];
    for (size_t k = 0; dhead && k < (size_t)n * d; k++)
        dhead[(size_t)o * d + k] += dh[d + k];
}

static void arcs_backward(qkv_tape *tp, qkv_node *node)
{
    const arcs_saved *s = node->saved;
    qkv_tensor *dep = node->in[0], *head = node->in[1], *root = node->in[2], *U = node->in[3], *u = node->in[4];
    const int T = dep->shape[0], d = dep->shape[1], C = node->out->shape[1];
    qkv_real *ddep = qkv_grad(tp, dep), *dhead = qkv_grad(tp, head), *droot = qkv_grad(tp, root);
    qkv_real *dU = qkv_grad(tp, U), *du_grad = qkv_grad(tp, u);
    qkv_real *ddu = (ddep || dU) ? calloc((size_t)T * d, sizeof *ddu) : NULL;
    qkv_real *hb = malloc((size_t)C * d * sizeof *hb), *dh = malloc((size_t)C * d * sizeof *dh);
    if (!hb || !dh || ((ddep || dU) && !ddu)) {
        qkv_tape_fail(tp, "biaffine_arcs: out of memory in backward");
        goto done;
    }
    for (int i = 0; i < s->sent.n; i++)
        arcs_backward_sentence(node, s, i, hb, dh, ddu, dhead, droot, du_grad);
    if (ddep) /* ddep [T, d] += dDU U^T */
        qkv_gemm(false, true, T, d, d, 1, ddu, d, U->data, d, 1, ddep, d);
    if (dU) /* dU [d, d] += dep^T dDU */
        qkv_gemm(true, false, d, d, T, 1, dep->data, d, ddu, d, 1, dU, d);
done:
    free(ddu);
    free(hb);
    free(dh);
}

/* ---- cross-entropy over candidate heads ------------------------------------------------ */

typedef struct {
    qkv_packed sent;
    int32_t *heads;
    qkv_real *lse; /* [T] log Σ_j exp s[t, j] over the row's candidates */
    int count;
    double smoothing; /* ε */
} arc_ce_saved;

static void arc_ce_backward(qkv_tape *tp, qkv_node *node);

/* Checks heads against sentences; returns the number of rows with a gold head, or -1. */
static int check_heads(qkv_tape *tp, const char *op, qkv_packed sent, const int32_t *heads)
{
    int count = 0;
    for (int i = 0; i < sent.n; i++)
        for (int t = sent.offsets[i]; t < sent.offsets[i + 1]; t++) {
            if (heads[t] > qkv_packed_len(sent, i)) {
                qkv_tape_fail(tp, "%s: head %ld of row %d is outside 0..%d (its sentence has %d words)", op,
                              (long)heads[t], t, qkv_packed_len(sent, i), qkv_packed_len(sent, i));
                return -1;
            }
            count += heads[t] >= 0;
        }
    return count;
}

/* Row r's loss over its n + 1 candidates with lse = m + log sum: the gold head's NLL when ε = 0,
 * else the smoothed sum (biaffine.h). */
static double arc_row_loss(const qkv_real *r, int n, int32_t head, double m, double sum, double eps)
{
    const double nll = m + log(sum) - (double)r[head];
    if (eps == 0)
        return nll;
    double total = 0;
    for (int j = 0; j <= n; j++)
        total += (double)r[j];
    return (1 - eps) * nll + eps * (m + log(sum) - total / (n + 1));
}

qkv_tensor *qkv_arc_cross_entropy(qkv_tape *tp, qkv_tensor *scores, qkv_packed sentences, const int32_t *heads,
                                  double smoothing)
{
    QKV_PROFILE_SCOPE("arc_cross_entropy", QKV_PROF_FWD);
    if (tp->failed)
        return NULL;
    char sx[64];
    if (!scores || !heads || scores->rank != 2)
        return qkv_tape_fail(tp, "arc_cross_entropy: scores must be a matrix [T, C] and heads given");
    if (!(smoothing >= 0 && smoothing < 1))
        return qkv_tape_fail(tp, "arc_cross_entropy: label smoothing %g is outside [0, 1)", smoothing);
    const qkv_packed sent = qkv_tape_packed(tp, "arc_cross_entropy", sentences, scores, true);
    if (!sent.offsets)
        return NULL;
    const int T = scores->shape[0], C = scores->shape[1];
    if (longest(sent) + 1 > C)
        return qkv_tape_fail(tp, "arc_cross_entropy: scores %s have fewer columns than ROOT plus the longest sentence (%d)",
                             qkv_shape_str(scores, sx, sizeof sx), longest(sent));
    const int count = check_heads(tp, "arc_cross_entropy", sent, heads);
    qkv_tensor *y = qkv_tape_tensor(tp, 1, (int[]){1});
    arc_ce_saved *s = qkv_tape_alloc(tp, sizeof *s);
    int32_t *hc = qkv_tape_alloc(tp, (size_t)T * sizeof *hc);
    qkv_real *lse = qkv_tape_alloc(tp, (size_t)T * sizeof *lse);
    if (count < 0 || !y || !s || !hc || !lse)
        return NULL;
    memcpy(hc, heads, (size_t)T * sizeof *hc);
    double total = 0;
    for (int i = 0; i < sent.n; i++) {
        const int n = qkv_packed_len(sent, i);
        for (int t = sent.offsets[i]; t < sent.offsets[i + 1]; t++) {
            const qkv_real *r = scores->data + (size_t)t * C;
            qkv_real m = r[0];
            for (int j = 1; j <= n; j++)
                m = r[j] > m ? r[j] : m;
            const double sum = qkv_exp_shift_total(r, n + 1, m);
            lse[t] = (qkv_real)(m + log(sum));
            if (heads[t] >= 0)
                total += arc_row_loss(r, n, heads[t], m, sum, smoothing);
        }
    }
    y->data[0] = (qkv_real)(count ? total / count : 0.0);
    *s = (arc_ce_saved){.sent = sent, .heads = hc, .lse = lse, .count = count, .smoothing = smoothing};
    qkv_tensor *inputs[1] = {scores};
    qkv_node *node = qkv_tape_record(tp, "arc_cross_entropy", arc_ce_backward, y, 1, inputs);
    if (node)
        node->saved = s;
    return y;
}

static void arc_ce_backward(qkv_tape *tp, qkv_node *node)
{
    const arc_ce_saved *s = node->saved;
    qkv_tensor *x = node->in[0];
    qkv_real *dx = qkv_grad(tp, x);
    if (!dx || s->count == 0)
        return;
    const int C = x->shape[1];
    const double coef = (double)node->out->grad[0] / s->count, eps = s->smoothing;
    /* the target: 1 - ε on the gold head, ε / (n + 1) on each candidate */
    const double gold = eps == 0 ? coef : coef * (1 - eps);
    for (int i = 0; i < s->sent.n; i++) {
        const int n = qkv_packed_len(s->sent, i);
        const double spread = coef * eps / (n + 1);
        for (int t = s->sent.offsets[i]; t < s->sent.offsets[i + 1]; t++) {
            if (s->heads[t] < 0)
                continue;
            const qkv_real *r = x->data + (size_t)t * C;
            qkv_real *g = dx + (size_t)t * C;
            qkv_exp_shift_axpy(r, n + 1, s->lse[t], (qkv_real)coef, g); /* coef exp(s[t, j] - lse) */
            if (eps != 0)
                for (int j = 0; j <= n; j++)
                    g[j] -= (qkv_real)spread;
            g[s->heads[t]] -= (qkv_real)gold;
        }
    }
}

/* ---- gather of head vectors ------------------------------------------------------------ */

typedef struct {
    int32_t *src; /* [T]: the row of x each output row copies, -1 root, -2 zeros */
} gather_saved;

static void gather_backward(qkv_tape *tp, qkv_node *node);

qkv_tensor *qkv_gather_heads(qkv_tape *tp, qkv_tensor *x, qkv_tensor *root, qkv_packed sentences,
                             const int32_t *heads)
{
    QKV_PROFILE_SCOPE("gather_heads", QKV_PROF_FWD);
    if (tp->failed)
        return NULL;
    char sx[64];
    if (!x || !root || !heads || x->rank != 2 || root->size != (size_t)x->shape[1])
        return qkv_tape_fail(tp, "gather_heads: x %s must be [T, d] with root [d] and heads given",
                             x ? qkv_shape_str(x, sx, sizeof sx) : "NULL");
    const qkv_packed sent = qkv_tape_packed(tp, "gather_heads", sentences, x, true);
    if (!sent.offsets || check_heads(tp, "gather_heads", sent, heads) < 0)
        return NULL;
    const int T = x->shape[0], d = x->shape[1];
    qkv_tensor *y = qkv_tape_tensor2(tp, T, d);
    gather_saved *s = qkv_tape_alloc(tp, sizeof *s);
    int32_t *src = qkv_tape_alloc(tp, (size_t)T * sizeof *src);
    if (!y || !s || !src)
        return NULL;
    for (int i = 0; i < sent.n; i++)
        for (int t = sent.offsets[i]; t < sent.offsets[i + 1]; t++) {
            src[t] = heads[t] < 0 ? -2 : heads[t] == 0 ? -1 : sent.offsets[i] + heads[t] - 1;
            qkv_real *row = y->data + (size_t)t * d;
            if (src[t] == -2)
                memset(row, 0, (size_t)d * sizeof *row);
            else
                memcpy(row, src[t] == -1 ? root->data : x->data + (size_t)src[t] * d, (size_t)d * sizeof *row);
        }
    s->src = src;
    qkv_tensor *inputs[2] = {x, root};
    qkv_node *node = qkv_tape_record(tp, "gather_heads", gather_backward, y, 2, inputs);
    if (node)
        node->saved = s;
    return y;
}

static void gather_backward(qkv_tape *tp, qkv_node *node)
{
    const gather_saved *s = node->saved;
    qkv_tensor *x = node->in[0], *root = node->in[1];
    qkv_real *dx = qkv_grad(tp, x), *droot = qkv_grad(tp, root);
    const int T = x->shape[0], d = x->shape[1];
    const qkv_real *dy = node->out->grad;
    for (int t = 0; t < T; t++) {
        qkv_real *to = s->src[t] == -2 ? NULL : s->src[t] == -1 ? droot : dx ? dx + (size_t)s->src[t] * d : NULL;
        for (int k = 0; to && k < d; k++)
            to[k] += dy[(size_t)t * d + k];
    }
}

/* ---- bilinear ----------------------------------------------------------------------------- */

static void bilinear_backward(qkv_tape *tp, qkv_node *node);

qkv_tensor *qkv_bilinear(qkv_tape *tp, qkv_tensor *a, qkv_tensor *b, qkv_tensor *U)
{
    QKV_PROFILE_SCOPE("bilinear", QKV_PROF_FWD);
    if (tp->failed)
        return NULL;
    char s1[64], s2[64], s3[64];
    if (!a || !b || !U || a->rank != 2 || b->rank != 2 || U->rank != 3 || a->shape[0] != b->shape[0] ||
        U->shape[1] != a->shape[1] || U->shape[2] != b->shape[1])
        return qkv_tape_fail(tp, "bilinear: a %s, b %s and U %s must be [N, d1], [N, d2] and [L, d1, d2]",
                             a ? qkv_shape_str(a, s1, sizeof s1) : "NULL", b ? qkv_shape_str(b, s2, sizeof s2) : "NULL",
                             U ? qkv_shape_str(U, s3, sizeof s3) : "NULL");
    const int N = a->shape[0], d1 = a->shape[1], d2 = b->shape[1], L = U->shape[0];
    qkv_tensor *y = qkv_tape_tensor2(tp, N, L);
    qkv_real *au = qkv_tape_alloc(tp, (size_t)(N ? N : 1) * d2 * sizeof *au);
    if (!y || !au)
        return NULL;
    for (int l = 0; l < L; l++) { /* au [N, d2] = a U_l, then y[n, l] = au_n · b_n */
        qkv_gemm(false, false, N, d2, d1, 1, a->data, d1, U->data + (size_t)l * d1 * d2, d2, 0, au, d2);
        for (int n = 0; n < N; n++) {
            double p = 0;
            for (int k = 0; k < d2; k++)
                p += (double)au[(size_t)n * d2 + k] * b->data[(size_t)n * d2 + k];
            y->data[(size_t)n * L + l] = (qkv_real)p;
        }
    }
    qkv_tensor *inputs[3] = {a, b, U};
    qkv_tape_record(tp, "bilinear", bilinear_backward, y, 3, inputs);
    return y;
}

/* da_n += Σ_l dy[n,l] U_l b_n, db_n += Σ_l dy[n,l] U_l^T a_n, dU_l += Σ_n dy[n,l] a_n b_n^T. */
static void bilinear_backward(qkv_tape *tp, qkv_node *node)
{
    qkv_tensor *a = node->in[0], *b = node->in[1], *U = node->in[2];
    const int N = a->shape[0], d1 = a->shape[1], d2 = b->shape[1], L = U->shape[0];
    qkv_real *da = qkv_grad(tp, a), *db = qkv_grad(tp, b), *dU = qkv_grad(tp, U);
    const qkv_real *dy = node->out->grad;
    qkv_real *sa = malloc((size_t)(N ? N : 1) * (d1 > d2 ? d1 : d2) * sizeof *sa);
    if (!sa) {
        qkv_tape_fail(tp, "bilinear: out of memory in backward");
        return;
    }
    for (int l = 0; l < L; l++) {
        const qkv_real *Ul = U->data + (size_t)l * d1 * d2;
        for (int n = 0; n < N; n++) /* sa = diag(dy_l) a [N, d1] */
            for (int k = 0; k < d1; k++)
                sa[(size_t)n * d1 + k] = dy[(size_t)n * L + l] * a->data[(size_t)n * d1 + k];
        if (dU) /* dU_l [d1, d2] += sa^T b */
            qkv_gemm(true, false, d1, d2, N, 1, sa, d1, b->data, d2, 1, dU + (size_t)l * d1 * d2, d2);
        if (db) /* db [N, d2] += sa U_l */
            qkv_gemm(false, false, N, d2, d1, 1, sa, d1, Ul, d2, 1, db, d2);
        if (da) { /* da [N, d1] += diag(dy_l) b U_l^T */
            for (int n = 0; n < N; n++)
                for (int k = 0; k < d2; k++)
                    sa[(size_t)n * d2 + k] = dy[(size_t)n * L + l] * b->data[(size_t)n * d2 + k];
            qkv_gemm(false, true, N, d1, d2, 1, sa, d2, Ul, d2, 1, da, d1);
        }
    }
    free(sa);
}
