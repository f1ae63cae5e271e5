/* qkv: tagging with a model trained by qkv, from a C (or C++) program.
 *
 *     #include <qkv/qkv.h>        cc prog.c $(pkg-config --cflags --libs qkv)
 *
 * A model file is a training checkpoint (RUN/checkpoints/best.h5 or last.h5) or an exported
 * model (`qkv export CHECKPOINT --out model.h5`: the weights, vocabularies and config only).
 * Open it once, then tag one pre-tokenised sentence at a time, as many as you like: the model
 * stays loaded between calls. Each word gets one tag from the model's own tag set (UPOS or XPOS
 * tags for a CoNLL-U tagger, the span tags of an NER model in its data.tag_scheme), exactly the
 * tag `qkv tag` writes for the same words.
 *
 * Errors: functions that can fail take `char **error`. On failure they return NULL or a
 * non-zero int and, when error is not NULL, set *error to a message (one line, malloc'd: the
 * caller frees it with free()); on success *error is left alone. The library never prints and
 * never exits.
 *
 * Threads: a qkv_model is not safe for concurrent calls. Calls on one model must not overlap
 * (each call reuses the model's own working memory); guard it with a mutex, or open one
 * qkv_model per thread: separate models can open and tag at the same time from separate
 * threads (tests/api/api_threads.c checks this with two). The matrix products and attention of
 * one call run on OpenMP threads themselves (OMP_NUM_THREADS sets how many). A sentence is a
 * small piece of work: with libgomp's default spin-waiting on a busy machine, threads can cost
 * more than they save (the qkv command sets GOMP_SPINCOUNT=1000 for itself); OMP_NUM_THREADS=1
 * was fastest for one sentence at a time in README.md's measurement.
 */
#ifndef QKV_QKV_H
#define QKV_QKV_H

#ifdef __cplusplus
extern "C" {
#endif

/* The version of this API: it changes when a declaration here changes meaning. */
#define QKV_API_VERSION 1

/* A loaded model: its config, vocabularies and weights (opaque). */
typedef struct qkv_model qkv_model;

/* Opens the model file at path (a checkpoint or an export). Returns the model, or NULL with
 * *error saying why: the file cannot be read, is not a qkv model, or was written with a config
 * this qkv does not accept ("path: ..."). Free the model with qkv_model_free. */
qkv_model *qkv_model_open(const char *path, char **error);

/* Tags one sentence of n_words words (UTF-8 strings; each non-empty, without TAB, CR, LF or NUL
 * bytes; spaces inside a word are fine). Sets tags[i] (the caller's array of n_words pointers)
 * to word i's tag: a string owned by the model, valid until qkv_model_free. n_words 0 is an
 * empty sentence (nothing to do). Returns 0, or non-zero with *error: a word that breaks the
 * rules above or is not valid UTF-8 ("word 3: ..."), a sentence longer than the model takes
 * (learned positions with model.pos_overflow: error), out of memory. */
int qkv_model_tag(qkv_model *model, const char *const *words, int n_words, const char **tags, char **error);

/* The number of tags the model predicts, and tag t's name (0 <= t < qkv_model_n_tags; owned
 * by the model). */
int qkv_model_n_tags(const qkv_model *model);
const char *qkv_model_tag_name(const qkv_model *model, int t);

/* Frees the model (NULL: nothing). The tag strings it gave out go with it. */
void qkv_model_free(qkv_model *model);

#ifdef __cplusplus
}
#endif

#endif
