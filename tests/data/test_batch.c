/* Batching: budget respected, every sentence with words exactly once per epoch, never an empty
 * one, same rng state -> same plan, lengths grouped, fill by index copies the right ids. */
#include "testutil.h"

#include "corpus_checks.h"

/* A dataset of n sentences with given lengths; feature f of word j of sentence s = s*1000 + j*10 + f,
 * tag = s % 7 (or -1 for s % 11 == 0). */
static qkv_dataset make_dataset(int n, const int *lens, int n_features)
{
    qkv_dataset ds = {0};
    ds.n_sent = n;
    ds.n_features = n_features;
    ds.sent_start = malloc(((size_t)n + 1) * sizeof(int32_t));
    ds.sent_start[0] = 0;
    for (int s = 0; s < n; s++) {
        ds.sent_start[s + 1] = ds.sent_start[s] + lens[s];
        ds.n_nonempty += lens[s] > 0;
        if (lens[s] > ds.max_sent_len)
            ds.max_sent_len = lens[s];
    }
    ds.n_words = ds.sent_start[n];
    ds.tags = malloc(((size_t)ds.n_words + 1) * sizeof(int32_t));
    for (int f = 0; f < n_features; f++)
        ds.features[f] = malloc(((size_t)ds.n_words + 1) * sizeof(int32_t));
    for (int s = 0; s < n; s++)
        for (int j = 0; j < lens[s]; j++) {
            int w = ds.sent_start[s] + j;
            ds.tags[w] = s % 11 == 0 ? -1 : s % 7;
            for (int f = 0; f < n_features; f++)
                ds.features[f][w] = s * 1000 + j * 10 + f;
        }
    return ds;
}

static int *random_lengths(int n, uint64_t seed, int max_len)
{
    qkv_rng rng;
    qkv_rng_seed(&rng, seed);
    int *lens = malloc((size_t)n * sizeof *lens);
    for (int i = 0; i < n; i++)
        lens[i] = i % 13 == 5 ? 0 : 1 + (int)qkv_rng_below(&rng, (uint64_t)max_len);
    return lens;
}

static void test_plan_properties(void **state)
{
    (void)state;
    int *lens = random_lengths(1000, 1, 60);
    lens[17] = 300; /* longer than the budget */
    qkv_dataset ds = make_dataset(1000, lens, 2);
    qkv_error err;
    const int budgets[] = {1, 7, 100, 250, 100000};
    for (size_t k = 0; k < sizeof budgets / sizeof budgets[0]; k++) {
        qkv_rng rng;
        qkv_rng_seed(&rng, 42);
        qkv_batch_plan p;
        assert_int_equal(qkv_batch_plan_make(&p, &ds, budgets[k], &rng, &err), QKV_OK);
        check_plan(&ds, &p, budgets[k]);
        qkv_batch_plan_free(&p);
        assert_int_equal(qkv_batch_plan_make(&p, &ds, budgets[k], NULL, &err), QKV_OK);
        check_plan(&ds, &p, budgets[k]);
        qkv_batch_plan_free(&p);
    }
    /* the long sentence is a batch of its own */
    qkv_batch_plan p;
    assert_int_equal(qkv_batch_plan_make(&p, &ds, 250, NULL, &err), QKV_OK);
    int found = 0;
    for (int b = 0; b < p.n_batches; b++)
        if (p.order[p.start[b]] == 17) {
            assert_int_equal(p.start[b + 1] - p.start[b], 1);
            found = 1;
        }
    assert_true(found);
    assert_int_equal(p.max_tokens, 300);
    qkv_batch_plan_free(&p);
    assert_int_equal(qkv_batch_plan_make(&p, &ds, 0, NULL, &err), QKV_ERR);
    assert_string_equal(err.msg, "batches: token budget must be >= 1, got 0");
    qkv_dataset_free(&ds);
    free(lens);
}

/* Sentences of similar length share a batch: the batches' length ranges do not overlap. */
static void test_grouped_by_length(void **state)
{
    (void)state;
    int *lens = random_lengths(2000, 3, 40);
    qkv_dataset ds = make_dataset(2000, lens, 1);
    qkv_rng rng;
    qkv_rng_seed(&rng, 9);
    qkv_batch_plan p;
    qkv_error err;
    assert_int_equal(qkv_batch_plan_make(&p, &ds, 500, &rng, &err), QKV_OK);
    int *lo = malloc((size_t)p.n_batches * sizeof *lo), *hi = malloc((size_t)p.n_batches * sizeof *hi);
    for (int b = 0; b < p.n_batches; b++) {
        lo[b] = 1 << 30;
        hi[b] = 0;
        for (int i = p.start[b]; i < p.start[b + 1]; i++) {
            int len = lens[p.order[i]];
            lo[b] = len < lo[b] ? len : lo[b];
            hi[b] = len > hi[b] ? len : hi[b];
        }
    }
    for (int a = 0; a < p.n_batches; a++)
        for (int b = 0; b < p.n_batches; b++)
            if (a != b)
                assert_true(hi[a] <= lo[b] || hi[b] <= lo[a]);
    /* the batch order is shuffled: lengths are not monotone over the epoch */
    int descents = 0;
    for (int b = 1; b < p.n_batches; b++)
        descents += lo[b] < lo[b - 1];
    assert_true(descents > 0);
    free(lo);
    free(hi);
    qkv_batch_plan_free(&p);
    qkv_dataset_free(&ds);
    free(lens);
}

/* The plan is a function of (dataset, budget, rng state): same seed -> same plan and same rng
 * state after; the next epoch (continued rng) and another seed give other plans. */
static void test_reproducible(void **state)
{
    (void)state;
    int *lens = random_lengths(500, 5, 30);
    qkv_dataset ds = make_dataset(500, lens, 1);
    qkv_error err;
    qkv_rng r1, r2;
    qkv_rng_seed(&r1, 2024);
    qkv_rng_seed(&r2, 2024);
    qkv_batch_plan a, b, c;
    assert_int_equal(qkv_batch_plan_make(&a, &ds, 200, &r1, &err), QKV_OK);
    assert_int_equal(qkv_batch_plan_make(&b, &ds, 200, &r2, &err), QKV_OK);
    assert_int_equal(a.n_batches, b.n_batches);
    assert_memory_equal(a.start, b.start, ((size_t)a.n_batches + 1) * sizeof(int32_t));
    assert_memory_equal(a.order, b.order, (size_t)ds.n_nonempty * sizeof(int32_t));
    assert_memory_equal(r1.s, r2.s, sizeof r1.s);
    /* epoch 2 from the continued state: a different order */
    assert_int_equal(qkv_batch_plan_make(&c, &ds, 200, &r1, &err), QKV_OK);
    assert_true(memcmp(a.order, c.order, (size_t)ds.n_nonempty * sizeof(int32_t)) != 0);
    qkv_batch_plan_free(&c);
    /* resume: a saved state reproduces epoch 2 */
    qkv_batch_plan d, e;
    qkv_rng saved = r2;
    assert_int_equal(qkv_batch_plan_make(&d, &ds, 200, &r2, &err), QKV_OK);
    assert_int_equal(qkv_batch_plan_make(&e, &ds, 200, &saved, &err), QKV_OK);
    assert_memory_equal(d.order, e.order, (size_t)ds.n_nonempty * sizeof(int32_t));
    qkv_batch_plan_free(&d);
    qkv_batch_plan_free(&e);
    qkv_rng_seed(&r2, 2025);
    assert_int_equal(qkv_batch_plan_make(&c, &ds, 200, &r2, &err), QKV_OK);
    assert_true(memcmp(a.order, c.order, (size_t)ds.n_nonempty * sizeof(int32_t)) != 0);
    qkv_batch_plan_free(&a);
    qkv_batch_plan_free(&b);
    qkv_batch_plan_free(&c);
    qkv_dataset_free(&ds);
    free(lens);
}

static void test_fill(void **state)
{
    (void)state;
    int *lens = random_lengths(300, 8, 25);
    lens[4] = 90;
    qkv_dataset ds = make_dataset(300, lens, 3);
    qkv_error err;
    qkv_rng rng;
    qkv_rng_seed(&rng, 1);
    qkv_batch_plan p;
    assert_int_equal(qkv_batch_plan_make(&p, &ds, 64, &rng, &err), QKV_OK);
    int ms, mt;
    qkv_batch_max_size(&ds, 64, &ms, &mt);
    assert_int_equal(mt, 90);
    assert_true(p.max_sent <= ms && p.max_tokens <= mt);
    qkv_batch b;
    assert_int_equal(qkv_batch_alloc(&b, 3, false, ms, mt, &err), QKV_OK);
    int32_t *bufs[5] = {b.offsets, b.tags, b.sent_ids, b.features[0], b.features[2]};
    int *seen = calloc(300, sizeof *seen);
    for (int i = p.n_batches - 1; i >= 0; i--) { /* any order: each batch by its index */
        assert_int_equal(qkv_batch_fill(&b, &ds, &p, i, &err), QKV_OK);
        assert_int_equal(b.n_sent, p.start[i + 1] - p.start[i]);
        assert_int_equal(b.n_features, 3);
        assert_int_equal(b.offsets[0], 0);
        assert_int_equal(b.offsets[b.n_sent], b.n_tokens);
        for (int k = 0; k < b.n_sent; k++) {
            int s = b.sent_ids[k];
            seen[s]++;
            assert_int_equal(b.offsets[k + 1] - b.offsets[k], lens[s]);
            for (int j = 0; j < lens[s]; j++) {
                int t = b.offsets[k] + j;
                assert_int_equal(b.tags[t], s % 11 == 0 ? -1 : s % 7);
                for (int f = 0; f < 3; f++)
                    assert_int_equal(b.features[f][t], s * 1000 + j * 10 + f);
            }
        }
    }
    for (int s = 0; s < 300; s++)
        assert_int_equal(seen[s], lens[s] > 0);
    /* the buffers were not reallocated */
    int32_t *after[5] = {b.offsets, b.tags, b.sent_ids, b.features[0], b.features[2]};
    assert_memory_equal(bufs, after, sizeof bufs);
    assert_int_equal(qkv_batch_fill(&b, &ds, &p, p.n_batches, &err), QKV_ERR);
    qkv_batch_free(&b);
    assert_int_equal(qkv_batch_alloc(&b, 3, false, 2, 10, &err), QKV_OK);
    int big = -1;
    for (int i = 0; i < p.n_batches && big < 0; i++)
        if (p.start[i + 1] - p.start[i] > 2)
            big = i;
    assert_true(big >= 0);
    assert_int_equal(qkv_batch_fill(&b, &ds, &p, big, &err), QKV_ERR);
    assert_non_null(strstr(err.msg, "the buffers hold 2 and 10"));
    qkv_batch_free(&b);
    free(seen);
    qkv_batch_plan_free(&p);
    qkv_dataset_free(&ds);
    free(lens);
}

/* Every plan of the same (dataset, budget) has the same number of batches and the same sorted
 * list of batch sizes, whatever the seed (the trainer counts steps per epoch from one plan). */
static void test_batch_count_independent_of_seed(void **state)
{
    (void)state;
    int *lens = random_lengths(700, 11, 45);
    qkv_dataset ds = make_dataset(700, lens, 1);
    qkv_error err;
    int first_n = -1;
    int64_t first_sizes[800];
    for (uint64_t seed = 0; seed < 20; seed++) {
        qkv_rng rng;
        qkv_rng_seed(&rng, seed);
        qkv_batch_plan p;
        assert_int_equal(qkv_batch_plan_make(&p, &ds, 150, &rng, &err), QKV_OK);
        int64_t sizes[800] = {0};
        assert_true(p.n_batches < 800);
        for (int b = 0; b < p.n_batches; b++) {
            int64_t t = 0;
            for (int i = p.start[b]; i < p.start[b + 1]; i++)
                t += lens[p.order[i]];
            sizes[t]++; /* histogram of batch sizes (t <= 150 here) */
        }
        if (first_n < 0) {
            first_n = p.n_batches;
            memcpy(first_sizes, sizes, sizeof sizes);
        }
        assert_int_equal(p.n_batches, first_n);
        assert_memory_equal(sizes, first_sizes, sizeof sizes);
        qkv_batch_plan_free(&p);
    }
    qkv_dataset_free(&ds);
    free(lens);
}

/* keep_max_len: longer sentences never enter a plan, indices still match the corpus. */
static void test_keep_max_len(void **state)
{
    (void)state;
    int lens[] = {3, 0, 12, 5, 30, 9, 10, 11, 1};
    qkv_dataset ds = make_dataset(9, lens, 2);
    qkv_error err;
    assert_int_equal(ds.n_nonempty, 8);
    assert_int_equal(qkv_dataset_keep_max_len(&ds, 10, &err), QKV_OK);
    assert_int_equal(ds.n_nonempty, 5);    /* 3 5 9 10 1 */
    assert_int_equal(ds.max_sent_len, 10);
    assert_int_equal(ds.n_left_out, 3);    /* 12 30 11 */
    assert_int_equal(ds.n_left_out_words, 53);
    qkv_rng rng;
    qkv_rng_seed(&rng, 4);
    qkv_batch_plan p;
    assert_int_equal(qkv_batch_plan_make(&p, &ds, 12, &rng, &err), QKV_OK);
    assert_int_equal(p.start[p.n_batches], 5);
    assert_int_equal(p.n_tokens, 28);
    for (int i = 0; i < p.start[p.n_batches]; i++)
        assert_true(lens[p.order[i]] > 0 && lens[p.order[i]] <= 10);
    int ms, mt;
    qkv_batch_max_size(&ds, 12, &ms, &mt);
    qkv_batch b;
    assert_int_equal(qkv_batch_alloc(&b, 2, false, ms, mt, &err), QKV_OK);
    for (int i = 0; i < p.n_batches; i++) {
        assert_int_equal(qkv_batch_fill(&b, &ds, &p, i, &err), QKV_OK);
        for (int k = 0; k < b.n_sent; k++) /* features still those of the corpus sentence */
            assert_int_equal(b.features[1][b.offsets[k]], b.sent_ids[k] * 1000 + 1);
    }
    qkv_batch_free(&b);
    qkv_batch_plan_free(&p);
    /* again with a larger max_len: recomputed from all sentences */
    assert_int_equal(qkv_dataset_keep_max_len(&ds, 100, &err), QKV_OK);
    assert_int_equal(ds.n_nonempty, 8);
    assert_int_equal(ds.n_left_out, 0);
    assert_int_equal(ds.max_sent_len, 30);
    assert_int_equal(qkv_dataset_keep_max_len(&ds, 0, &err), QKV_ERR);
    assert_string_equal(err.msg, "dataset: max_len must be >= 1, got 0");
    qkv_dataset_free(&ds);
}

/* Word dropout zeroes the word kinds (not the others) of the tokens whose counter-based draw
 * (key, sentence id, position) falls below p, and nothing at p = 0. */
static void test_word_dropout(void **state)
{
    (void)state;
    int lens[] = {4, 0, 7, 5};
    qkv_dataset ds = make_dataset(4, lens, 2);
    qkv_feature_config cfg = {.word = 1, .suffix_max = 1, .word_min_count = 1, .affix_min_count = 1,
                              .shape_min_count = 1};
    qkv_featurizer fz;
    qkv_error err;
    assert_int_equal(qkv_featurizer_init(&fz, &cfg, &err), QKV_OK);
    assert_true(qkv_featurizer_is_word_kind(&fz, 0) && !qkv_featurizer_is_word_kind(&fz, 1));
    qkv_batch_plan p;
    assert_int_equal(qkv_batch_plan_make(&p, &ds, 100, NULL, &err), QKV_OK);
    qkv_batch b;
    assert_int_equal(qkv_batch_alloc(&b, 2, false, p.max_sent, p.max_tokens, &err), QKV_OK);
    const double ps[] = {0, 0.5, 1};
    for (int k = 0; k < 3; k++) {
        assert_int_equal(qkv_batch_fill(&b, &ds, &p, 0, &err), QKV_OK);
        assert_int_equal(qkv_batch_n_tokens(&b), 16);
        const uint64_t key = 9;
        qkv_batch_word_dropout(&b, &fz, ps[k], key);
        int dropped = 0;
        for (int t = 0; t < b.n_tokens; t++) {
            int s = b.sent_ids[0], j = t; /* one batch, sentences in plan order */
            for (int i = 0; i < b.n_sent; i++)
                if (t >= b.offsets[i] && t < b.offsets[i + 1]) {
                    s = b.sent_ids[i];
                    j = t - b.offsets[i];
                }
            bool drop = ps[k] > 0 && qkv_rng_uniform_at(qkv_rng_key(key, (uint64_t)s), (uint64_t)j) < ps[k];
            dropped += drop;
            assert_int_equal(b.features[0][t], drop ? 0 : s * 1000 + j * 10);
            assert_int_equal(b.features[1][t], s * 1000 + j * 10 + 1);
        }
        if (k == 2)
            assert_int_equal(dropped, 16);
        if (k == 1)
            assert_true(dropped > 0 && dropped < 16);
    }
    qkv_batch_free(&b);
    qkv_batch_plan_free(&p);
    qkv_featurizer_free(&fz);
    qkv_dataset_free(&ds);
}

/* The one-batch plan of the first short sentences: corpus order, limits on length, count and words. */
static void test_plan_first(void **state)
{
    (void)state;
    int lens[] = {3, 0, 12, 5, 9, 8, 1, 2};
    qkv_dataset ds = make_dataset(8, lens, 1);
    qkv_error err;
    qkv_batch_plan p;
    assert_int_equal(qkv_batch_plan_first(&p, &ds, 8, 8, 24, &err), QKV_OK);
    assert_int_equal(p.n_batches, 1);
    const int32_t all[] = {0, 3, 5, 6, 7};
    assert_int_equal(p.start[0], 0);
    assert_int_equal(p.start[1], 5);
    assert_memory_equal(p.order, all, sizeof all);
    assert_int_equal(p.n_tokens, 19);
    qkv_batch b;
    assert_int_equal(qkv_batch_alloc(&b, 1, false, p.max_sent, p.max_tokens, &err), QKV_OK);
    assert_int_equal(qkv_batch_fill(&b, &ds, &p, 0, &err), QKV_OK);
    assert_int_equal(b.n_tokens, 19);
    qkv_batch_free(&b);
    qkv_batch_plan_free(&p);
    assert_int_equal(qkv_batch_plan_first(&p, &ds, 8, 8, 10, &err), QKV_OK); /* 3 + 5 + 1 words */
    const int32_t fit[] = {0, 3, 6};
    assert_int_equal(p.start[1], 3);
    assert_memory_equal(p.order, fit, sizeof fit);
    qkv_batch_plan_free(&p);
    assert_int_equal(qkv_batch_plan_first(&p, &ds, 8, 2, 24, &err), QKV_OK); /* two sentences at most */
    assert_int_equal(p.start[1], 2);
    qkv_batch_plan_free(&p);
    assert_int_equal(qkv_batch_plan_first(&p, &ds, 0, 8, 24, &err), QKV_OK); /* no sentence fits: no batch */
    assert_int_equal(p.n_batches, 0);
    qkv_batch_plan_free(&p);
    /* sentences that data.max_train_len leaves out of training stay out of this plan too */
    assert_int_equal(qkv_dataset_keep_max_len(&ds, 4, &err), QKV_OK);
    assert_int_equal(qkv_batch_plan_first(&p, &ds, 8, 8, 24, &err), QKV_OK);
    const int32_t kept[] = {0, 6, 7};
    assert_int_equal(p.start[1], 3);
    assert_memory_equal(p.order, kept, sizeof kept);
    qkv_batch_plan_free(&p);
    qkv_dataset_free(&ds);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_plan_properties),
        cmocka_unit_test(test_grouped_by_length),
        cmocka_unit_test(test_reproducible),
        cmocka_unit_test(test_fill),
        cmocka_unit_test(test_batch_count_independent_of_seed),
        cmocka_unit_test(test_keep_max_len),
        cmocka_unit_test(test_word_dropout),
        cmocka_unit_test(test_plan_first),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
