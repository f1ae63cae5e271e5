/* Label smoothing in every head kind's training loss (models/kinds.h: qkv_gold.label_smoothing;
 * Szegedy et al. 2016, section 7): a head whose loss is a softmax cross-entropy (softmax, class)
 * gives the mean over the gold-tagged tokens of Σ_k -q_k log p_k with q = (1 - ε) onehot + ε / K,
 * K = n_tags, computed here in double from its logits; the biaffine parser gives that over each
 * word's n + 1 candidate heads (its arc scores) plus that over the labels of its gold arcs (its
 * label logits); the CRF fails the tape naming label smoothing. Each smoothed loss's gradient
 * is checked in double precision, and ε = 0 gives the loss without smoothing. */
#define QKV_TESTUTIL_AUTOGRAD
#include "testutil.h"

#include <string.h>

#include "lib/ops/ops.h"
#include "models/biaffine_head.h"
#include "models/network.h"

enum { T = 7, B = 3, NT = 4, D = 6 };
static const int32_t OFFSETS[B + 1] = {0, 1, 4, 7};
static const int32_t TAGS[T] = {1, 0, 1, 2, -1, 3, 0};
static const int32_t HEADS[T] = {0, 2, 0, 2, -1, 0, 2}; /* 0 = ROOT, k = word k of the sentence */
static const char *const NAMES[NT] = {"O", "B-X", "I-X", "B-Y"};
static const double EPS = 0.2;

/* Σ over the rows t with targets[t] >= 0 of Σ_{k < K_t} -q_k log softmax(row_t[0..K_t))_k, K_t =
 * k_of[t] (NULL: cols); *count += those rows. */
static double smoothed_sum(const qkv_tensor *lg, const int32_t *targets, const int *k_of, double eps, int *count)
{
    const int cols = lg->shape[1];
    double total = 0;
    for (int t = 0; t < lg->shape[0]; t++) {
        if (targets[t] < 0)
            continue;
        const int K = k_of ? k_of[t] : cols;
        const qkv_real *r = lg->data + (size_t)t * cols;
        double z = 0;
        for (int k = 0; k < K; k++)
            z += exp((double)r[k]);
        for (int k = 0; k < K; k++)
            total -= ((k == targets[t] ? 1 - eps : 0) + eps / K) * ((double)r[k] - log(z));
        ++*count;
    }
    return total;
}

typedef struct {
    const qkv_head *h;
    qkv_tensor *x;
    double eps;
} fixture;

static qkv_tensor *loss_fn(qkv_tape *tp, void *user)
{
    fixture *f = user;
    qkv_packed sentences = {B, OFFSETS};
    return f->h->desc->loss(tp, f->h, qkv_head_logits(tp, f->h, f->x, sentences), sentences,
                            &(qkv_gold){TAGS, HEADS, f->eps});
}

/* What head h's loss should be at ε from its logits (arc scores and label logits for a parser). */
static double expected(qkv_tape *tp, const qkv_head *h, qkv_tensor *x, double eps)
{
    qkv_packed sentences = {B, OFFSETS};
    int count = 0;
    if (!qkv_head_has_arcs(h)) {
        double sum = smoothed_sum(qkv_head_logits(tp, h, x, sentences), TAGS, NULL, eps, &count);
        return sum / count;
    }
    int k_of[T], labels[T];
    for (int s = 0; s < B; s++)
        for (int t = OFFSETS[s]; t < OFFSETS[s + 1]; t++)
            k_of[t] = OFFSETS[s + 1] - OFFSETS[s] + 1; /* ROOT and the sentence's words */
    for (int t = 0; t < T; t++)
        labels[t] = HEADS[t] >= 0 && TAGS[t] >= 0 ? TAGS[t] : -1;
    double arcs = smoothed_sum(qkv_biaffine_head_arcs(tp, h, x, sentences), HEADS, k_of, eps, &count) / count;
    count = 0;
    double sum = smoothed_sum(qkv_biaffine_head_labels(tp, h, x, sentences, HEADS), labels, NULL, eps, &count);
    return arcs + sum / count;
}

static void test_heads(void **state)
{
    (void)state;
    for (int k = 0; k < QKV_OUTPUT_COUNT; k++) {
        qkv_params ps, xs;
        qkv_params_init(&ps);
        qkv_params_init(&xs);
        qkv_rng rng;
        qkv_rng_seed(&rng, 5 + k);
        qkv_error err;
        qkv_head h;
        qkv_head_spec spec = {.kind = (qkv_output_kind)k, .prefix = "", .n_tags = NT, .tag_names = NAMES,
                              .biaffine = {.arc_dim = 5, .label_dim = 3}};
        if (qkv_head_create(&h, &ps, &rng, D, &spec, &err))
            fail_msg("%s: %s", QKV_OUTPUT_NAMES[k], err.msg);
        /* every parameter random: a zero initialisation (the parser's label scorer) gives equal
         * logits, where smoothing changes nothing */
        for (int i = 0; i < ps.n; i++)
            for (size_t j = 0; j < ps.items[i]->t.size; j++)
                ps.items[i]->t.data[j] = (qkv_real)qkv_rng_normal(&rng);
        fixture f = {&h, tu_param(&xs, &rng, "x", 2, (int[]){T, D}), EPS};
        qkv_tape tp;
        assert_int_equal(qkv_tape_init(&tp, 0), 0);
        qkv_tensor *loss = loss_fn(&tp, &f);
        if (k == QKV_OUTPUT_CRF) {
            assert_null(loss);
            assert_non_null(strstr(tp.err.msg, "crf head: label smoothing (0.2) does not apply"));
            qkv_tape_reset(&tp);
            f.eps = 0;
            assert_non_null(loss_fn(&tp, &f));
        } else {
            assert_non_null(loss);
            tu_assert_close(loss->data[0], expected(&tp, &h, f.x, EPS), 1e-12);
            f.eps = 0;
            tu_assert_close(loss_fn(&tp, &f)->data[0], expected(&tp, &h, f.x, 0), 1e-12);
            f.eps = EPS;
            const char *names[] = {"x"};
            tu_assert_gradcheck(&tp, loss_fn, &f, 1, &f.x, names);
        }
        qkv_tape_free(&tp);
        qkv_head_free(&h);
        qkv_params_free(&ps);
        qkv_params_free(&xs);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_heads),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
