/* Data-parallel training over MPI (Open MPI, MPICH; launched by mpirun or Slurm's srun).
 *
 * Every rank holds the whole model and makes the same global batch plan as a single process
 * (same seed, same data.batch_tokens). Each batch's sentences are cut into one contiguous run
 * per rank, balanced by words; a rank runs forward and backward on its run only, scales its
 * gradients by (its scored words / the batch's scored words), and the gradients are summed
 * across ranks by qkv_dist_allreduce, a ring allreduce of our own (reduce-scatter then
 * allgather) whose order of additions depends only on the number of ranks: two runs with the
 * same number of ranks give bitwise-identical parameters, whatever the timing (MPI_Allreduce
 * does not promise that: Open MPI picks its algorithm by message size and may reorder sums).
 * The loss sums and word counts are gathered and added in rank order. Every rank then applies
 * the same optimizer step.
 *
 * Built without MPI (QKV_HAVE_MPI undefined: cmake found no MPI, or -DQKV_MPI=OFF) the module
 * is the single-process case, and qkv_dist_init refuses a start under a launcher. */
#ifndef QKV_TRAIN_DIST_H
#define QKV_TRAIN_DIST_H

#include <stdbool.h>
#include <stdint.h>

#include "lib/error.h"
#include "lib/param.h"
#include "lib/row_set.h"
#include "train/evaluate.h"
#include "api/run_iter.h"

enum { QKV_DIST_MAX_SETS = 64 }; /* qkv_dist_union_rows: row sets per call */

typedef struct qkv_dist {
    int rank, size;          /* 0 and 1 for a single process */
    qkv_real *buf;           /* the packed gradients of a step */
    size_t buf_len;
    int32_t *ids;            /* qkv_dist_union_rows: the rows of every rank, then counts */
    size_t ids_len;
    double reduce_seconds;   /* time spent in qkv_dist_allreduce_grads (and waiting in it) */
    double reduced_values;   /* gradient values reduced, summed over the steps */
    long reduce_steps;
} qkv_dist;

/* The world: joins the MPI job when started by a launcher (OMPI_COMM_WORLD_SIZE, PMI_SIZE or
 * PMIX_RANK in the environment), else a single process (MPI is not initialised at all). Errors:
 * started by a launcher in a build without MPI; MPI_Init failing. Call once, before threads. */
int qkv_dist_init(qkv_dist *d, qkv_error *err);
/* Leaves the MPI job (MPI_Finalize) and frees d. */
void qkv_dist_finalize(qkv_dist *d);
/* Ends the whole job after a failure on this rank (its message already printed): names the
 * rank on stderr and calls MPI_Abort(status); a single process just returns. */
void qkv_dist_abort(const qkv_dist *d, int status);
/* True for the rank that writes files and prints progress (rank 0). */
static inline bool qkv_dist_writer(const qkv_dist *d) { return d->rank == 0; }

/* Plans the next epoch of it's dataset like qkv_run_iter_plan (rng advances the same way on
 * every rank) and gives the iterator this rank's share of every batch (possibly no sentence).
 * Errors: those of qkv_run_iter_set_plan. */
int qkv_dist_plan(qkv_dist *d, qkv_run_iter *it, qkv_rng *rng, qkv_error *err);

/* A batch's loss and counts as the allreduce reads and sets them. */
typedef struct qkv_dist_counts {
    double loss;    /* mean loss over the scored words */
    int64_t scored; /* words with a gold tag (>= 0) */
    int64_t words;
} qkv_dist_counts;

/* After backward on this rank's share of a batch, its embedding rows merged by
 * qkv_dist_union_rows: c->loss its mean loss over its c->scored words (gold tag >= 0), c->words
 * its words. Sums scored and words over the ranks, scales this rank's gradients by its scored /
 * all scored, sums the gradients over the ranks, and sets *c to the whole batch's (mean loss,
 * counts). Parameter set_param[k] (k < n_sets) is a table whose gradient is
 * zero outside the rows of sets[k] on every rank: only those rows travel. Nothing happens on one
 * rank. Errors: out of memory; MPI errors end the job (MPI's default handler). */
int qkv_dist_allreduce_grads(qkv_dist *d, qkv_params *ps, const qkv_row_set *sets, const int *set_param, int n_sets,
                             qkv_dist_counts *c, qkv_error *err);

/* Makes each of sets[0 .. n_sets-1] the union of that set over the ranks (the rows of the
 * whole batch, not this rank's share only), its rows in the same order on every rank (rank 0's
 * first, then rank 1's new ones, ...). After the gradient allreduce the rows other ranks touched
 * hold gradient too: zeroing and a lazy optimizer update then see the rows one process would.
 * Nothing happens on one rank. Errors: out of memory. */
int qkv_dist_union_rows(qkv_dist *d, qkv_row_set *sets, int n_sets, qkv_error *err);

/* Makes res, this rank's qkv_evaluate_shard(rank, size) of a dataset of n_words words, the
 * evaluation of the whole dataset: counts summed, predictions merged, loss (summed in rank
 * order) and accuracy recomputed, seconds the slowest rank's; the same on every rank. Nothing
 * happens on one rank. Errors: out of memory. res->spans is not touched (compute it after). */
int qkv_dist_reduce_eval(const qkv_dist *d, qkv_eval_result *res, int n_words, qkv_error *err);

/* v [n] summed over the ranks, added in rank order (the same bits on every rank). */
void qkv_dist_sum(const qkv_dist *d, double *v, int n);

/* With several ranks and steps reduced: one line on stderr of what the gradient allreduce took
 * (seconds on this rank, values and megabytes a step). */
void qkv_dist_print_summary(const qkv_dist *d);

/* The largest of every rank's v, the same on every rank (v itself on one rank): for decisions
 * all ranks must take at the same step, e.g. stopping on a signal that reached only some of
 * them. A collective call: every rank makes it at the same point. */
int qkv_dist_max_int(const qkv_dist *d, int v);

#endif
