/* The models qkv serve answers with, each opened through the C library (include/qkv/qkv.h).
 * A qkv_model is not safe for concurrent calls (qkv.h: "Threads"), so each model is a pool of
 * qkv_model instances of one file: a request takes one for its call and gives it back; the
 * pool opens another (up to max_open, the server's --threads) when all are in use, else the
 * request waits for one. The first instance is opened at start, and tells what the model can do. */
#ifndef QKV_SERVE_MODELS_H
#define QKV_SERVE_MODELS_H

#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>

#include "lib/error.h"
#include "qkv/qkv.h"

typedef struct serve_model {
    char id[128];       /* its name in the REST API: a shipped model's name, or a file's name without .h5 */
    char source[4096];  /* the shipped model's name or the file's path */
    bool named;         /* source is a shipped model's name (qkv_model_open_named) */
    bool can_tokenize;  /* it has a segmenter */
    bool can_tag;       /* it predicts LEMMA, UPOS, XPOS or FEATS */
    bool can_parse;     /* it predicts HEAD and DEPREL */
    pthread_mutex_t lock;
    pthread_cond_t freed;
    qkv_model **idle;   /* instances not in use */
    int n_idle, n_open, max_open;
    int max_words;      /* each instance's bound on a sentence's words (qkv_model_set_max_words) */
    uint64_t words;     /* words answered */
} serve_model;

typedef struct serve_models {
    serve_model *m;
    int n;
} serve_models;

/* Opens each of specs[0 .. n) (n 0: "en", the shipped English model): a path (it holds a '/'
 * or ends in .h5) or a shipped model's name, each instance taking sentences of up to max_words
 * words (the server's --max-words). Errors: a model that does not open, two models of one id. */
int serve_models_open(serve_models *ms, char *const *specs, int n, int max_open, int max_words, qkv_error *err);
void serve_models_free(serve_models *ms);

/* The model a request names: its id, or a hyphen-separated prefix of an id ("english" for
 * "english-ewt"), the first in order; NULL or "" the first model. NULL: none. */
serve_model *serve_models_find(const serve_models *ms, const char *name);

/* An instance of m for one call (NULL with *error when another cannot be opened); give it back
 * with serve_model_release. */
qkv_model *serve_model_acquire(serve_model *m, char **error);
void serve_model_release(serve_model *m, qkv_model *q);

/* Counts words answered with m. */
void serve_model_count(serve_model *m, long words);

#endif
