/* The parts a model is made of, each chosen from a table of kinds:
 *   input (batch -> [T, d_model]) -> positions (lib/nn/positional.h) -> encoder
 *   ([T, d_model] -> [T, d_out]) -> final layer norm -> one or more heads ([T, d_out] ->
 *   logits, loss, prediction).
 * A kind is a descriptor (its name, create, forward, the prefixes of its parameter names, free)
 * defined in its own file, and one row of a list below: the list makes the kind's enum value
 * (its index in the table and in the config), its name and its table entry. A new kind is
 * therefore its file plus one row.
 *
 * Every descriptor's parameters are added to the model's qkv_params in a fixed order, all of
 * their names beginning with one of the descriptor's param_prefixes (a head's prefixes follow
 * the head's own name prefix, qkv_head.prefix). Kind state is allocated by create and released
 * by free (safe on a part that create left half made, or zeroed). */
#ifndef QKV_MODEL_KINDS_H
#define QKV_MODEL_KINDS_H

#include <stdbool.h>
#include <stdint.h>

#include "lib/error.h"
#include "lib/nn/encoder.h"
#include "lib/param.h"
#include "lib/packed.h"
#include "lib/tape.h"
#include "lib/tree_decode.h"

/* X(ENUM_SUFFIX, "name", descriptor): one row per kind, in enum order. */
#define QKV_INPUT_KINDS(X)                                                                            \
    X(WORDS, "words", qkv_words_input)                                                                \
    X(FRAMES, "frames", qkv_frames_input)                                                               \
    X(PIXELS, "pixels", qkv_pixels_input)                                                             \
    X(PATCHES, "patches", qkv_patches_input)                                                          \
    X(CONV_PATCHES, "conv_patches", qkv_conv_patches_input)
#define QKV_ENCODER_KINDS(X)                                                                          \
    X(TRANSFORMER, "transformer", qkv_transformer_encoder)                                            \
    X(BILSTM, "bilstm", qkv_bilstm_encoder)                                                           \
    X(CNN, "cnn", qkv_cnn_encoder)                                                                    \
    X(CNN2D, "cnn2d", qkv_cnn2d_encoder)
#define QKV_HEAD_KINDS(X)                                                                             \
    X(SOFTMAX, "softmax", qkv_softmax_head)                                                           \
    X(CRF, "crf", qkv_crf_head_kind)                                                                  \
    X(BIAFFINE, "biaffine", qkv_biaffine_head)                                                        \
    X(CLASS, "class", qkv_class_head)

#define QKV_KIND_ENUM_(prefix, e) prefix##e,
#define QKV_INPUT_ENUM_(e, name, desc) QKV_KIND_ENUM_(QKV_INPUT_, e)
#define QKV_ENCODER_ENUM_(e, name, desc) QKV_KIND_ENUM_(QKV_ENCODER_, e)
#define QKV_HEAD_ENUM_(e, name, desc) QKV_KIND_ENUM_(QKV_OUTPUT_, e)
typedef enum { QKV_INPUT_KINDS(QKV_INPUT_ENUM_) QKV_INPUT_KIND_COUNT } qkv_input_kind;
typedef enum { QKV_ENCODER_KINDS(QKV_ENCODER_ENUM_) QKV_ENCODER_KIND_COUNT } qkv_encoder_kind;
/* The output layer (head kind): a softmax per token, a linear-chain CRF over each sentence, a
 * biaffine dependency parser (its targets are arcs: HEAD, with DEPREL as its tags), or one class
 * per sequence (an image). */
typedef enum { QKV_HEAD_KINDS(QKV_HEAD_ENUM_) QKV_OUTPUT_COUNT } qkv_output_kind;
/* The kinds' names (index = value), then NULL: "words", "frames", "pixels", "patches",
 * "conv_patches"; "transformer",
 * "bilstm", "cnn", "cnn2d"; "softmax", "crf", "biaffine", "class". */
extern const char *const QKV_INPUT_KIND_NAMES[];
extern const char *const QKV_ENCODER_KIND_NAMES[];
extern const char *const QKV_OUTPUT_NAMES[];

struct qkv_network_config; /* models/network.h */
struct qkv_network_input;

/* --- inputs: a batch -> token vectors [T, d_model] --- */
typedef struct qkv_input {
    const struct qkv_input_desc *desc;
    void *state;
} qkv_input;

typedef struct qkv_input_desc {
    const char *name;
    const char *const *param_prefixes; /* NULL-terminated */
    /* Image inputs (data/idx.h): the side of the square of pixels one token holds (1: each
     * pixel a token); the session then reads IDX images, cut into these squares, as the batch's
     * dense token vectors (qkv_network_input.dense). NULL: the input reads words. */
    int (*patch)(const struct qkv_network_config *cfg);
    /* Adds the parameters to ps and draws them from rng (NULL: allocated only). */
    int (*create)(qkv_input *in, qkv_params *ps, qkv_rng *rng, const struct qkv_network_config *cfg,
                  qkv_error *err);
    /* [T, d_model], T = qkv_packed_rows(batch->sentences); NULL when the tape failed. */
    qkv_tensor *(*forward)(qkv_tape *tp, const qkv_input *in, const struct qkv_network_input *batch);
    /* Embedding tables whose rows a batch selects (for sparse gradients, models/network_rows.h):
     * how many, and table i with the ids of batch that select its rows. */
    int (*n_tables)(const qkv_input *in);
    const qkv_tensor *(*table_rows)(const qkv_input *in, const struct qkv_network_input *batch, int i,
                                    const int32_t **ids, int *n_ids);
    void (*free)(qkv_input *in);
} qkv_input_desc;

/* --- encoders: [T, d_model] -> [T, d_out] --- */
typedef struct qkv_encoder {
    const struct qkv_encoder_desc *desc;
    int d_out;
    void *state;
} qkv_encoder;

typedef struct qkv_encoder_desc {
    const char *name;
    const char *const *param_prefixes;
    bool takes_positions; /* false: the model adds no positional encoding before this encoder */
    int (*d_out)(const struct qkv_network_config *cfg);
    int (*create)(qkv_encoder *e, qkv_params *ps, qkv_rng *rng, const struct qkv_network_config *cfg,
                  qkv_error *err);
    /* y [T, d_out] for x [T, d_model]; keep (may be NULL) receives the attention weights of
     * layer keep_layer (encoders without attention leave it untouched). */
    qkv_tensor *(*forward)(qkv_tape *tp, const qkv_encoder *e, qkv_tensor *x, qkv_packed sentences,
                           int keep_layer, qkv_attention_weights *keep);
    /* Attention block i, or NULL (no such layer); the function is NULL for kinds without
     * attention. */
    const qkv_encoder_block *(*attention_block)(const qkv_encoder *e, int i);
    /* One line about cfg's encoder for the start of a run (e.g. the receptive field), written to
     * buf; NULL: nothing to say. */
    void (*summary)(const struct qkv_network_config *cfg, char *buf, size_t cap);
    void (*free)(qkv_encoder *e);
} qkv_encoder_desc;

/* --- heads: encoder output [T, d_in] -> logits [T, n_tags] -> loss, tags ---
 * A head whose targets are arcs (a dependency parser) sets .arcs: its logits are its input x
 * [T, d_in] itself, and its gold and predictions (qkv_gold, qkv_prediction) carry each word's
 * arc beside its tag. */
#define QKV_HEAD_NAME_MAX 32

/* The biaffine parser head's sizes (models/biaffine_head.c). */
typedef struct qkv_biaffine_opts {
    int arc_dim, label_dim;   /* widths of the arc and label MLPs */
    double dropout;           /* after each MLP */
    qkv_tree_decoder decoder; /* mst (any tree) or eisner (projective trees) */
} qkv_biaffine_opts;
/* How a per-sequence head makes one vector of a sequence's tokens: their mean, or its first
 * token (the [CLS] token of an image input with model.cls_token). */
typedef enum { QKV_SEQ_POOL_MEAN = 0, QKV_SEQ_POOL_CLS, QKV_SEQ_POOL_COUNT } qkv_seq_pool;
/* "mean", "cls" (index = value), then NULL. */
extern const char *const QKV_SEQ_POOL_NAMES[];

/* What one head predicts and how much it counts. */
typedef struct qkv_head_spec {
    qkv_output_kind kind;
    const char *prefix;            /* of its parameter names: "" (today's names), or e.g. "xpos." */
    const char *tagset;            /* the tag set (data column) it predicts: "" for the data's tags */
    int n_tags;
    const char *const *tag_names;  /* [n_tags]; read by create only (crf constraints) */
    double loss_weight;            /* 0 means 1 */
    bool crf_constrained;          /* crf: BIO (BIOES) constraints from tag_names */
    qkv_biaffine_opts biaffine;    /* biaffine only */
    qkv_seq_pool pool;                 /* per-sequence heads: how a sequence becomes one vector */
} qkv_head_spec;

/* What a head is scored against in a batch, position by position: tags [T] (< 0: no gold tag;
 * a per-sequence head reads its sequence's first position), and for a head whose targets are
 * arcs each word's gold arc, arcs [T]: the word it hangs from, 0 = ROOT, k = word k of its own
 * sentence, < 0 = none (tags then label the arcs; may be NULL for the other heads).
 * label_smoothing ε in [0, 1) (train.label_smoothing; 0: one-hot targets) makes a training loss
 * whose targets are softmax classes take 1 - ε on the gold class plus ε / K on each of the K
 * classes (Szegedy et al. 2016, section 7; a parser's arcs: K = the word's candidate heads); the
 * CRF's sentence loss has no such classes and fails the tape for ε > 0. Predictions' loss_sum
 * ignores it (the plain NLL). */
typedef struct qkv_gold {
    const int32_t *tags, *arcs;
    double label_smoothing;
} qkv_gold;

/* What a head's predictions are scored by (qkv_head_desc.scores, a set of these bits): the
 * accuracy of its tags (for a head with arcs, of the labels of its arcs), and the attachment
 * scores of its arcs, UAS and LAS (arc, and arc and label, right; LAS is then the model's
 * score). F1 over spans of tags is the tag scheme's (data/), not a head's. */
typedef enum { QKV_SCORE_ACCURACY = 1u << 0, QKV_SCORE_ATTACHMENT = 1u << 1 } qkv_score_kind;

/* What a head predicts of a batch: tags [T]; arcs [T] the tree of each sentence (a head with
 * arcs: required; the others set it to -1 when not NULL); loss_sum (may be NULL) the summed
 * loss of the gold-tagged positions when gold is given; unconstrained [B] (may be NULL) flags
 * the sentences a constrained CRF decoded without its constraints (0 for the others). */
typedef struct qkv_prediction {
    int32_t *tags, *arcs;
    double *loss_sum;
    uint8_t *unconstrained;
} qkv_prediction;

typedef struct qkv_head {
    const struct qkv_head_desc *desc;
    char prefix[QKV_HEAD_NAME_MAX];
    char tagset[QKV_HEAD_NAME_MAX];
    int n_tags;
    double loss_weight;
    qkv_seq_pool pool;
    void *state;
} qkv_head;

typedef struct qkv_head_desc {
    const char *name;
    const char *const *param_prefixes; /* after qkv_head.prefix */
    /* Adds the parameters over inputs of width d_in; h->prefix, n_tags, ... are set. */
    int (*create)(qkv_head *h, qkv_params *ps, qkv_rng *rng, int d_in, const qkv_head_spec *spec,
                  qkv_error *err);
    /* logits [T, n_tags] for x [T, d_in]. */
    qkv_tensor *(*logits)(qkv_tape *tp, const qkv_head *h, qkv_tensor *x);
    /* A per-sequence head (one class per sequence: an image's) sets this instead of logits: it
     * reads each sequence of x as a whole and gives logits [T, n_tags] whose rows are all its
     * sequence's logits, so that loss and predict work per token as for any head; the gold tag
     * of a sequence is its first token's (the others are QKV_TAG_NONE, data/idx.h), and predict
     * gives every token its sequence's class. Call either through qkv_head_logits. */
    qkv_tensor *(*sequence_logits)(qkv_tape *tp, const qkv_head *h, qkv_tensor *x, qkv_packed sentences);
    /* Training loss [1] against gold (a head with arcs reads gold->arcs too; its logits are x
     * [T, d_in] itself); NULL when the tape failed (a head with arcs without gold arcs). */
    qkv_tensor *(*loss)(qkv_tape *tp, const qkv_head *h, qkv_tensor *logits, qkv_packed sentences,
                        const qkv_gold *gold);
    /* out->tags [T] (a head with arcs: out->arcs [T], a tree per sentence: heads in range, no
     * cycle, one child of ROOT, and out->tags the label of each predicted arc); with gold (may
     * be NULL), *out->loss_sum = the summed loss of the gold-tagged tokens (and arcs). A
     * sentence the head cannot decode as it should (a constrained CRF: no allowed tag
     * sequence) is an error (err->sentence: its index in sentences) when out->unconstrained is
     * NULL; else the head decodes it its fallback way, out->unconstrained [B] flags it (0 for
     * the others) and *out->loss_sum is +inf (its loss has no value). */
    int (*predict)(qkv_tape *tp, const qkv_head *h, qkv_tensor *logits, qkv_packed sentences, const qkv_gold *gold,
                   const qkv_prediction *out, qkv_error *err);
    /* probs [T, n_tags] (double): each token's probability of each tag, each row summing to 1
     * (softmax: of its logits; crf: the marginals of the sentence, with unconstrained as for
     * predict). */
    int (*probs)(const qkv_head *h, const qkv_tensor *logits, qkv_packed sentences, double *probs,
                 uint8_t *unconstrained, qkv_error *err);
    /* The head's targets are arcs (a dependency parser): its loss and predict read and write
     * arcs beside the tags (the label of word t is that of the arc arcs[t] -> t). */
    bool arcs;
    /* What its predictions are scored by (qkv_score_kind bits). */
    unsigned scores;
    void (*free)(qkv_head *h);
} qkv_head_desc;

/* Whether h's targets are arcs (qkv_head_desc.arcs). */
static inline bool qkv_head_has_arcs(const qkv_head *h) { return h->desc && h->desc->arcs; }
/* Whether h's predictions are scored by `score` (its descriptor's scores). */
static inline bool qkv_head_scored_by(const qkv_head *h, qkv_score_kind score)
{
    return h->desc && (h->desc->scores & (unsigned)score);
}
/* Whether h scores each word's tags: logits [T, n_tags] and their probabilities (its descriptor's
 * probs); a head with arcs scores arcs and their labels instead. */
static inline bool qkv_head_tag_scores(const qkv_head *h) { return h->desc && h->desc->probs; }

/* The tables, indexed by kind (one entry per row above). */
#define QKV_KIND_EXTERN_(e, name, desc) extern const struct QKV_KIND_TYPE_ desc;
#define QKV_KIND_TYPE_ qkv_input_desc
QKV_INPUT_KINDS(QKV_KIND_EXTERN_)
#undef QKV_KIND_TYPE_
#define QKV_KIND_TYPE_ qkv_encoder_desc
QKV_ENCODER_KINDS(QKV_KIND_EXTERN_)
#undef QKV_KIND_TYPE_
#define QKV_KIND_TYPE_ qkv_head_desc
QKV_HEAD_KINDS(QKV_KIND_EXTERN_)
#undef QKV_KIND_TYPE_
extern const qkv_input_desc *const QKV_INPUT_DESCS[QKV_INPUT_KIND_COUNT];
extern const qkv_encoder_desc *const QKV_ENCODER_DESCS[QKV_ENCODER_KIND_COUNT];
extern const qkv_head_desc *const QKV_HEAD_DESCS[QKV_OUTPUT_COUNT];

/* Creates a head of spec over inputs [T, d_in] (parameters <prefix><kind's names>). Errors:
 * n_tags < 1, a prefix or tag set name too long, the kind's. h is safe to qkv_head_free. */
int qkv_head_create(qkv_head *h, qkv_params *ps, qkv_rng *rng, int d_in, const qkv_head_spec *spec,
                    qkv_error *err);
void qkv_head_free(qkv_head *h);
/* The head's logits [T, n_tags] of x [T, d_in]: its logits, or its sequence_logits over the
 * sequences of x. NULL when the tape failed. */
qkv_tensor *qkv_head_logits(qkv_tape *tp, const qkv_head *h, qkv_tensor *x, qkv_packed sentences);
/* Whether the head gives one class per sequence (sequence_logits). */
static inline bool qkv_head_per_sequence(const qkv_head *h) { return h->desc->sequence_logits != NULL; }

/* The linear classifier every tagging head starts with: <prefix>classifier.w [n_tags, d_in]
 * (Xavier uniform) and <prefix>classifier.b [n_tags] (zero). */
typedef struct qkv_classifier {
    qkv_tensor *w, *b;
} qkv_classifier;
int qkv_classifier_create(qkv_classifier *c, qkv_params *ps, qkv_rng *rng, const char *prefix, int d_in, int n_tags,
                          qkv_error *err);

#endif
