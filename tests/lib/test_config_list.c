/* The list type of config keys: one item or a YAML list (flow or block) in a file, items
 * separated by ',' in --set, the empty list, a choice listed twice or unknown, and the dump,
 * which writes one item as before and reads back to the same struct. */
#include "testutil.h"

#include "lib/io/config.h"

typedef struct {
    char cols[QKV_CFG_STR_MAX], weights[QKV_CFG_STR_MAX];
} list_cfg;

static const char *const COLS[] = {"upos", "xpos", "feats", "lemma", NULL};
static const qkv_cfg_key SCHEMA[] = {
    {"data", "tags", QKV_CFG_LIST, offsetof(list_cfg, cols), 0, 0, COLS, "upos", "columns", QKV_CFG_STR_MAX, NULL, 0},
    {"model", "weights", QKV_CFG_LIST, offsetof(list_cfg, weights), 0, 0, NULL, "", "weights", QKV_CFG_STR_MAX, NULL, 0},
};
#define N_KEYS ((int)(sizeof SCHEMA / sizeof SCHEMA[0]))

static int parse(const char *text, char *const *ov, int n_ov, list_cfg *c, qkv_error *err)
{
    memset(c, 0, sizeof *c);
    return qkv_config_parse(text, strlen(text), "c.yaml", NULL, SCHEMA, N_KEYS, c, ov, n_ov, err);
}

static void expect(const char *text, const char *cols, const char *weights)
{
    list_cfg c;
    qkv_error err = {0};
    if (parse(text, NULL, 0, &c, &err))
        fail_msg("%s: %s", text, err.msg);
    assert_string_equal(c.cols, cols);
    assert_string_equal(c.weights, weights);
}

static void expect_error(const char *text, char *set, const char *msg)
{
    list_cfg c;
    qkv_error err = {0};
    char *ov[] = {set};
    assert_int_equal(parse(text, ov, set ? 1 : 0, &c, &err), QKV_ERR);
    assert_string_equal(err.msg, msg);
}

static void test_values(void **state)
{
    (void)state;
    expect("data:\n  tags: xpos\n", "xpos", "");
    expect("data:\n  tags: [upos, lemma]\n", "upos,lemma", "");
    expect("data:\n  tags:\n    - feats\n    - upos\n", "feats,upos", "");
    expect("model:\n  weights: [1, 1, 0.5]\n", "upos", "1,1,0.5"); /* no choices: repeats allowed */
    expect("model:\n  weights: []\n", "upos", "");
    list_cfg c;
    qkv_error err = {0};
    char *ov[] = {(char *)"data.tags=[xpos, feats]", (char *)"model.weights=2,3"};
    assert_int_equal(parse("data:\n  tags: upos\n", ov, 2, &c, &err), QKV_OK);
    assert_string_equal(c.cols, "xpos,feats");
    assert_string_equal(c.weights, "2,3");
}

static void test_errors(void **state)
{
    (void)state;
    expect_error("data:\n  tags: [upos, upos]\n", NULL, "c.yaml:2:9: tags names 'upos' twice");
    expect_error("data:\n  tags: [upos, lemmas]\n", NULL,
                 "c.yaml:2:9: tags must be one of 'upos', 'xpos', 'feats', 'lemma', got 'lemmas', did you mean 'lemma'?");
    expect_error("data:\n  tags: [upos, [xpos]]\n", NULL, "c.yaml:2:16: the items of tags must be single values, got a list");
    expect_error("data:\n  tags: upos\n", (char *)"data.tags=upos,,xpos",
                 "--set data.tags=upos,,xpos: tags: expected a list of names separated by ',', got 'upos,,xpos' (an empty item)");
    expect_error("model:\n  weights: [1 x]\n", NULL, "c.yaml:2:12: weights: item '1 x' must be a word of [A-Za-z0-9_.-]");
}

static void test_dump_round_trip(void **state)
{
    (void)state;
    const char *texts[] = {"data:\n  tags: upos\n", "data:\n  tags: [lemma, xpos]\nmodel:\n  weights: [1, 2]\n"};
    const char *dumped[] = {"tags: upos\n", "tags: [lemma, xpos]\n"};
    for (int i = 0; i < 2; i++) {
        list_cfg a, b;
        qkv_error err = {0};
        char *text = NULL;
        assert_int_equal(parse(texts[i], NULL, 0, &a, &err), QKV_OK);
        assert_int_equal(qkv_config_dump(SCHEMA, N_KEYS, &a, &text, &err), QKV_OK);
        if (!strstr(text, dumped[i]))
            fail_msg("dump \"%s\" lacks \"%s\"", text, dumped[i]);
        assert_int_equal(parse(text, NULL, 0, &b, &err), QKV_OK);
        assert_string_equal(a.cols, b.cols);
        assert_string_equal(a.weights, b.weights);
        free(text);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_values),
        cmocka_unit_test(test_errors),
        cmocka_unit_test(test_dump_round_trip),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
