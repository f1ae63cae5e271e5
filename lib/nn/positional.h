/* Positional encodings of the token representations of a packed batch.
 *
 *   y[t] = x[t] · (scale_input ? sqrt(d_model) : 1) + PE(p(t))
 *
 * where p(t) is the position of token t inside its own sentence (restarting at 0 for every
 * sentence of the packed batch, see lib/packed.h). Each kind is a descriptor in its own file
 * (lib/nn/pos_<name>.c: its formula and paper) and one row of QKV_POS_KINDS below; by how they
 * act (qkv_pos_group):
 *   additive    PE from the kind (a kind without pe: PE = 0, only the optional scaling applies)
 *   rotation    of q and k inside every attention layer (PE = 0 here)
 *   score bias  added to every attention layer's scores (lib/ops/score_bias.h; PE = 0 here)
 * The relative position biases (model.attn_rel_clip) are a score bias of each attention layer
 * (lib/ops/rel_bias.h), not a positional kind.
 * The 2-D kinds (rel2d, quadratic2d, rope2d) act inside attention on the grid of the layer's
 * options (qkv_attention_opts.grid, lib/grid.h: the network copies its config's grid there); their
 * learned values (rel2d, quadratic2d) are each attention layer's own parameters (lib/nn/mha.h),
 * so they add none here. */
#ifndef QKV_POSITIONAL_H
#define QKV_POSITIONAL_H

#include <stdint.h>

#include "lib/grid.h"
#include "lib/nn/floater.h"
#include "lib/ops/attention.h"
#include "lib/param.h"
#include "lib/packed.h"
#include "lib/tape.h"

/* The positional kinds, one row each: X(ID, name) gives the value QKV_POS_<ID>, the spelling
 * "name" of configs (QKV_POS_KIND_NAMES) and the descriptor qkv_pos_<name> (lib/nn/pos_<name>.c).
 * Values are the row order: append new kinds. */
#define QKV_POS_KINDS(X)                                                                                  \
    X(NONE, none)                                                                                      \
    X(SINUSOIDAL, sinusoidal)                                                                          \
    X(LEARNED, learned)                                                                                \
    X(ROPE, rope)                                                                                      \
    X(ALIBI, alibi)                                                                                    \
    X(FLOATER, floater)                                                                                \
    X(REL2D, rel2d)                                                                                    \
    X(QUADRATIC2D, quadratic2d)                                                                        \
    X(ROPE2D, rope2d)                                                                        \
    X(SINUSOIDAL2D, sinusoidal2d)                                                                      \
    X(LEARNED2D, learned2d)

typedef enum {
#define QKV_POS_ENUM_ROW(id, name) QKV_POS_##id,
    QKV_POS_KINDS(QKV_POS_ENUM_ROW)
#undef QKV_POS_ENUM_ROW
    QKV_POS_COUNT
} qkv_pos_kind;
/* The kinds' names (index = value), then NULL. */
extern const char *const QKV_POS_KIND_NAMES[];

/* Learned positions, a sentence longer than max_len: an error, or clamp (see pos_learned.c). */
typedef enum { QKV_POS_OVERFLOW_ERROR = 0, QKV_POS_OVERFLOW_CLAMP, QKV_POS_OVERFLOW_COUNT } qkv_pos_overflow;
/* "error", "clamp" (index = value), then NULL. */
extern const char *const QKV_POS_OVERFLOW_NAMES[];

typedef struct qkv_positional {
    qkv_pos_kind kind;
    int d_model;
    int max_len;        /* learned: rows of the table */
    bool scale_input;   /* multiply x by sqrt(d_model) first */
    qkv_pos_overflow overflow; /* learned, clamp: PE(p) = row min(p, max_len - 1) instead of an
                                  error; error after qkv_positional_create, set it afterwards */
    double rope_base;   /* rope, rope2d: base of the rotation frequencies (lib/ops/rope.h); 0 after
                           qkv_positional_create, set it afterwards (0: no rotation) */
    int clip_2d;        /* rel2d: the clip R of the offsets (lib/ops/grid_bias.h); 0 after
                           qkv_positional_create, set it afterwards */
    qkv_tensor *table;  /* learned: [max_len, d_model] parameter; else NULL */
    qkv_floater floater; /* floater: its parameters */
    qkv_grid grid;      /* the 2-D layout of every sequence's tokens (lib/grid.h), from
                           qkv_positional_create_grid; rows 0: 1-D */
    qkv_tensor *row_table, *col_table; /* learned2d: its parameters */
} qkv_positional;

/* One matrix that `qkv positions` draws: data [rows, cols], malloc'd (free it); blocks > 1:
 * the columns are that many matrices side by side (one per head), drawn apart. */
typedef struct qkv_pos_panel {
    char title[160];
    const char *xlabel, *ylabel;
    int rows, cols;
    double *data;
    int blocks;
} qkv_pos_panel;

typedef enum { QKV_POS_ADDITIVE = 0, QKV_POS_ROTATION, QKV_POS_SCORE_BIAS } qkv_pos_group;

/* A positional kind. Every hook may be NULL (then: nothing to do). */
typedef struct qkv_pos_desc {
    const char *name;   /* its QKV_POS_KIND_NAMES entry */
    qkv_pos_group group;
    const char *params; /* the config keys it reads besides model.positional, e.g. "model.rope_base", or "" */
    bool needs_grid;    /* a 2-D kind: acts on the 2-D grid of the attention options (lib/grid.h), or
                           (additive 2-D kinds) builds PE from each token's row and column on
                           pos->grid; a model without a grid is an error */
    /* Parameters "<prefix>.<...>" in ps (rng for their initialization); errors (err). */
    int (*create)(qkv_positional *pos, qkv_params *ps, qkv_rng *rng, const char *prefix, qkv_error *err);
    /* Additive: PE [rows, d_model] for positions 0 .. longest − 1 (a tape tensor or a parameter;
     * qkv_add_positions reads row p of it), or NULL with the tape failed. */
    qkv_tensor *(*pe)(qkv_tape *tp, const qkv_positional *pos, int longest);
    /* Rotation and score bias: what it sets in every attention layer's options. */
    void (*attention)(const qkv_positional *pos, qkv_attention_opts *opts);
    /* `qkv positions`: the positions 0 .. n' − 1 it can draw of n asked (n' <= n). */
    int (*drawable)(const qkv_positional *pos, int n);
    /* `qkv positions`: fills enc (position × its dimensions) and sim (position × position) for
     * positions 0 .. n − 1 of a model of n_heads attention heads; errors (err): out of memory,
     * a tape failure. Panels allocated before an error are the caller's to free. */
    int (*draw)(const qkv_positional *pos, int n, int n_heads, qkv_pos_panel *enc, qkv_pos_panel *sim,
                qkv_error *err);
    const char *draws;  /* what draw shows (position × ...; position × position), or draw_grid (the heads;
                           their mean), for `qkv positions --help` */
    /* `qkv positions` of a 2-D kind that acts in attention (rotation, score bias): what one
     * attention layer gives the keys of its grid's centre query (row rows / 2, column cols / 2
     * of opts->grid), from the layer's options opts (as the kind's attention set them), its
     * learned values param (the layer's pos_param, or NULL) and n_heads heads of d_head
     * dimensions: heads [rows, n_heads · cols] (each head's map side by side, blocks n_heads)
     * or [rows, cols], and mean [rows, cols]; their titles say what they are (the caller names
     * the kind, layer and query). Errors (err): out of memory. Panels allocated before an
     * error are the caller's to free. */
    int (*draw_grid)(const qkv_attention_opts *opts, qkv_tensor *param, int n_heads, int d_head, qkv_pos_panel *heads,
                     qkv_pos_panel *mean, qkv_error *err);
} qkv_pos_desc;

/* The table of kinds [QKV_POS_COUNT] (index = value), built from QKV_POS_KINDS. */
extern const qkv_pos_desc *const QKV_POS_DESCS[];

/* Fills pe [d_model] with the sinusoidal encoding of position p (computed in double). */
void qkv_sinusoidal(int p, int d_model, qkv_real *pe);

/* Sets up pos; the kind's parameters (its create: "<prefix>.table" for learned, the ODE's for
 * floater) go to ps, drawn from rng. Errors (err): d_model < 1, an unknown kind, the kind's
 * create (e.g. learned with max_len < 1, a parameter that cannot be added). */
int qkv_positional_create(qkv_positional *pos, qkv_pos_kind kind, int d_model, int max_len, bool scale_input,
                          qkv_params *ps, qkv_rng *rng, const char *prefix, qkv_error *err);

/* The same for tokens laid out on a 2-D grid (lib/grid.h; rows 0: 1-D, as qkv_positional_create):
 * a 2-D kind (its needs_grid) reads the grid when made and when applied, since every sequence
 * is then n_prefix + rows·cols tokens and PE(p) is that of token p's row and column. Errors:
 * those of qkv_positional_create, a 2-D kind without a grid. */
int qkv_positional_create_grid(qkv_positional *pos, qkv_pos_kind kind, int d_model, int max_len, qkv_grid grid,
                               bool scale_input, qkv_params *ps, qkv_rng *rng, const char *prefix, qkv_error *err);

/* y [T, d_model] = x · s + PE(position in sentence). x [T, d_model], sentences packed as in
 * lib/packed.h. One tape node "positional" (gradients to x and to the table).
 * Tape errors: x not [T, d_model], sentences not covering x, a sentence longer than max_len
 * (learned, overflow error). */
qkv_tensor *qkv_positional_apply(qkv_tape *tp, const qkv_positional *pos, qkv_tensor *x, qkv_packed sentences);

/* Sets what pos's kind does inside attention: opts->rope_base (0 unless a rotation),
 * opts->rope_2d, opts->pos_bias (NULL unless a score bias) and opts->pos_bias_clip; not
 * opts->grid. */
void qkv_positional_attention(const qkv_positional *pos, qkv_attention_opts *opts);

/* For the kinds' draw: p->data = zeros [rows, cols] with the axis labels; NULL (err) when out
 * of memory. */
double *qkv_pos_panel_alloc(qkv_pos_panel *p, int rows, int cols, const char *xlabel, const char *ylabel,
                            qkv_error *err);
/* The draw of the additive kinds: enc = PE(p) [n, d_model] (row p of the kind's pe, its last
 * row past its end), sim = the cosine of PE(i) and PE(j). */
int qkv_pos_draw_additive(const qkv_positional *pos, int n, int n_heads, qkv_pos_panel *enc, qkv_pos_panel *sim,
                          qkv_error *err);
/* The draw_grid of the 2-D score-bias kinds (rel2d, quadratic2d): each head's bias
 * b(h, centre query, key) of opts->pos_bias over the grid's keys, the heads side by side, then
 * their mean. */
int qkv_pos_draw_score_bias_grid(const qkv_attention_opts *opts, qkv_tensor *param, int n_heads, int d_head,
                                 qkv_pos_panel *heads, qkv_pos_panel *mean, qkv_error *err);

#endif
