#include "train/dist.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#ifdef QKV_HAVE_MPI
#include <mpi.h>
#endif

static double now_seconds(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* The launcher's variable that says this process is one of a job, or NULL. */
static const char *launcher_var(void)
{
    static const char *vars[] = {"OMPI_COMM_WORLD_SIZE", "PMI_SIZE", "PMIX_RANK"};
    for (size_t k = 0; k < sizeof vars / sizeof *vars; k++)
        if (getenv(vars[k]))
            return vars[k];
    return NULL;
}

#ifdef QKV_HAVE_MPI
static bool mpi_started;
#endif

int qkv_dist_init(qkv_dist *d, qkv_error *err)
{
    memset(d, 0, sizeof *d);
    d->size = 1;
    const char *var = launcher_var();
    if (!var)
        return QKV_OK;
#ifdef QKV_HAVE_MPI
    int provided;
    if (MPI_Init_thread(NULL, NULL, MPI_THREAD_FUNNELED, &provided) != MPI_SUCCESS)
        return qkv_fail(err, "MPI_Init failed (started by a launcher: %s is set)", var);
    mpi_started = true;
    MPI_Comm_rank(MPI_COMM_WORLD, &d->rank);
    MPI_Comm_size(MPI_COMM_WORLD, &d->size);
    return QKV_OK;
#else
    return qkv_fail(err, "this qkv was built without MPI, but %s=%s says it was started by mpirun or srun as one "
                    "rank of a job: install Open MPI (apt-get install openmpi-bin libopenmpi-dev) and rebuild, or "
                    "run qkv without the launcher", var, getenv(var));
#endif
}

void qkv_dist_finalize(qkv_dist *d)
{
    free(d->buf);
    free(d->ids);
#ifdef QKV_HAVE_MPI
    if (mpi_started)
        MPI_Finalize();
    mpi_started = false;
#endif
    memset(d, 0, sizeof *d);
    d->size = 1;
}

void qkv_dist_abort(const qkv_dist *d, int status)
{
    if (d->size <= 1)
        return;
    fprintf(stderr, "qkv: rank %d of %d failed (its message is above): ending the job\n", d->rank, d->size);
    fflush(stderr);
#ifdef QKV_HAVE_MPI
    MPI_Abort(MPI_COMM_WORLD, status ? status : 1);
#else
    (void)status;
#endif
}

/* This rank's share of each batch of g: the sentences whose middle word falls in the rank's
 * 1/size of the batch's words (contiguous runs, balanced by words). */
static int shard(const qkv_dist *d, const qkv_batch_plan *g, const qkv_dataset *ds, qkv_batch_plan *local,
                 qkv_error *err)
{
    memset(local, 0, sizeof *local);
    local->order = malloc(((size_t)g->start[g->n_batches] + 1) * sizeof *local->order);
    local->start = malloc(((size_t)g->n_batches + 1) * sizeof *local->start);
    if (!local->order || !local->start) {
        qkv_batch_plan_free(local);
        return qkv_fail(err, "batches: out of memory");
    }
    local->n_batches = g->n_batches;
    local->budget = g->budget;
    local->max_sent = local->max_tokens = 1; /* buffers of at least one word */
    int n = 0;
    for (int b = 0; b < g->n_batches; b++) {
        local->start[b] = n;
        int64_t words = 0, before = 0;
        for (int j = g->start[b]; j < g->start[b + 1]; j++)
            words += qkv_dataset_sent_len(ds, g->order[j]);
        int sent = 0, tokens = 0;
        for (int j = g->start[b]; j < g->start[b + 1]; j++) {
            int len = qkv_dataset_sent_len(ds, g->order[j]);
            int64_t r = words ? (2 * before + len) * d->size / (2 * words) : 0;
            before += len;
            if (r != d->rank)
                continue;
            local->order[n++] = g->order[j];
            sent++;
            tokens += len;
        }
        local->n_tokens += tokens;
        if (sent > local->max_sent)
            local->max_sent = sent;
        if (tokens > local->max_tokens)
            local->max_tokens = tokens;
    }
    local->start[g->n_batches] = n;
    return QKV_OK;
}

int qkv_dist_plan(qkv_dist *d, qkv_run_iter *it, qkv_rng *rng, qkv_error *err)
{
    if (d->size <= 1)
        return qkv_run_iter_plan(it, rng, err);
    qkv_batch_plan g, local;
    if (qkv_batch_plan_make(&g, it->ds, it->budget, rng, err))
        return QKV_ERR;
    int status = shard(d, &g, it->ds, &local, err);
    qkv_batch_plan_free(&g);
    if (status)
        return QKV_ERR;
    return qkv_run_iter_set_plan(it, &local, err);
}

void qkv_dist_print_summary(const qkv_dist *d)
{
    if (d->reduce_steps <= 0)
        return;
    double per_step = d->reduced_values / (double)d->reduce_steps;
    fprintf(stderr, "data-parallel: %d ranks; the gradient allreduce took %.2f s on rank 0, %.0f values (%.2f MB) "
            "a step on average\n", d->size, d->reduce_seconds, per_step, per_step * (double)sizeof(qkv_real) / 1e6);
}

int qkv_dist_max_int(const qkv_dist *d, int v)
{
#ifdef QKV_HAVE_MPI
    if (d->size > 1)
        MPI_Allreduce(MPI_IN_PLACE, &v, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
#else
    (void)d;
#endif
    return v;
}

void qkv_dist_sum(const qkv_dist *d, double *v, int n)
{
#ifdef QKV_HAVE_MPI
    if (d->size <= 1 || n <= 0)
        return;
    double *all = malloc((size_t)n * (size_t)d->size * sizeof *all);
    if (!all) {
        fprintf(stderr, "qkv: rank %d: out of memory for %d sums\n", d->rank, n);
        qkv_dist_abort(d, 1);
        return;
    }
    MPI_Allgather(v, n, MPI_DOUBLE, all, n, MPI_DOUBLE, MPI_COMM_WORLD);
    for (int k = 0; k < n; k++) {
        double s = 0;
        for (int r = 0; r < d->size; r++)
            s += all[(size_t)r * n + k];
        v[k] = s;
    }
    free(all);
#else
    (void)d;
    (void)v;
    (void)n;
#endif
}

#ifdef QKV_HAVE_MPI
/* Ring allreduce (sum) of x [n] in place: size-1 steps of reduce-scatter, each rank sending one
 * chunk to its right neighbour and adding the chunk from its left one (chunk c is summed in the
 * order c, c+1, ..., c-1 of ranks: fixed by size alone), then size-1 steps of allgather. Each
 * rank sends and receives 2 (size-1)/size · n values. tmp: scratch [n / size + 1]. */
static void ring_allreduce(const qkv_dist *d, qkv_real *x, size_t n, qkv_real *tmp)
{
    int P = d->size, r = d->rank, right = (r + 1) % P, left = (r + P - 1) % P;
    size_t base = n / (size_t)P, extra = n % (size_t)P;
#define CHUNK_AT(c) ((size_t)(c) * base + ((size_t)(c) < extra ? (size_t)(c) : extra))
#define CHUNK_LEN(c) (base + ((size_t)(c) < extra))
    for (int k = 0; k < P - 1; k++) {
        int send = ((r - k) % P + P) % P, recv = ((r - k - 1) % P + P) % P;
        MPI_Sendrecv(x + CHUNK_AT(send), (int)(CHUNK_LEN(send) * sizeof(qkv_real)), MPI_BYTE, right, 0, tmp,
                     (int)(CHUNK_LEN(recv) * sizeof(qkv_real)), MPI_BYTE, left, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        qkv_real *dst = x + CHUNK_AT(recv);
        size_t len = CHUNK_LEN(recv);
        for (size_t i = 0; i < len; i++)
            dst[i] = tmp[i] + dst[i]; /* the sum so far (ranks recv .. left), then this rank's */
    }
    for (int k = 0; k < P - 1; k++) {
        int send = ((r + 1 - k) % P + P) % P, recv = ((r - k) % P + P) % P;
        MPI_Sendrecv(x + CHUNK_AT(send), (int)(CHUNK_LEN(send) * sizeof(qkv_real)), MPI_BYTE, right, 1,
                     x + CHUNK_AT(recv), (int)(CHUNK_LEN(recv) * sizeof(qkv_real)), MPI_BYTE, left, 1,
                     MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    }
#undef CHUNK_AT
#undef CHUNK_LEN
}
#endif

/* The set of parameter i among sets[0 .. n_sets-1] (set_param[k] == i), or NULL. */
static const qkv_row_set *set_of(int i, const qkv_row_set *sets, const int *set_param, int n_sets)
{
    for (int k = 0; k < n_sets; k++)
        if (set_param[k] == i)
            return &sets[k];
    return NULL;
}

/* Copies the gradients of ps times scale into buf (pack) or buf into them (!pack): whole
 * tensors, and of a table its rows in its set only, in set order. Returns the number of values
 * (buf NULL: counts only). */
static size_t pack_grads(qkv_params *ps, const qkv_row_set *sets, const int *set_param, int n_sets, qkv_real *buf,
                         qkv_real scale, bool pack)
{
    size_t at = 0;
    for (int i = 0; i < ps->n; i++) {
        qkv_tensor *t = &ps->items[i]->t;
        const qkv_row_set *rs = set_of(i, sets, set_param, n_sets);
        int n_spans = rs ? rs->n : 1;
        size_t len = rs ? (size_t)t->shape[1] : t->size;
        for (int r = 0; r < n_spans; r++) {
            qkv_real *g = t->grad + (rs ? (size_t)rs->rows[r] * len : 0);
            if (buf && pack)
                for (size_t j = 0; j < len; j++)
                    buf[at + j] = g[j] * scale;
            else if (buf)
                memcpy(g, buf + at, len * sizeof *g);
            at += len;
        }
    }
    return at;
}

int qkv_dist_allreduce_grads(qkv_dist *d, qkv_params *ps, const qkv_row_set *sets, const int *set_param, int n_sets,
                             qkv_dist_counts *c, qkv_error *err)
{
    if (d->size <= 1)
        return QKV_OK;
    double *loss = &c->loss;
    int64_t *scored = &c->scored, *words = &c->words;
    double t0 = now_seconds();
    int64_t local = *scored;
    double sums[3] = {local > 0 ? *loss * (double)local : 0, (double)local, (double)*words};
    qkv_dist_sum(d, sums, 3);
    int64_t global = (int64_t)sums[1];
    *loss = global > 0 ? sums[0] / (double)global : 0;
    *scored = global;
    *words = (int64_t)sums[2];
    size_t n = pack_grads(ps, sets, set_param, n_sets, NULL, 0, true);
    size_t need = n + n / (size_t)d->size + 2;
    if (d->buf_len < need) {
        free(d->buf);
        d->buf_len = 0;
        if (!(d->buf = malloc(need * sizeof *d->buf)))
            return qkv_fail(err, "out of memory for the gradients of the allreduce (%zu values)", need);
        d->buf_len = need;
    }
    qkv_real scale = (qkv_real)(global > 0 ? (double)local / (double)global : 0);
    pack_grads(ps, sets, set_param, n_sets, d->buf, scale, true);
#ifdef QKV_HAVE_MPI
    ring_allreduce(d, d->buf, n, d->buf + n + 1);
#endif
    pack_grads(ps, sets, set_param, n_sets, d->buf, 0, false);
    d->reduced_values += (double)n;
    d->reduce_steps++;
    d->reduce_seconds += now_seconds() - t0;
    return QKV_OK;
}

int qkv_dist_union_rows(qkv_dist *d, qkv_row_set *sets, int n_sets, qkv_error *err)
{
    if (d->size <= 1 || n_sets <= 0)
        return QKV_OK;
#ifdef QKV_HAVE_MPI
    double t0 = now_seconds();
    if (n_sets > QKV_DIST_MAX_SETS)
        return qkv_fail(err, "%d row sets; at most %d", n_sets, QKV_DIST_MAX_SETS);
    int P = d->size, mine = 0, local[QKV_DIST_MAX_SETS];
    for (int k = 0; k < n_sets; k++)
        mine += local[k] = sets[k].n;
    /* counts [P][n_sets], then per rank: its total, its offset in all; then every rank's rows */
    int *counts = malloc(((size_t)P * (size_t)n_sets + 2 * (size_t)P) * sizeof *counts);
    if (!counts)
        return qkv_fail(err, "out of memory for the row counts of %d ranks", P);
    int *total = counts + (size_t)P * n_sets, *displ = total + P;
    MPI_Allgather(local, n_sets, MPI_INT, counts, n_sets, MPI_INT, MPI_COMM_WORLD);
    size_t all = 0;
    for (int r = 0; r < P; r++) {
        total[r] = 0;
        for (int k = 0; k < n_sets; k++)
            total[r] += counts[(size_t)r * n_sets + k];
        displ[r] = (int)all;
        all += (size_t)total[r];
    }
    size_t need = all + (size_t)mine + 1;
    if (d->ids_len < need) {
        free(d->ids);
        d->ids_len = 0;
        if (!(d->ids = malloc(need * sizeof *d->ids))) {
            free(counts);
            return qkv_fail(err, "out of memory for the embedding rows of %d ranks (%zu)", P, all);
        }
        d->ids_len = need;
    }
    int32_t *send = d->ids + all;
    for (int k = 0, at = 0; k < n_sets; k++) {
        memcpy(send + at, sets[k].rows, (size_t)sets[k].n * sizeof *send);
        at += sets[k].n;
    }
    MPI_Allgatherv(send, mine, MPI_INT32_T, d->ids, total, displ, MPI_INT32_T, MPI_COMM_WORLD);
    for (int k = 0; k < n_sets; k++)
        qkv_row_set_clear(&sets[k]);
    for (int r = 0; r < P; r++) {
        const int32_t *from = d->ids + displ[r];
        for (int k = 0; k < n_sets; k++) {
            int c = counts[(size_t)r * n_sets + k];
            qkv_row_set_add(&sets[k], from, c);
            from += c;
        }
    }
    free(counts);
    d->reduce_seconds += now_seconds() - t0;
#else
    (void)sets;
    (void)err;
#endif
    return QKV_OK;
}

int qkv_dist_reduce_eval(const qkv_dist *d, qkv_eval_result *res, int n_words, qkv_error *err)
{
    if (d->size <= 1)
        return QKV_OK;
#ifdef QKV_HAVE_MPI
    size_t T = (size_t)res->n_tags, n = 5 + 3 * T + T * T + 2 * QKV_N_LENGTH_BUCKETS + 2 * QKV_MAX_COLUMNS;
    long *v = malloc(n * sizeof *v);
    if (!v)
        return qkv_fail(err, "out of memory for the counts of an evaluation");
    /* every count of the result, in one array (pack, sum, unpack) */
    struct { long *at; size_t len; } parts[] = {
        {&res->n_words, 1}, {&res->n_correct, 1}, {&res->n_unknown_gold, 1}, {&res->n_untagged, 1},
        {&res->n_arc_correct, 1},
        {res->gold, T}, {res->predicted, T}, {res->correct, T}, {res->confusion, T * T},
        {res->bucket_words, QKV_N_LENGTH_BUCKETS}, {res->bucket_correct, QKV_N_LENGTH_BUCKETS},
        {res->head_words, QKV_MAX_COLUMNS}, {res->head_correct, QKV_MAX_COLUMNS},
    };
    size_t at = 0;
    for (size_t k = 0; k < sizeof parts / sizeof *parts; at += parts[k].len, k++)
        memcpy(v + at, parts[k].at, parts[k].len * sizeof *v);
    double loss_sum = res->loss * (double)(res->n_words - res->n_unknown_gold); /* the shard's mean */
    MPI_Allreduce(MPI_IN_PLACE, v, (int)n, MPI_LONG, MPI_SUM, MPI_COMM_WORLD);
    MPI_Allreduce(MPI_IN_PLACE, res->pred, n_words, MPI_INT32_T, MPI_MAX, MPI_COMM_WORLD); /* others: -1 */
    for (int h = 1; h < res->n_outputs; h++)
        MPI_Allreduce(MPI_IN_PLACE, res->head_pred[h], n_words, MPI_INT32_T, MPI_MAX, MPI_COMM_WORLD);
    MPI_Allreduce(MPI_IN_PLACE, &res->seconds, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    qkv_dist_sum(d, &loss_sum, 1);
    at = 0;
    for (size_t k = 0; k < sizeof parts / sizeof *parts; at += parts[k].len, k++)
        memcpy(parts[k].at, v + at, parts[k].len * sizeof *v);
    free(v);
    long known = res->n_words - res->n_unknown_gold;
    res->loss = known ? loss_sum / (double)known : 0;
    res->accuracy = res->n_words ? (double)res->n_correct / (double)res->n_words : 0;
    res->uas = res->n_words ? (double)res->n_arc_correct / (double)res->n_words : 0;
    if (res->pred_arcs)
        MPI_Allreduce(MPI_IN_PLACE, res->pred_arcs, n_words, MPI_INT32_T, MPI_MAX, MPI_COMM_WORLD);
    res->tokens_per_sec = res->seconds > 0 ? (double)(res->n_words + res->n_untagged) / res->seconds : 0;
    qkv_eval_finish_heads(res);
#else
    (void)res;
    (void)n_words;
    (void)err;
#endif
    return QKV_OK;
}
