/* The network of every task (a tagger, a parser, an image classifier, a speech frame labeller),
 * built from lib/ and from parts chosen in the kind tables of models/kinds.h:
 *   input (model.input_kind: words, models/word_input.c: token features -> embeddings, one table
 *   per feature kind, summed [+ the character encoder's vector of each word, models/char_cnn.h];
 *   or frames, models/frames_input.c: dense vectors [T, d_input] -> a linear map)
 *   [-> · sqrt(d_model)] -> + positional encoding -> dropout -> the encoder (model.encoder:
 *   models/transformer_encoder.c, bilstm_encoder.c, cnn_encoder.c) -> layer norm -> the heads
 *   (model.output: models/softmax_head.c, crf_head.c), each a linear map to its tag logits
 *   [T, n_tags] with its loss and decoder, or a dependency parser (biaffine_head.c) whose
 *   targets are arcs; a head without arcs reads the layer norm's output after dropout
 *   head_dropout, the parser reads it whole. The encoder is n_layers Transformer blocks
 *   (lib/nn/encoder.h), a bidirectional LSTM of n_layers layers (lib/nn/lstm.h; no positional
 *   encoding, output 2·lstm_hidden wide) or n_layers residual convolution blocks
 *   (lib/nn/conv_block.h; no positional encoding).
 * The model holds an array of heads over its one encoder: qkv_network_init makes the first
 * (prefix "", the names below), qkv_network_add_head more (each with its own prefix, tag set
 * and loss weight). The single-head functions (qkv_network_logits, _loss, _predict) use head 0.
 * Input is a packed batch (lib/packed.h): T tokens of B sentences end to end.
 *
 * Parameter names (also the HDF5 dataset names of a checkpoint and a PyTorch port's names):
 *   embed.<feature>            [vocab_size, d_model]   e.g. embed.word, embed.suffix3
 *   frames.w [d_model, d_input], frames.b [d_model]    frames input only
 *   chars.*                    see models/char_cnn.h    with the character encoder only
 *   pos.table                  [max_len, d_model]      learned positions only
 *   pos.p0, .w1, .b1, .w_t, .w2, .b2                   floater positions only (lib/nn/floater.h)
 *   encoder.layers.<i>.*       see lib/nn/encoder.h (transformer), lib/nn/conv_block.h (cnn) or
 *                              lib/nn/conv2d_block.h (cnn2d)
 *   encoder.layers.<i>.attn.rel2d_bias, .attn.quadratic   positional rel2d, quadratic2d only
 *                              (lib/ops/grid_bias.h)
 *   encoder.lstm.*             see lib/nn/lstm.h (bilstm)
 *   final_ln.gain, final_ln.bias  [d_out]           d_out = d_model, or 2·lstm_hidden (bilstm)
 *   <head>classifier.w [n_tags, d_out], <head>classifier.b [n_tags]
 *   <head>crf.*                see models/crf_head.h    with output crf only
 *   <head>arc_mlp.*, rel_mlp.*, arc.*, rel.*  see models/biaffine_head.c  with output biaffine only
 *   tag_embed.<tag set>        [n_tags, tag_input_dim]  the parser's tag inputs only
 * where <head> is the head's prefix: "" for the first head. */
#ifndef QKV_NETWORK_H
#define QKV_NETWORK_H

#include <stdint.h>

#include "lib/grid.h"
#include "lib/nn/conv2d_block.h"
#include "lib/nn/conv_block.h"
#include "lib/nn/encoder.h"
#include "lib/nn/lstm.h"
#include "lib/param.h"
#include "lib/nn/positional.h"
#include "lib/packed.h"
#include "lib/tape.h"
#include "models/char_cnn.h"
#include "models/crf_head.h"
#include "models/kinds.h"

#define QKV_NETWORK_MAX_FEATURES 32
#define QKV_NETWORK_MAX_LAYERS 64
#define QKV_NETWORK_MAX_HEADS 16
#define QKV_NETWORK_MAX_TAG_INPUTS 7 /* with the encoder output, the parts of one column concatenation */

typedef struct qkv_network_config {
    int n_features;
    const char *feature_names[QKV_NETWORK_MAX_FEATURES]; /* "word", "lower", "suffix3", ... */
    int vocab_sizes[QKV_NETWORK_MAX_FEATURES];
    int n_tags;
    int n_layers;
    qkv_encoder_opts encoder;        /* d_model, d_ff, attention options, dropout (also applied
                                        to the embeddings after adding positions), ... */
    double head_dropout;             /* dropout on the final layer norm's output as the heads
                                        without arcs read it (the parser's MLPs drop their own) */
    qkv_pos_kind positional;
    int max_len;                     /* rows of the learned table */
    qkv_pos_overflow pos_overflow;   /* learned: clamp = positions >= max_len use the last row */
    double rope_base;                /* rope: base of the rotation frequencies (lib/ops/rope.h) */
    bool scale_embeddings;
    qkv_char_cnn_config chars;       /* char_dim 0: no character encoder (d_model is filled in) */
    qkv_encoder_kind encoder_kind;   /* transformer (default), bilstm or cnn */
    int lstm_hidden;                 /* bilstm: hidden size per direction; 0 = d_model / 2 */
    int cnn_kernel, cnn_dilation;    /* cnn: convolution width (odd) and dilation (0 = 1) */
    qkv_output_kind output;
    bool crf_constrained;            /* crf: BIO (BIOES) constraints from tag_names, training and decoding */
    const char *const *tag_names;    /* [n_tags]; read by qkv_network_init only */
    qkv_input_kind input_kind;       /* words (default), frames, or pixels, patches and conv_patches
                                        (images) */
    int d_input;                     /* frames: width of a dense token vector */
    qkv_grid grid;                   /* the 2-D layout of every sequence (lib/grid.h): set by an image
                                        input, rows 0 for words; the network copies it into every
                                        attention layer's options (encoder.attn.grid) */
    int rel2d_clip;                  /* positional rel2d: the clip R of the 2-D offsets */
    qkv_cnn2d_pool cnn2d_pool;       /* cnn2d: pooling after each block (lib/nn/conv2d_block.h) */
    int patch_size;                  /* patches, conv_patches: side of a patch in pixels */
    int stem_layers, stem_channels;  /* conv_patches: 3 x 3 convolution blocks under the patch
                                        embedding, and their channels */
    bool cls_token;                  /* image inputs: a learned [CLS] token before the grid */
    qkv_seq_pool pool;                   /* class head: a sequence's mean, or its [CLS] token */
    qkv_biaffine_opts biaffine;      /* output biaffine: MLP widths and the tree decoder (its
                                        dropout is encoder.dropout) */
    int n_tag_inputs;                /* output biaffine: how many tagging heads' distributions the
                                        parser reads beside the encoder output (0: none; models/
                                        network_tag_inputs.c, qkv_network_add_tag_input) */
    int tag_input_dim;               /* the width d of each of those tag vectors */
    size_t max_param_values;         /* the most scalar parameter values the model may have, heads
                                        added later included (0: no bound; lib/param.h: max_values) */
} qkv_network_config;

/* One packed batch, as the model reads it. */
typedef struct qkv_network_input {
    qkv_packed sentences;          /* the tokens of each sentence: T = qkv_packed_rows */
    const int32_t *const *features;  /* [n_features][T], ids (0 = UNK) */
    qkv_packed words;              /* character encoder only: the characters of each token (n = T) */
    const int32_t *chars;            /*   [qkv_packed_rows(words)] character ids */
    const float *dense; /* [T, d_input] row-major, dense token vectors (images, speech frames); NULL for words */
} qkv_network_input;

typedef struct qkv_network {
    qkv_network_config cfg;
    qkv_params params;
    qkv_input input;                 /* QKV_INPUT_DESCS[cfg.input_kind] */
    qkv_positional pos;              /* kind none unless the encoder takes positions */
    qkv_encoder encoder;             /* QKV_ENCODER_DESCS[cfg.encoder_kind] */
    qkv_tensor *final_gain, *final_bias; /* final_ln [d_out] */
    int n_outputs;                   /* heads in use: 1 after qkv_network_init */
    qkv_head heads[QKV_NETWORK_MAX_HEADS];
    int n_tag_inputs;                /* tag inputs of the parser added so far (qkv_network_add_tag_input) */
    int tag_input_head[QKV_NETWORK_MAX_TAG_INPUTS];   /* the tagging head of each */
    qkv_tensor *tag_embed[QKV_NETWORK_MAX_TAG_INPUTS]; /* its tag vectors [n_tags of that head, d] */
} qkv_network;

/* Creates and initialises every parameter from rng (NULL: allocated only, lib/param.h), in
 * this order: the input's (embeddings N(0, 1/n_features) so that their sum has unit variance),
 * the positions', the encoder's (as lib/nn/encoder.h, lstm.h, conv_block.h), final layer norm
 * gain 1 and bias 0, head 0 of kind cfg->output over cfg->n_tags (classifier Xavier uniform
 * with zero bias, CRF scores 0). Errors: bad sizes, n_heads not dividing d_model, too many
 * features or layers, an unknown kind, more parameter values than cfg->max_param_values (the
 * first parameter past it is refused before it is allocated), tag inputs (cfg->n_tag_inputs > 0)
 * of a head 0 that is not a parser or more than QKV_NETWORK_MAX_TAG_INPUTS of them. */
int qkv_network_init(qkv_network *m, const qkv_network_config *cfg, qkv_rng *rng, qkv_error *err);
void qkv_network_free(qkv_network *m);

/* Appends a head of spec over the encoder output [T, d_out] (its parameter names start with
 * spec->prefix, which must differ from every other head's; biases are not weight-decayed).
 * Errors: QKV_NETWORK_MAX_HEADS heads already, a name taken, the head's (models/kinds.h). */
int qkv_network_add_head(qkv_network *m, const qkv_head_spec *spec, qkv_rng *rng, qkv_error *err);
/* The parser's tag inputs (cfg.n_tag_inputs of them, Dozat and Manning's predicted tags as a joint
 * model's soft, differentiable form): head 0, a parser, then reads
 *   x' = [x, softmax(logits_1) E_1, ..., softmax(logits_k) E_k]   [T, d_out + k·d]
 * for the encoder output x [T, d_out], logits_i [T, n_i] those of tagging head i over x and
 * E_i [n_i, d] a parameter "tag_embed.<its tag set>" (N(0, 1) rows, not weight-decayed; d =
 * cfg.tag_input_dim). The gradient of the parser's loss flows through the softmax into the
 * tagging head and the encoder under it (stack-propagation, Zhang and Weiss 2016): the tags
 * the parser reads are shaped by what helps it, with no second optimiser path to keep.
 * qkv_network_init sizes head 0's input for all k; this adds the next of them, E for head
 * `head` (a softmax head, added before). Errors: head 0 not a parser, head out of range
 * or not a softmax head, all cfg.n_tag_inputs already added, a parameter's. */
int qkv_network_add_tag_input(qkv_network *m, int head, qkv_rng *rng, qkv_error *err);
/* What head i reads of hidden [T, d_out] (qkv_network_hidden): a head without arcs (a tagger's,
 * a class head) hidden after dropout cfg.head_dropout (on a training tape; a new mask at each
 * call), a parser hidden itself, or x' above for head 0 of a model with tag inputs (its tag
 * heads' logits over their own dropped input). logits [n_outputs] (may be
 * NULL) holds the heads' logits over this hidden computed so far, NULL where none: the logits_i
 * of a tag input are taken from there, or computed and stored there, so that the caller's own
 * use of that head (its loss, its prediction) reads the same tensor and each head's logits are
 * computed once. NULL when the tape failed. */
qkv_tensor *qkv_network_head_input(qkv_tape *tp, const qkv_network *m, int i, qkv_tensor *hidden,
                                   qkv_packed sentences, qkv_tensor **logits);
static inline int qkv_network_n_outputs(const qkv_network *m) { return m->n_outputs; }
static inline const qkv_head *qkv_network_head(const qkv_network *m, int i) { return &m->heads[i]; }
/* Head 0's CRF, or NULL when head 0 is not a CRF head. */
static inline const qkv_crf_head *qkv_network_crf(const qkv_network *m) { return qkv_head_crf(&m->heads[0]); }
/* Transformer block i (its attention's relative biases, ...), or NULL: no such layer, or an
 * encoder without attention. */
const qkv_encoder_block *qkv_network_block(const qkv_network *m, int i);

/* For an image input (its desc's patch hook): cfg->grid = (rows/p) x (cols/p) tokens after
 * cfg->cls_token ? 1 : 0, and cfg->d_input = p·p·channels, p the kind's patch side; nothing for
 * other inputs. Errors: "model.patch_size P does not divide the images' R x C pixels", sizes
 * below 1. */
int qkv_network_image_grid(qkv_network_config *cfg, int rows, int cols, int channels, qkv_error *err);

/* The width of the encoder's output: d_model, or 2·hidden for a bilstm with layers. */
int qkv_network_d_out(const qkv_network_config *cfg);

/* The normalised encoder output [T, d_out] under every head: each reads it through
 * qkv_network_head_input (a tagging or class head after head_dropout in training, a parser as it
 * is or beside its tag inputs); NULL when the tape failed
 * (tp->err says why, e.g. a sentence longer than max_len with learned positions, or no
 * characters for a model with a character encoder). `keep` (may be NULL) receives the
 * attention weights of layer keep_layer (transformer only; other encoders leave it untouched). */
qkv_tensor *qkv_network_hidden(qkv_tape *tp, qkv_network *m, const qkv_network_input *in, int keep_layer,
                              qkv_attention_weights *keep);
/* Head 0's logits [T, n_tags] for a batch (qkv_network_hidden, qkv_network_head_input, then the
 * head); NULL when the tape failed. */
qkv_tensor *qkv_network_logits(qkv_tape *tp, qkv_network *m, const qkv_network_input *in,
                              int keep_layer, qkv_attention_weights *keep);

/* --- models/network_output.c: logits into a loss or into tags, by each head's kind --- */
/* Head 0's training loss of a batch's logits [T, n_tags] against gold (models/kinds.h: qkv_gold;
 * tags [T], < 0: no gold tag), per token with a gold tag: softmax, the mean cross-entropy over
 * those tokens; crf, the summed sentence NLL (unknown tags marginalised, the BIO mask applied
 * when constrained) divided by their number (0 when there is none); biaffine (a head with
 * arcs), the mean cross-entropy over the gold arcs [T] plus that of the gold arcs' labels (no
 * gold arcs: NULL). The cross-entropies' targets are smoothed by gold->label_smoothing (a crf
 * head fails the tape when it is not 0). A scalar [1] on tp; NULL when the tape failed.
 * qkv_network_loss is it with tags alone, no smoothing. */
qkv_tensor *qkv_network_loss(qkv_tape *tp, const qkv_network *m, qkv_tensor *logits, qkv_packed sentences,
                            const int32_t *tags);
qkv_tensor *qkv_network_gold_loss(qkv_tape *tp, const qkv_network *m, qkv_tensor *logits, qkv_packed sentences,
                                 const qkv_gold *gold);
/* Head i's prediction (0 <= i < n_outputs) of a batch's logits into out (models/kinds.h:
 * qkv_prediction), by its kind: softmax, the argmax of each row (first on ties); crf, the
 * Viterbi path of each sentence (with the BIO mask when constrained); biaffine (a head with
 * arcs), the tree of each sentence into out->arcs [T] (required) and each arc's label into
 * out->tags; the other kinds set out->arcs (may be NULL) to -1. With gold (may be NULL; head
 * i's column's gold classes, and the batch's gold arcs), *out->loss_sum receives the summed
 * loss of the tokens with a gold tag (the numerator of qkv_network_gold_loss). With
 * out->unconstrained [B] (may be NULL) a constrained CRF decodes a sentence with no allowed tag
 * sequence without the constraints, flags it there and gives *loss_sum +inf; without, that is
 * the error (err->sentence: its index in sentences). Errors: the tape's or the decoder's.
 * qkv_network_predict is head 0's with tags alone (an error for a parser). */
int qkv_network_head_predict(qkv_tape *tp, const qkv_network *m, int i, qkv_tensor *logits, qkv_packed sentences,
                            const qkv_gold *gold, const qkv_prediction *out, qkv_error *err);
int qkv_network_predict(qkv_tape *tp, const qkv_network *m, qkv_tensor *logits, qkv_packed sentences,
                       const int32_t *gold, int32_t *pred, double *loss_sum, qkv_error *err);
/* Head 0's probability of each tag for each token, probs [T, n_tags] in double: softmax, of the
 * token's logits; crf, the marginals of its sentence (forward-backward, under the constraints;
 * unconstrained as for qkv_network_head_predict). Errors: the decoder's, a head without
 * per-word probabilities (biaffine). */
int qkv_network_probs(const qkv_network *m, const qkv_tensor *logits, qkv_packed sentences, double *probs,
                     uint8_t *unconstrained, qkv_error *err);
/* The training loss of every head over hidden [T, d_out] (qkv_network_hidden): the sum over
 * heads h of loss_weight_h · loss_h(tags[h]), each loss_h as qkv_network_gold_loss for that
 * head's kind (a weight of 1 multiplies nothing, so one head gives qkv_network_gold_loss
 * exactly). arcs [T] (may be NULL: an error of the tape for a head with arcs) are the gold
 * arcs of the batch, read by the heads whose targets are arcs (a parser trained with tagging
 * heads over one encoder); the others ignore them. label_smoothing in [0, 1) is every head's
 * qkv_gold.label_smoothing. logits (may be NULL) receives each head's logits [T, n_tags_h] (a
 * head with arcs: its input, qkv_network_head_input). A scalar [1]; NULL when the tape failed. */
qkv_tensor *qkv_network_heads_loss(qkv_tape *tp, const qkv_network *m, qkv_tensor *hidden, qkv_packed sentences,
                                  const int32_t *const *tags, const int32_t *arcs, double label_smoothing,
                                  qkv_tensor **logits);
/* Whether head 0 predicts arcs (a dependency parser): the one question of what a model can do
 * that commands ask (a tree to draw, arcs to return); what it is scored by is
 * qkv_network_scored_by. */
static inline bool qkv_network_parses(const qkv_network *m) { return qkv_head_has_arcs(&m->heads[0]); }
/* Whether head 0 scores each word's tags: logits [T, n_tags] and their probabilities (its
 * descriptor's probs: softmax, crf, class; a parser's logits are its input, its labels belong to
 * its arcs). */
static inline bool qkv_network_tag_scores(const qkv_network *m) { return qkv_head_tag_scores(&m->heads[0]); }
/* Whether the model is scored by `score` (models/kinds.h: qkv_score_kind): head 0's scores
 * (QKV_SCORE_ATTACHMENT: UAS and LAS, LAS the model's score). */
static inline bool qkv_network_scored_by(const qkv_network *m, qkv_score_kind score)
{
    return qkv_head_scored_by(&m->heads[0], score);
}

/* The parameters (names above; like strchr, a const model gives them writable: the caller
 * decides); layers and heads per layer. */
static inline qkv_params *qkv_network_params(const qkv_network *m) { return (qkv_params *)&m->params; }
static inline int qkv_network_n_layers(const qkv_network *m) { return m->cfg.n_layers; }
static inline int qkv_network_n_heads(const qkv_network *m) { return m->cfg.encoder.attn.n_heads; }

/* The embedding tables the model's input looks rows up in (words: 0 .. n_features-1
 * "embed.<feature>", then with the character encoder "chars.embed"). */
static inline int qkv_network_n_tables(const qkv_network *m) { return m->input.desc->n_tables(&m->input); }
/* Table i (0 <= i < qkv_network_n_tables) and the ids of in that select its rows, *n_ids of them
 * (repeats included): the rows a batch touches, the only ones with a nonzero gradient. */
const qkv_tensor *qkv_network_table_rows(const qkv_network *m, const qkv_network_input *in, int i, const int32_t **ids,
                                        int *n_ids);

#endif
