/* Running a model over a dataset in packed batches: the batch plan, the batch buffers and the
 * tape in one place, so that evaluation, `qkv attention`, `qkv gradcheck` and the trainer keep
 * only what they do with each batch:
 *
 *     qkv_run_iter_init -> qkv_run_iter_plan (or _set_plan) -> for each batch i:
 *         qkv_run_iter_fill(i) -> [change it->batch, e.g. word dropout] -> qkv_run_iter_logits
 *         -> [loss, backward on it->tp] -> ... -> qkv_run_iter_free */
#ifndef QKV_RUN_ITER_H
#define QKV_RUN_ITER_H

#include <stdbool.h>

#include "data/batch.h"
#include "models/network.h"

typedef struct qkv_run_iter {
    const qkv_dataset *ds;
    int budget;            /* words per batch */
    qkv_batch_plan plan;   /* the current pass */
    qkv_batch batch;       /* the batch filled last */
    int cap_sent, cap_tokens; /* what its buffers hold (0: none yet) */
    qkv_network_input in;   /* the model's view of it */
    qkv_tape tp;           /* its activations, reset by qkv_run_iter_logits */
} qkv_run_iter;

/* A tape (no_grad: recording no gradients) for passes over ds in batches of budget words (>= 1);
 * no plan and no buffers yet. Errors: out of memory. */
int qkv_run_iter_init(qkv_run_iter *it, const qkv_dataset *ds, int budget, bool no_grad, qkv_error *err);
/* Replaces the plan by the next pass's (qkv_batch_plan_make: rng NULL keeps sentences in
 * evaluation order, else they are shuffled and rng advances) and grows the buffers to its
 * largest batch. Errors: those of qkv_batch_plan_make, out of memory. */
int qkv_run_iter_plan(qkv_run_iter *it, qkv_rng *rng, qkv_error *err);
/* The same with a plan made by the caller (the iterator frees it). */
int qkv_run_iter_set_plan(qkv_run_iter *it, qkv_batch_plan *plan, qkv_error *err);
/* Fills batch i of the plan into it->batch and points it->in at it. Errors: qkv_batch_fill's. */
int qkv_run_iter_fill(qkv_run_iter *it, int i, qkv_error *err);
/* Resets the tape (the previous batch's activations) and runs m on it->in: logits [T, n_tags]
 * (keep_layer and keep as qkv_network_logits). NULL on a model error (err gets the tape's). */
qkv_tensor *qkv_run_iter_logits(qkv_run_iter *it, qkv_network *m, int keep_layer, qkv_attention_weights *keep,
                                qkv_error *err);
/* The same up to the encoder: the hidden states [T, d_out] under every head (qkv_network_hidden;
 * each head reads them through qkv_network_head_input), for a model of several heads. NULL on a
 * model error. */
qkv_tensor *qkv_run_iter_hidden(qkv_run_iter *it, qkv_network *m, qkv_error *err);
/* Batches in the current plan. */
static inline int qkv_run_iter_n_batches(const qkv_run_iter *it) { return qkv_batch_plan_n_batches(&it->plan); }
void qkv_run_iter_free(qkv_run_iter *it);

#endif
