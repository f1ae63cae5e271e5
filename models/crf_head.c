#include "models/crf_head.h"

#include <stdlib.h>
#include <string.h>

int qkv_crf_head_create(qkv_crf_head *h, qkv_params *ps, int n_tags, bool constrained,
                        const char *const *tag_names, qkv_error *err)
{
    memset(h, 0, sizeof *h);
    h->transitions = qkv_params_add(ps, err, 2, (int[]){n_tags, n_tags}, "crf.transitions");
    h->start = h->transitions ? qkv_params_add(ps, err, 1, (int[]){n_tags}, "crf.start") : NULL;
    h->end = h->start ? qkv_params_add(ps, err, 1, (int[]){n_tags}, "crf.end") : NULL;
    if (!h->end)
        return QKV_ERR;
    qkv_tensor *own[3] = {h->transitions, h->start, h->end};
    for (int i = 0; i < 3; i++) {
        qkv_init_constant(own[i], 0.0);
        qkv_params_of(ps, own[i])->no_weight_decay = true;
    }
    if (!constrained)
        return QKV_OK;
    if (!tag_names)
        return qkv_fail(err, "crf: model.crf_constrained needs the tag names");
    h->allowed = malloc(((size_t)n_tags * n_tags + 2 * (size_t)n_tags) * sizeof *h->allowed);
    if (!h->allowed)
        return qkv_fail(err, "crf: out of memory for the transition mask of %d tags", n_tags);
    bool *start = h->allowed + (size_t)n_tags * n_tags, *end = start + n_tags;
    qkv_bio_allowed(tag_names, n_tags, h->allowed, start, end);
    h->mask = (qkv_crf_mask){h->allowed, start, end};
    return QKV_OK;
}

void qkv_crf_head_free(qkv_crf_head *h)
{
    free(h->allowed);
    memset(h, 0, sizeof *h);
}

/* The prefix of a tag name: B, I, E, S or O when the name is "O" or one of those and a hyphen,
 * else '?'. */
static char span_kind(const char *name)
{
    if (!strcmp(name, "O"))
        return 'O';
    return name[0] && strchr("BIES", name[0]) && name[1] == '-' ? name[0] : '?';
}

void qkv_bio_allowed(const char *const *names, int n, bool *trans, bool *start, bool *end)
{
    bool bioes = false;
    for (int j = 0; j < n; j++)
        bioes = bioes || span_kind(names[j]) == 'E' || span_kind(names[j]) == 'S';
    for (int j = 0; j < n; j++) {
        char kj = span_kind(names[j]);
        bool cont = kj == 'I' || (bioes && kj == 'E'); /* tag j continues a chunk */
        start[j] = !cont;
        end[j] = !(bioes && (kj == 'B' || kj == 'I'));
        for (int i = 0; i < n; i++) {
            char ki = span_kind(names[i]);
            bool open = bioes && (ki == 'B' || ki == 'I'); /* tag i leaves its chunk open */
            /* names + 2 only for B-, I-, E- names: their type */
            bool same = cont && (ki == 'B' || ki == 'I') && strcmp(names[i] + 2, names[j] + 2) == 0;
            trans[(size_t)i * n + j] = cont || open ? same : true;
        }
    }
}
