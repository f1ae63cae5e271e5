/* A drawing of a dependency tree through Graphviz: the tree as a DOT graph (ROOT on top, each
 * word below its head, arcs labelled with their DEPREL and the parser's probability of that
 * head), written beside the image (FILE.dot) and laid out by `dot` (Debian: graphviz). */
#ifndef QKV_PLOT_TREE_H
#define QKV_PLOT_TREE_H

#include <stddef.h>
#include <stdint.h>

#include "lib/error.h"

typedef struct qkv_tree_plot {
    int n_words;
    const char *const *words;  /* [n_words] FORMs */
    const char *const *labels; /* [n_words] each arc's DEPREL */
    const int32_t *arcs;      /* [n_words] 0 = ROOT, k = word k */
    const double *probs;       /* [n_words] the probability of each word's head, or NULL */
} qkv_tree_plot;

/* The DOT path for an image: the image path with its extension replaced by ".dot". */
void qkv_tree_dot_path(const char *image, char *out, size_t len);

/* Writes the DOT file beside image (.png or .svg) and runs `dot -Tpng|svg -o IMAGE FILE.dot`.
 * Errors: the extension, the file not writable, dot missing (the DOT file is written) or
 * failing. */
int qkv_plot_tree(const qkv_tree_plot *tp, const char *image, qkv_error *err);

#endif
