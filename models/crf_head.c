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
    h->allowed = malloc(((size_t)n_tags * n_tags + n_tags) * sizeof *h->allowed);
    if (!h->allowed)
        return qkv_fail(err, "crf: out of memory for the transition mask of %d tags", n_tags);
    qkv_bio_allowed(tag_names, n_tags, h->allowed, h->allowed + (size_t)n_tags * n_tags);
    h->mask = (qkv_crf_mask){h->allowed, h->allowed + (size_t)n_tags * n_tags, NULL};
    return QKV_OK;
}

void qkv_crf_head_free(qkv_crf_head *h)
{
    free(h->allowed);
    memset(h, 0, sizeof *h);
}

void qkv_bio_allowed(const char *const *names, int n, bool *trans, bool *start)
{
    for (int j = 0; j < n; j++) {
        bool inside = strncmp(names[j], "I-", 2) == 0;
        start[j] = !inside;
        for (int i = 0; i < n; i++) /* names[j] + 2 only when tag j is I-x: a shorter name has no type */
            trans[(size_t)i * n + j] = !inside || ((strncmp(names[i], "B-", 2) == 0 || strncmp(names[i], "I-", 2) == 0) &&
                                                  strcmp(names[i] + 2, names[j] + 2) == 0);
    }
}
