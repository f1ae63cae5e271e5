/* The CRF head (Lample et al. 2016; head kind "crf", models/kinds.h): the tag
 * logits of its classifier (<prefix>classifier.w, .b) are the emission scores of a
 * linear-chain CRF (lib/ops/crf.c) with learned transition, start and end scores.
 *
 * Parameter names (after the head's prefix, "" for a model's single head):
 *   crf.transitions [n_tags, n_tags]  transitions[i][j] = score of tag i followed by tag j
 *                                     (row = previous tag, column = next tag: pytorch-crf's
 *                                     [from, to] order)
 *   crf.start [n_tags], crf.end [n_tags]  scores of the first and the last tag of a sentence
 * All three start at 0 and are not weight-decayed.
 *
 * Constrained transitions: computed from the tag names, a tag I-x may only follow B-x or I-x
 * (so O -> I-x, B-x -> I-y, I-x -> I-y and a sentence starting with I-x are forbidden). When a
 * tag is E- or S- (BIOES), also: E-x only after B-x or I-x, B-x and I-x only before I-x or E-x,
 * and a sentence starts with O, B- or S- and ends with O, E- or S-. Other tags are
 * unconstrained. */
#ifndef QKV_CRF_HEAD_H
#define QKV_CRF_HEAD_H

#include <stdbool.h>

#include "lib/ops/ops.h"
#include "lib/param.h"

typedef struct qkv_crf_head {
    qkv_tensor *transitions, *start, *end;
    bool *allowed;     /* [n_tags * n_tags + 2 n_tags]: transitions, start, end; NULL unconstrained */
    qkv_crf_mask mask; /* points into allowed */
} qkv_crf_head;

/* Adds crf.transitions, crf.start and crf.end (zeros) to ps. With constrained, tag_names
 * [n_tags] gives the BIO constraints. Errors: out of memory, a parameter name taken,
 * constrained without tag names. */
int qkv_crf_head_create(qkv_crf_head *h, qkv_params *ps, int n_tags, bool constrained,
                        const char *const *tag_names, qkv_error *err);
/* The same with names <prefix>crf.transitions, ... (the head's prefix). */
int qkv_crf_head_create_prefixed(qkv_crf_head *h, qkv_params *ps, const char *prefix, int n_tags, bool constrained,
                                 const char *const *tag_names, qkv_error *err);
void qkv_crf_head_free(qkv_crf_head *h);

struct qkv_head;
/* The CRF of a head of kind crf (models/kinds.h: its classifier's logits are the emission
 * scores), or NULL for a head of another kind. */
const qkv_crf_head *qkv_head_crf(const struct qkv_head *h);

/* The constraint mask as above, or NULL when unconstrained. */
static inline const qkv_crf_mask *qkv_crf_head_mask(const qkv_crf_head *h) { return h->allowed ? &h->mask : NULL; }

/* The constraints above (BIO, or BIOES when a name starts with E- or S-) of n tags named
 * names[0..n-1]: trans[i * n + j] = may tag j follow tag i, start[j] = may tag j begin a
 * sentence, end[j] = may it end one. */
void qkv_bio_allowed(const char *const *names, int n, bool *trans, bool *start, bool *end);

#endif
