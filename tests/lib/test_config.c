/* Config values: defaults, every type as written in a file, range bounds, --set overrides,
 * ${VAR} expansion, relative paths, required keys, schema checks, the dump (exact text and a
 * reload that gives the same struct) and the documentation table. */
#include "config_fixture.h"

#include <float.h>
#include <stdint.h>

static void expect_defaults(const test_cfg *c, const char *dir)
{
    assert_int_equal(c->d_model, 64);
    assert_int_equal(c->n_heads, 4);
    assert_true(c->dropout == 0.1);
    assert_string_equal(c->dir, dir);
    assert_true(c->shuffle);
    assert_int_equal(c->max_len, 128);
    assert_int_equal(c->steps, 1000);
    assert_true(c->lr == 1e-3);
    assert_int_equal(c->schedule, 1);
    assert_true(c->beta == 0.9);
    assert_int_equal(c->offset, -5);
    assert_string_equal(c->name, "run");
}

/* "<scratch dir>/rest" */
static const char *in_dir(const char *rest)
{
    static char buf[PATH_MAX + 64];
    snprintf(buf, sizeof buf, "%s/%s", fx_dir, rest);
    return buf;
}

static void test_defaults(void **state)
{
    (void)state;
    test_cfg cfg;
    qkv_error err = {0};
    /* no file: defaults, relative paths from the current directory */
    memset(&cfg, 0xff, sizeof cfg);
    assert_int_equal(qkv_config_load(NULL, schema, N_KEYS, &cfg, NULL, 0, &err), QKV_OK);
    expect_defaults(&cfg, in_dir("data"));
    /* empty sections (one with only a comment): all defaults, paths from the file's folder */
    fx_write("sub/c.yaml", "model:\ndata:\n  # nothing yet\n");
    memset(&cfg, 0, sizeof cfg);
    assert_int_equal(qkv_config_load("sub/c.yaml", schema, N_KEYS, &cfg, NULL, 0, &err), QKV_OK);
    expect_defaults(&cfg, in_dir("sub/data"));
    /* one key given, the rest default */
    fx_load_ok("model:\n  n_heads: 8\n", &cfg, NULL, 0);
    assert_int_equal(cfg.n_heads, 8);
    assert_int_equal(cfg.d_model, 64);
    assert_int_equal(cfg.steps, 1000);
}

static void test_values_of_every_type(void **state)
{
    (void)state;
    test_cfg cfg;
    fx_load_ok("# a comment\n"
               "model: {d_model: +96, n_heads: 3}\n"
               "optim:\n"
               "  lr: 1E-4   # trailing comment\n"
               "  schedule: 'cosine'\n"
               "  beta: -.5\n"
               "data:\n"
               "  shuffle: FALSE\n"
               "  dir: \"/abs//corpus\"\n"
               "  max_len: 7\n"
               "log:\n"
               "  offset: -3\n"
               "  name: >-\n"
               "    folded\n"
               "    name\n"
               "train:\n"
               "  steps: 0012\n",
               &cfg, NULL, 0);
    assert_int_equal(cfg.d_model, 96);
    assert_int_equal(cfg.n_heads, 3);
    assert_true(cfg.dropout == 0.1);
    assert_true(cfg.lr == 1e-4);
    assert_int_equal(cfg.schedule, 2);
    assert_true(cfg.beta == -0.5);
    assert_false(cfg.shuffle);
    assert_string_equal(cfg.dir, "/abs//corpus"); /* absolute: kept as written */
    assert_int_equal(cfg.max_len, 7);
    assert_int_equal(cfg.offset, -3);
    assert_string_equal(cfg.name, "folded name");
    assert_int_equal(cfg.steps, 12);
    /* an integer where a number is expected; quoted and non-ASCII strings; an empty string */
    fx_load_ok("model:\n  dropout: 1\ndata:\n  shuffle: True\n  dir: ''\nlog:\n  name: 'it''s \"q\" \xc3\xbc'\n",
               &cfg, NULL, 0);
    assert_true(cfg.dropout == 1.0);
    assert_true(cfg.shuffle);
    assert_string_equal(cfg.dir, "");
    assert_string_equal(cfg.name, "it's \"q\" \xc3\xbc");
    /* plain scalars that YAML would read as other types are fine for strings */
    fx_load_ok("log:\n  name: 123\noptim:\n  schedule: constant\n", &cfg, NULL, 0);
    assert_string_equal(cfg.name, "123");
    assert_int_equal(cfg.schedule, 0);
}

static void test_range_bounds(void **state)
{
    (void)state;
    test_cfg cfg;
    fx_load_ok("model:\n  d_model: 1\n  dropout: 0\n", &cfg, NULL, 0);
    assert_int_equal(cfg.d_model, 1);
    assert_true(cfg.dropout == 0);
    fx_load_ok("model:\n  d_model: 65536\n  dropout: 1.0\n", &cfg, NULL, 0);
    assert_int_equal(cfg.d_model, 65536);
    assert_true(cfg.dropout == 1);
    fx_load_ok("train:\n  steps: 2147483647\nlog:\n  offset: -2147483648\n", &cfg, NULL, 0);
    assert_int_equal(cfg.steps, INT_MAX);
    assert_int_equal(cfg.offset, INT_MIN);
    fx_load_ok("log:\n  offset: 10\noptim:\n  lr: 0.0\n  beta: -1.7976931348623157e308\n", &cfg, NULL, 0);
    assert_int_equal(cfg.offset, 10);
    assert_true(cfg.lr == 0);
    assert_true(cfg.beta == -DBL_MAX);
    /* just outside: one step past each bound is refused (messages in test_config_errors.c) */
    qkv_error err;
    assert_int_equal(fx_load_text("model:\n  d_model: 65537\n", &cfg, NULL, 0, &err), QKV_ERR);
    assert_int_equal(fx_load_text("model:\n  dropout: -0.0000001\n", &cfg, NULL, 0, &err), QKV_ERR);
    assert_int_equal(fx_load_text("log:\n  offset: 11\n", &cfg, NULL, 0, &err), QKV_ERR);
}

static void test_overrides(void **state)
{
    (void)state;
    test_cfg cfg;
    fx_write("sub/c.yaml", "model:\n  d_model: 8\ndata:\n  dir: corpus\n");
    char *ov[] = {"model.d_model=16", "model.d_model=32", "optim.schedule=cosine", "data.shuffle=false",
                  "log.name=a=b c", "optim.lr=5e-4"};
    qkv_error err = {0};
    memset(&cfg, 0, sizeof cfg);
    assert_int_equal(qkv_config_load("sub/c.yaml", schema, N_KEYS, &cfg, ov, 6, &err), QKV_OK);
    assert_int_equal(cfg.d_model, 32); /* the last one wins */
    assert_int_equal(cfg.schedule, 2);
    assert_false(cfg.shuffle);
    assert_string_equal(cfg.name, "a=b c");
    assert_true(cfg.lr == 5e-4);
    assert_string_equal(cfg.dir, in_dir("sub/corpus")); /* from the file: relative to the file */
    /* an override's path is relative to the current directory; an empty value is an empty string */
    char *ov2[] = {"data.dir=rel/x", "log.name="};
    assert_int_equal(qkv_config_load("sub/c.yaml", schema, N_KEYS, &cfg, ov2, 2, &err), QKV_OK);
    assert_string_equal(cfg.dir, in_dir("rel/x"));
    assert_string_equal(cfg.name, "");
    assert_int_equal(cfg.d_model, 8);
    /* overrides with no file */
    char *ov3[] = {"train.steps=3"};
    assert_int_equal(qkv_config_load(NULL, schema, N_KEYS, &cfg, ov3, 1, &err), QKV_OK);
    assert_int_equal(cfg.steps, 3);
    assert_int_equal(cfg.d_model, 64);
}

static void test_env_expansion(void **state)
{
    (void)state;
    test_cfg cfg;
    setenv("QKV_TEST_DATA", "/srv/corpora", 1);
    setenv("QKV_TEST_EMPTY", "", 1);
    setenv("QKV_TEST_WHO", "ada", 1);
    unsetenv("QKV_TEST_UNSET");
    fx_load_ok("data:\n  dir: ${QKV_TEST_DATA}/ewt\nlog:\n  name: run-${QKV_TEST_WHO}-$$HOME-cost$5\n", &cfg, NULL, 0);
    assert_string_equal(cfg.dir, "/srv/corpora/ewt");
    assert_string_equal(cfg.name, "run-ada-$HOME-cost$5");
    /* the fallback is used when the variable is unset or empty; a relative result is joined to the
     * config's folder */
    fx_load_ok("data:\n  dir: ${QKV_TEST_UNSET:-fallback/x}\nlog:\n  name: ${QKV_TEST_EMPTY:-none}\n", &cfg, NULL, 0);
    assert_string_equal(cfg.dir, in_dir("fallback/x"));
    assert_string_equal(cfg.name, "none");
    fx_load_ok("data:\n  dir: ${QKV_TEST_DATA:-unused}\nlog:\n  name: ${QKV_TEST_EMPTY}|${QKV_TEST_UNSET:-}|\n", &cfg,
               NULL, 0);
    assert_string_equal(cfg.dir, "/srv/corpora");
    assert_string_equal(cfg.name, "||");
    /* a default may hold ${...} itself, nested at every level: ${A:-${B}}, ${A:-${B:-text}} */
    fx_load_ok("data:\n  dir: ${QKV_TEST_UNSET:-${QKV_TEST_DATA}}/n\nlog:\n  name: ${QKV_TEST_UNSET:-${QKV_TEST_EMPTY:-"
               "${QKV_TEST_UNSET:-deep}}}-x\n", &cfg, NULL, 0);
    assert_string_equal(cfg.dir, "/srv/corpora/n");
    assert_string_equal(cfg.name, "deep-x");
    fx_load_ok("log:\n  name: ${QKV_TEST_WHO:-${QKV_TEST_UNSET:-no}}|$${QKV_TEST_WHO}\n", &cfg, NULL, 0);
    assert_string_equal(cfg.name, "ada|${QKV_TEST_WHO}");
    /* overrides are expanded the same way */
    char *ov[] = {"data.dir=${QKV_TEST_DATA}/conll"};
    fx_load_ok("model:\n  d_model: 8\n", &cfg, ov, 1);
    assert_string_equal(cfg.dir, "/srv/corpora/conll");
    unsetenv("QKV_TEST_DATA");
    unsetenv("QKV_TEST_EMPTY");
    unsetenv("QKV_TEST_WHO");
}

/* The text a value was written as, before expansion: from the file, a --set, or the default. */
static void test_written_text(void **state)
{
    (void)state;
    test_cfg cfg;
    qkv_error err = {0};
    char text[64];
    unsetenv("QKV_TEST_UNSET");
    fx_write("c.yaml", "data:\n  dir: ${QKV_TEST_UNSET:-corpus}/train\n");
    assert_int_equal(qkv_config_load_written("c.yaml", schema, N_KEYS, &cfg, NULL, 0, "data", "dir", text,
                                             sizeof text, &err), QKV_OK);
    assert_string_equal(text, "${QKV_TEST_UNSET:-corpus}/train");
    assert_string_equal(cfg.dir, in_dir("corpus/train"));
    char *ov[] = {"data.dir=/x/${QKV_TEST_UNSET:-y}", "log.name=z"};
    assert_int_equal(qkv_config_load_written("c.yaml", schema, N_KEYS, &cfg, ov, 2, "data", "dir", text,
                                             sizeof text, &err), QKV_OK);
    assert_string_equal(text, "/x/${QKV_TEST_UNSET:-y}");
    assert_int_equal(qkv_config_load_written("c.yaml", schema, N_KEYS, &cfg, NULL, 0, "log", "name", text,
                                             sizeof text, &err), QKV_OK);
    assert_string_equal(text, "run"); /* the default */
    /* truncated to the room given */
    char small[8];
    assert_int_equal(qkv_config_load_written("c.yaml", schema, N_KEYS, &cfg, NULL, 0, "data", "dir", small,
                                             sizeof small, &err), QKV_OK);
    assert_string_equal(small, "${QKV_T");
    assert_int_equal(qkv_config_load_written("c.yaml", schema, N_KEYS, &cfg, NULL, 0, "data", "nope", text,
                                             sizeof text, &err), QKV_ERR);
    assert_string_equal(err.msg, "config: no key data.nope in the schema");
}

static void test_relative_paths(void **state)
{
    (void)state;
    test_cfg cfg;
    qkv_error err = {0};
    static const struct {
        const char *value, *expected; /* expected relative to the scratch dir */
    } cases[] = {
        {"../corpus", "sub/corpus"},
        {"./a/./b/", "sub/deeper/a/b"},
        {"a//b", "sub/deeper/a/b"},
        {"../../x/../y", "x/../y"}, /* ".." after the path's own components is kept */
        {".", "sub/deeper"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char text[256];
        snprintf(text, sizeof text, "data:\n  dir: '%s'\n", cases[i].value);
        fx_write("sub/deeper/c.yaml", text);
        memset(&cfg, 0, sizeof cfg);
        assert_int_equal(qkv_config_load("sub/deeper/c.yaml", schema, N_KEYS, &cfg, NULL, 0, &err), QKV_OK);
        assert_string_equal(cfg.dir, in_dir(cases[i].expected));
        /* the same through an absolute config path */
        assert_int_equal(qkv_config_load(in_dir("sub/deeper/c.yaml"), schema, N_KEYS, &cfg, NULL, 0, &err), QKV_OK);
        assert_string_equal(cfg.dir, in_dir(cases[i].expected));
    }
    /* climbing above the root stops at the root */
    char text[PATH_MAX + 64] = "data:\n  dir: '";
    for (const char *p = fx_dir; *p; p++)
        if (*p == '/')
            strcat(text, "../");
    strcat(text, "../../../etc'\n"); /* one more than needed */
    fx_write("sub/deeper/c.yaml", text);
    assert_int_equal(qkv_config_load("sub/deeper/c.yaml", schema, N_KEYS, &cfg, NULL, 0, &err), QKV_OK);
    assert_string_equal(cfg.dir, "/etc");
}

/* qkv_config_differences: the keys of one section whose values differ, a's value first. */
static void test_differences(void **state)
{
    (void)state;
    test_cfg a, b;
    qkv_error err = {0};
    char *ov[] = {"model.d_model=128", "model.dropout=0.25", "data.max_len=7", "optim.schedule=cosine"};
    assert_int_equal(qkv_config_load(NULL, schema, N_KEYS, &a, NULL, 0, &err), QKV_OK);
    assert_int_equal(qkv_config_load(NULL, schema, N_KEYS, &b, ov, 4, &err), QKV_OK);
    char out[256];
    assert_int_equal(qkv_config_differences(schema, N_KEYS, "model", &a, &b, out, sizeof out), 2);
    assert_string_equal(out, "model.d_model 64 vs 128, model.dropout 0.1 vs 0.25");
    assert_int_equal(qkv_config_differences(schema, N_KEYS, "optim", &b, &a, out, sizeof out), 1);
    assert_string_equal(out, "optim.schedule cosine vs linear");
    assert_int_equal(qkv_config_differences(schema, N_KEYS, "train", &a, &b, out, sizeof out), 0);
    assert_string_equal(out, "");
    assert_int_equal(qkv_config_differences(schema, N_KEYS, "model", &a, &b, out, 12), 2); /* truncated */
    assert_string_equal(out, "model.d_mod");
}

static void test_dump_text_and_round_trip(void **state)
{
    (void)state;
    test_cfg a, b;
    qkv_error err = {0};
    char *text = NULL;
    memset(&a, 0, sizeof a);
    assert_int_equal(qkv_config_load(NULL, schema, N_KEYS, &a, NULL, 0, &err), QKV_OK);
    assert_int_equal(qkv_config_dump(schema, N_KEYS, &a, &text, &err), QKV_OK);
    char expected[4 * PATH_MAX];
    snprintf(expected, sizeof expected,
             "model:\n  d_model: 64\n  n_heads: 4\n  dropout: 0.1\n"
             "data:\n  dir: \"%s/data\"\n  shuffle: true\n  max_len: 128\n"
             "train:\n  steps: 1000\n"
             "optim:\n  lr: 0.001\n  schedule: linear\n  beta: 0.9\n"
             "log:\n  offset: -5\n  name: \"run\"\n",
             fx_dir);
    assert_string_equal(text, expected);
    free(text);

    /* awkward values: every one must come back exactly, from a file in another folder */
    const char *betas[] = {"0.30000000000000004", "0.3333333333333333", "6.02214076e23", "4.9e-324",
                           "-1.7976931348623157e308", "1e-300", "0", "-0.0"};
    for (size_t i = 0; i < sizeof betas / sizeof betas[0]; i++) {
        char beta[64];
        snprintf(beta, sizeof beta, "optim.beta=%s", betas[i]);
        char *ov[] = {beta, "log.name=q\"uo\\te $$x ${QKV_TEST_UNSET_X:-} $${HOME} $$$$ tab\there \xe2\x82\xac",
                      "data.shuffle=false",
                      "optim.schedule=constant", "data.dir=a dir/with: colon # and hash", "log.offset=-2147483648"};
        unsetenv("QKV_TEST_UNSET_X");
        memset(&a, 0, sizeof a);
        memset(&b, 0, sizeof b);
        fx_write("sub/c.yaml", "model:\n  dropout: 0.7\n");
        assert_int_equal(qkv_config_load("sub/c.yaml", schema, N_KEYS, &a, ov, 6, &err), QKV_OK);
        assert_string_equal(a.name, "q\"uo\\te $x  ${HOME} $$ tab\there \xe2\x82\xac");
        assert_int_equal(qkv_config_dump(schema, N_KEYS, &a, &text, &err), QKV_OK);
        fx_write("sub/deeper/dump.yaml", text);
        if (qkv_config_load("sub/deeper/dump.yaml", schema, N_KEYS, &b, NULL, 0, &err))
            fail_msg("reloading the dump\n%s\nfailed: %s", text, err.msg);
        assert_memory_equal(&a, &b, sizeof a);
        /* and from memory, as from a checkpoint */
        memset(&b, 0, sizeof b);
        assert_int_equal(qkv_config_parse(text, strlen(text), "checkpoint", "/nonexistent", schema, N_KEYS, &b, NULL, 0,
                                          &err),
                         QKV_OK);
        assert_memory_equal(&a, &b, sizeof a);
        free(text);
    }
}

static void test_dump_number_format(void **state)
{
    (void)state;
    static const struct {
        const char *in, *out;
    } cases[] = {
        {"10", "10"},       {"1e6", "1000000"}, {"65536.5", "65536.5"}, {"1e16", "10000000000000000"},
        {"1e17", "1e+17"},  {"1e-5", "1e-05"},  {"0.001", "0.001"},     {"-2.5e3", "-2500"},
        {"0.1", "0.1"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char set[64], line[64];
        snprintf(set, sizeof set, "optim.beta=%s", cases[i].in);
        char *ov[] = {set};
        test_cfg cfg;
        qkv_error err;
        char *text;
        memset(&cfg, 0, sizeof cfg);
        assert_int_equal(qkv_config_load(NULL, schema, N_KEYS, &cfg, ov, 1, &err), QKV_OK);
        assert_int_equal(qkv_config_dump(schema, N_KEYS, &cfg, &text, &err), QKV_OK);
        snprintf(line, sizeof line, "\n  beta: %s\n", cases[i].out);
        if (!strstr(text, line))
            fail_msg("beta %s: expected the line '%s' in\n%s", cases[i].in, cases[i].out, text);
        free(text);
    }
    /* the same form in range messages */
    static const qkv_cfg_key big = {"m", "k", QKV_CFG_REAL, 0, 0, 1e6, NULL, "2e6", "doc", 0, NULL, 0};
    test_cfg cfg;
    qkv_error err;
    assert_int_equal(qkv_config_load(NULL, &big, 1, &cfg, NULL, 0, &err), QKV_ERR);
    assert_string_equal(err.msg, "default of m.k: k must be between 0 and 1000000, got 2e6");
}

/* cfg dumps as expected, and the dump parsed into scratch (size bytes, first filled with the
 * byte fill) gives back cfg byte for byte. */
static void assert_dump_round_trip(const qkv_cfg_key *schema, int n_keys, const void *cfg, void *scratch, size_t size,
                                   int fill, const char *expected)
{
    qkv_error err = {0};
    char *text;
    assert_int_equal(qkv_config_dump(schema, n_keys, cfg, &text, &err), QKV_OK);
    assert_string_equal(text, expected);
    memset(scratch, fill, size);
    assert_int_equal(qkv_config_parse(text, strlen(text), "dump", NULL, schema, n_keys, scratch, NULL, 0, &err), QKV_OK);
    assert_memory_equal(cfg, scratch, size);
    free(text);
}

/* A schema whose sections interleave and whose key is required. */
typedef struct {
    int a, c;
    char train_file[QKV_CFG_STR_MAX];
} small_cfg;

static const qkv_cfg_key small_schema[] = {
    {"one", "a", QKV_CFG_INT, offsetof(small_cfg, a), 0, 9, NULL, "1", "a", 0, NULL, 0},
    {"two", "train_file", QKV_CFG_PATH, offsetof(small_cfg, train_file), 0, 0, NULL, NULL, "required", 0, NULL, 0},
    {"one", "c", QKV_CFG_INT, offsetof(small_cfg, c), 0, 9, NULL, "3", "c", 0, NULL, 0},
};

static void test_required_key_and_interleaved_sections(void **state)
{
    (void)state;
    small_cfg s, t;
    qkv_error err = {0};
    assert_int_equal(qkv_config_load(NULL, small_schema, 3, &s, NULL, 0, &err), QKV_ERR);
    assert_string_equal(err.msg, "missing required key two.train_file (give it with --set two.train_file=...)");
    fx_write("small.yaml", "one:\n  a: 2\ntwo:\n  # train_file: x\n");
    assert_int_equal(qkv_config_load("small.yaml", small_schema, 3, &s, NULL, 0, &err), QKV_ERR);
    assert_string_equal(err.msg, "small.yaml:3:1: missing required key 'train_file' in section 'two'");
    fx_write("small.yaml", "one:\n  a: 2\n");
    assert_int_equal(qkv_config_load("small.yaml", small_schema, 3, &s, NULL, 0, &err), QKV_ERR);
    assert_string_equal(err.msg, "small.yaml:1:1: missing required key 'train_file' in section 'two'");
    char *ov[] = {"two.train_file=/x/train.conllu"};
    memset(&s, 0, sizeof s);
    assert_int_equal(qkv_config_load("small.yaml", small_schema, 3, &s, ov, 1, &err), QKV_OK);
    assert_string_equal(s.train_file, "/x/train.conllu");
    assert_int_equal(s.a, 2);
    assert_int_equal(s.c, 3);
    assert_dump_round_trip(small_schema, 3, &s, &t, sizeof s, 0,
                           "one:\n  a: 2\n  c: 3\ntwo:\n  train_file: \"/x/train.conllu\"\n");
}

static void expect_schema_error(const qkv_cfg_key *k, const char *path, const char *expected)
{
    test_cfg cfg;
    qkv_error err = {0};
    assert_int_equal(qkv_config_load(path, k, 1, &cfg, NULL, 0, &err), QKV_ERR);
    assert_string_equal(err.msg, expected);
}

static void test_schema_errors(void **state)
{
    (void)state;
    static const char *const bad_choices[] = {"a b", NULL};
    static const char *const twice[] = {"x", "x", NULL};
    static const char *const none[] = {NULL};
    const size_t o = offsetof(test_cfg, d_model);
    fx_write("config.yaml", "m:\n");
    expect_schema_error(&(qkv_cfg_key){"m", "k", QKV_CFG_INT, o, 1, 10, NULL, "0", "doc", 0, NULL, 0}, NULL,
                        "default of m.k: k must be between 1 and 10, got 0");
    expect_schema_error(&(qkv_cfg_key){"m", "k", QKV_CFG_INT, o, 1, 10, NULL, "x", "doc", 0, NULL, 0}, "config.yaml",
                        "config.yaml: default of m.k: expected an integer for k, got 'x'");
    expect_schema_error(&(qkv_cfg_key){"m", "k", QKV_CFG_REAL, o, 0, 0, NULL, "0", "doc", 0, NULL, 0}, NULL,
                        "config schema: m.k: range min 0 must be below max 0");
    expect_schema_error(&(qkv_cfg_key){"m", "k", QKV_CFG_ENUM, o, 0, 0, NULL, "x", "doc", 0, NULL, 0}, NULL,
                        "config schema: m.k: an enum needs choices");
    expect_schema_error(&(qkv_cfg_key){"m", "k", QKV_CFG_ENUM, o, 0, 0, none, "x", "doc", 0, NULL, 0}, NULL,
                        "config schema: m.k: an enum needs choices");
    expect_schema_error(&(qkv_cfg_key){"m", "k", QKV_CFG_ENUM, o, 0, 0, bad_choices, "x", "doc", 0, NULL, 0}, NULL,
                        "config schema: m.k: choice 'a b' must be a word of [A-Za-z0-9_.-]");
    expect_schema_error(&(qkv_cfg_key){"m", "k", QKV_CFG_ENUM, o, 0, 0, twice, "x", "doc", 0, NULL, 0}, NULL,
                        "config schema: m.k: choice 'x' listed twice");
    expect_schema_error(&(qkv_cfg_key){"m", "k", QKV_CFG_BOOL, o, 0, 0, NULL, "true", "", 0, NULL, 0}, NULL,
                        "config schema: m.k: no doc line");
    expect_schema_error(&(qkv_cfg_key){"m x", "k", QKV_CFG_BOOL, o, 0, 0, NULL, "true", "doc", 0, NULL, 0}, NULL,
                        "config schema: key 0: section 'm x' and name 'k' must be words of [A-Za-z0-9_]");
    const qkv_cfg_key dup[] = {{"m", "k", QKV_CFG_BOOL, o, 0, 0, NULL, "true", "doc", 0, NULL, 0},
                               {"m", "k", QKV_CFG_BOOL, o, 0, 0, NULL, "true", "doc", 0, NULL, 0}};
    test_cfg cfg;
    qkv_error err;
    assert_int_equal(qkv_config_load(NULL, dup, 2, &cfg, NULL, 0, &err), QKV_ERR);
    assert_string_equal(err.msg, "config schema: m.k: listed twice");
}

/* Keys that fill fields of a library's own struct as declared there: a long, an enum, a bool
 * and an int used as a flag, an int8_t, nested inside another struct (offsetof reaches into it). */
typedef enum { SIZED_LOW, SIZED_MID, SIZED_HIGH } sized_level;
typedef struct {
    char before;
    struct {
        long steps;
        sized_level level;
        int flag;
        bool on;
        int8_t small;
    } inner;
    char after;
} sized_cfg;

static const char *const sized_levels[] = {"low", "mid", "high", NULL};
#define SIZED(nm, ty, f, lo, hi, ch, dflt) \
    {"s", nm, ty, offsetof(sized_cfg, inner.f), lo, hi, ch, dflt, "doc", sizeof(((sized_cfg *)0)->inner.f), NULL, 0}
static const qkv_cfg_key sized_schema[] = {
    SIZED("steps", QKV_CFG_INT, steps, INT_MIN, INT_MAX, NULL, "-7"),
    SIZED("level", QKV_CFG_ENUM, level, 0, 0, sized_levels, "high"),
    SIZED("flag", QKV_CFG_BOOL, flag, 0, 0, NULL, "true"),
    SIZED("on", QKV_CFG_BOOL, on, 0, 0, NULL, "false"),
    SIZED("small", QKV_CFG_INT, small, -100, 100, NULL, "-3"),
};

static void test_field_sizes(void **state)
{
    (void)state;
    sized_cfg s, t;
    memset(&s, 0x55, sizeof s); /* every byte the loader does not own keeps this */
    qkv_error err = {0};
    char *ov[] = {"s.steps=2147483647", "s.on=true"};
    assert_int_equal(qkv_config_load(NULL, sized_schema, 5, &s, ov, 2, &err), QKV_OK);
    assert_true(s.inner.steps == 2147483647L);
    assert_int_equal(s.inner.level, SIZED_HIGH);
    assert_int_equal(s.inner.flag, 1);
    assert_true(s.inner.on);
    assert_int_equal(s.inner.small, -3);
    assert_int_equal(s.before, 0x55);
    assert_int_equal(s.after, 0x55);
    assert_dump_round_trip(sized_schema, 5, &s, &t, sizeof s, 0x55,
                           "s:\n  steps: 2147483647\n  level: high\n  flag: true\n  on: true\n  small: -3\n");

    const size_t o = offsetof(test_cfg, d_model);
    expect_schema_error(&(qkv_cfg_key){"m", "k", QKV_CFG_INT, o, 1, 10, NULL, "1", "doc", 3, NULL, 0}, NULL,
                        "config schema: m.k: a field of 3 bytes cannot hold this type");
    expect_schema_error(&(qkv_cfg_key){"m", "k", QKV_CFG_REAL, o, 0, 1, NULL, "1", "doc", sizeof(float), NULL, 0}, NULL,
                        "config schema: m.k: a field of 4 bytes cannot hold this type");
    expect_schema_error(&(qkv_cfg_key){"m", "k", QKV_CFG_STRING, o, 0, 0, NULL, "x", "doc", 16, NULL, 0}, NULL,
                        "config schema: m.k: a field of 16 bytes cannot hold this type");
}

static void test_doc_table(void **state)
{
    (void)state;
    char *text = NULL;
    size_t size = 0;
    FILE *f = open_memstream(&text, &size);
    assert_non_null(f);
    qkv_error err;
    assert_int_equal(qkv_config_doc(schema, N_KEYS, f, &err), QKV_OK);
    fclose(f);
    assert_string_equal(text,
                        "| section | key | type | default | range / choices | description |\n"
                        "|---|---|---|---|---|---|\n"
                        "| model | d_model | int | `64` | 1 to 65536 | width of the model |\n"
                        "| model | n_heads | int | `4` | 1 to 64 | attention heads |\n"
                        "| model | dropout | real | `0.1` | 0 to 1 | dropout probability |\n"
                        "| data | dir | path | `data` |  | corpus folder \\| relative to the config |\n"
                        "| data | shuffle | bool | `true` |  | shuffle each epoch |\n"
                        "| data | max_len | int | `128` | >= 1 | longest sentence |\n"
                        "| train | steps | int | `1000` | >= 1 | optimizer steps |\n"
                        "| optim | lr | real | `1e-3` | >= 0 | peak learning rate |\n"
                        "| optim | schedule | enum | `linear` | `constant`, `linear`, `cosine` | decay after warmup |\n"
                        "| optim | beta | real | `0.9` | any | any finite number |\n"
                        "| log | offset | int | `-5` | <= 10 | at most 10 |\n"
                        "| log | name | string | `run` |  | run name |\n");
    free(text);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_defaults),
        cmocka_unit_test(test_values_of_every_type),
        cmocka_unit_test(test_range_bounds),
        cmocka_unit_test(test_overrides),
        cmocka_unit_test(test_env_expansion),
        cmocka_unit_test(test_written_text),
        cmocka_unit_test(test_relative_paths),
        cmocka_unit_test(test_dump_text_and_round_trip),
        cmocka_unit_test(test_dump_number_format),
        cmocka_unit_test(test_required_key_and_interleaved_sections),
        cmocka_unit_test(test_schema_errors),
        cmocka_unit_test(test_field_sizes),
        cmocka_unit_test(test_doc_table),
        cmocka_unit_test(test_differences),
    };
    return cmocka_run_group_tests(tests, fx_setup, fx_teardown);
}
