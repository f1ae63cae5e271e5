/* Tree decoders (lib/tree_decode.h): Chu-Liu/Edmonds by recursive cycle contraction on a dense
 * matrix w[h·N + d] (N nodes, node 0 the root), and Eisner's chart. */
#include "lib/tree_decode.h"

#include <math.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

const char *const QKV_TREE_DECODER_NAMES[] = {"mst", "eisner", NULL};
_Static_assert(sizeof QKV_TREE_DECODER_NAMES / sizeof QKV_TREE_DECODER_NAMES[0] == QKV_TREE_DECODER_COUNT + 1,
               "one name per qkv_tree_decoder");

static int check_scores(const double *scores, int n, qkv_error *err)
{
    if (n < 1)
        return qkv_fail(err, "tree decoding: %d words, expected at least 1", n);
    for (size_t i = 0; i < (size_t)n * (n + 1); i++)
        if (!isfinite(scores[i]))
            return qkv_fail(err, "tree decoding: the score of head %d for word %d is %g, expected a finite number",
                            (int)(i % (n + 1)), (int)(i / (n + 1)) + 1, scores[i]);
    return QKV_OK;
}

/* ---- Chu-Liu/Edmonds ------------------------------------------------------------------- */

/* A cycle of the greedy heads, marked in in_cycle [N]; returns its size (0: none). */
static int find_cycle(const int *head, int N, bool *in_cycle, int *mark)
{
    for (int v = 0; v < N; v++)
        mark[v] = -1, in_cycle[v] = false;
    for (int s = 1; s < N; s++) {
        int v = s;
        while (v != 0 && mark[v] < 0) {
            mark[v] = s;
            v = head[v];
        }
        if (v != 0 && mark[v] == s) { /* came back to a node of this walk: a cycle through v */
            int size = 0, u = v;
            do {
                in_cycle[u] = true, size++;
                u = head[u];
            } while (u != v);
            return size;
        }
    }
    return 0;
}

typedef struct {
    int *map, *inv, *enter, *leave; /* [N] */
    double *w2;                     /* [M, M] */
} contraction;

static int cle(double *w, int N, int *head);

/* Contracts the cycle into node M-1, solves the smaller problem and expands its answer. Frees
 * w as soon as the smaller problem is built, so that the levels of a deep recursion hold two
 * matrices at a time, not one each (memory O(N²), not O(N³)). */
static int contract(double *w, int N, int *head, const bool *in_cycle, int size)
{
    const int M = N - size + 1, c = M - 1;
    contraction k = {malloc((size_t)N * sizeof(int)), malloc((size_t)N * sizeof(int)), malloc((size_t)N * sizeof(int)),
                     malloc((size_t)N * sizeof(int)), malloc((size_t)M * M * sizeof(double))};
    int *head2 = malloc((size_t)M * sizeof *head2), status = -1;
    if (!k.map || !k.inv || !k.enter || !k.leave || !k.w2 || !head2) {
        free(w);
        goto done;
    }
    for (int v = 0, m = 0; v < N; v++) {
        k.map[v] = in_cycle[v] ? c : m;
        if (!in_cycle[v])
            k.inv[m++] = v;
    }
    for (int i = 0; i < M * M; i++)
        k.w2[i] = -INFINITY;
    for (int u = 0; u < N; u++) {
        if (in_cycle[u])
            continue;
        for (int v = 1; v < N; v++) {
            if (in_cycle[v]) { /* u enters the cycle at v, breaking v's cycle arc */
                double g = w[(size_t)u * N + v] - w[(size_t)head[v] * N + v];
                if (g > k.w2[(size_t)k.map[u] * M + c])
                    k.w2[(size_t)k.map[u] * M + c] = g, k.enter[u] = v;
            } else if (v != u) {
                k.w2[(size_t)k.map[u] * M + k.map[v]] = w[(size_t)u * N + v];
            }
        }
    }
    for (int v = 1; v < N; v++) { /* the cycle's best arc into each outside node */
        if (in_cycle[v])
            continue;
        double best = -INFINITY;
        for (int u = 0; u < N; u++)
            if (in_cycle[u] && w[(size_t)u * N + v] > best)
                best = w[(size_t)u * N + v], k.leave[v] = u;
        k.w2[(size_t)c * M + k.map[v]] = best;
    }
    free(w);
    double *w2 = k.w2;
    k.w2 = NULL; /* cle frees it */
    if (cle(w2, M, head2))
        goto done;
    for (int v = 1; v < N; v++)
        if (!in_cycle[v])
            head[v] = head2[k.map[v]] == c ? k.leave[v] : k.inv[head2[k.map[v]]];
    int u = k.inv[head2[c]];
    head[k.enter[u]] = u;
    status = 0;
done:
    free(k.map), free(k.inv), free(k.enter), free(k.leave), free(k.w2), free(head2);
    return status;
}

/* The maximum arborescence of w [N, N] rooted at 0 into head [N]; -1: out of memory. Takes
 * w (malloc'd) and frees it. */
static int cle(double *w, int N, int *head)
{
    head[0] = -1;
    for (int d = 1; d < N; d++) {
        int best = -1;
        for (int h = 0; h < N; h++)
            if (h != d && (best < 0 || w[(size_t)h * N + d] > w[(size_t)best * N + d]))
                best = h;
        head[d] = best;
    }
    bool *in_cycle = malloc((size_t)N * sizeof *in_cycle);
    int *mark = malloc((size_t)N * sizeof *mark);
    int status = in_cycle && mark ? 0 : -1;
    int size = status ? 0 : find_cycle(head, N, in_cycle, mark);
    free(mark);
    if (size > 0)
        status = contract(w, N, head, in_cycle, size);
    else
        free(w);
    free(in_cycle);
    return status;
}

int qkv_tree_mst(const double *scores, int n, int32_t *heads, qkv_error *err)
{
    if (check_scores(scores, n, err))
        return QKV_ERR;
    const int N = n + 1;
    double *w = malloc((size_t)N * N * sizeof *w), lo = scores[0], hi = scores[0];
    int *head = malloc((size_t)N * sizeof *head);
    if (!w || !head) {
        free(w), free(head);
        return qkv_fail(err, "tree decoding: out of memory for %d words", n);
    }
    for (size_t i = 0; i < (size_t)n * N; i++)
        lo = scores[i] < lo ? scores[i] : lo, hi = scores[i] > hi ? scores[i] : hi;
    /* Any two trees differ by less than n·(hi - lo): lowering each ROOT arc by more makes every
     * one-root tree beat every tree with more ROOT children. */
    const double penalty = 1 + 2.0 * n * (hi - lo);
    for (int h = 0; h < N; h++)
        for (int d = 0; d < N; d++)
            w[(size_t)h * N + d] = d == 0 ? -INFINITY : scores[(size_t)(d - 1) * N + h] - (h == 0 ? penalty : 0);
    int status = cle(w, N, head); /* frees w */
    for (int d = 1; d <= n && !status; d++)
        heads[d - 1] = head[d];
    free(head);
    return status ? qkv_fail(err, "tree decoding: out of memory for %d words", n) : QKV_OK;
}

/* ---- Eisner --------------------------------------------------------------------------------- */

typedef struct {
    int n, N;
    const double *scores;
    double *C[2], *I[2]; /* [N, N]: complete / incomplete spans s..t, [0] head t, [1] head s */
    int *bC[2], *bI[2];  /* split points */
} chart;

static double arc(const chart *c, int h, int d) { return c->scores[(size_t)(d - 1) * c->N + h]; }
#define AT(a, s, t) (a)[(size_t)(s) * c->N + (t)]

static void fill_chart(chart *c)
{
    for (int len = 1; len < c->n; len++)
        for (int s = 1; s + len <= c->n; s++) {
            const int t = s + len;
            double best = -INFINITY;
            int arg = s;
            for (int r = s; r < t; r++) {
                double v = AT(c->C[1], s, r) + AT(c->C[0], r + 1, t);
                if (v > best)
                    best = v, arg = r;
            }
            AT(c->I[0], s, t) = best + arc(c, t, s), AT(c->bI[0], s, t) = arg;
            AT(c->I[1], s, t) = best + arc(c, s, t), AT(c->bI[1], s, t) = arg;
            best = -INFINITY;
            for (int r = s; r < t; r++) {
                double v = AT(c->C[0], s, r) + AT(c->I[0], r, t);
                if (v > best)
                    best = v, arg = r;
            }
            AT(c->C[0], s, t) = best, AT(c->bC[0], s, t) = arg;
            best = -INFINITY;
            for (int r = s + 1; r <= t; r++) {
                double v = AT(c->I[1], s, r) + AT(c->C[1], r, t);
                if (v > best)
                    best = v, arg = r;
            }
            AT(c->C[1], s, t) = best, AT(c->bC[1], s, t) = arg;
        }
}

static void backtrack(const chart *c, int s, int t, int dir, bool complete, int32_t *heads)
{
    if (s == t)
        return;
    if (complete) {
        int r = AT(c->bC[dir], s, t);
        if (dir == 0)
            backtrack(c, s, r, 0, true, heads), backtrack(c, r, t, 0, false, heads);
        else
            backtrack(c, s, r, 1, false, heads), backtrack(c, r, t, 1, true, heads);
        return;
    }
    int r = AT(c->bI[dir], s, t);
    heads[(dir == 0 ? s : t) - 1] = dir == 0 ? t : s;
    backtrack(c, s, r, 1, true, heads), backtrack(c, r + 1, t, 0, true, heads);
}

int qkv_tree_eisner(const double *scores, int n, int32_t *heads, qkv_error *err)
{
    if (check_scores(scores, n, err))
        return QKV_ERR;
    chart c = {.n = n, .N = n + 1, .scores = scores};
    const size_t cells = (size_t)c.N * c.N;
    bool ok = true;
    for (int k = 0; k < 2; k++) {
        ok &= (c.C[k] = calloc(cells, sizeof(double))) && (c.I[k] = calloc(cells, sizeof(double)));
        ok &= (c.bC[k] = calloc(cells, sizeof(int))) && (c.bI[k] = calloc(cells, sizeof(int)));
    }
    if (ok) {
        fill_chart(&c);
        int root = 1;
        double best = -INFINITY;
        for (int r = 1; r <= n; r++) {
            double v = scores[(size_t)(r - 1) * c.N] + c.C[0][(size_t)1 * c.N + r] + c.C[1][(size_t)r * c.N + n];
            if (v > best)
                best = v, root = r;
        }
        heads[root - 1] = 0;
        backtrack(&c, 1, root, 0, true, heads);
        backtrack(&c, root, n, 1, true, heads);
    }
    for (int k = 0; k < 2; k++)
        free(c.C[k]), free(c.I[k]), free(c.bC[k]), free(c.bI[k]);
    return ok ? QKV_OK : qkv_fail(err, "tree decoding: out of memory for %d words", n);
}

int qkv_tree_decode(qkv_tree_decoder kind, const double *scores, int n, int32_t *heads, qkv_error *err)
{
    return kind == QKV_TREE_EISNER ? qkv_tree_eisner(scores, n, heads, err) : qkv_tree_mst(scores, n, heads, err);
}

/* Whether a descends from h (h itself included). */
static bool descends(const int32_t *heads, int n, int a, int h)
{
    for (int steps = 0; steps <= n; steps++) {
        if (a == h)
            return true;
        if (a == 0)
            return false;
        a = heads[a - 1];
    }
    return false;
}

int qkv_tree_is_valid(const int32_t *heads, int n, int projective)
{
    int root_children = 0;
    for (int d = 1; d <= n; d++) {
        if (heads[d - 1] < 0 || heads[d - 1] > n || heads[d - 1] == d || !descends(heads, n, d, 0))
            return 0;
        root_children += heads[d - 1] == 0;
    }
    if (root_children != 1)
        return 0;
    for (int d = 1; projective && d <= n; d++) {
        int h = heads[d - 1], lo = h < d ? h : d, hi = h < d ? d : h;
        for (int k = lo + 1; k < hi; k++)
            if (!descends(heads, n, k, h))
                return 0;
    }
    return 1;
}

double qkv_tree_score(const double *scores, int n, const int32_t *heads)
{
    double s = 0;
    for (int d = 1; d <= n; d++)
        s += scores[(size_t)(d - 1) * (n + 1) + heads[d - 1]];
    return s;
}
