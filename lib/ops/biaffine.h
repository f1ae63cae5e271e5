/* Biaffine attention for dependency parsing (Dozat and Manning 2017, "Deep Biaffine Attention
 * for Neural Dependency Parsing"): the arc scorer, the cross-entropy over each word's candidate
 * heads, the gather of each word's head vector and the bilinear label scorer.
 *
 * A sentence of n words is scored against n + 1 candidate heads: column 0 is ROOT, column j
 * (1 <= j <= n) is the sentence's word j. A "head index" is such a column: 0 = ROOT, j = word j
 * of the word's own sentence (CoNLL-U's HEAD), < 0 = none (ignored). */
#ifndef QKV_OPS_BIAFFINE_H
#define QKV_OPS_BIAFFINE_H

#include <stdint.h>

#include "lib/packed.h"
#include "lib/tape.h"

/* Arc scores of a packed batch (lib/packed.h, no empty sentence): for word t of a sentence of
 * n words and candidate head j,
 *     s[t, j] = dep_t^T U h_j + u^T h_j,   h_0 = root, h_j = head[first word + j - 1],
 * dep, head [T, d] (the dependent and head roles of each word), root [d] (ROOT's head vector),
 * U [d, d], u [d] (may be NULL: no head prior) -> [T, L + 1] with L the longest sentence;
 * columns j > n of a sentence's rows are 0 and take no gradient. One tape node
 * "biaffine_arcs". Tape errors: shapes other than these, bad sentences. */
qkv_tensor *qkv_biaffine_arcs(qkv_tape *tp, qkv_tensor *dep, qkv_tensor *head, qkv_tensor *root, qkv_tensor *U,
                              qkv_tensor *u, qkv_packed sentences);

/* Mean cross-entropy over the words with a gold head: for row t of a sentence of n words, the
 * softmax over its K = n + 1 candidate heads, columns 0..n of scores [T, C] (C > the longest
 * sentence), and the gold head heads[t] (0..n; < 0: the row is ignored), with label smoothing ε
 * (Szegedy et al. 2016, section 7: the target is 1 - ε on the gold head plus ε / K on each
 * candidate; ε = 0, one-hot, takes the path without the smoothing terms, bit for bit):
 *     loss = (1 / |R|) Σ_{t ∈ R} [(1 - ε)(lse_t - s[t, heads[t]]) + ε (lse_t - (1/K) Σ_{j <= n} s[t, j])],
 *     lse_t = log Σ_{j <= n} exp s[t, j],
 * max-shifted, sums in double; no gold head at all gives 0 and a zero gradient. The heads are
 * copied. One tape node "arc_cross_entropy". Tape errors: a head > n (naming the row), ε outside
 * [0, 1), shapes, bad sentences. */
qkv_tensor *qkv_arc_cross_entropy(qkv_tape *tp, qkv_tensor *scores, qkv_packed sentences, const int32_t *heads,
                                  double smoothing);

/* Each word's head vector: row t of the result is root [d] when heads[t] = 0, x[first word of
 * t's sentence + heads[t] - 1] when heads[t] >= 1, zeros when heads[t] < 0. x [T, d] -> [T, d].
 * The heads are copied. One tape node "gather_heads". Tape errors: a head > n, shapes, bad
 * sentences. */
qkv_tensor *qkv_gather_heads(qkv_tape *tp, qkv_tensor *x, qkv_tensor *root, qkv_packed sentences,
                             const int32_t *heads);

/* Bilinear scores row by row (PyTorch's nn.Bilinear without bias): y[n, l] = a_n^T U_l b_n,
 * a [N, d1], b [N, d2], U [L, d1, d2] -> [N, L]. One tape node "bilinear". Tape errors: shapes. */
qkv_tensor *qkv_bilinear(qkv_tape *tp, qkv_tensor *a, qkv_tensor *b, qkv_tensor *U);

#endif
