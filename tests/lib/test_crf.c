/* crf: the NLL against brute-force enumeration of every path (n_tags 3, sentences of 1..4
 * tokens packed in one batch, with unknown gold tags and with a mask), double-precision
 * gradient checks of emissions, transitions, start and end (a 1% backward error is caught),
 * Viterbi against the brute-force best path (with and without a mask), results independent of
 * the thread count, the marginals (forward-backward) against brute force, and the errors (a
 * forbidden gold sequence, a tag out of range, no allowed path: naming the sentence's index). */
#include "optest.h"

#include <omp.h>

#include "lib/parallel.h"

#define K 3

typedef struct {
    qkv_tensor *emit, *trans, *start, *end;
    qkv_packed sent;
    const int32_t *tags;
    const qkv_crf_mask *mask;
} fixture;

static qkv_tensor *crf_fn(qkv_tape *tp, void *user)
{
    fixture *f = user;
    return qkv_crf_nll(tp, f->emit, f->trans, f->start, f->end, f->sent, f->tags, f->mask);
}

/* Score of path y (n tokens from row off) or -inf when the mask forbids it. */
static double path_score(const fixture *f, int off, int n, const int *y)
{
    const qkv_crf_mask *m = f->mask;
    if (m && ((m->start && !m->start[y[0]]) || (m->end && !m->end[y[n - 1]])))
        return -INFINITY;
    double s = f->start->data[y[0]] + f->end->data[y[n - 1]];
    for (int t = 0; t < n; t++) {
        s += f->emit->data[(off + t) * K + y[t]];
        if (t > 0) {
            if (m && m->transitions && !m->transitions[y[t - 1] * K + y[t]])
                return -INFINITY;
            s += f->trans->data[y[t - 1] * K + y[t]];
        }
    }
    return s;
}

/* Brute force over all K^n paths of each sentence: the summed NLL, and each sentence's best path. */
static double brute_force(const fixture *f, int32_t *best_path)
{
    double total = 0;
    for (int b = 0; b < f->sent.n; b++) {
        int off = f->sent.offsets[b], n = qkv_packed_len(f->sent, b), count = 1;
        for (int t = 0; t < n; t++)
            count *= K;
        double z = 0, z_gold = 0, best = -INFINITY;
        for (int code = 0; code < count; code++) {
            int y[8], c = code;
            bool gold = true;
            for (int t = 0; t < n; t++) {
                y[t] = c % K;
                c /= K;
                gold = gold && (f->tags[off + t] < 0 || f->tags[off + t] == y[t]);
            }
            double s = path_score(f, off, n, y);
            z += exp(s);
            if (gold)
                z_gold += exp(s);
            if (s > best) {
                best = s;
                for (int t = 0; t < n; t++)
                    best_path[off + t] = y[t];
            }
        }
        total += log(z) - log(z_gold);
    }
    return total;
}

static const int32_t OFFSETS[] = {0, 1, 3, 6, 10, 11}; /* lengths 1, 2, 3, 4, 1 */
static const int32_t TAGS[] = {2, 0, 1, 1, 1, 2, 0, 2, 2, 1, 0};
static const int32_t TAGS_UNKNOWN[] = {-1, 0, -1, 1, -1, 2, 0, -1, -1, 1, 1};

/* BIO over tags {O, B, I}: I only after B or I, never first. */
static const bool BIO_TRANS[K * K] = {true, true, false, true, true, true, true, true, true};
static const bool BIO_START[K] = {true, true, false};
static const qkv_crf_mask BIO = {BIO_TRANS, BIO_START, NULL};
/* valid BIO gold tags (O=0, B=1, I=2) for the batch above */
static const int32_t TAGS_BIO[] = {1, 0, 1, 1, 2, 0, 1, 2, 2, 0, 0};

static void setup(ot_env *e, fixture *f, uint64_t seed, const int32_t *tags, const qkv_crf_mask *mask)
{
    ot_init(e, seed);
    f->emit = ot_param2(e, "emissions", 11, K);
    f->trans = ot_param2(e, "transitions", K, K);
    f->start = ot_param(e, "start", 1, (int[]){K});
    f->end = ot_param(e, "end", 1, (int[]){K});
    f->sent = (qkv_packed){5, OFFSETS};
    f->tags = tags;
    f->mask = mask;
}

static void check_brute_force(const int32_t *tags, const qkv_crf_mask *mask)
{
    for (uint64_t seed = 1; seed <= 4; seed++) {
        ot_env e;
        fixture f;
        setup(&e, &f, seed, tags, mask);
        int32_t want_path[11], path[11];
        double want = brute_force(&f, want_path);
        qkv_tensor *loss = crf_fn(&e.tp, &f);
        assert_non_null(loss);
        tu_assert_close(loss->data[0], want, 1e-12 * fabs(want) + 1e-12);
        qkv_error err;
        assert_int_equal(qkv_crf_viterbi(f.emit, f.trans, f.start, f.end, f.sent, mask, path, &err), QKV_OK);
        for (int t = 0; t < 11; t++)
            assert_int_equal(path[t], want_path[t]);
        ot_free(&e);
    }
}

/* Marginals p(y_t = j) by brute force over every path of each sentence (the mask's forbidden
 * paths excluded), against qkv_crf_marginals. */
static void check_marginals(const qkv_crf_mask *mask)
{
    for (uint64_t seed = 1; seed <= 3; seed++) {
        ot_env e;
        fixture f;
        setup(&e, &f, seed, TAGS, mask);
        double want[11 * K] = {0}, got[11 * K];
        for (int b = 0; b < f.sent.n; b++) {
            int off = f.sent.offsets[b], n = qkv_packed_len(f.sent, b), count = 1;
            for (int t = 0; t < n; t++)
                count *= K;
            double z = 0;
            for (int code = 0; code < count; code++) {
                int y[8], c = code;
                for (int t = 0; t < n; t++, c /= K)
                    y[t] = c % K;
                double p = exp(path_score(&f, off, n, y));
                z += p;
                for (int t = 0; t < n; t++)
                    want[(off + t) * K + y[t]] += p;
            }
            for (int i = off * K; i < (off + n) * K; i++)
                want[i] /= z;
        }
        qkv_error err;
        uint8_t flags[5];
        assert_int_equal(qkv_crf_marginals(f.emit, f.trans, f.start, f.end, f.sent, mask, got, flags, &err), QKV_OK);
        for (int i = 0; i < 11 * K; i++)
            tu_assert_close(got[i], want[i], 1e-12);
        for (int b = 0; b < 5; b++)
            assert_int_equal(flags[b], 0);
        ot_free(&e);
    }
}

/* A sentence with no allowed path (a mask allowing no first tag): without flags an error naming
 * the sentence, with flags its marginals without the mask. */
static void test_marginals(void **state)
{
    (void)state;
    check_marginals(NULL);
    check_marginals(&BIO);
    static const bool NO_START[K] = {false, false, false};
    const qkv_crf_mask none = {NULL, NO_START, NULL};
    ot_env e;
    fixture f;
    setup(&e, &f, 5, TAGS, &none);
    double masked[11 * K], open[11 * K];
    uint8_t flags[5];
    qkv_error err;
    assert_int_equal(qkv_crf_marginals(f.emit, f.trans, f.start, f.end, f.sent, &none, masked, NULL, &err), QKV_ERR);
    assert_int_equal(err.sentence, 0);
    assert_int_equal(qkv_crf_marginals(f.emit, f.trans, f.start, f.end, f.sent, &none, masked, flags, &err), QKV_OK);
    assert_int_equal(qkv_crf_marginals(f.emit, f.trans, f.start, f.end, f.sent, NULL, open, NULL, &err), QKV_OK);
    for (int b = 0; b < 5; b++)
        assert_int_equal(flags[b], 1);
    assert_memory_equal(masked, open, sizeof open);
    /* Viterbi: the same error, naming the sentence */
    int32_t path[11];
    assert_int_equal(qkv_crf_viterbi(f.emit, f.trans, f.start, f.end, f.sent, &none, path, &err), QKV_ERR);
    assert_int_equal(err.sentence, 0);
    assert_null(strstr(err.msg, "sentence 0"));
    ot_free(&e);
}

static void test_brute_force(void **state)
{
    (void)state;
    check_brute_force(TAGS, NULL);
    check_brute_force(TAGS_UNKNOWN, NULL);
    check_brute_force(TAGS_BIO, &BIO);
}

/* The constrained Viterbi never outputs I first or after O, even when emissions prefer it. */
static void test_viterbi_mask(void **state)
{
    (void)state;
    ot_env e;
    fixture f;
    setup(&e, &f, 9, TAGS_BIO, &BIO);
    for (int t = 0; t < 11; t++)
        f.emit->data[t * K + 2] += 5; /* I everywhere, unconstrained */
    int32_t path[11];
    qkv_error err;
    assert_int_equal(qkv_crf_viterbi(f.emit, f.trans, f.start, f.end, f.sent, NULL, path, &err), QKV_OK);
    int n_i_first = 0;
    for (int b = 0; b < 5; b++)
        n_i_first += path[OFFSETS[b]] == 2;
    assert_true(n_i_first > 0);
    assert_int_equal(qkv_crf_viterbi(f.emit, f.trans, f.start, f.end, f.sent, &BIO, path, &err), QKV_OK);
    for (int b = 0; b < 5; b++)
        for (int t = OFFSETS[b]; t < OFFSETS[b + 1]; t++)
            assert_false(path[t] == 2 && (t == OFFSETS[b] || path[t - 1] == 0));
    ot_free(&e);
}

static void test_gradcheck(void **state)
{
    (void)state;
    const int32_t *tag_sets[] = {TAGS, TAGS_UNKNOWN, TAGS_BIO};
    const qkv_crf_mask *masks[] = {NULL, NULL, &BIO};
    const char *names[] = {"emissions", "transitions", "start", "end"};
    for (int k = 0; k < 3; k++) {
        ot_env e;
        fixture f;
        setup(&e, &f, 20 + (uint64_t)k, tag_sets[k], masks[k]);
        qkv_tensor *ts[] = {f.emit, f.trans, f.start, f.end};
        tu_assert_gradcheck(&e.tp, crf_fn, &f, 4, ts, names);
        ot_free(&e);
    }
}

static void test_gradcheck_catches_one_percent(void **state)
{
    (void)state;
    ot_env e;
    fixture f;
    setup(&e, &f, 3, TAGS, NULL);
    qkv_tensor *ts[] = {f.emit, f.trans, f.start, f.end};
    const char *names[] = {"emissions", "transitions", "start", "end"};
    ot_assert_gradcheck_catches(&e.tp, "crf", crf_fn, &f, 4, ts, names);
    ot_free(&e);
}

/* Length-1 sentences only: the NLL is the cross-entropy of start + emission + end. */
static void test_length_one(void **state)
{
    (void)state;
    ot_env e;
    ot_init(&e, 5);
    qkv_tensor *emit = ot_param2(&e, "emissions", 2, K), *trans = ot_param2(&e, "transitions", K, K),
               *start = ot_param(&e, "start", 1, (int[]){K}), *end = ot_param(&e, "end", 1, (int[]){K});
    const int32_t offsets[] = {0, 1, 2}, tags[] = {1, 2};
    qkv_tensor *loss = qkv_crf_nll(&e.tp, emit, trans, start, end, (qkv_packed){2, offsets}, tags, NULL);
    assert_non_null(loss);
    double want = 0;
    for (int b = 0; b < 2; b++) {
        double z = 0, s[K];
        for (int j = 0; j < K; j++)
            z += exp(s[j] = start->data[j] + emit->data[b * K + j] + end->data[j]);
        want += log(z) - s[tags[b]];
    }
    tu_assert_close(loss->data[0], want, 1e-13);
    assert_int_equal(qkv_backward(&e.tp, loss), QKV_OK);
    for (int j = 0; j < K * K; j++)
        tu_assert_close(trans->grad[j], 0, 0); /* no transition in a one-token sentence */
    ot_free(&e);
}

/* A batch big enough for the threaded path: 1 thread and 2 threads give the same bits. */
static void test_threads(void **state)
{
    (void)state;
    enum { NT = 9, B = 160 };
    int32_t offsets[B + 1], *tags;
    offsets[0] = 0;
    for (int b = 0; b < B; b++)
        offsets[b + 1] = offsets[b] + 1 + (b * 7) % 13;
    int T = offsets[B];
    assert_true((size_t)T * NT * NT >= QKV_PARALLEL_MIN);
    tags = malloc((size_t)T * sizeof *tags);
    assert_non_null(tags);
    for (int t = 0; t < T; t++)
        tags[t] = (t * 5) % (NT + 1) - 1; /* some unknown */
    double loss[2];
    qkv_real *grads[2];
    int32_t *paths[2];
    int saved_threads = omp_get_max_threads();
    for (int run = 0; run < 2; run++) {
        omp_set_num_threads(run ? 2 : 1);
        ot_env e;
        ot_init(&e, 77);
        qkv_tensor *emit = ot_param2(&e, "emissions", T, NT), *trans = ot_param2(&e, "transitions", NT, NT),
                   *start = ot_param(&e, "start", 1, (int[]){NT}), *end = ot_param(&e, "end", 1, (int[]){NT});
        qkv_tensor *l = qkv_crf_nll(&e.tp, emit, trans, start, end, (qkv_packed){B, offsets}, tags, NULL);
        assert_non_null(l);
        assert_int_equal(qkv_backward(&e.tp, l), QKV_OK);
        loss[run] = l->data[0];
        size_t n = (size_t)T * NT + NT * NT + 2 * NT;
        grads[run] = malloc(n * sizeof(qkv_real));
        paths[run] = malloc((size_t)T * sizeof(int32_t));
        assert_true(grads[run] && paths[run]);
        memcpy(grads[run], emit->grad, (size_t)T * NT * sizeof(qkv_real));
        memcpy(grads[run] + (size_t)T * NT, trans->grad, NT * NT * sizeof(qkv_real));
        memcpy(grads[run] + (size_t)T * NT + NT * NT, start->grad, NT * sizeof(qkv_real));
        memcpy(grads[run] + (size_t)T * NT + NT * NT + NT, end->grad, NT * sizeof(qkv_real));
        qkv_error err;
        assert_int_equal(qkv_crf_viterbi(emit, trans, start, end, (qkv_packed){B, offsets}, NULL, paths[run], &err),
                         QKV_OK);
        ot_free(&e);
    }
    omp_set_num_threads(saved_threads);
    assert_true(loss[0] == loss[1]);
    assert_memory_equal(grads[0], grads[1], ((size_t)T * NT + NT * NT + 2 * NT) * sizeof(qkv_real));
    assert_memory_equal(paths[0], paths[1], (size_t)T * sizeof(int32_t));
    for (int run = 0; run < 2; run++) {
        free(grads[run]);
        free(paths[run]);
    }
    free(tags);
}

static void test_errors(void **state)
{
    (void)state;
    ot_env e;
    fixture f;
    setup(&e, &f, 1, TAGS, &BIO);
    const int32_t bad[] = {1, 0, 2, 1, 1, 2, 0, 2, 2, 1, 0}; /* sentence 1 = O I */
    f.tags = bad;
    assert_null(crf_fn(&e.tp, &f));
    assert_int_equal(e.tp.err.sentence, 1); /* the caller names its file and line */
    assert_non_null(strstr(e.tp.err.msg, "forbids"));
    assert_null(strstr(e.tp.err.msg, "tokens")); /* no place in a batch the user never saw */
    qkv_tape_reset(&e.tp);
    const int32_t out_of_range[] = {1, 0, 3, 1, 1, 2, 0, 2, 2, 1, 0};
    f.tags = out_of_range;
    f.mask = NULL;
    assert_null(crf_fn(&e.tp, &f));
    assert_non_null(strstr(e.tp.err.msg, "gold tag 3 at token 2"));
    qkv_tape_reset(&e.tp);
    f.tags = TAGS;
    f.trans = f.start; /* wrong shape */
    assert_null(crf_fn(&e.tp, &f));
    assert_non_null(strstr(e.tp.err.msg, "expected [T, K], [K, K], [K], [K]"));
    ot_free(&e);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_brute_force),
        cmocka_unit_test(test_viterbi_mask),
        cmocka_unit_test(test_gradcheck),
        cmocka_unit_test(test_gradcheck_catches_one_percent),
        cmocka_unit_test(test_length_one),
        cmocka_unit_test(test_threads),
        cmocka_unit_test(test_errors),
        cmocka_unit_test(test_marginals),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
