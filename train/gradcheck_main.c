/* qkv-gradcheck: the double-precision half of `qkv gradcheck CONFIG` (train/cli/cmd_gradcheck.c
 * runs this program, built against qkv_f64 and qkv_models_f64).
 *
 * Builds the config's model in double precision, takes a tiny batch of its training data
 * (the first sentences of at most 8 words, up to 24 words) and checks sampled elements of
 * every parameter tensor by central differences (lib/gradcheck.h: eps 1e-6, atol 1e-5,
 * rtol 1e-3) on the scalar sum(loss ⊙ R). Embedding tables are sampled among the rows the
 * batch uses (other rows have a zero gradient that proves nothing). */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/gradcheck.h"
#include "lib/ops/ops.h"
#include "lib/threads.h"
#include "train/fail.h"
#include "train/cli/cli.h"
#include "api/run_iter.h"
#include "api/session.h"

#if !QKV_REAL_IS_DOUBLE
#error "qkv-gradcheck must be built against the double-precision library (qkv_f64)"
#endif

static const char ABOUT[] =
    "Checks the gradients of CONFIG's model in double precision by central differences on a\n"
    "tiny batch of its training data: one row per parameter tensor (elements checked, max\n"
    "absolute and relative error, PASS/FAIL). Exits 1 if any tensor fails.\n";

typedef struct {
    qkv_session *s;
    qkv_run_iter *it;
} forward_ctx;

static qkv_tensor *forward(qkv_tape *tp, void *user)
{
    forward_ctx *c = user;
    qkv_tensor *logits = qkv_network_logits(tp, &c->s->model, &c->it->in, -1, NULL);
    qkv_gold gold = {qkv_batch_tags(&c->it->batch), qkv_batch_arcs(&c->it->batch),
                     c->s->cfg.train.label_smoothing};
    return qkv_network_gold_loss(tp, &c->s->model, logits, c->it->in.sentences, &gold);
}

/* The first sentences of 1..8 words, at most 24 words in all, as one batch of it (a one-batch
 * plan of those sentences, filled as training fills its batches); for images (dense token
 * vectors, all sequences of one length) the first image. */
static int tiny_batch(qkv_run_iter *it, qkv_error *err)
{
    qkv_batch_plan plan;
    int max_len = 8, max_sent = 8, max_tokens = 24;
    if (qkv_dataset_d_input(it->ds) > 0)
        max_len = max_tokens = qkv_dataset_sent_len(it->ds, 0), max_sent = 1;
    if (qkv_batch_plan_first(&plan, it->ds, max_len, max_sent, max_tokens, err) || qkv_run_iter_set_plan(it, &plan, err))
        return QKV_ERR;
    if (qkv_run_iter_n_batches(it) == 0)
        return qkv_fail(err, "no training sentence of 1 to 8 words to check gradients on");
    return qkv_run_iter_fill(it, 0, err);
}

/* The tensors checked: every parameter, with the elements sampled from (cand[i], n_cand[i]
 * of them; NULL: any) and the result of each. */
typedef struct checked {
    int n;
    qkv_tensor **tensors;
    const char **names;
    size_t **cand, *n_cand;
    qkv_gradcheck_result *res;
} checked;

static void checked_free(checked *c)
{
    for (int i = 0; c->cand && i < c->n; i++)
        free(c->cand[i]);
    free(c->cand);
    free(c->n_cand);
    free(c->res);
    free(c->tensors);
    free(c->names);
}

/* The session of the config and a tiny batch of its training set in it. */
static int build(qkv_session *s, qkv_run_iter *it, const qkv_cli_config *cc)
{
    qkv_error err;
    if (qkv_session_config(s, cc->path, cc->overrides, cc->n_overrides, &err) || qkv_session_data(s, true, &err) ||
        qkv_session_model(s, (uint64_t)s->cfg.train.seed, &err) || qkv_run_iter_init(it, &s->train, 24, false, &err) ||
        tiny_batch(it, &err))
        return qkv_fail_report(&err);
    return 0;
}

/* Every parameter of the model into c; of the embedding tables (and the character table) only
 * the rows the batch uses are candidates. */
static int collect(checked *c, const qkv_session *s, const qkv_run_iter *it)
{
    qkv_params *ps = qkv_network_params(&s->model);
    c->n = ps->n;
    c->tensors = calloc((size_t)ps->n, sizeof *c->tensors);
    c->names = calloc((size_t)ps->n, sizeof *c->names);
    c->cand = calloc((size_t)ps->n, sizeof *c->cand);
    c->n_cand = calloc((size_t)ps->n, sizeof *c->n_cand);
    c->res = calloc((size_t)ps->n, sizeof *c->res);
    if (!c->tensors || !c->names || !c->cand || !c->n_cand || !c->res)
        return qkv_fail_reportf("out of memory");
    for (int i = 0; i < ps->n; i++) {
        c->tensors[i] = &ps->items[i]->t;
        c->names[i] = ps->items[i]->name;
    }
    for (int f = 0; f < qkv_network_n_tables(&s->model); f++) {
        const int32_t *ids;
        int n_ids;
        const qkv_tensor *table = qkv_network_table_rows(&s->model, &it->in, f, &ids, &n_ids);
        int i = 0;
        while (c->tensors[i] != table)
            i++;
        int d = table->shape[1];
        c->cand[i] = malloc((size_t)n_ids * (size_t)d * sizeof **c->cand);
        if (!c->cand[i])
            return qkv_fail_reportf("out of memory");
        for (int t = 0; t < n_ids; t++)
            for (int k = 0; k < d; k++)
                c->cand[i][c->n_cand[i]++] = (size_t)ids[t] * (size_t)d + (size_t)k;
    }
    return 0;
}

/* The table of results; returns the exit status (1: a tensor failed). */
static int print_results(const checked *c, const char *config, const qkv_run_iter *it, const qkv_gradcheck_opts *opts,
                         const char *fault, const qkv_error *err)
{
    printf("gradcheck of %s: %d sentences, %d words, double precision, eps %g, atol %g, rtol %g%s%s\n", config,
           qkv_batch_n_sent(&it->batch), qkv_batch_n_tokens(&it->batch), opts->eps, opts->atol, opts->rtol,
           fault ? ", broken backward: " : "", fault ? fault : "");
    printf("%-40s %8s %12s %12s  %s\n", "parameter", "checked", "max_abs_err", "max_rel_err", "result");
    int failed = 0;
    for (int i = 0; i < c->n; i++) {
        const qkv_gradcheck_result *r = &c->res[i];
        printf("%-40s %8zu %12.3e %12.3e  %s\n", r->name, r->checked, r->max_abs_err, r->max_rel_err,
               r->failed ? "FAIL" : "pass");
        failed += r->failed > 0;
    }
    if (failed)
        printf("%d of %d tensors FAIL; first: %s\n", failed, c->n, err->msg);
    else
        printf("all %d tensors pass\n", c->n);
    return failed ? 1 : 0;
}

int main(int argc, char **argv)
{
    const char *fault = getenv("QKV_BREAK_BACKWARD");
    qkv_cli_config cc = {0};
    long samples = 12, seed = 1;
    const qkv_cli_opt rows[] = {
        QKV_CLI_CONFIG_ROWS(&cc, true),
        {"--samples", QKV_CLI_INT, &samples, "N", "elements checked per tensor (default 12; 0 = all)", .lo = 0,
         .hi = INT_MAX},
        {"--seed", QKV_CLI_INT, &seed, "S", "seed of R and of the samples (default 1)", .lo = 0, .hi = LONG_MAX},
    };
    const qkv_cli_spec spec = {"gradcheck", ABOUT, NULL, rows, QKV_CLI_N(rows)};
    int usage = qkv_cli_parse(&spec, argc, argv);
    if (usage >= 0)
        return usage;

    qkv_session s;
    qkv_session_init(&s);
    qkv_run_iter it;
    memset(&it, 0, sizeof it);
    checked c;
    memset(&c, 0, sizeof c);
    int status = 1;
    if (build(&s, &it, &cc))
        goto done;
    if (s.config_note[0])
        fprintf(stderr, "qkv: note: %s\n", s.config_note);
    qkv_set_threads(1);
    qkv_rng rng;
    qkv_rng_seed(&rng, (uint64_t)seed);
    it.tp.rng = &rng;
    it.tp.fault_op = fault; /* testing the checker: that op's backward is scaled by 1.01 */
    if (collect(&c, &s, &it))
        goto done;
    qkv_gradcheck_opts opts = QKV_GRADCHECK_DEFAULTS;
    opts.max_samples = (size_t)samples;
    opts.seed = (uint64_t)seed;
    opts.candidates = (const size_t *const *)c.cand;
    opts.n_candidates = c.n_cand;
    forward_ctx ctx = {&s, &it};
    qkv_error err;
    if (qkv_gradcheck(&it.tp, forward, &ctx, c.n, c.tensors, c.names, &opts, c.res, &err) < 0) {
        qkv_fail_reportf("gradcheck: %s", err.msg);
        goto done;
    }
    status = print_results(&c, cc.path, &it, &opts, fault, &err);
done:
    checked_free(&c);
    qkv_run_iter_free(&it);
    qkv_session_free(&s);
    return status;
}
