/* A trained model in an HDF5 file: a training checkpoint (train/train_state.h: last.h5, best.h5)
 * or an exported model (`qkv export`). Both hold, readable with h5py and no qkv code:
 *   /params/<name>      the model's parameters, float32, PyTorch [out, in] shapes (under
 *                       train.ema_decay > 0: their moving average, the model to use)
 *   /vocab/features     names of the feature kinds, in model order
 *   /vocab/<feature>, /vocab/tags, /vocab/chars (model.char_dim > 0 only)
 *                       vocabularies: UTF-8 strings in id order, each NUL-ended, as uint8
 *   /config             the resolved YAML config (api/run_config.h)
 *   /lexicon/chunks, /lexicon/segs
 *                       a segmenter's lexicon (data/seg_lexicon.h; none when it is empty): its
 *                       chunks in byte order and their segmentations, string lists as above
 *   /tag_pairs/upos_xpos, /lemma_lexicon/keys, /lemma_lexicon/scripts
 *                       a tagger's UPOS/XPOS pairs (api/tag_pairs.h) and lemma lexicon
 *                       (api/lemma_lexicon.h) of its training file, when it has them
 * An export holds nothing else, except for a segmenter bundled with `qkv export --tokenizer`:
 * the same under /segmenter (QKV_SEGMENTER_GROUP: /segmenter/params, /segmenter/vocab,
 * /segmenter/config, /segmenter/lexicon). A training checkpoint adds /optim and /train (what --resume
 * needs); best.h5 adds only /train/run_id and /train/step (which run and step it is from). */
#ifndef QKV_API_MODEL_FILE_H
#define QKV_API_MODEL_FILE_H

#include "api/session.h"
#include "lib/io/store.h"

/* Writes the session's model (/params), vocabularies (/vocab) and config (/config) into w.
 * Errors: HDF5 failures, out of memory. */
int qkv_model_file_write(qkv_store_writer *w, const qkv_session *s, qkv_error *err);

/* Where an export keeps a bundled segmenter. */
#define QKV_SEGMENTER_GROUP "/segmenter"

/* The segmenter's model (a session of data.task segment, api/segmenter.h) under
 * QKV_SEGMENTER_GROUP of w: its params, vocab and config. Errors: as qkv_model_file_write. */
int qkv_model_file_write_segmenter(qkv_store_writer *w, const qkv_session *segmenter, qkv_error *err);

/* An exported model at path: what qkv_model_file_write writes and, when segmenter is not
 * NULL, that model (a segmenter, api/segmenter.h) under QKV_SEGMENTER_GROUP; nothing else.
 * With float16 every parameter is stored as IEEE binary16 (half the bytes; loading converts
 * back to float, lib/io/store.h: qkv_store_set_float16), else as float32.
 * Written atomically (a temporary file renamed into place; lib/io/store.h). */
int qkv_model_file_export(const char *path, const qkv_session *s, const qkv_session *segmenter, bool float16,
                          qkv_error *err);

/* For commands and programs that use a trained model: the config stored in the file at path
 * (a checkpoint or an export), the featurizer from its vocabularies, and the model with its
 * parameters, into a session from qkv_session_init. The model is bounded by the parameter
 * values /params stores (lib/io/store.h: qkv_store_count_values): a config declaring a larger
 * one is refused before it is allocated. Errors name path: not a qkv model file, a config the
 * running qkv rejects, vocabularies or parameters that do not match the config. */
int qkv_checkpoint_load_model(const char *path, qkv_session *s, qkv_error *err);

/* qkv_checkpoint_load_model of the model stored under group of the file (NULL or "": its
 * root, QKV_SEGMENTER_GROUP: a bundled segmenter); errors name "PATH:GROUP". */
int qkv_model_file_load(const char *path, const char *group, qkv_session *s, qkv_error *err);

/* Whether the file at path holds a model under group (GROUP/config); false when it cannot be
 * opened. */
bool qkv_model_file_has(const char *path, const char *group);

/* The file's vocabularies as the session's featurizer, with the session's config (for
 * --resume: the vocabulary of the original run, whatever the training file holds now). */
int qkv_checkpoint_load_vocab(const char *path, qkv_session *s, qkv_error *err);

#endif
