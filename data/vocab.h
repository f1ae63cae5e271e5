/* A string -> id vocabulary: counted while building, pruned by min_count, then frozen for
 * lookups. Feature vocabularies reserve id 0 for UNK (every unseen or rare string maps to 0,
 * so batches need no padding id); the tag vocabulary has no UNK: an unseen tag looks up as -1.
 * Saved and restored as the ordered list of its UTF-8 strings (id i = string i; for a vocabulary
 * with UNK, string 0 is QKV_UNK). Strings are arbitrary non-NUL bytes compared exactly. */
#ifndef QKV_DATA_VOCAB_H
#define QKV_DATA_VOCAB_H

#include <stddef.h>
#include <stdint.h>

#include "lib/error.h"

#define QKV_UNK "<unk>"

typedef struct qkv_vocab {
    int has_unk;       /* 1: id 0 is UNK */
    int size;          /* ids 0 .. size-1 (UNK included) */
    int cap;
    uint32_t *offs;    /* [cap] offset of string id in pool */
    uint32_t *lens;    /* [cap] byte length of string id */
    int64_t *counts;   /* [cap] occurrences counted by qkv_vocab_add */
    char *pool;        /* the strings, each NUL-terminated */
    size_t pool_len, pool_cap;
    int32_t *table;    /* open addressing hash table of ids, -1 = empty */
    uint32_t table_mask;
} qkv_vocab;

/* An empty vocabulary; with has_unk, id 0 = QKV_UNK is present from the start. */
int qkv_vocab_init(qkv_vocab *v, int has_unk, qkv_error *err);
void qkv_vocab_free(qkv_vocab *v);

/* Counts one occurrence of s[0..len), adding it with the next id when new; *id (may be NULL)
 * receives its id. */
int qkv_vocab_add(qkv_vocab *v, const char *s, size_t len, int32_t *id, qkv_error *err);

/* Keeps the strings counted at least min_count times, renumbered by descending count (ties:
 * first seen first); UNK stays id 0. min_count <= 1 keeps everything (and still sorts). */
int qkv_vocab_prune(qkv_vocab *v, int min_count, qkv_error *err);

/* The id of s[0..len): 0 (UNK) or -1 (no UNK) when absent. */
int32_t qkv_vocab_lookup(const qkv_vocab *v, const char *s, size_t len);

/* Ids 0 .. size-1 (UNK included). */
static inline int qkv_vocab_size(const qkv_vocab *v) { return v->size; }

/* The NUL-terminated string of id (0 <= id < size); valid until the vocabulary changes. */
const char *qkv_vocab_string(const qkv_vocab *v, int id);
/* Occurrences counted for id (0 for UNK and for restored vocabularies). */
int64_t qkv_vocab_count(const qkv_vocab *v, int id);

/* Fills out[0 .. size-1] with the strings in id order (out needs room for v->size pointers,
 * valid until the vocabulary changes); returns size. This is what a checkpoint stores. */
int qkv_vocab_strings(const qkv_vocab *v, const char **out);

/* Rebuilds a vocabulary from qkv_vocab_strings' list. With has_unk, strings[0] must be QKV_UNK.
 * Errors: a duplicate string, a missing UNK, n < 0. v is initialized by this call. */
int qkv_vocab_from_strings(qkv_vocab *v, int has_unk, const char *const *strings, int n, qkv_error *err);

#endif
