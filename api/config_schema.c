/* Every key of a qkv config: section, name, type, range, default, one line of doc, the kinds
 * that read it (the model.encoder values, for the encoders' keys) and the field it fills (a
 * library struct's own field where there is one, see api/run_config.h); then the relations
 * between keys as a rules table. A new key is its field, one row here and its use: the loader,
 * the checks, `qkv config --doc` and the checkpoint's resolved config (which the PyTorch port
 * reads) all follow from the row.
 * ENUM choices are the names each library exports beside its enum, in the enum's order. */
#include "api/run_config.h"

#include <limits.h>
#include <math.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

const char *const QKV_TASK_NAMES[] = {"tag", "segment", "frames", "images", NULL};
_Static_assert(sizeof QKV_TASK_NAMES / sizeof QKV_TASK_NAMES[0] == QKV_TASK_COUNT + 1, "one name per qkv_task");
const char *const QKV_SOURCE_NAMES[] = {"files", "synthetic", NULL};
_Static_assert(sizeof QKV_SOURCE_NAMES / sizeof QKV_SOURCE_NAMES[0] == QKV_SOURCE_COUNT + 1, "one name per qkv_source");
const char *const QKV_SELECT_BY_NAMES[] = {"auto", "accuracy", "span_f1", NULL};
_Static_assert(sizeof QKV_SELECT_BY_NAMES / sizeof QKV_SELECT_BY_NAMES[0] == QKV_SELECT_COUNT + 1,
               "one name per qkv_select_by");
const char *const QKV_PROGRESS_NAMES[] = {"auto", "on", "off", NULL};
_Static_assert(sizeof QKV_PROGRESS_NAMES / sizeof QKV_PROGRESS_NAMES[0] == QKV_PROGRESS_COUNT + 1,
               "one name per qkv_progress");

/* A row fills the run config's field f (a path such as model.encoder.d_model). The offset is
 * taken through a _Generic that accepts only the C types the key's type can fill, so a row
 * pointing at a field of the wrong type does not compile; the size lets the loader write an
 * enum, a long or an int flag as declared. */
#define FIELD(f) (((qkv_run_config *)0)->f)
#define OFF(f) offsetof(qkv_run_config, f)
/* The _IN forms take first the kinds that read the key: ALL, ENC(the model.encoder kinds),
 * OUT(the model.output kinds) or TASK(the data.task values). */
#define INT_IN(in, sec, key, f, lo, hi, def, doc) \
    {sec, key, QKV_CFG_INT, _Generic(FIELD(f), int: OFF(f), long: OFF(f)), lo, hi, NULL, def, doc, sizeof FIELD(f), in}
#define REAL_IN(in, sec, key, f, lo, hi, def, doc) \
    {sec, key, QKV_CFG_REAL, _Generic(FIELD(f), double: OFF(f)), lo, hi, NULL, def, doc, sizeof FIELD(f), in}
#define BOOL_IN(in, sec, key, f, def, doc) \
    {sec, key, QKV_CFG_BOOL, _Generic(FIELD(f), bool: OFF(f), int: OFF(f)), 0, 0, NULL, def, doc, sizeof FIELD(f), in}
/* C has no test for "an enum type": ENUM takes any integer field except bool (the loader writes
 * the choice's index; the schema check takes 1, 2, 4 or 8 bytes). */
#define ENUM_IN(in, sec, key, f, ch, def, doc) \
    {sec, key, QKV_CFG_ENUM, _Generic(FIELD(f), double: (void)0, bool: (void)0, char *: (void)0, default: OFF(f)), \
     0, 0, ch, def, doc, sizeof FIELD(f), in}
#define ALL NULL, 0u
#define INT(...) INT_IN(ALL, __VA_ARGS__)
#define REAL(...) REAL_IN(ALL, __VA_ARGS__)
#define BOOL(...) BOOL_IN(ALL, __VA_ARGS__)
#define ENUM(...) ENUM_IN(ALL, __VA_ARGS__)
#define STRING_IN(in, sec, key, f, def, doc) {sec, key, QKV_CFG_STRING, OFF(f), 0, 0, NULL, def, doc, sizeof FIELD(f), in}
#define STRING(...) STRING_IN(ALL, __VA_ARGS__)
#define LIST(sec, key, f, ch, def, doc) \
    {sec, key, QKV_CFG_LIST, _Generic(FIELD(f), char *: OFF(f)), 0, 0, ch, def, doc, sizeof FIELD(f), ALL}
#define PATH(sec, key, f, def, doc) {sec, key, QKV_CFG_PATH, OFF(f), 0, 0, NULL, def, doc, sizeof FIELD(f), ALL}
/* Read only by these values of model.encoder (T transformer, L bilstm, C cnn, C2 cnn2d). */
#define ENC(kinds) "encoder", (kinds)
#define T (1u << QKV_ENCODER_TRANSFORMER)
#define L (1u << QKV_ENCODER_BILSTM)
#define C (1u << QKV_ENCODER_CNN)
#define C2 (1u << QKV_ENCODER_CNN2D)
/* Read only by these values of model.output (the head kind of data.tags' first column). */
#define OUT(kinds) "output", (kinds)
/* Read only by these values of data.task. */
#define TASK(kinds) "task", (kinds)
/* Read only by these values of model.input. */
#define INPUT(kinds) "input", (kinds)
/* The image input kinds, as the docs and messages name them. */
#define IMAGE_INPUTS "pixels, patches or conv_patches"

const qkv_cfg_key QKV_RUN_SCHEMA[] = {
    INT("model", "d_model", model.encoder.d_model, 1, 4096, "128", "width of token representations"),
    INT_IN(ENC(T), "model", "n_heads", model.encoder.attn.n_heads, 1, 256, "4", "attention heads; must divide d_model"),
    INT("model", "n_layers", model.n_layers, 0, 64, "2", "encoder blocks"),
    INT_IN(ENC(T), "model", "d_ff", model.encoder.d_ff, 1, 65536, "512", "hidden width of each block's feed-forward layer"),
    ENUM_IN(ENC(T | C | C2), "model", "activation", model.encoder.activation, QKV_FFN_ACTIVATION_NAMES, "gelu", "feed-forward activation"),
    BOOL_IN(ENC(T), "model", "norm_first", model.encoder.norm_first, "true", "pre-LN blocks (true) or post-LN (false)"),
    ENUM_IN(ENC(T), "model", "positional", model.positional, QKV_POS_KIND_NAMES, "sinusoidal",
         "positional encoding: none, sinusoidal, learned (table), rope (rotary q/k, Su et al. 2021), alibi (linear "
         "score biases, Press et al. 2022), floater (learned ODE, Liu et al. 2020); on an image's grid: rel2d (a learned "
         "bias per head and 2-D offset), quadratic2d (Cordonnier et al. 2020: -a_h |offset - c_h|^2 per head), rope2d "
         "(axial rotary: half the pairs by row, half by column)"),
    INT_IN(ENC(T), "model", "rel2d_clip", model.rel2d_clip, 1, 1024, "3",
        "positional rel2d: row and column offsets clipped to [-K, K]; one more learned bias per head for pairs "
        "with a [CLS] token"),
    REAL("model", "rope_base", model.rope_base, 1e-6, 1e12, "10000",
         "rope: rotation angle of pair i at position p is p*base^(-2i/d_head)"),
    INT_IN(ENC(T), "model", "max_len", model.max_len, 1, 1000000, "512",
        "rows of the learned position table; a longer sentence: see pos_overflow"),
    ENUM_IN(ENC(T), "model", "pos_overflow", model.pos_overflow, QKV_POS_OVERFLOW_NAMES, "error",
         "learned positions, a sentence longer than max_len: error, or clamp (words past the table "
         "share its last row)"),
    BOOL("model", "scale_embeddings", model.scale_embeddings, "false",
         "multiply the summed embeddings by sqrt(d_model) before adding positions"),
    INT_IN(ENC(T), "model", "attn_window", model.encoder.attn.window, 0, 1000000, "0",
        "truncated attention: query i sees keys j with |i-j| <= window; 0 = whole sentence"),
    INT_IN(ENC(T), "model", "attn_rel_clip", model.encoder.attn.rel_clip, 0, 1024, "0",
        "learned score bias per head and relative position j-i, clipped to [-K, K] (Shaw et al. 2018); 0 = none"),
    INT_IN(ENC(T), "model", "attn_window_2d", model.encoder.attn.window_2d, 0, 100000, "0",
        "2-D local attention on an image's grid: a grid token sees grid tokens within +-K rows and columns, a "
        "[CLS] token sees and is seen by all; 0 = off"),
    BOOL_IN(ENC(T), "model", "attn_causal", model.encoder.attn.causal, "false", "query i sees only keys j <= i"),
    ENUM_IN(ENC(T), "model", "attn_normalize", model.encoder.attn.normalize, QKV_ATTN_NORMALIZE_NAMES, "softmax",
         "softmax, or relu(S)/n_visible_keys"),
    REAL_IN(ENC(T), "model", "attn_scale", model.encoder.attn.scale, 0, 1e6, "0", "score scale; 0 = 1/sqrt(d_head)"),
    BOOL_IN(ENC(T), "model", "attn_bias", model.encoder.attn_bias, "true", "biases on w_q, w_k, w_v, w_o"),
    REAL("model", "dropout", model.encoder.dropout, 0, 0.99, "0.1", "dropout on embeddings and block outputs"),
    REAL("model", "head_dropout", model.head_dropout, 0, 0.99, "0",
         "dropout on the encoder's output (after its final layer norm) as the tagging and class heads read it "
         "(a parser's MLPs drop their own outputs by model.dropout); 0 = none"),
    REAL_IN(ENC(T), "model", "attn_dropout", model.encoder.attn.dropout, 0, 0.99, "0", "dropout on attention weights"),
    ENUM_IN(ENC(T), "model", "attn_kernel", model.encoder.attn.kernel, QKV_ATTN_KERNEL_NAMES, "auto",
         "stored: keep each block's attention weights for backward (memory n x band); tiled: keep only each "
         "row's log-sum-exp and recompute scores in backward (memory linear in n; with attn_dropout other masks); "
         "auto: tiled for bands wider than attn_tiled_above keys"),
    INT_IN(ENC(T), "model", "attn_tiled_above", model.encoder.attn.tiled_above, 0, 100000000, "1024",
        "attn_kernel auto: a block whose band is wider than this many keys (whole sentence: its length) runs tiled"),
    REAL("model", "ln_eps", model.encoder.ln_eps, 0, 1, "1e-5", "layer norm epsilon"),
    INT("model", "char_dim", model.chars.char_dim, 0, 1024, "0",
        "character embedding size of a character CNN word encoder added to the embeddings; 0 = none"),
    INT("model", "char_filters", model.chars.char_filters, 1, 4096, "64", "channels of the character convolution"),
    ENUM("model", "output", model.output, QKV_OUTPUT_NAMES, "softmax",
         "output layer: softmax per token, crf (linear-chain CRF: NLL per gold-tagged token, Viterbi decoding), or "
         "biaffine (a dependency parser, Dozat and Manning 2017: predicts HEAD, with DEPREL as its tags), or "
         "class (one class per image, for the image inputs)"),
    INT_IN(OUT(1u << QKV_OUTPUT_BIAFFINE), "model", "arc_dim", model.biaffine.arc_dim, 1, 4096, "256", "biaffine: width of the arc MLPs (dependent and head roles)"),
    INT_IN(OUT(1u << QKV_OUTPUT_BIAFFINE), "model", "label_dim", model.biaffine.label_dim, 1, 1024, "64", "biaffine: width of the label MLPs"),
    LIST("model", "parser_tag_inputs", heads.tag_inputs, QKV_TAG_FIELD_NAMES, "",
         "biaffine: tagging columns of data.tags (e.g. [upos]) whose predicted distributions the parser reads: its "
         "input is the encoder output beside softmax(that head's logits) times a learned [n_tags, tag_input_dim] "
         "matrix per column, the parser's loss training the tagging head through it; empty = the encoder output "
         "alone"),
    INT_IN(OUT(1u << QKV_OUTPUT_BIAFFINE), "model", "tag_input_dim", model.tag_input_dim, 1, 1024, "32",
           "biaffine: width of each tag vector of model.parser_tag_inputs (32: above UPOS's 17 tags, so the "
           "vectors can keep every tag apart, and small beside the encoder output)"),
    ENUM_IN(OUT(1u << QKV_OUTPUT_BIAFFINE), "model", "tree_decoder", model.biaffine.decoder, QKV_TREE_DECODER_NAMES, "mst",
         "biaffine: mst (Chu-Liu/Edmonds, any tree) or eisner (projective trees); both give one child of ROOT"),
    BOOL_IN(OUT(1u << QKV_OUTPUT_CRF), "model", "crf_constrained", model.crf_constrained, "false",
         "crf: forbid transitions that make an invalid BIO sequence (I-x only after B-x or I-x, never first; "
         "with E-/S- tags the BIOES rules too), in training and decoding; a gold sequence they forbid is read "
         "for the loss as conlleval reads it (I-x starting a chunk as B-x), with a warning"),
    INT("model", "char_width", model.chars.char_width, 1, 15, "3", "width of the character convolution (odd)"),
    ENUM("model", "encoder", model.encoder_kind, QKV_ENCODER_KIND_NAMES, "transformer",
         "transformer (self-attention blocks), bilstm (bidirectional LSTM), cnn (residual 1-D convolution "
         "blocks) or cnn2d (2-D convolution blocks on an image's grid, then the maximum over the cells); bilstm, cnn "
         "and cnn2d use no positional encoding"),
    INT_IN(ENC(L), "model", "lstm_hidden", model.lstm_hidden, 0, 65536, "0",
        "bilstm: hidden size per direction (output 2x this); 0 = d_model / 2"),
    ENUM("model", "input", model.input_kind, QKV_INPUT_KIND_NAMES, "words",
         "token vectors: words (word features, models/word_input.c), pixels (each pixel of an image a token), "
         "patches (patch_size x patch_size squares of an image, flattened and projected: ViT) or conv_patches "
         "(stem_layers 3x3 convolutions over the image, then its patch_size x patch_size patches projected: a "
         "convolutional stem, the hybrid ViT)"),
    INT("model", "patch_size", model.patch_size, 1, 1024, "4",
        "input patches, conv_patches: side of a square patch in pixels"),
    INT_IN(INPUT(1u << QKV_INPUT_CONV_PATCHES), "model", "stem_layers", model.stem_layers, 0, 16, "2",
        "conv_patches: 3x3 convolution blocks (stride 1, padding 1, layer norm, model.activation) before the patch "
        "embedding; 0 = the patch embedding over the image"),
    INT_IN(INPUT(1u << QKV_INPUT_CONV_PATCHES), "model", "stem_channels", model.stem_channels, 1, 1024, "32",
        "conv_patches: channels of each stem convolution"),
    BOOL("model", "cls_token", model.cls_token, "false",
         "image inputs: a learned [CLS] token before each image's tokens (for model.pool cls)"),
    ENUM_IN(OUT(1u << QKV_OUTPUT_CLASS), "model", "pool", model.pool, QKV_SEQ_POOL_NAMES, "mean",
         "output class: one vector per image from the mean of its tokens, or its [CLS] token"),
    INT_IN(ENC(C | C2), "model", "cnn_kernel", model.cnn_kernel, 1, 63, "3",
        "cnn: convolution width over words (odd); cnn2d: the k x k of the image convolutions (odd)"),
    ENUM_IN(ENC(C2), "model", "cnn2d_pool", model.cnn2d_pool, QKV_CNN2D_POOL_NAMES, "max",
         "cnn2d: pooling after each block, 2x2 of stride 2: none, max or avg"),
    INT_IN(ENC(C), "model", "cnn_dilation", model.cnn_dilation, 1, 1024, "1",
        "cnn: distance between the convolution's taps; receptive field 1 + n_layers (cnn_kernel-1) cnn_dilation"),

    LIST("model", "head_weights", heads.weights, NULL, "",
         "with several data.tags: the loss weight of each column's head, in data.tags order (e.g. [1, 1, 0.5, 1]); "
         "empty = 1 each"),

    ENUM("data", "task", data.task, QKV_TASK_NAMES, "tag",
         "tag: a tag per word; segment: a label per character of each paragraph of CoNLL-U files (from # text, "
         "SpaceAfter=No and multiword tokens), a tokenizer and sentence splitter for qkv tag --tokenizer; frames: a "
         "label per speech frame of HDF5 frame corpora (qkv speech), the model's input being the frames; images: one "
         "class per image of IDX files (model.input " IMAGE_INPUTS "; a config of an image input that says tag, "
         "or says no task, is read as images)"),
    ENUM("data", "source", data.source, QKV_SOURCE_NAMES, "files",
         "files (train/dev paths) or synthetic (the built-in generated corpus)"),
    PATH("data", "train", data.train, "", "training file (source: files)"),
    PATH("data", "dev", data.dev, "", "development file for evaluation and model selection"),
    PATH("data", "segmenter", data.segmenter, "",
         "a segmenter (a checkpoint or export of data.task: segment, or a model file that bundles one) stored in "
         "each checkpoint of the run "
         "(best.h5, last.h5) under /segmenter, as qkv export --tokenizer bundles one: qkv tag, qkv eval --raw and "
         "the C library then read raw text with it; read once when training starts"),
    ENUM("data", "format", data.read.format, QKV_FORMAT_NAMES, "auto",
         "conllu, columns (FORM first, TAB-separated, or space-separated when chosen here or after -DOCSTART-; "
         "whitespace around a tag is dropped), or auto (by file name and first line)"),
    LIST("data", "tags", heads.tags, QKV_TAG_FIELD_NAMES, "upos",
         "CoNLL-U column, or a list of them ([upos, xpos, feats, lemma]): one head each over the one encoder; "
         "feats is one class per feature bundle, lemma one per edit script; a value _ means none (not learned, not "
         "scored), except in feats"),
    INT("data", "tag_column", data.read.tag_column, 0, 100, "0",
        "columns format: 1-based tag column (FORM is 1); 0 = the last column (CoNLL-2003's NER tag, WNUT 2017's)"),
    ENUM("data", "tag_scheme", data.read.scheme, QKV_TAG_SCHEME_NAMES, "none",
         "span tags: rewrite the files' tags in bio (IOB2), iob1 or bioes on reading (chunks read as conlleval reads "
         "them); qkv tag writes predictions back in each file's own scheme; none = tags as read"),
    INT("data", "synthetic_train", data.synthetic_train, 1, 10000000, "4000", "synthetic training sentences"),
    INT("data", "synthetic_dev", data.synthetic_dev, 1, 10000000, "500", "synthetic dev sentences"),
    INT("data", "synthetic_seed", data.synthetic_seed, 0, INT_MAX, "1", "seed of the synthetic grammar"),
    INT("data", "max_train_len", data.max_train_len, 0, 1000000, "0",
        "train only on sentences of at most this many words; 0 = all"),
    INT_IN(TASK(1u << QKV_TASK_TAG), "data", "lemma_lexicon_min_count", data.lemma_lexicon_min_count, 0, 1000000,
        "1",
        "a lemma column: each lowercased training form with its UPOS (the form alone without a UPOS column) seen at "
        "least this many times, 90% of them with one lemma edit script, is stored with the model, and a word of "
        "that form and predicted UPOS takes the lemma of that script (data/lemma_lexicon.h); 0 = no lexicon"),
    INT_IN(TASK(1u << QKV_TASK_SEGMENT), "data", "lexicon_min_count", data.seg_lexicon_min_count, 0, 1000000, "1",
        "data.task segment: each whitespace-delimited chunk of the training text that is segmented the "
        "same way each of the at least this many times it occurs is stored with the segmenter and segmented "
        "that way (its characters' labels overridden; data/seg_lexicon.h); 0 = no lexicon"),
    INT("data", "word_min_count", data.features.word_min_count, 1, 1000000, "2",
        "training words seen fewer times map to UNK"),
    INT("data", "feature_min_count", data.features.affix_min_count, 1, 1000000, "1",
        "min count for lowercase/affix/shape feature values"),
    INT("data", "char_min_count", data.features.char_min_count, 1, 1000000, "1",
        "characters seen fewer times in training are UNK (character encoder)"),
    BOOL("data", "lowercase", data.features.lower, "true", "add a lowercased-form feature"),
    BOOL("data", "shape", data.features.shape, "true", "add a word-shape feature (Xxxx, dd, x.x)"),
    INT("data", "prefix_len", data.features.prefix_max, 0, QKV_MAX_AFFIX, "3", "add prefix features of 1..k characters"),
    INT("data", "suffix_len", data.features.suffix_max, 0, QKV_MAX_AFFIX, "4", "add suffix features of 1..k characters"),
    INT("data", "batch_tokens", data.batch_tokens, 1, 10000000, "2000", "token budget of a batch"),
    INT("data", "image_rows", data.image_rows, 1, 65536, "28", "image inputs: rows of pixels of every image"),
    INT("data", "image_cols", data.image_cols, 1, 65536, "28", "image inputs: columns of pixels of every image"),
    INT("data", "image_channels", data.image_channels, 1, 64, "1", "image inputs: values per pixel"),
    INT("data", "n_classes", data.n_classes, 1, 256, "10", "image inputs: labels are 0 .. n_classes-1"),
    STRING("data", "class_names", data.class_names, "",
           "image inputs: the classes' names, comma-separated, in label order; empty = 0, 1, ..."),
    REAL("data", "valid_fraction", data.valid_fraction, 0, 0.9, "0",
         "image inputs without data.dev: hold out this part of the training images (seeded by valid_seed) as the "
         "dev set that picks best.h5; 0 = none"),
    INT("data", "valid_seed", data.valid_seed, 0, INT_MAX, "1", "seed of the validation split"),
    ENUM("data", "augment", data.augment, QKV_AUGMENT_NAMES, "none",
         "image inputs, training images only: none, or crop_flip (each image shifted by a random crop of it "
         "padded with augment_pad black pixels, then mirrored left-right with probability 1/2)"),
    INT("data", "augment_pad", data.augment_pad, 0, 1024, "2",
        "data.augment crop_flip: padding of the random crops in pixels (shifts of up to this many pixels)"),
    ENUM_IN(TASK(1u << QKV_TASK_FRAMES), "data", "frame_labels", data.frame_labels, QKV_FRAME_LABEL_NAMES, "phoneme",
         "task frames: label each frame with the phoneme or the UPOS of the word being spoken"),
    STRING_IN(TASK(1u << QKV_TASK_FRAMES), "data", "held_out_voice", data.held_out_voice, "",
           "task frames: the test voice: its utterances are left out of training and dev and scored at the end"),
    INT_IN(TASK(1u << QKV_TASK_FRAMES), "data", "frame_stack", data.frame_stack, 1, 64, "1",
        "task frames: k consecutive frames (non-overlapping) make one token, labelled by its middle frame"),

    INT("train", "seed", train.seed, 0, INT_MAX, "1", "seed of initialisation, shuffling and dropout"),
    INT("train", "epochs", train.epochs, 1, 100000, "20", "passes over the training data"),
    INT("train", "max_steps", train.max_steps, 0, INT_MAX, "0", "stop after this many steps; 0 = no limit"),
    REAL("train", "word_dropout", train.word_dropout, 0, 0.99, "0.05",
         "probability of replacing a training word by UNK"),
    REAL("train", "clip_grad_norm", train.clip_grad_norm, 0, 1e9, "1", "global gradient norm limit; 0 = off"),
    REAL("train", "ema_decay", train.ema_decay, 0, 0.999999, "0",
         "evaluate and save a moving average of the parameters with this decay per step (e.g. 0.999); 0 = off"),
    REAL("train", "label_smoothing", train.label_smoothing, 0, 0.99, "0",
         "label smoothing e (Szegedy et al. 2016, section 7): every softmax cross-entropy of the training loss "
         "(softmax and class heads, a biaffine parser's arcs over each word's candidate heads and its labels) "
         "takes as target 1-e on the gold class plus e/K on each of the K classes; the logged training loss "
         "includes it, the dev loss does not; not with model.output crf; 0 = one-hot targets"),
    INT("train", "eval_every", train.eval_every, 0, INT_MAX, "0",
        "evaluate on dev every N steps; 0 = at the end of each epoch"),
    INT("train", "patience", train.patience, 0, 100000, "0",
        "stop after this many evaluations without a better dev score (train.select_by); 0 = never"),
    ENUM("train", "select_by", train.select_by, QKV_SELECT_BY_NAMES, "auto",
         "the dev score best.h5 and patience follow: accuracy, span_f1 (entity-level F1; needs span tags: O and "
         "B-/I-/E-/S-type only), or auto = span_f1 when every training tag is a span tag, else accuracy"),
    LIST("train", "select_columns", heads.select, QKV_TAG_FIELD_NAMES, "",
         "with several data.tags: the columns whose mean dev accuracy is the score train.select_by accuracy "
         "follows; empty = all of them"),
    INT("train", "threads", train.threads, 0, 1024, "0", "OpenMP and BLAS threads; 0 = all cores"),
    ENUM("train", "gemm", train.gemm, QKV_GEMM_BACKEND_NAMES, "auto",
         "the library of float matrix products: onednn (dnnl_sgemm), openblas, or auto = onednn when the build "
         "has it; results agree to rounding, not bit for bit"),
    ENUM("train", "precision", train.precision, QKV_PRECISION_NAMES, "f32",
         "f32, or bf16: every float matrix product rounds its two inputs to bfloat16 and sums in float (oneDNN's "
         "matmul; needs a build with oneDNN); weights, optimizer state and activations stay float"),

    ENUM("optim", "name", optim.optimizer.kind, QKV_OPTIM_KIND_NAMES, "adamw", "adamw, adam or sgd (with momentum)"),
    REAL("optim", "lr", optim.optimizer.lr, 1e-9, 10, "1e-3", "peak learning rate"),
    REAL("optim", "beta1", optim.optimizer.beta1, 0, 0.999999, "0.9", "Adam beta1"),
    REAL("optim", "beta2", optim.optimizer.beta2, 0, 0.999999999, "0.999", "Adam beta2"),
    REAL("optim", "eps", optim.optimizer.eps, 1e-30, 1, "1e-8", "Adam epsilon"),
    REAL("optim", "weight_decay", optim.optimizer.weight_decay, 0, 10, "0.01",
         "AdamW decoupled decay (Adam, SGD: L2); not on biases, norms, embeddings"),
    REAL("optim", "momentum", optim.optimizer.momentum, 0, 0.999999, "0.9", "SGD momentum"),
    INT("optim", "warmup_steps", optim.schedule.warmup_steps, 0, INT_MAX, "200", "linear warmup from 0"),
    ENUM("optim", "decay", optim.schedule.decay, QKV_LR_DECAY_NAMES, "linear", "after warmup: none, linear or cosine to min_lr"),
    REAL("optim", "min_lr", optim.schedule.min_lr, 0, 10, "0", "learning rate at the last step"),
    BOOL("optim", "sparse_embeddings", optim.sparse_embeddings, "false",
         "lazy update of embedding tables: only the rows a batch uses (their moments, decay) change"),

    INT("checkpoint", "every_steps", checkpoint.every_steps, 0, INT_MAX, "0",
        "save checkpoints/last.h5 every N steps; 0 = at the end of each epoch"),
    BOOL("checkpoint", "keep_best", checkpoint.keep_best, "true", "keep checkpoints/best.h5 (best dev score, train.select_by)"),

    INT("log", "every_steps", log.every_steps, 1, INT_MAX, "50", "a log line and a metrics.tsv row every N steps"),
    ENUM("log", "progress", log.progress, QKV_PROGRESS_NAMES, "auto", "progress bar on stderr: auto = when a terminal"),
    BOOL("log", "plot", log.plot, "true",
         "draw plots/loss.png (gnuplot) at the end of each epoch and of the run; a failure only warns"),
    BOOL("log", "plot_log_loss", log.plot_log_loss, "false",
         "plots/loss.png: the loss axis on a log scale (as qkv plot --log-loss)"),
    BOOL("log", "plot_attention", log.plot_attention, "true",
         "with log.plot, draw plots/attention.png after each epoch: every attention head of the last layer on the "
         "first dev sentence of at most 30 words (a transformer over words; others draw none)"),
    BOOL("log", "tensorboard", log.tensorboard, "false",
         "also write events.out.tfevents.<time>.<host> (TensorBoard): training loss and lr, every dev score by "
         "its metrics.tsv name, at their steps; the image plots/attention at each step it is drawn, and an image "
         "classifier's plots/confusion at the step of the model it scores"),
};

const int QKV_RUN_SCHEMA_LEN = (int)(sizeof QKV_RUN_SCHEMA / sizeof QKV_RUN_SCHEMA[0]);

/* Fields of the library structs that no key fills but other keys decide. */
static bool image_input(const qkv_network_config *m)
{
    return (unsigned)m->input_kind < QKV_INPUT_KIND_COUNT && QKV_INPUT_DESCS[m->input_kind]->patch;
}

static int derive(qkv_run_config *cfg, const char *where, qkv_error *err)
{
    /* Configs and checkpoints from before data.task named images said tag (the default). */
    if (cfg->data.task == QKV_TASK_TAG && image_input(&cfg->model))
        cfg->data.task = QKV_TASK_IMAGES;
    qkv_feature_config *f = &cfg->data.features;
    f->word = 1;
    f->shape_min_count = f->affix_min_count;
    f->chars = cfg->model.chars.char_dim > 0;
    return qkv_run_config_derive_heads(cfg, where, err);
}

/* Relations the rule kinds cannot say (arithmetic over several keys, a conjunction). */
static int bilstm_width(const void *c, const char *where, qkv_error *err)
{
    const qkv_network_config *m = &((const qkv_run_config *)c)->model;
    if (m->encoder_kind == QKV_ENCODER_BILSTM && m->lstm_hidden == 0 && m->encoder.d_model < 2)
        return qkv_fail(err, "%s: model.d_model = %d is too small for the default model.lstm_hidden (d_model / 2)",
                        where, m->encoder.d_model);
    return QKV_OK;
}

static int rope_pairs(const void *c, const char *where, qkv_error *err)
{
    const qkv_network_config *m = &((const qkv_run_config *)c)->model;
    const qkv_encoder_opts *e = &m->encoder;
    if (m->positional == QKV_POS_ROPE && (e->d_model / e->attn.n_heads) % 2)
        return qkv_fail(err, "%s: model.positional = rope needs an even d_head = model.d_model / model.n_heads, got "
                        "%d / %d = %d (it rotates pairs of columns)", where, e->d_model, e->attn.n_heads,
                        e->d_model / e->attn.n_heads);
    return QKV_OK;
}

/* An image input goes with the class head, a patch that tiles the images and no word options;
 * the class head and 2-D positions with an image input. */
static int image_keys(const void *c, const char *where, qkv_error *err)
{
    const qkv_run_config *r = c;
    const qkv_network_config *m = &r->model;
    const char *input = QKV_INPUT_KIND_NAMES[m->input_kind];
    bool img = image_input(m);
    if (img != (r->data.task == QKV_TASK_IMAGES))
        return qkv_fail(err, "%s: data.task = %s and model.input = %s: the images task reads an image input ("
                        IMAGE_INPUTS "), and an image input is read by the images task only", where,
                        QKV_TASK_NAMES[r->data.task], input);
    if (img && m->output != QKV_OUTPUT_CLASS)
        return qkv_fail(err, "%s: model.input = %s needs model.output = class (one class per image), got %s", where,
                        input, QKV_OUTPUT_NAMES[m->output]);
    if (!img && m->output == QKV_OUTPUT_CLASS)
        return qkv_fail(err, "%s: model.output = class needs an image input (model.input " IMAGE_INPUTS "), got %s",
                        where, input);
    if (m->encoder_kind == QKV_ENCODER_TRANSFORMER && QKV_POS_DESCS[m->positional]->needs_grid &&
        QKV_POS_DESCS[m->positional]->group == QKV_POS_ADDITIVE && !img)
        return qkv_fail(err, "%s: model.positional = %s is a 2-D encoding: it needs an image input (model.input "
                        IMAGE_INPUTS "), got %s", where, QKV_POS_KIND_NAMES[m->positional], input);
    int p = img ? QKV_INPUT_DESCS[m->input_kind]->patch(m) : 1;
    if (img && (r->data.image_rows % p || r->data.image_cols % p))
        return qkv_fail(err, "%s: model.patch_size = %d does not divide the images' data.image_rows x "
                        "data.image_cols = %d x %d", where, p, r->data.image_rows, r->data.image_cols);
    if (img && m->chars.char_dim > 0)
        return qkv_fail(err, "%s: model.char_dim = %d is for words: an image input has no characters", where,
                        m->chars.char_dim);
    if (!img && r->data.valid_fraction > 0)
        return qkv_fail(err, "%s: data.valid_fraction is for image inputs (model.input " IMAGE_INPUTS ")", where);
    if (!img && r->data.augment != QKV_AUGMENT_NONE)
        return qkv_fail(err, "%s: data.augment = %s is for image inputs (model.input " IMAGE_INPUTS ")", where,
                        QKV_AUGMENT_NAMES[r->data.augment]);
    if (img && r->data.valid_fraction > 0 && r->data.dev[0])
        return qkv_fail(err, "%s: data.valid_fraction and data.dev both give a dev set: choose one", where);
    return QKV_OK;
}

static int grid_attention(const void *c, const char *where, qkv_error *err)
{
    const qkv_network_config *m = &((const qkv_run_config *)c)->model;
    const qkv_encoder_opts *e = &m->encoder;
    if (m->encoder_kind != QKV_ENCODER_TRANSFORMER)
        return QKV_OK;
    if (m->positional == QKV_POS_ROPE2D && (e->d_model / e->attn.n_heads) % 4)
        return qkv_fail(err, "%s: model.positional = rope2d needs d_head = model.d_model / model.n_heads a multiple "
                        "of 4, got %d / %d = %d (half its pairs turn with the row, half with the column)", where,
                        e->d_model, e->attn.n_heads, e->d_model / e->attn.n_heads);
    if (e->attn.window_2d > 0 && e->attn.normalize != QKV_ATTN_SOFTMAX)
        return qkv_fail(err, "%s: model.attn_window_2d needs model.attn_normalize = softmax (it masks keys with -inf)",
                        where);
    if ((m->positional == QKV_POS_REL2D || m->positional == QKV_POS_QUADRATIC2D) && e->attn.rel_clip > 0)
        return qkv_fail(err, "%s: model.positional = %s and model.attn_rel_clip: one learned score bias per layer at "
                        "most", where, QKV_POS_KIND_NAMES[m->positional]);
    return QKV_OK;
}

static int segment_files(const void *c, const char *where, qkv_error *err)
{
    const qkv_data_section *d = &((const qkv_run_config *)c)->data;
    if (d->task == QKV_TASK_SEGMENT && (d->read.format == QKV_FORMAT_COLUMNS || d->read.scheme != QKV_TAG_SCHEME_NONE))
        return qkv_fail(err, "%s: data.task = segment reads CoNLL-U files: it needs data.format auto or conllu and "
                        "data.tag_scheme none", where);
    return QKV_OK;
}

static int parser_columns(const void *c, const char *where, qkv_error *err)
{
    const qkv_run_config *cfg = c;
    const char *tags = cfg->heads.tags;
    size_t first = strcspn(tags, ",");
    if (cfg->model.output != QKV_OUTPUT_BIAFFINE || (first == 6 && !strncmp(tags, "deprel", 6)))
        return QKV_OK;
    return qkv_fail(err, "%s: model.output = biaffine needs data.tags = deprel, or a list beginning with deprel, got %s "
                    "(the parser is head 0: its tags are the labels of the arcs)", where, tags);
}

static int parser_tag_inputs(const void *c, const char *where, qkv_error *err)
{
    return qkv_run_config_check_tag_inputs(c, where, err);
}

static int crf_smoothing(const void *c, const char *where, qkv_error *err)
{
    const qkv_run_config *cfg = c;
    if (cfg->model.output != QKV_OUTPUT_CRF || cfg->train.label_smoothing == 0)
        return QKV_OK;
    return qkv_fail(err, "%s: train.label_smoothing = %g does not apply to model.output = crf (its loss is the NLL of "
                    "each sentence's tag sequence, not a softmax over each word's tags); set it to 0", where,
                    cfg->train.label_smoothing);
}

static int span_constraints(const void *c, const char *where, qkv_error *err)
{
    return qkv_run_config_check_spans(c, where, err);
}

/* Relations between keys, as data: checked in this order after loading (lib/io/config.h: the
 * first broken one is the error), listed under the key table of configs/README.md. */
const qkv_cfg_rule QKV_RUN_RULES[] = {
    {QKV_CFG_RULE_CHECK, NULL, NULL, NULL,
     "`model.encoder=bilstm` with `model.lstm_hidden` 0 (d_model / 2) needs `model.d_model` >= 2", bilstm_width},
    {QKV_CFG_RULE_ODD, "model.cnn_kernel", NULL, NULL, "(the convolution is centred on each word)", NULL},
    {QKV_CFG_RULE_DIVIDES, "model.n_heads", "model.d_model", "model.encoder=transformer", NULL, NULL},
    {QKV_CFG_RULE_CHECK, NULL, NULL, NULL,
     "`model.positional=rope` needs an even d_head = `model.d_model` / `model.n_heads` (it rotates pairs of columns)",
     rope_pairs},
    {QKV_CFG_RULE_CHECK, NULL, NULL, NULL,
     "`model.positional=rope2d` needs d_head a multiple of 4; `model.attn_window_2d` needs "
     "`model.attn_normalize=softmax`; `model.positional` rel2d or quadratic2d exclude `model.attn_rel_clip` (one "
     "learned score bias per layer); when the model is made, the 2-D kinds and `model.encoder=cnn2d` need an image "
     "input (a 2-D grid)",
     grid_attention},
    {QKV_CFG_RULE_NEEDS, "data.task=frames", NULL, "model.input=frames",
     "(the frames input reads the vectors of a frame corpus; data.task frames chooses it by itself)", NULL},
    {QKV_CFG_RULE_NEEDS, "model.attn_normalize=softmax", NULL, "model.positional=alibi",
     "(its biases act through softmax as a decay exp(-m|i-j|) of the weights)", NULL},
    {QKV_CFG_RULE_ODD, "model.char_width", NULL, NULL, "(the convolution is centred on each character)", NULL},
    {QKV_CFG_RULE_REQUIRED, "data.train", NULL, "data.source=files", NULL, NULL},
    {QKV_CFG_RULE_CHECK, NULL, NULL, NULL,
     "`data.task=segment` reads CoNLL-U files: it needs `data.format` auto or conllu and `data.tag_scheme` none",
     segment_files},
    {QKV_CFG_RULE_FORBIDDEN, "data.tag_column=1", NULL, NULL, "is the FORM column; the tag is in column 2 or later",
     NULL},
    {QKV_CFG_RULE_NOT_ABOVE, "optim.min_lr", "optim.lr", NULL, NULL, NULL},
    {QKV_CFG_RULE_CHECK, NULL, NULL, NULL,
     "`model.output=biaffine` needs `data.tags` deprel, or a list whose first column is deprel (the parser is head 0, "
     "its tags the labels of the arcs; the other columns are tagging heads over the same encoder)",
     parser_columns},
    {QKV_CFG_RULE_CHECK, NULL, NULL, NULL,
     "`model.parser_tag_inputs` needs `model.output=biaffine` and names columns of `data.tags` after the first "
     "(tagging heads of the same model, each a softmax over its column's classes)",
     parser_tag_inputs},
    {QKV_CFG_RULE_CHECK, NULL, NULL, NULL,
     "`model.crf_constrained` with `model.output=crf` needs `data.tag_scheme` bio or bioes, not iob1 (its constraints "
     "are BIO's or BIOES's)",
     span_constraints},
    {QKV_CFG_RULE_CHECK, NULL, NULL, NULL,
     "`train.label_smoothing` above 0 excludes `model.output=crf` (a CRF's loss is over whole tag sequences, not a "
     "softmax over each word's tags)",
     crf_smoothing},
    {QKV_CFG_RULE_CHECK, NULL, NULL, NULL,
     "an image input (`model.input` " IMAGE_INPUTS ") goes with `data.task=images` (a config of an image input that "
     "says `tag` is read as images) and needs `model.output=class`, a `model.patch_size` that divides "
     "`data.image_rows` and `data.image_cols`, and `model.char_dim` 0; `model.output=class`, the 2-D positional kinds, "
     "`data.valid_fraction` and `data.augment` need an image input; `data.valid_fraction` and `data.dev` exclude each other",
     image_keys},
    {QKV_CFG_RULE_NEEDS, "model.cls_token=true", NULL, "model.pool=cls", "(the head reads each image's [CLS] token)",
     NULL},
};

const int QKV_RUN_RULES_LEN = (int)(sizeof QKV_RUN_RULES / sizeof QKV_RUN_RULES[0]);

static int check_relations(const qkv_run_config *cfg, const char *where, qkv_error *err)
{
    return qkv_config_check_rules(QKV_RUN_SCHEMA, QKV_RUN_SCHEMA_LEN, QKV_RUN_RULES, QKV_RUN_RULES_LEN, cfg, where,
                                  err);
}

/* Library defaults under every field, so that one no key fills (a new option of a library
 * struct) keeps the library's default; the keys then fill theirs. */
static void defaults(qkv_run_config *cfg)
{
    memset(cfg, 0, sizeof *cfg);
    cfg->data.read = QKV_READ_DEFAULTS;
    cfg->data.features = QKV_FEATURE_DEFAULTS;
    cfg->optim.optimizer = qkv_optim_defaults(QKV_OPTIM_ADAMW);
}

int qkv_run_config_load_noted(const char *path, char *const *overrides, int n_overrides, qkv_run_config *cfg,
                              char *note, size_t cap, qkv_error *err)
{
    defaults(cfg);
    if (qkv_config_load_noted(path, QKV_RUN_SCHEMA, QKV_RUN_SCHEMA_LEN, cfg, overrides, n_overrides, note, cap, err))
        return QKV_ERR;
    if (derive(cfg, path ? path : "config", err))
        return QKV_ERR;
    return check_relations(cfg, path ? path : "config", err);
}

int qkv_run_config_load(const char *path, char *const *overrides, int n_overrides,
                        qkv_run_config *cfg, qkv_error *err)
{
    return qkv_run_config_load_noted(path, overrides, n_overrides, cfg, NULL, 0, err);
}

int qkv_run_config_parse(const char *text, const char *name, qkv_run_config *cfg, qkv_error *err)
{
    defaults(cfg);
    if (qkv_config_parse(text, strlen(text), name, NULL, QKV_RUN_SCHEMA, QKV_RUN_SCHEMA_LEN, cfg, NULL, 0, err))
        return QKV_ERR;
    if (derive(cfg, name, err))
        return QKV_ERR;
    return check_relations(cfg, name, err);
}
