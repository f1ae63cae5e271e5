/* Linear-chain conditional random field (Lafferty et al. 2001; as an output layer, Lample et
 * al. 2016) over a packed batch of sentences, forward and backward, and Viterbi decoding.
 *
 * For a sentence of n tokens with emission scores E [n, K], transitions A [K, K]
 * (A[i][j] = score of tag i followed by tag j), start and end scores s, e [K], a path y scores
 *     score(y) = s[y_0] + Σ_t E[t, y_t] + Σ_{t>0} A[y_{t-1}, y_t] + e[y_{n-1}],
 * and the negative log-likelihood of the gold path is log Z - score(gold), Z = Σ_y exp score(y).
 * A gold tag < 0 (unknown) is marginalised: the op computes log Z - log Z_gold, where Z_gold
 * sums over the paths that agree with every known gold tag (with all tags known, Z_gold is
 * exp score(gold)). Both are the forward algorithm in log space, each step max-shifted, in double:
 *     α[0][j] = s[j] + E[0, j],  α[t][j] = E[t, j] + LSE_i (α[t-1][i] + A[i][j]),
 *     log Z = LSE_j (α[n-1][j] + e[j]),
 * and the backward recursion β[n-1][i] = e[i], β[t][i] = LSE_j (A[i][j] + E[t+1, j] + β[t+1][j]).
 * Marginals: p(y_t = j) = exp(α[t][j] + β[t][j] - log Z), p(y_{t-1} = i, y_t = j) =
 * exp(α[t-1][i] + A[i][j] + E[t, j] + β[t][j] - log Z). The gradient of the NLL is the
 * difference of the two marginals (all paths minus gold paths): for E the unary marginals, for A
 * the pairwise ones summed over t, for s those at t = 0, for e those at t = n-1.
 *
 * A mask (qkv_crf_mask) forbids transitions, first tags or last tags: their scores count as
 * -inf in Z, Z_gold and Viterbi, and they receive no gradient.
 *
 * Sentences run in parallel (OpenMP, dynamic schedule); each writes its own results (its NLL,
 * its rows of dE, its own dA/ds/de buffer), and the sums over sentences run in sentence order,
 * so the results never depend on the thread count. */
#include "lib/ops/ops.h"
#include "lib/ops/op_util.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The scores of one batch in double, forbidden entries -inf. */
typedef struct {
    int K;
    const qkv_real *emit;   /* [T, K] */
    double *trans, *start, *end; /* [K*K], [K], [K] */
    const int32_t *tags;    /* [T] gold (< 0: unknown) */
} crf_scores;

typedef struct {
    crf_scores sc;
    qkv_packed sent;
    double *alpha, *beta;   /* [T, K] all paths */
    double *alpha_g, *beta_g; /* [T, K] paths through the known gold tags */
    double *log_z, *log_z_gold; /* [B] */
} crf_saved;

static inline double lse_finish(double m, double sum)
{
    return m == -INFINITY ? -INFINITY : m + log(sum);
}

/* Emission of tag j at token t (absolute row), -inf when gold-clamped to another tag. */
static inline double emission(const crf_scores *sc, int t, int j, bool clamp)
{
    if (clamp && sc->tags[t] >= 0 && sc->tags[t] != j)
        return -INFINITY;
    return (double)sc->emit[(size_t)t * sc->K + j];
}

/* α and β of rows off..off+n-1 (alpha, beta point at row off); returns log Z. */
static double forward_backward(const crf_scores *sc, int off, int n, bool clamp, double *alpha, double *beta)
{
    const int K = sc->K;
    const double *A = sc->trans;
    for (int j = 0; j < K; j++)
        alpha[j] = sc->start[j] + emission(sc, off, j, clamp);
    for (int t = 1; t < n; t++) {
        const double *prev = alpha + (size_t)(t - 1) * K;
        double *cur = alpha + (size_t)t * K;
        for (int j = 0; j < K; j++) {
            double m = -INFINITY;
            for (int i = 0; i < K; i++)
                m = fmax(m, prev[i] + A[(size_t)i * K + j]);
            double sum = 0;
            if (m != -INFINITY)
                for (int i = 0; i < K; i++)
                    sum += exp(prev[i] + A[(size_t)i * K + j] - m);
            cur[j] = emission(sc, off + t, j, clamp) + lse_finish(m, sum);
        }
    }
    double *last = beta + (size_t)(n - 1) * K;
    for (int i = 0; i < K; i++)
        last[i] = sc->end[i];
    for (int t = n - 2; t >= 0; t--) {
        const double *next = beta + (size_t)(t + 1) * K;
        double *cur = beta + (size_t)t * K;
        for (int i = 0; i < K; i++) {
            double m = -INFINITY;
            for (int j = 0; j < K; j++)
                m = fmax(m, A[(size_t)i * K + j] + emission(sc, off + t + 1, j, clamp) + next[j]);
            double sum = 0;
            if (m != -INFINITY)
                for (int j = 0; j < K; j++)
                    sum += exp(A[(size_t)i * K + j] + emission(sc, off + t + 1, j, clamp) + next[j] - m);
            cur[i] = lse_finish(m, sum);
        }
    }
    const double *fin = alpha + (size_t)(n - 1) * K;
    double m = -INFINITY, sum = 0;
    for (int j = 0; j < K; j++)
        m = fmax(m, fin[j] + sc->end[j]);
    if (m != -INFINITY)
        for (int j = 0; j < K; j++)
            sum += exp(fin[j] + sc->end[j] - m);
    return lse_finish(m, sum);
}

/* Threads for a loop over the sentences of T tokens and K tags: the forward algorithm and
 * Viterbi cost about T·K·K steps (lib/parallel.h's threshold on elements). */
static int sentence_threads(int T, int K)
{
    return qkv_parallel_worth((size_t)T * K * K) ? omp_get_max_threads() : 1;
}

static void forward_sentence(crf_saved *s, int b)
{
    int off = s->sent.offsets[b], n = qkv_packed_len(s->sent, b);
    size_t at = (size_t)off * s->sc.K;
    s->log_z[b] = forward_backward(&s->sc, off, n, false, s->alpha + at, s->beta + at);
    s->log_z_gold[b] = forward_backward(&s->sc, off, n, true, s->alpha_g + at, s->beta_g + at);
}

/* The masked scores in double: a forbidden entry -inf (sc->K set; sc->trans, start, end allocated). */
static void mask_scores(crf_scores *sc, const qkv_tensor *transitions, const qkv_tensor *start, const qkv_tensor *end,
                        const qkv_crf_mask *mask)
{
    const int K = sc->K;
    for (int i = 0; i < K * K; i++)
        sc->trans[i] = mask && mask->transitions && !mask->transitions[i] ? -INFINITY : (double)transitions->data[i];
    for (int i = 0; i < K; i++) {
        sc->start[i] = mask && mask->start && !mask->start[i] ? -INFINITY : (double)start->data[i];
        sc->end[i] = mask && mask->end && !mask->end[i] ? -INFINITY : (double)end->data[i];
    }
}

/* Shape checks shared by the NLL and Viterbi: true when fine, else false with the problem in msg. */
static bool check_shapes(const qkv_tensor *emissions, const qkv_tensor *transitions, const qkv_tensor *start,
                         const qkv_tensor *end, char *msg, size_t cap)
{
    char s1[64], s2[64], s3[64], s4[64];
    if (!emissions || !transitions || !start || !end) {
        snprintf(msg, cap, "an input tensor is NULL");
        return false;
    }
    int K = emissions->rank == 2 ? emissions->shape[1] : 0;
    if (emissions->rank != 2 || K < 1 || transitions->rank != 2 || transitions->shape[0] != K ||
        transitions->shape[1] != K || start->rank != 1 || start->shape[0] != K || end->rank != 1 ||
        end->shape[0] != K) {
        snprintf(msg, cap, "emissions %s, transitions %s, start %s, end %s: expected [T, K], [K, K], [K], [K]",
                 qkv_shape_str(emissions, s1, sizeof s1), qkv_shape_str(transitions, s2, sizeof s2),
                 qkv_shape_str(start, s3, sizeof s3), qkv_shape_str(end, s4, sizeof s4));
        return false;
    }
    return true;
}

static void crf_backward(qkv_tape *tp, qkv_node *node);

qkv_tensor *qkv_crf_nll(qkv_tape *tp, qkv_tensor *emissions, qkv_tensor *transitions, qkv_tensor *start,
                        qkv_tensor *end, qkv_packed sentences, const int32_t *tags, const qkv_crf_mask *mask)
{
    QKV_PROFILE_SCOPE("crf", QKV_PROF_FWD);
    if (tp->failed)
        return NULL;
    char msg[300];
    if (!check_shapes(emissions, transitions, start, end, msg, sizeof msg))
        return qkv_tape_fail(tp, "crf: %s", msg);
    if (!tags)
        return qkv_tape_fail(tp, "crf: the gold tags are NULL");
    qkv_packed sent = qkv_tape_packed(tp, "crf", sentences, emissions, true);
    if (!sent.offsets)
        return NULL;
    int T = qkv_rows(emissions), K = qkv_cols(emissions), B = sent.n;
    for (int t = 0; t < T; t++)
        if (tags[t] >= K)
            return qkv_tape_fail(tp, "crf: gold tag %ld at token %d is outside 0..%d (a negative tag is unknown)",
                                 (long)tags[t], t, K - 1);
    qkv_tensor *y = qkv_tape_tensor(tp, 1, (int[]){1});
    crf_saved *s = qkv_tape_alloc(tp, sizeof *s);
    if (!y || !s)
        return NULL;
    s->sent = sent;
    int32_t *tag_copy = qkv_tape_alloc(tp, (size_t)(T ? T : 1) * sizeof *tag_copy);
    size_t cells = (size_t)T * K * sizeof(double);
    s->alpha = qkv_tape_alloc(tp, cells);
    s->beta = qkv_tape_alloc(tp, cells);
    s->alpha_g = qkv_tape_alloc(tp, cells);
    s->beta_g = qkv_tape_alloc(tp, cells);
    s->log_z = qkv_tape_alloc(tp, (size_t)(B ? B : 1) * sizeof(double));
    s->log_z_gold = qkv_tape_alloc(tp, (size_t)(B ? B : 1) * sizeof(double));
    if (!tag_copy || !s->alpha || !s->beta || !s->alpha_g || !s->beta_g || !s->log_z || !s->log_z_gold)
        return NULL;
    memcpy(tag_copy, tags, (size_t)T * sizeof *tags);
    s->sc = (crf_scores){.K = K, .emit = emissions->data, .tags = tag_copy};
    s->sc.trans = qkv_tape_alloc(tp, (size_t)K * K * sizeof(double));
    s->sc.start = qkv_tape_alloc(tp, (size_t)K * sizeof(double));
    s->sc.end = qkv_tape_alloc(tp, (size_t)K * sizeof(double));
    if (!s->sc.trans || !s->sc.start || !s->sc.end)
        return NULL;
    mask_scores(&s->sc, transitions, start, end, mask);

    QKV_FOR_THREADS(sentence_threads(T, K), dynamic, int, b, B, forward_sentence(s, b););
    double total = 0;
    for (int b = 0; b < B; b++) {
        if (s->log_z[b] == -INFINITY)
            return qkv_tape_fail_sentence(tp, b, "crf: the sentence has no tag sequence the transition mask allows");
        if (s->log_z_gold[b] == -INFINITY)
            return qkv_tape_fail_sentence(tp, b, "crf: the sentence's gold tags make a sequence the transition mask "
                                                 "forbids");
        total += s->log_z[b] - s->log_z_gold[b];
    }
    y->data[0] = (qkv_real)total;
    qkv_tensor *inputs[4] = {emissions, transitions, start, end};
    qkv_node *node = qkv_tape_record(tp, "crf", crf_backward, y, 4, inputs);
    if (node)
        node->saved = s;
    return y;
}

/* Unary marginal difference at row t (absolute), tag j: p_all - p_gold. */
static inline double unary_diff(const crf_saved *s, int b, size_t at)
{
    return exp(s->alpha[at] + s->beta[at] - s->log_z[b]) - exp(s->alpha_g[at] + s->beta_g[at] - s->log_z_gold[b]);
}

/* Sentence b's gradient: dE rows (when dE), and its dA [K*K], ds [K], de [K] into own (g·∂). */
static void backward_sentence(const crf_saved *s, int b, double g, qkv_real *dE, double *own)
{
    const crf_scores *sc = &s->sc;
    const int K = sc->K, off = s->sent.offsets[b], n = qkv_packed_len(s->sent, b);
    double *dA = own, *ds = own + (size_t)K * K, *de = ds + K;
    for (int t = 0; t < n; t++)
        for (int j = 0; j < K; j++) {
            size_t at = (size_t)(off + t) * K + j;
            double d = g * unary_diff(s, b, at);
            if (dE)
                dE[at] += (qkv_real)d;
            if (t == 0)
                ds[j] += d;
            if (t == n - 1)
                de[j] += d;
        }
    for (int t = 1; t < n; t++) {
        size_t prev = (size_t)(off + t - 1) * K, cur = (size_t)(off + t) * K;
        for (int i = 0; i < K; i++)
            for (int j = 0; j < K; j++) {
                double a = sc->trans[(size_t)i * K + j];
                if (a == -INFINITY)
                    continue;
                double p = exp(s->alpha[prev + i] + a + emission(sc, off + t, j, false) + s->beta[cur + j] - s->log_z[b]);
                double q = exp(s->alpha_g[prev + i] + a + emission(sc, off + t, j, true) + s->beta_g[cur + j] -
                               s->log_z_gold[b]);
                dA[(size_t)i * K + j] += g * (p - q);
            }
    }
    /* forbidden first/last tags get no gradient (their marginals are 0 on both sides anyway) */
}

static void crf_backward(qkv_tape *tp, qkv_node *node)
{
    const crf_saved *s = node->saved;
    const int K = s->sc.K, B = s->sent.n;
    const double g = (double)node->out->grad[0];
    qkv_real *dE = qkv_grad(tp, node->in[0]), *dA = qkv_grad(tp, node->in[1]), *dS = qkv_grad(tp, node->in[2]),
             *dEnd = qkv_grad(tp, node->in[3]);
    size_t per = (size_t)K * K + 2 * (size_t)K;
    double *own = qkv_tape_alloc(tp, (size_t)(B ? B : 1) * per * sizeof(double));
    if (!own)
        return;
    memset(own, 0, (size_t)B * per * sizeof(double));
    int T = qkv_rows(node->in[0]);
    QKV_FOR_THREADS(sentence_threads(T, K), dynamic, int, b, B, {
        backward_sentence(s, b, g, dE, own + (size_t)b * per);
    });
    for (size_t k = 0; k < per; k++) {
        double sum = 0;
        for (int b = 0; b < B; b++)
            sum += own[(size_t)b * per + k];
        if (k < (size_t)K * K) {
            if (dA)
                dA[k] += (qkv_real)sum;
        } else if (k < (size_t)K * K + K) {
            if (dS)
                dS[k - (size_t)K * K] += (qkv_real)sum;
        } else if (dEnd) {
            dEnd[k - (size_t)K * K - K] += (qkv_real)sum;
        }
    }
}

/* ---- Viterbi decoding --------------------------------------------------------------------- */

/* Best path of sentence b into path; delta [n, K] and back [n, K] are its scratch. Returns false
 * when no path is allowed. Ties go to the lowest tag index. */
static bool viterbi_sentence(const crf_scores *sc, qkv_packed sent, int b, double *delta, int32_t *back,
                             int32_t *path)
{
    const int K = sc->K, off = sent.offsets[b], n = qkv_packed_len(sent, b);
    for (int j = 0; j < K; j++)
        delta[j] = sc->start[j] + emission(sc, off, j, false);
    for (int t = 1; t < n; t++) {
        const double *prev = delta + (size_t)(t - 1) * K;
        for (int j = 0; j < K; j++) {
            int best = 0;
            double bv = prev[0] + sc->trans[j];
            for (int i = 1; i < K; i++) {
                double v = prev[i] + sc->trans[(size_t)i * K + j];
                if (v > bv) {
                    bv = v;
                    best = i;
                }
            }
            delta[(size_t)t * K + j] = bv + emission(sc, off + t, j, false);
            back[(size_t)t * K + j] = best;
        }
    }
    const double *fin = delta + (size_t)(n - 1) * K;
    int best = 0;
    double bv = fin[0] + sc->end[0];
    for (int j = 1; j < K; j++)
        if (fin[j] + sc->end[j] > bv) {
            bv = fin[j] + sc->end[j];
            best = j;
        }
    if (bv == -INFINITY)
        return false;
    for (int t = n - 1; t >= 0; t--) {
        path[off + t] = best;
        if (t > 0)
            best = back[(size_t)t * K + best];
    }
    return true;
}

int qkv_crf_viterbi_fallback(const qkv_tensor *emissions, const qkv_tensor *transitions, const qkv_tensor *start,
                             const qkv_tensor *end, qkv_packed sentences, const qkv_crf_mask *mask, int32_t *path,
                             uint8_t *unconstrained, int *n_unconstrained, qkv_error *err)
{
    QKV_PROFILE_SCOPE("crf_viterbi", QKV_PROF_FWD);
    *n_unconstrained = 0;
    char msg[300];
    if (!check_shapes(emissions, transitions, start, end, msg, sizeof msg))
        return qkv_fail(err, "crf viterbi: %s", msg);
    int T = qkv_rows(emissions), K = qkv_cols(emissions), B = sentences.n;
    if (!sentences.offsets || B < 0 || sentences.offsets[0] != 0 || sentences.offsets[B] != T)
        return qkv_fail(err, "crf viterbi: the sentences do not cover the %d rows of the emissions", T);
    for (int b = 0; b < B; b++)
        if (sentences.offsets[b + 1] <= sentences.offsets[b])
            return qkv_fail(err, "crf viterbi: sentence %d is empty or its offsets decrease", b);
    crf_scores sc = {.K = K, .emit = emissions->data};
    sc.trans = malloc((size_t)K * K * sizeof(double));
    sc.start = malloc((size_t)K * sizeof(double));
    sc.end = malloc((size_t)K * sizeof(double));
    double *delta = malloc((size_t)(T ? T : 1) * K * sizeof(double));
    int32_t *back = malloc((size_t)(T ? T : 1) * K * sizeof(int32_t));
    bool *ok = malloc((size_t)(B ? B : 1) * sizeof(bool));
    int status = QKV_OK;
    if (!sc.trans || !sc.start || !sc.end || !delta || !back || !ok) {
        status = qkv_fail(err, "crf viterbi: out of memory for %d tokens", T);
        goto done;
    }
    mask_scores(&sc, transitions, start, end, mask);
    QKV_FOR_THREADS(sentence_threads(T, K), dynamic, int, b, B, {
        size_t at = (size_t)sentences.offsets[b] * K;
        ok[b] = viterbi_sentence(&sc, sentences, b, delta + at, back + at, path);
    });
    bool unmasked = false;
    for (int b = 0; b < B; b++) {
        if (unconstrained)
            unconstrained[b] = !ok[b];
        if (ok[b])
            continue;
        if (!unmasked) { /* the scores without the mask, once */
            mask_scores(&sc, transitions, start, end, NULL);
            unmasked = true;
        }
        size_t at = (size_t)sentences.offsets[b] * K;
        if (!viterbi_sentence(&sc, sentences, b, delta + at, back + at, path)) /* -inf emissions */
            memset(path + sentences.offsets[b], 0, (size_t)qkv_packed_len(sentences, b) * sizeof *path);
        ++*n_unconstrained;
    }
done:
    free(sc.trans);
    free(sc.start);
    free(sc.end);
    free(delta);
    free(back);
    free(ok);
    return status;
}

int qkv_crf_viterbi(const qkv_tensor *emissions, const qkv_tensor *transitions, const qkv_tensor *start,
                    const qkv_tensor *end, qkv_packed sentences, const qkv_crf_mask *mask, int32_t *path,
                    qkv_error *err)
{
    uint8_t *unconstrained = malloc((size_t)(sentences.n > 0 ? sentences.n : 1));
    if (!unconstrained)
        return qkv_fail(err, "crf viterbi: out of memory for %d sentences", sentences.n);
    int n = 0, status = qkv_crf_viterbi_fallback(emissions, transitions, start, end, sentences, mask, path,
                                                 unconstrained, &n, err);
    for (int b = 0; status == QKV_OK && n && b < sentences.n; b++)
        if (unconstrained[b])
            status = qkv_fail_sentence(err, b, "crf viterbi: the sentence has no tag sequence the transition mask "
                                               "allows");
    free(unconstrained);
    return status;
}

/* Sentence b's marginals into probs (rows of sentence b) from sc; alpha and beta are its
 * scratch. Returns false when it has no path under sc (probs untouched). */
static bool marginals_sentence(const crf_scores *sc, qkv_packed sent, int b, double *alpha, double *beta,
                               double *probs)
{
    int off = sent.offsets[b], n = qkv_packed_len(sent, b), K = sc->K;
    size_t at = (size_t)off * K;
    double log_z = forward_backward(sc, off, n, false, alpha + at, beta + at);
    if (log_z == -INFINITY)
        return false;
    for (size_t i = at; i < at + (size_t)n * K; i++)
        probs[i] = exp(alpha[i] + beta[i] - log_z);
    return true;
}

int qkv_crf_marginals(const qkv_tensor *emissions, const qkv_tensor *transitions, const qkv_tensor *start,
                      const qkv_tensor *end, qkv_packed sentences, const qkv_crf_mask *mask, double *probs,
                      uint8_t *unconstrained, qkv_error *err)
{
    QKV_PROFILE_SCOPE("crf_marginals", QKV_PROF_FWD);
    char msg[300];
    if (!check_shapes(emissions, transitions, start, end, msg, sizeof msg))
        return qkv_fail(err, "crf marginals: %s", msg);
    int T = qkv_rows(emissions), K = qkv_cols(emissions), B = sentences.n;
    if (!sentences.offsets || B < 0 || sentences.offsets[0] != 0 || sentences.offsets[B] != T)
        return qkv_fail(err, "crf marginals: the sentences do not cover the %d rows of the emissions", T);
    for (int b = 0; b < B; b++)
        if (sentences.offsets[b + 1] <= sentences.offsets[b])
            return qkv_fail(err, "crf marginals: sentence %d is empty or its offsets decrease", b);
    crf_scores sc = {.K = K, .emit = emissions->data}, open = sc;
    sc.trans = malloc(2 * ((size_t)K * K + 2 * (size_t)K) * sizeof(double));
    double *alpha = malloc(2 * (size_t)(T ? T : 1) * K * sizeof(double)), *beta = alpha ? alpha + (size_t)T * K : NULL;
    if (!sc.trans || !alpha) {
        free(sc.trans);
        free(alpha);
        return qkv_fail(err, "crf marginals: out of memory for %d tokens", T);
    }
    sc.start = sc.trans + (size_t)K * K, sc.end = sc.start + K;
    open.trans = sc.end + K, open.start = open.trans + (size_t)K * K, open.end = open.start + K;
    mask_scores(&sc, transitions, start, end, mask);
    mask_scores(&open, transitions, start, end, NULL);
    int status = QKV_OK;
    for (int b = 0; b < B; b++) {
        bool ok = marginals_sentence(&sc, sentences, b, alpha, beta, probs);
        if (unconstrained)
            unconstrained[b] = !ok;
        if (!ok && (!unconstrained || !marginals_sentence(&open, sentences, b, alpha, beta, probs))) {
            status = qkv_fail_sentence(err, b, "crf marginals: the sentence has no tag sequence the transition mask "
                                               "allows");
            break;
        }
    }
    free(sc.trans);
    free(alpha);
    return status;
}
