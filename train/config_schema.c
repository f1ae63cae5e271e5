/* Every key of a qkv config: section, name, type, range, default and one line of doc.
 * ENUM choices are listed in the order of the lib/ enum each one indexes. */
#include "train/run_config.h"

#include "data/features.h"

#include <limits.h>
#include <math.h>
#include <stddef.h>
#include <string.h>

static const char *const SOURCES[] = {"files", "synthetic", NULL};
static const char *const FORMATS[] = {"auto", "conllu", "columns", NULL};
static const char *const TAGS[] = {"upos", "xpos", NULL};
static const char *const POSITIONAL[] = {"none", "sinusoidal", "learned", NULL};
static const char *const POS_OVERFLOW[] = {"error", "clamp", NULL};
static const char *const ACTIVATIONS[] = {"relu", "gelu", NULL};
static const char *const NORMALIZE[] = {"softmax", "relu", NULL};
static const char *const OPTIMIZERS[] = {"adamw", "adam", "sgd", NULL};
static const char *const DECAYS[] = {"none", "linear", "cosine", NULL};
static const char *const PROGRESS[] = {"auto", "on", "off", NULL};

#define M(f) offsetof(qkv_run_config, model.f)
#define D(f) offsetof(qkv_run_config, data.f)
#define T(f) offsetof(qkv_run_config, train.f)
#define O(f) offsetof(qkv_run_config, optim.f)
#define C(f) offsetof(qkv_run_config, checkpoint.f)
#define L(f) offsetof(qkv_run_config, log.f)
#define INT(sec, key, off, lo, hi, def, doc) {sec, key, QKV_CFG_INT, off, lo, hi, NULL, def, doc, 0}
#define REAL(sec, key, off, lo, hi, def, doc) {sec, key, QKV_CFG_REAL, off, lo, hi, NULL, def, doc, 0}
#define BOOL(sec, key, off, def, doc) {sec, key, QKV_CFG_BOOL, off, 0, 0, NULL, def, doc, 0}
#define ENUM(sec, key, off, ch, def, doc) {sec, key, QKV_CFG_ENUM, off, 0, 0, ch, def, doc, 0}
#define PATH(sec, key, off, def, doc) {sec, key, QKV_CFG_PATH, off, 0, 0, NULL, def, doc, 0}

const qkv_cfg_key QKV_RUN_SCHEMA[] = {
    INT("model", "d_model", M(d_model), 1, 4096, "128", "width of token representations"),
    INT("model", "n_heads", M(n_heads), 1, 256, "4", "attention heads; must divide d_model"),
    INT("model", "n_layers", M(n_layers), 0, 64, "2", "encoder blocks"),
    INT("model", "d_ff", M(d_ff), 1, 65536, "512", "hidden width of each block's feed-forward layer"),
    ENUM("model", "activation", M(activation), ACTIVATIONS, "gelu", "feed-forward activation"),
    BOOL("model", "norm_first", M(norm_first), "true", "pre-LN blocks (true) or post-LN (false)"),
    ENUM("model", "positional", M(positional), POSITIONAL, "sinusoidal", "positional encoding"),
    INT("model", "max_len", M(max_len), 1, 1000000, "512",
        "rows of the learned position table; a longer sentence: see pos_overflow"),
    ENUM("model", "pos_overflow", M(pos_overflow), POS_OVERFLOW, "error",
         "learned positions, a sentence longer than max_len: error, or clamp (words past the table "
         "share its last row)"),
    BOOL("model", "scale_embeddings", M(scale_embeddings), "false",
         "multiply the summed embeddings by sqrt(d_model) before adding positions"),
    INT("model", "attn_window", M(attn_window), 0, 1000000, "0",
        "truncated attention: query i sees keys j with |i-j| <= window; 0 = whole sentence"),
    INT("model", "attn_rel_clip", M(attn_rel_clip), 0, 1024, "0",
        "learned score bias per head and relative position j-i, clipped to [-K, K] (Shaw et al. 2018); 0 = none"),
    BOOL("model", "attn_causal", M(attn_causal), "false", "query i sees only keys j <= i"),
    ENUM("model", "attn_normalize", M(attn_normalize), NORMALIZE, "softmax",
         "softmax, or relu(S)/n_visible_keys"),
    REAL("model", "attn_scale", M(attn_scale), 0, 1e6, "0", "score scale; 0 = 1/sqrt(d_head)"),
    BOOL("model", "attn_bias", M(attn_bias), "true", "biases on w_q, w_k, w_v, w_o"),
    REAL("model", "dropout", M(dropout), 0, 0.99, "0.1", "dropout on embeddings and block outputs"),
    REAL("model", "attn_dropout", M(attn_dropout), 0, 0.99, "0", "dropout on attention weights"),
    REAL("model", "ln_eps", M(ln_eps), 0, 1, "1e-5", "layer norm epsilon"),
    INT("model", "char_dim", M(char_dim), 0, 1024, "0",
        "character embedding size of a character CNN word encoder added to the embeddings; 0 = none"),
    INT("model", "char_filters", M(char_filters), 1, 4096, "64", "channels of the character convolution"),
    INT("model", "char_width", M(char_width), 1, 15, "3", "width of the character convolution (odd)"),

    ENUM("data", "source", D(source), SOURCES, "files",
         "files (train/dev paths) or synthetic (the built-in generated corpus)"),
    PATH("data", "train", D(train), "", "training file (source: files)"),
    PATH("data", "dev", D(dev), "", "development file for evaluation and model selection"),
    ENUM("data", "format", D(format), FORMATS, "auto",
         "conllu, columns (FORM<TAB>TAG lines), or auto (by file name and first line)"),
    ENUM("data", "tags", D(tags), TAGS, "upos", "CoNLL-U tag column"),
    INT("data", "tag_column", D(tag_column), 0, 100, "0",
        "columns format: 1-based tag column (FORM is 1); 0 = the last column"),
    INT("data", "synthetic_train", D(synthetic_train), 1, 10000000, "4000", "synthetic training sentences"),
    INT("data", "synthetic_dev", D(synthetic_dev), 1, 10000000, "500", "synthetic dev sentences"),
    INT("data", "synthetic_seed", D(synthetic_seed), 0, INT_MAX, "1", "seed of the synthetic grammar"),
    INT("data", "max_train_len", D(max_train_len), 0, 1000000, "0",
        "train only on sentences of at most this many words; 0 = all"),
    INT("data", "word_min_count", D(word_min_count), 1, 1000000, "2",
        "training words seen fewer times map to UNK"),
    INT("data", "feature_min_count", D(feature_min_count), 1, 1000000, "1",
        "min count for lowercase/affix/shape feature values"),
    INT("data", "char_min_count", D(char_min_count), 1, 1000000, "1",
        "characters seen fewer times in training are UNK (character encoder)"),
    BOOL("data", "lowercase", D(lowercase), "true", "add a lowercased-form feature"),
    BOOL("data", "shape", D(shape), "true", "add a word-shape feature (Xxxx, dd, x.x)"),
    INT("data", "prefix_len", D(prefix_len), 0, QKV_MAX_AFFIX, "3", "add prefix features of 1..k characters"),
    INT("data", "suffix_len", D(suffix_len), 0, QKV_MAX_AFFIX, "4", "add suffix features of 1..k characters"),
    INT("data", "batch_tokens", D(batch_tokens), 1, 10000000, "2000", "token budget of a batch"),

    INT("train", "seed", T(seed), 0, INT_MAX, "1", "seed of initialisation, shuffling and dropout"),
    INT("train", "epochs", T(epochs), 1, 100000, "20", "passes over the training data"),
    INT("train", "max_steps", T(max_steps), 0, INT_MAX, "0", "stop after this many steps; 0 = no limit"),
    REAL("train", "word_dropout", T(word_dropout), 0, 0.99, "0.05",
         "probability of replacing a training word by UNK"),
    REAL("train", "clip_grad_norm", T(clip_grad_norm), 0, 1e9, "1", "global gradient norm limit; 0 = off"),
    REAL("train", "ema_decay", T(ema_decay), 0, 0.999999, "0",
         "evaluate and save a moving average of the parameters with this decay per step (e.g. 0.999); 0 = off"),
    INT("train", "eval_every", T(eval_every), 0, INT_MAX, "0",
        "evaluate on dev every N steps; 0 = at the end of each epoch"),
    INT("train", "patience", T(patience), 0, 100000, "0",
        "stop after this many evaluations without a better dev accuracy; 0 = never"),
    INT("train", "threads", T(threads), 0, 1024, "0", "OpenMP and BLAS threads; 0 = all cores"),

    ENUM("optim", "name", O(name), OPTIMIZERS, "adamw", "adamw, adam or sgd (with momentum)"),
    REAL("optim", "lr", O(lr), 1e-9, 10, "1e-3", "peak learning rate"),
    REAL("optim", "beta1", O(beta1), 0, 0.999999, "0.9", "Adam beta1"),
    REAL("optim", "beta2", O(beta2), 0, 0.999999999, "0.999", "Adam beta2"),
    REAL("optim", "eps", O(eps), 1e-30, 1, "1e-8", "Adam epsilon"),
    REAL("optim", "weight_decay", O(weight_decay), 0, 10, "0.01",
         "AdamW decoupled decay (Adam, SGD: L2); not on biases, norms, embeddings"),
    REAL("optim", "momentum", O(momentum), 0, 0.999999, "0.9", "SGD momentum"),
    INT("optim", "warmup_steps", O(warmup_steps), 0, INT_MAX, "200", "linear warmup from 0"),
    ENUM("optim", "decay", O(decay), DECAYS, "linear", "after warmup: none, linear or cosine to min_lr"),
    REAL("optim", "min_lr", O(min_lr), 0, 10, "0", "learning rate at the last step"),

    INT("checkpoint", "every_steps", C(every_steps), 0, INT_MAX, "0",
        "save checkpoints/last.h5 every N steps; 0 = at the end of each epoch"),
    BOOL("checkpoint", "keep_best", C(keep_best), "true", "keep checkpoints/best.h5 (best dev accuracy)"),

    INT("log", "every_steps", L(every_steps), 1, INT_MAX, "50", "a log line and a metrics.tsv row every N steps"),
    ENUM("log", "progress", L(progress), PROGRESS, "auto", "progress bar on stderr: auto = when a terminal"),
    BOOL("log", "plot", L(plot), "true",
         "draw plots/loss.png (gnuplot) at the end of each epoch and of the run; a failure only warns"),
};

const int QKV_RUN_SCHEMA_LEN = (int)(sizeof QKV_RUN_SCHEMA / sizeof QKV_RUN_SCHEMA[0]);

/* Relations between keys, which the schema cannot express. */
static int check_relations(const qkv_run_config *cfg, const char *where, qkv_error *err)
{
    if (cfg->model.d_model % cfg->model.n_heads)
        return qkv_fail(err, "%s: model.n_heads = %d does not divide model.d_model = %d", where,
                        cfg->model.n_heads, cfg->model.d_model);
    if (cfg->model.char_width % 2 == 0)
        return qkv_fail(err, "%s: model.char_width = %d must be odd (the convolution is centred on each character)",
                        where, cfg->model.char_width);
    if (cfg->data.source == QKV_SOURCE_FILES && !cfg->data.train[0])
        return qkv_fail(err, "%s: data.train is required when data.source is files", where);
    if (cfg->data.tag_column == 1)
        return qkv_fail(err, "%s: data.tag_column = 1 is the FORM column; the tag is in column 2 or later", where);
    if (cfg->optim.min_lr > cfg->optim.lr)
        return qkv_fail(err, "%s: optim.min_lr = %g is above optim.lr = %g", where, cfg->optim.min_lr,
                        cfg->optim.lr);
    return QKV_OK;
}

int qkv_run_config_load(const char *path, char *const *overrides, int n_overrides,
                        qkv_run_config *cfg, qkv_error *err)
{
    if (qkv_config_load(path, QKV_RUN_SCHEMA, QKV_RUN_SCHEMA_LEN, cfg, overrides, n_overrides, err))
        return QKV_ERR;
    return check_relations(cfg, path ? path : "config", err);
}

int qkv_run_config_parse(const char *text, const char *name, qkv_run_config *cfg, qkv_error *err)
{
    if (qkv_config_parse(text, strlen(text), name, NULL, QKV_RUN_SCHEMA, QKV_RUN_SCHEMA_LEN, cfg, NULL, 0, err))
        return QKV_ERR;
    return check_relations(cfg, name, err);
}
