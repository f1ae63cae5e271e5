/* The synthetic corpus: deterministic from the seed, valid CoNLL-U for the reader, lengths in
 * range, forms that are NOUN or VERB by context, markers that are INTJ first and ADV elsewhere,
 * and tags that local context plus position determine (so a small tagger can learn them). */
#include "testutil.h"

#include "data/corpus.h"
#include "data/synthetic.h"
#include "data/vocab.h"

static char *synth(int n, uint64_t seed, size_t *len)
{
    char *buf = NULL;
    FILE *f = open_memstream(&buf, len);
    qkv_error err;
    if (qkv_synth_write(f, n, seed, &err) != QKV_OK)
        fail_msg("%s", err.msg);
    fclose(f);
    return buf;
}

static void test_deterministic(void **state)
{
    (void)state;
    size_t la, lb, lc;
    char *a = synth(300, 7, &la), *b = synth(300, 7, &lb), *c = synth(300, 8, &lc);
    assert_int_equal(la, lb);
    assert_memory_equal(a, b, la);
    assert_true(la != lc || memcmp(a, c, la) != 0);
    /* the first sentences do not depend on how many follow */
    size_t ls;
    char *s = synth(100, 7, &ls);
    assert_true(ls < la);
    assert_memory_equal(a, s, ls);
    free(a);
    free(b);
    free(c);
    free(s);
}

static int eq(const qkv_corpus *c, qkv_span sp, const char *s)
{
    return sp.len == strlen(s) && !memcmp(c->text + sp.off, s, sp.len);
}

static void test_reads_back_with_properties(void **state)
{
    (void)state;
    size_t len;
    char *text = synth(5000, 1, &len);
    qkv_corpus c;
    qkv_error err;
    qkv_read_opts o = QKV_READ_DEFAULTS;
    o.format = QKV_FORMAT_CONLLU;
    if (qkv_corpus_read_mem(&c, text, len, "synth", &o, &err) != QKV_OK)
        fail_msg("%s", err.msg);
    assert_int_equal(c.n_sent, 5000);
    assert_int_equal(c.n_comments, 10000);
    int min_len = 1000, max_len = 0;
    int duck_noun = 0, duck_verb = 0, now_first_intj = 0, now_later_adv = 0, bad = 0;
    for (int s = 0; s < c.n_sent; s++) {
        int n = qkv_corpus_sent_len(&c, s);
        min_len = n < min_len ? n : min_len;
        max_len = n > max_len ? n : max_len;
        for (int i = 0; i < n; i++) {
            int w = c.sent_start[s] + i;
            if (eq(&c, c.forms[w], "duck") || eq(&c, c.forms[w], "ducks")) {
                duck_noun += eq(&c, c.tags[w], "NOUN");
                duck_verb += eq(&c, c.tags[w], "VERB");
            }
            if (eq(&c, c.forms[w], "now")) {
                now_first_intj += i == 0 && eq(&c, c.tags[w], "INTJ");
                now_later_adv += i > 0 && eq(&c, c.tags[w], "ADV");
                bad += (i == 0) != eq(&c, c.tags[w], "INTJ");
            }
        }
    }
    assert_true(min_len >= QKV_SYNTH_MIN_LEN && min_len <= 4);
    assert_true(max_len <= QKV_SYNTH_MAX_LEN && max_len >= 18);
    assert_true(duck_noun > 50 && duck_verb > 50);
    assert_true(now_first_intj > 50 && now_later_adv > 50);
    assert_int_equal(bad, 0);
    /* the tag vocabulary is the 11 documented tags */
    qkv_vocab tags;
    assert_int_equal(qkv_vocab_init(&tags, 0, &err), QKV_OK);
    for (int w = 0; w < c.n_words; w++)
        assert_int_equal(qkv_vocab_add(&tags, c.text + c.tags[w].off, c.tags[w].len, NULL, &err), QKV_OK);
    assert_int_equal(tags.size, 11);
    qkv_vocab_free(&tags);
    qkv_corpus_free(&c);
    free(text);
}

/* Tags are resolvable: the majority tag of each context (is first word, two previous forms,
 * form, next form) is right for >= 99.9% of words; the form alone (a unigram tagger) is not. */
static void test_resolvable_from_context_and_position(void **state)
{
    (void)state;
    qkv_rng rng;
    qkv_rng_seed(&rng, 3);
    enum { N_SENT = 4000 };
    qkv_vocab ctx, uni;
    qkv_error err;
    assert_int_equal(qkv_vocab_init(&ctx, 0, &err), QKV_OK);
    assert_int_equal(qkv_vocab_init(&uni, 0, &err), QKV_OK);
    /* count (key + tag) and (key) to get each key's majority tag */
    static int32_t ctx_key[N_SENT * QKV_SYNTH_MAX_LEN], uni_key[N_SENT * QKV_SYNTH_MAX_LEN];
    static const char *tag_of[N_SENT * QKV_SYNTH_MAX_LEN];
    int total = 0;
    for (int s = 0; s < N_SENT; s++) {
        const char *f[QKV_SYNTH_MAX_LEN], *t[QKV_SYNTH_MAX_LEN];
        int n = qkv_synth_sentence(&rng, f, t);
        for (int i = 0; i < n; i++) {
            char key[256];
            snprintf(key, sizeof key, "%d|%s|%s|%s|%s", i == 0, i > 1 ? f[i - 2] : "<s>", i > 0 ? f[i - 1] : "<s>",
                     f[i], i + 1 < n ? f[i + 1] : "</s>");
            assert_int_equal(qkv_vocab_add(&ctx, key, strlen(key), &ctx_key[total], &err), QKV_OK);
            assert_int_equal(qkv_vocab_add(&uni, f[i], strlen(f[i]), &uni_key[total], &err), QKV_OK);
            tag_of[total++] = t[i];
        }
    }
    /* majority by brute force over tags: count (key, tag) pairs in a second vocabulary */
    qkv_vocab pairs;
    assert_int_equal(qkv_vocab_init(&pairs, 0, &err), QKV_OK);
    for (int pass = 0; pass < 2; pass++) {
        const int32_t *keys = pass == 0 ? ctx_key : uni_key;
        int n_keys = pass == 0 ? ctx.size : uni.size;
        int *best = calloc((size_t)n_keys, sizeof *best);
        for (int i = 0; i < total; i++) {
            char k[64];
            snprintf(k, sizeof k, "%d/%d/%s", pass, keys[i], tag_of[i]);
            int32_t id;
            assert_int_equal(qkv_vocab_add(&pairs, k, strlen(k), &id, &err), QKV_OK);
            if (qkv_vocab_count(&pairs, id) > best[keys[i]])
                best[keys[i]] = (int)qkv_vocab_count(&pairs, id);
        }
        long correct = 0;
        for (int key = 0; key < n_keys; key++)
            correct += best[key];
        double acc = (double)correct / total;
        if (pass == 0)
            assert_true(acc >= 0.999);
        else
            assert_true(acc < 0.97);
        free(best);
    }
    qkv_vocab_free(&pairs);
    qkv_vocab_free(&ctx);
    qkv_vocab_free(&uni);
}

static void test_write_error(void **state)
{
    (void)state;
    qkv_error err;
    assert_int_equal(qkv_synth_write(stdout, -1, 1, &err), QKV_ERR);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_deterministic),
        cmocka_unit_test(test_reads_back_with_properties),
        cmocka_unit_test(test_resolvable_from_context_and_position),
        cmocka_unit_test(test_write_error),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
