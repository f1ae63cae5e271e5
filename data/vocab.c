#include "data/vocab.h"

#include <stdlib.h>
#include <string.h>

static uint64_t hash_bytes(const char *s, size_t len)
{
    uint64_t h = 1469598103934665603ULL; /* FNV-1a, 64 bit */
    for (size_t i = 0; i < len; i++) {
        h ^= (unsigned char)s[i];
        h *= 1099511628211ULL;
    }
    return h ^ (h >> 29);
}

static int rebuild_table(qkv_vocab *v, uint32_t want, qkv_error *err)
{
    uint32_t n = 64;
    while (n < want * 2u)
        n *= 2;
    int32_t *t = malloc(n * sizeof *t);
    if (!t)
        return qkv_fail(err, "vocabulary: out of memory for a table of %u entries", n);
    memset(t, 0xff, n * sizeof *t);
    free(v->table);
    v->table = t;
    v->table_mask = n - 1;
    for (int id = v->has_unk; id < v->size; id++) {
        uint32_t i = (uint32_t)hash_bytes(v->pool + v->offs[id], v->lens[id]) & v->table_mask;
        while (t[i] >= 0)
            i = (i + 1) & v->table_mask;
        t[i] = id;
    }
    return QKV_OK;
}

/* Slot of s in the table: holds its id, or -1 where it would go. */
static uint32_t find_slot(const qkv_vocab *v, const char *s, size_t len)
{
    uint32_t i = (uint32_t)hash_bytes(s, len) & v->table_mask;
    for (;;) {
        int32_t id = v->table[i];
        if (id < 0 || (v->lens[id] == len && !memcmp(v->pool + v->offs[id], s, len)))
            return i;
        i = (i + 1) & v->table_mask;
    }
}

static int append(qkv_vocab *v, const char *s, size_t len, qkv_error *err)
{
    if (len > UINT32_MAX / 2 || v->size == INT32_MAX - 1)
        return qkv_fail(err, "vocabulary: string or vocabulary too large");
    if (v->size == v->cap) {
        int cap = v->cap ? v->cap * 2 : 256;
        uint32_t *o = realloc(v->offs, (size_t)cap * sizeof *o);
        if (o)
            v->offs = o;
        uint32_t *l = realloc(v->lens, (size_t)cap * sizeof *l);
        if (l)
            v->lens = l;
        int64_t *c = realloc(v->counts, (size_t)cap * sizeof *c);
        if (c)
            v->counts = c;
        if (!o || !l || !c)
            return qkv_fail(err, "vocabulary: out of memory for %d strings", cap);
        v->cap = cap;
    }
    if (v->pool_cap - v->pool_len < len + 1) {
        size_t cap = v->pool_cap ? v->pool_cap : 4096;
        while (cap - v->pool_len < len + 1)
            cap *= 2;
        if (cap > UINT32_MAX)
            return qkv_fail(err, "vocabulary: more than 4 GiB of strings");
        char *p = realloc(v->pool, cap);
        if (!p)
            return qkv_fail(err, "vocabulary: out of memory for %zu bytes of strings", cap);
        v->pool = p;
        v->pool_cap = cap;
    }
    memcpy(v->pool + v->pool_len, s, len);
    v->pool[v->pool_len + len] = '\0';
    v->offs[v->size] = (uint32_t)v->pool_len;
    v->lens[v->size] = (uint32_t)len;
    v->counts[v->size] = 0;
    v->pool_len += len + 1;
    v->size++;
    return QKV_OK;
}

int qkv_vocab_init(qkv_vocab *v, int has_unk, qkv_error *err)
{
    memset(v, 0, sizeof *v);
    v->has_unk = has_unk ? 1 : 0;
    if (rebuild_table(v, 0, err) != QKV_OK)
        return QKV_ERR;
    if (has_unk && append(v, QKV_UNK, strlen(QKV_UNK), err) != QKV_OK) {
        qkv_vocab_free(v);
        return QKV_ERR;
    }
    return QKV_OK;
}

void qkv_vocab_free(qkv_vocab *v)
{
    free(v->offs);
    free(v->lens);
    free(v->counts);
    free(v->pool);
    free(v->table);
    memset(v, 0, sizeof *v);
}

int qkv_vocab_add(qkv_vocab *v, const char *s, size_t len, int32_t *id, qkv_error *err)
{
    uint32_t slot = find_slot(v, s, len);
    int32_t found = v->table[slot];
    if (found < 0) {
        if (append(v, s, len, err) != QKV_OK)
            return QKV_ERR;
        found = v->size - 1;
        if ((uint32_t)v->size * 2u > v->table_mask + 1u) {
            if (rebuild_table(v, (uint32_t)v->size, err) != QKV_OK)
                return QKV_ERR;
        } else {
            v->table[slot] = found;
        }
    }
    v->counts[found]++;
    if (id)
        *id = found;
    return QKV_OK;
}

typedef struct {
    int64_t count;
    int id;
} counted;

/* Descending count, then ascending id (first seen first). */
static int by_count(const void *pa, const void *pb)
{
    const counted *a = pa, *b = pb;
    if (a->count != b->count)
        return a->count > b->count ? -1 : 1;
    return (a->id > b->id) - (a->id < b->id);
}

int qkv_vocab_prune(qkv_vocab *v, int min_count, qkv_error *err)
{
    int first = v->has_unk, n = 0;
    counted *keep = malloc((size_t)(v->size + 1) * sizeof *keep);
    if (!keep)
        return qkv_fail(err, "vocabulary: out of memory");
    for (int id = first; id < v->size; id++)
        if (v->counts[id] >= min_count)
            keep[n++] = (counted){v->counts[id], id};
    qsort(keep, (size_t)n, sizeof *keep, by_count);
    qkv_vocab nv;
    if (qkv_vocab_init(&nv, v->has_unk, err) != QKV_OK) {
        free(keep);
        return QKV_ERR;
    }
    int st = QKV_OK;
    for (int i = 0; i < n && st == QKV_OK; i++) {
        int id = keep[i].id;
        st = append(&nv, v->pool + v->offs[id], v->lens[id], err);
        if (st == QKV_OK)
            nv.counts[nv.size - 1] = v->counts[id];
    }
    free(keep);
    if (st == QKV_OK)
        st = rebuild_table(&nv, (uint32_t)nv.size, err);
    if (st != QKV_OK) {
        qkv_vocab_free(&nv);
        return QKV_ERR;
    }
    qkv_vocab_free(v);
    *v = nv;
    return QKV_OK;
}

int32_t qkv_vocab_lookup(const qkv_vocab *v, const char *s, size_t len)
{
    int32_t id = v->table[find_slot(v, s, len)];
    return id >= 0 ? id : (v->has_unk ? 0 : -1);
}

const char *qkv_vocab_string(const qkv_vocab *v, int id)
{
    return v->pool + v->offs[id];
}

int64_t qkv_vocab_count(const qkv_vocab *v, int id)
{
    return v->counts[id];
}

int qkv_vocab_strings(const qkv_vocab *v, const char **out)
{
    for (int id = 0; id < v->size; id++)
        out[id] = v->pool + v->offs[id];
    return v->size;
}

int qkv_vocab_from_strings(qkv_vocab *v, int has_unk, const char *const *strings, int n, qkv_error *err)
{
    if (qkv_vocab_init(v, has_unk, err) != QKV_OK)
        return QKV_ERR;
    if (n < 0 || (has_unk && (n < 1 || !strings[0] || strcmp(strings[0], QKV_UNK)))) {
        qkv_vocab_free(v);
        return qkv_fail(err, "vocabulary: expected \"%s\" as string 0 of a vocabulary with UNK", QKV_UNK);
    }
    for (int i = has_unk ? 1 : 0; i < n; i++) {
        size_t len = strings[i] ? strlen(strings[i]) : 0;
        if (!strings[i] || v->table[find_slot(v, strings[i], len)] >= 0) {
            qkv_vocab_free(v);
            return qkv_fail(err, "vocabulary: string %d (\"%.60s\") is %s", i, strings[i] ? strings[i] : "",
                            strings[i] ? "a duplicate" : "missing");
        }
        int32_t id;
        if (qkv_vocab_add(v, strings[i], len, &id, err) != QKV_OK) {
            qkv_vocab_free(v);
            return QKV_ERR;
        }
        v->counts[id] = 0;
    }
    return QKV_OK;
}
