/* Decoding a dependency tree from arc scores (not differentiable).
 *
 * A sentence of n >= 1 words with ROOT as node 0: scores [n, n + 1] row-major, in double,
 * scores[(i - 1)·(n + 1) + j] the score of word j (0: ROOT) as the head of word i (1..n); the
 * diagonal (a word as its own head) is never chosen. heads [n] receives each word's head, 0..n
 * (CoNLL-U's HEAD). Every decoder returns a tree: each word reaches ROOT, no cycle, and
 * exactly one word hangs from ROOT, as UD requires. A tree's score is the sum of its arcs'. */
#ifndef QKV_TREE_DECODE_H
#define QKV_TREE_DECODE_H

#include <stdint.h>

#include "lib/error.h"

typedef enum { QKV_TREE_MST = 0, QKV_TREE_EISNER, QKV_TREE_DECODER_COUNT } qkv_tree_decoder;
/* "mst", "eisner" (index = value), then NULL. */
extern const char *const QKV_TREE_DECODER_NAMES[];

/* The highest-scoring tree: the maximum spanning arborescence (Chu and Liu 1965, Edmonds 1967),
 * with exactly one child of ROOT by lowering every ROOT arc by more than any tree's spread
 * (one decoding; among one-root trees the order is unchanged). O(n³) time, O(n³) memory at
 * worst. Errors: n < 1, a score not finite, out of memory. */
int qkv_tree_mst(const double *scores, int n, int32_t *heads, qkv_error *err);

/* The highest-scoring projective tree (Eisner 1996), one child of ROOT: the chart over words
 * 1..n, then ROOT's one child. O(n³) time, O(n²) memory. Errors as qkv_tree_mst. */
int qkv_tree_eisner(const double *scores, int n, int32_t *heads, qkv_error *err);

/* By kind. */
int qkv_tree_decode(qkv_tree_decoder kind, const double *scores, int n, int32_t *heads, qkv_error *err);

/* Whether heads [n] (values 0..n) is a tree with exactly one child of ROOT; projective too
 * when `projective` is set (every word between a head and its dependent descends from the
 * head). */
int qkv_tree_is_valid(const int32_t *heads, int n, int projective);

/* The sum of the tree's arc scores. */
double qkv_tree_score(const double *scores, int n, const int32_t *heads);

#endif
