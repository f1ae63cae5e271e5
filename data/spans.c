/* Chunks of tag sequences by conlleval's rules, scheme conversion and entity counts (spans.h). */
#include "data/spans.h"

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

const char *const QKV_TAG_SCHEME_NAMES[] = {"none", "bio", "iob1", "bioes", NULL};
_Static_assert(sizeof QKV_TAG_SCHEME_NAMES / sizeof QKV_TAG_SCHEME_NAMES[0] == QKV_TAG_SCHEME_COUNT + 1,
               "one name per qkv_tag_scheme");

qkv_tag_part qkv_tag_split(const char *tag, size_t len)
{
    const char *hyphen = memchr(tag, '-', len);
    size_t plen = hyphen ? (size_t)(hyphen - tag) : len;
    qkv_tag_part p = {'?', "", 0};
    if (hyphen) {
        p.type = hyphen + 1;
        p.type_len = (int)(len - plen - 1);
    }
    if (plen == 1 && strchr("BIESO.", tag[0]))
        p.kind = tag[0];
    return p;
}

int qkv_tag_is_span(const char *tag, size_t len)
{
    if (len == 1 && tag[0] == 'O')
        return 1;
    return len > 2 && tag[1] == '-' && strchr("BIES", tag[0]) != NULL;
}

static bool same_type(const qkv_tag_part *a, const qkv_tag_part *b)
{
    return a->type_len == b->type_len && !memcmp(a->type, b->type, (size_t)a->type_len);
}

/* conlleval's endOfChunk, with E and S as its BIOES ports have them. */
static bool chunk_ends(const qkv_tag_part *prev, const qkv_tag_part *cur)
{
    char p = prev->kind, t = cur->kind;
    if (p == 'E' || p == 'S')
        return true;
    if ((p == 'B' || p == 'I') && (t == 'B' || t == 'S' || t == 'O'))
        return true;
    return p != 'O' && p != '.' && !same_type(prev, cur);
}

/* conlleval's startOfChunk, with E and S as its BIOES ports have them. */
static bool chunk_starts(const qkv_tag_part *prev, const qkv_tag_part *cur)
{
    char p = prev->kind, t = cur->kind;
    if (t == 'B' || t == 'S')
        return true;
    if ((p == 'E' || p == 'S' || p == 'O') && (t == 'E' || t == 'I'))
        return true;
    return t != 'O' && t != '.' && !same_type(prev, cur);
}

int qkv_chunks_read(const qkv_tag_part *tags, int n, qkv_chunk *out)
{
    static const qkv_tag_part outside = {'O', "", 0};
    const qkv_tag_part *prev = &outside;
    int n_chunks = 0, start = -1;
    for (int i = 0; i <= n; i++) {
        const qkv_tag_part *cur = i < n ? &tags[i] : &outside;
        if (start >= 0 && chunk_ends(prev, cur)) {
            out[n_chunks++] = (qkv_chunk){start, i, tags[start].type, tags[start].type_len};
            start = -1;
        }
        if (i < n && chunk_starts(prev, cur))
            start = i;
        prev = cur;
    }
    return n_chunks;
}

void qkv_chunks_encode(const qkv_chunk *chunks, int n_chunks, int n, qkv_tag_scheme scheme, qkv_tag_part *out)
{
    for (int i = 0; i < n; i++)
        out[i] = (qkv_tag_part){'O', "", 0};
    for (int k = 0; k < n_chunks; k++) {
        const qkv_chunk *c = &chunks[k];
        for (int i = c->start; i < c->end; i++)
            out[i] = (qkv_tag_part){'I', c->type, c->type_len};
        if (scheme == QKV_TAG_SCHEME_IOB1) {
            const qkv_chunk *b = k > 0 ? &chunks[k - 1] : NULL;
            if (b && b->end == c->start && b->type_len == c->type_len &&
                !memcmp(b->type, c->type, (size_t)c->type_len))
                out[c->start].kind = 'B';
        } else if (scheme == QKV_TAG_SCHEME_BIOES && c->end - c->start == 1) {
            out[c->start].kind = 'S';
        } else {
            out[c->start].kind = 'B';
            if (scheme == QKV_TAG_SCHEME_BIOES)
                out[c->end - 1].kind = 'E';
        }
    }
}

void qkv_tags_convert(qkv_tag_part *tags, int n, qkv_tag_scheme scheme, qkv_chunk *scratch)
{
    int n_chunks = qkv_chunks_read(tags, n, scratch);
    qkv_chunks_encode(scratch, n_chunks, n, scheme, tags);
}

size_t qkv_tag_part_format(const qkv_tag_part *p, char *buf, size_t cap)
{
    size_t need = p->kind == 'O' ? 1 : 2 + (size_t)p->type_len;
    if (cap == 0)
        return need;
    size_t k = 0;
    if (k + 1 < cap)
        buf[k++] = p->kind;
    if (p->kind != 'O') {
        if (k + 1 < cap)
            buf[k++] = '-';
        size_t t = (size_t)p->type_len < cap - 1 - k ? (size_t)p->type_len : cap - 1 - k;
        memcpy(buf + k, p->type, t);
        k += t;
    }
    buf[k] = '\0';
    return need;
}

/* Counts the end of a chunk at word (corpus index) by its last tag's kind. */
static void vote_end(qkv_scheme_vote *v, char kind, long word)
{
    bool es = kind == 'E' || kind == 'S';
    long *n = es ? &v->n_end_es : &v->n_end_bi, *first = es ? &v->first_end_es : &v->first_end_bi;
    if ((*n)++ == 0)
        *first = word;
}

void qkv_scheme_vote_add(qkv_scheme_vote *v, const qkv_tag_part *tags, int n, long first)
{
    static const qkv_tag_part outside = {'O', "", 0};
    for (int i = 0; i < n; i++) {
        const qkv_tag_part *prev = i ? &tags[i - 1] : &outside, *next = i + 1 < n ? &tags[i + 1] : &outside;
        if (tags[i].kind == 'E' || tags[i].kind == 'S')
            v->n_e_s++;
        else if (chunk_starts(prev, &tags[i]) && tags[i].kind == 'B')
            v->n_start_b++;
        else if (chunk_starts(prev, &tags[i]) && tags[i].kind == 'I')
            v->n_start_i++;
        if (tags[i].type_len > 0 && strchr("BIES", tags[i].kind) && chunk_ends(&tags[i], next))
            vote_end(v, tags[i].kind, first + i);
    }
}

int qkv_scheme_vote_mixed(const qkv_scheme_vote *v, long *word, int *bioes)
{
    if (!v->n_end_es || !v->n_end_bi)
        return 0;
    *bioes = v->n_end_es <= v->n_end_bi;
    *word = *bioes ? v->first_end_es : v->first_end_bi;
    return 1;
}

qkv_tag_scheme qkv_scheme_vote_result(const qkv_scheme_vote *v)
{
    if (v->n_e_s)
        return QKV_TAG_SCHEME_BIOES;
    return v->n_start_i > v->n_start_b ? QKV_TAG_SCHEME_IOB1 : QKV_TAG_SCHEME_BIO;
}

/* The index of type in c, added when new; -1 when out of memory. */
static int type_index(qkv_span_counts *c, const char *type, int len)
{
    for (int k = 0; k < c->n_types; k++)
        if ((int)strlen(c->types[k]) == len && !memcmp(c->types[k], type, (size_t)len))
            return k;
    if (c->n_types == c->cap) {
        int cap = c->cap ? 2 * c->cap : 8;
        char **t = realloc(c->types, (size_t)cap * sizeof *t);
        if (!t)
            return -1;
        c->types = t;
        long **arr[3] = {&c->type_gold, &c->type_pred, &c->type_correct};
        for (int a = 0; a < 3; a++) {
            long *r = realloc(*arr[a], (size_t)cap * sizeof *r);
            if (!r)
                return -1;
            *arr[a] = r;
        }
        c->cap = cap;
    }
    char *name = malloc((size_t)len + 1);
    if (!name)
        return -1;
    memcpy(name, type, (size_t)len);
    name[len] = '\0';
    int k = c->n_types++;
    c->types[k] = name;
    c->type_gold[k] = c->type_pred[k] = c->type_correct[k] = 0;
    return k;
}

int qkv_span_counts_add(qkv_span_counts *c, const qkv_tag_part *gold, const qkv_tag_part *pred, int n,
                        qkv_chunk *scratch, qkv_error *err)
{
    qkv_chunk *g = scratch, *p = scratch + n;
    int ng = qkv_chunks_read(gold, n, g), np = qkv_chunks_read(pred, n, p);
    int j = 0;
    for (int i = 0; i < ng; i++) {
        int k = type_index(c, g[i].type, g[i].type_len);
        if (k < 0)
            return qkv_fail(err, "out of memory for span counts");
        c->gold++;
        c->type_gold[k]++;
        /* both lists are sorted by start and do not overlap */
        while (j < np && p[j].start < g[i].start)
            j++;
        if (j < np && p[j].start == g[i].start && p[j].end == g[i].end && p[j].type_len == g[i].type_len &&
            !memcmp(p[j].type, g[i].type, (size_t)g[i].type_len)) {
            c->correct++;
            c->type_correct[k]++;
        }
    }
    for (int i = 0; i < np; i++) {
        int k = type_index(c, p[i].type, p[i].type_len);
        if (k < 0)
            return qkv_fail(err, "out of memory for span counts");
        c->pred++;
        c->type_pred[k]++;
    }
    return QKV_OK;
}

void qkv_span_counts_free(qkv_span_counts *c)
{
    for (int k = 0; k < c->n_types; k++)
        free(c->types[k]);
    free(c->types);
    free(c->type_gold);
    free(c->type_pred);
    free(c->type_correct);
    memset(c, 0, sizeof *c);
}

void qkv_span_prf(long correct, long gold, long pred, double *precision, double *recall, double *f1)
{
    double p = pred ? (double)correct / (double)pred : 0, r = gold ? (double)correct / (double)gold : 0;
    *precision = p;
    *recall = r;
    *f1 = p + r > 0 ? 2 * p * r / (p + r) : 0;
}

/* The kind of p for the CRF constraints: B, I, E, S, O, or '?' (not a span tag). */
static char constraint_kind(const qkv_tag_part *p)
{
    if (p->kind == 'O')
        return p->type_len == 0 ? 'O' : '?';
    return strchr("BIES", p->kind) && p->type_len > 0 ? p->kind : '?';
}

int qkv_tags_forbidden(const qkv_tag_part *tags, int n, int bioes)
{
    char prev = 'O';
    for (int i = 0; i <= n; i++) {
        char k = i < n ? constraint_kind(&tags[i]) : 'O';
        bool cont = k == 'I' || (bioes && k == 'E');         /* tag i continues a chunk */
        bool open = bioes && (prev == 'B' || prev == 'I');   /* tag i-1 leaves its chunk open */
        if (i == n && !open)
            break;
        if (cont || open) {
            bool same = cont && i > 0 && (prev == 'B' || prev == 'I') && same_type(&tags[i - 1], &tags[i]);
            if (!same)
                return i < n ? i : n - 1;
        }
        prev = k;
    }
    return -1;
}
