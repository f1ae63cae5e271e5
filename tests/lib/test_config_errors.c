/* Config errors: every kind of mistake in a YAML file or a --set override gives exactly the
 * expected "config.yaml:LINE:COL: message" (lines and columns 1-based). */
#include "config_fixture.h"

static void test_unknown_keys(void **state)
{
    (void)state;
    fx_expect_error("model:\n  d_modle: 4\n", NULL, 0,
                    "config.yaml:2:3: unknown key 'd_modle' in section 'model', did you mean 'd_model'?");
    fx_expect_error("model:\n  d_model: 8\n  colour: red\n", NULL, 0,
                    "config.yaml:3:3: unknown key 'colour' in section 'model'");
    /* case differences count as near misses */
    fx_expect_error("model:\n  D_Model: 8\n", NULL, 0,
                    "config.yaml:2:3: unknown key 'D_Model' in section 'model', did you mean 'd_model'?");
    /* two edits away from a long name is near; three is not */
    fx_expect_error("model:\n  dmodl: 8\n", NULL, 0,
                    "config.yaml:2:3: unknown key 'dmodl' in section 'model', did you mean 'd_model'?");
    fx_expect_error("model:\n  dmod: 8\n", NULL, 0, "config.yaml:2:3: unknown key 'dmod' in section 'model'");
    /* a near miss of a key in another section */
    fx_expect_error("train:\n  lr_: 0.1\n", NULL, 0,
                    "config.yaml:2:3: unknown key 'lr_' in section 'train', did you mean 'lr' in section 'optim'?");
}

static void test_wrong_section_and_unknown_section(void **state)
{
    (void)state;
    fx_expect_error("train:\n  steps: 5\n  d_model: 32\n", NULL, 0,
                    "config.yaml:3:3: key 'd_model' belongs in section 'model', not 'train'");
    fx_expect_error("modle:\n  d_model: 4\n", NULL, 0,
                    "config.yaml:1:1: unknown section 'modle', did you mean 'model'?");
    fx_expect_error("model:\n  d_model: 4\nextras:\n  x: 1\n", NULL, 0,
                    "config.yaml:3:1: unknown section 'extras' (the sections are: model, data, train, optim, log)");
    fx_expect_error("d_model: 64\n", NULL, 0,
                    "config.yaml:1:1: 'd_model' is a key, not a section: it belongs in section 'model'");
}

static void test_duplicates(void **state)
{
    (void)state;
    fx_expect_error("model:\n  d_model: 4\n  n_heads: 2\n  d_model: 8\n", NULL, 0,
                    "config.yaml:4:3: duplicate key 'd_model' in section 'model' (first at line 2)");
    fx_expect_error("model:\n  d_model: 4\ntrain:\n  steps: 3\nmodel:\n  n_heads: 2\n", NULL, 0,
                    "config.yaml:5:1: duplicate section 'model' (first at line 1)");
}

static void test_wrong_types(void **state)
{
    (void)state;
    fx_expect_error("model:\n  d_model: abc\n", NULL, 0,
                    "config.yaml:2:12: expected an integer for d_model, got 'abc'");
    fx_expect_error("model:\n  d_model: 1.5\n", NULL, 0,
                    "config.yaml:2:12: expected an integer for d_model, got '1.5'");
    fx_expect_error("model:\n  d_model: 1e3\n", NULL, 0,
                    "config.yaml:2:12: expected an integer for d_model, got '1e3'");
    fx_expect_error("model:\n  d_model: 0x10\n", NULL, 0,
                    "config.yaml:2:12: expected an integer for d_model, got '0x10'");
    fx_expect_error("model:\n  d_model: \"64\"\n", NULL, 0,
                    "config.yaml:2:12: expected an integer for d_model, got the quoted string '64'");
    fx_expect_error("model:\n  dropout: high\n", NULL, 0,
                    "config.yaml:2:12: expected a number for dropout, got 'high'");
    fx_expect_error("model:\n  dropout: .nan\n", NULL, 0,
                    "config.yaml:2:12: expected a number for dropout, got '.nan'");
    fx_expect_error("model:\n  dropout: 1e\n", NULL, 0, "config.yaml:2:12: expected a number for dropout, got '1e'");
    fx_expect_error("data:\n  shuffle: yes\n", NULL, 0,
                    "config.yaml:2:12: expected true or false for shuffle, got 'yes'");
    fx_expect_error("data:\n  shuffle: 'true'\n", NULL, 0,
                    "config.yaml:2:12: expected true or false for shuffle, got the quoted string 'true'");
    fx_expect_error("model:\n  d_model: ~\n", NULL, 0,
                    "config.yaml:2:12: no value given for d_model (delete the line to use the default)");
    fx_expect_error("model:\n  d_model:\n  n_heads: 2\n", NULL, 0,
                    "config.yaml:2:11: no value given for d_model (delete the line to use the default)");
    fx_expect_error("model:\n  d_model: [1, 2]\n", NULL, 0,
                    "config.yaml:2:12: d_model must be a single value, got a list");
    fx_expect_error("model:\n  d_model:\n    width: 3\n", NULL, 0,
                    "config.yaml:3:5: d_model must be a single value, got a mapping");
}

static void test_out_of_range(void **state)
{
    (void)state;
    fx_expect_error("model:\n  d_model: 0\n", NULL, 0, "config.yaml:2:12: d_model must be between 1 and 65536, got 0");
    fx_expect_error("model:\n  d_model: 65537\n", NULL, 0,
                    "config.yaml:2:12: d_model must be between 1 and 65536, got 65537");
    fx_expect_error("model:\n  d_model: -99999999999999999999\n", NULL, 0,
                    "config.yaml:2:12: d_model must be between 1 and 65536, got -99999999999999999999");
    fx_expect_error("model:\n  dropout: 1.0000001\n", NULL, 0,
                    "config.yaml:2:12: dropout must be between 0 and 1, got 1.0000001");
    fx_expect_error("model:\n  dropout: -1e-300\n", NULL, 0,
                    "config.yaml:2:12: dropout must be between 0 and 1, got -1e-300");
    fx_expect_error("train:\n  steps: 0\n", NULL, 0, "config.yaml:2:10: steps must be at least 1, got 0");
    fx_expect_error("train:\n  steps: 2147483648\n", NULL, 0,
                    "config.yaml:2:10: steps must be at most 2147483647 (the largest int), got 2147483648");
    fx_expect_error("log:\n  offset: 11\n", NULL, 0, "config.yaml:2:11: offset must be at most 10, got 11");
    fx_expect_error("log:\n  offset: -2147483649\n", NULL, 0,
                    "config.yaml:2:11: offset must be at least -2147483648 (the smallest int), got -2147483649");
    fx_expect_error("optim:\n  beta: 1e999\n", NULL, 0, "config.yaml:2:9: beta must be a finite number, got 1e999");
    fx_expect_error("optim:\n  lr: -0.5\n", NULL, 0, "config.yaml:2:7: lr must be at least 0, got -0.5");
    fx_expect_error("optim:\n  lr: 2e308\n", NULL, 0, "config.yaml:2:7: lr must be a finite number, got 2e308");
}

static void test_enum_choices(void **state)
{
    (void)state;
    fx_expect_error("optim:\n  schedule: cosin\n", NULL, 0,
                    "config.yaml:2:13: schedule must be one of 'constant', 'linear', 'cosine', got 'cosin', "
                    "did you mean 'cosine'?");
    fx_expect_error("optim:\n  schedule: step\n", NULL, 0,
                    "config.yaml:2:13: schedule must be one of 'constant', 'linear', 'cosine', got 'step'");
    fx_expect_error("optim:\n  schedule: Linear\n", NULL, 0,
                    "config.yaml:2:13: schedule must be one of 'constant', 'linear', 'cosine', got 'Linear', "
                    "did you mean 'linear'?");
}

static void test_document_shape(void **state)
{
    (void)state;
    const char *expected_empty =
        "config.yaml:1:1: the file is empty (expected a mapping of sections: model:, data:, train:, optim:, log:)";
    fx_expect_error("", NULL, 0, expected_empty);
    fx_expect_error("# only a comment\n\n", NULL, 0, expected_empty);
    fx_expect_error("---\n", NULL, 0,
                    "config.yaml:2:1: the document is empty (expected a mapping of sections: model:, data:, train:, "
                    "optim:, log:)");
    fx_expect_error("hello\n", NULL, 0,
                    "config.yaml:1:1: the top level must be a mapping of sections (model:, data:, train:, optim:, "
                    "log:), got a scalar");
    fx_expect_error("- model\n- data\n", NULL, 0,
                    "config.yaml:1:1: the top level must be a mapping of sections (model:, data:, train:, optim:, "
                    "log:), got a list");
    fx_expect_error("model: 64\n", NULL, 0,
                    "config.yaml:1:8: section 'model' must be a mapping of keys (key: value lines indented below "
                    "it), got a scalar");
    fx_expect_error("model:\n  d_model: 8\n---\nmodel:\n  d_model: 9\n", NULL, 0,
                    "config.yaml:3:1: a config is one YAML document; found a second one");
    fx_expect_error("model:\n  d_model: &w 8\n  n_heads: *w\n", NULL, 0,
                    "config.yaml:3:12: aliases (*w) are not supported in a config");
    fx_expect_error("model:\n  d_model: !!int 8\n", NULL, 0,
                    "config.yaml:2:12: tags (tag:yaml.org,2002:int) are not supported in a config");
}

static void test_yaml_syntax_errors(void **state)
{
    (void)state;
    fx_expect_error("model:\n  d_model: 4: 5\n", NULL, 0,
                    "config.yaml:2:13: mapping values are not allowed in this context");
    fx_expect_error("model:\n\td_model: 4\n", NULL, 0,
                    "config.yaml:2:1: found character that cannot start any token (while scanning for the next "
                    "token at line 2, column 1)");
    fx_expect_error("log:\n  name: \"abc\n", NULL, 0,
                    "config.yaml:3:1: found unexpected end of stream (while scanning a quoted scalar at line 2, "
                    "column 9)");
    fx_expect_error("model:\n  d_model: 8\n n_heads: 2\n", NULL, 0,
                    "config.yaml:3:2: did not find expected key (while parsing a block mapping at line 1, column 1)");
    /* bytes that are not UTF-8: the place is counted from libyaml's byte offset, here the '!' (byte
     * 37) that cannot follow the lead byte 0xe9 (byte 36) */
    fx_expect_error("model:\n  d_model: 8\nlog:\n  name: caf\xe9!\n", NULL, 0,
                    "config.yaml:4:13: invalid trailing UTF-8 octet (byte offset 37)");
}

static void test_override_errors(void **state)
{
    (void)state;
    unsetenv("QKV_TEST_SURELY_UNSET");
    const char *ok = "model:\n  d_model: 8\n";
    char *a[] = {"model.d_modle=4"};
    fx_expect_error(ok, a, 1,
                    "--set model.d_modle=4: unknown key 'd_modle' in section 'model', did you mean 'd_model'?");
    char *b[] = {"d_model=4"};
    fx_expect_error(ok, b, 1, "--set d_model=4: expected section.key=value, e.g. model.d_model=4");
    char *c[] = {"model.d_model"};
    fx_expect_error(ok, c, 1, "--set model.d_model: expected section.key=value");
    char *d[] = {"modle.d_model=4"};
    fx_expect_error(ok, d, 1, "--set modle.d_model=4: unknown section 'modle', did you mean 'model'?");
    char *e[] = {"train.d_model=4"};
    fx_expect_error(ok, e, 1, "--set train.d_model=4: key 'd_model' belongs in section 'model', not 'train'");
    char *f[] = {"model.n_heads=2", "model.d_model=abc"};
    fx_expect_error(ok, f, 2, "--set model.d_model=abc: expected an integer for d_model, got 'abc'");
    char *g[] = {"model.d_model=0"};
    fx_expect_error(ok, g, 1, "--set model.d_model=0: d_model must be between 1 and 65536, got 0");
    char *h[] = {"model.d_model="};
    fx_expect_error(ok, h, 1, "--set model.d_model=: expected an integer for d_model, got ''");
    char *i[] = {"optim.schedule=cos"};
    fx_expect_error(ok, i, 1,
                    "--set optim.schedule=cos: schedule must be one of 'constant', 'linear', 'cosine', got 'cos'");
    char *j[] = {"data.dir=${QKV_TEST_SURELY_UNSET}"};
    fx_expect_error(ok, j, 1,
                    "--set data.dir=${QKV_TEST_SURELY_UNSET}: environment variable 'QKV_TEST_SURELY_UNSET' is not "
                    "set (used in dir; write ${QKV_TEST_SURELY_UNSET:-default} for a fallback)");
}

static void test_expansion_errors(void **state)
{
    (void)state;
    unsetenv("QKV_TEST_SURELY_UNSET");
    fx_expect_error("data:\n  dir: ${QKV_TEST_SURELY_UNSET}/x\n", NULL, 0,
                    "config.yaml:2:8: environment variable 'QKV_TEST_SURELY_UNSET' is not set (used in dir; write "
                    "${QKV_TEST_SURELY_UNSET:-default} for a fallback)");
    fx_expect_error("log:\n  name: run-${HOME\n", NULL, 0, "config.yaml:2:9: unterminated '${' in name: 'run-${HOME'");
    fx_expect_error("log:\n  name: ${1X}\n", NULL, 0,
                    "config.yaml:2:9: bad variable name in '${1X}' in name (expected ${NAME} or ${NAME:-default})");
    fx_expect_error("log:\n  name: ${A-B}\n", NULL, 0,
                    "config.yaml:2:9: bad variable name in '${A-B}' in name (expected ${NAME} or ${NAME:-default})");
    fx_expect_error("log:\n  name: ${}\n", NULL, 0,
                    "config.yaml:2:9: bad variable name in '${}' in name (expected ${NAME} or ${NAME:-default})");
    fx_expect_error("log:\n  name: \"a\\0b\"\n", NULL, 0, "config.yaml:2:9: name contains a NUL character");
}

static void test_missing_file(void **state)
{
    (void)state;
    test_cfg cfg;
    qkv_error err = {0};
    assert_int_equal(qkv_config_load("no_such.yaml", schema, N_KEYS, &cfg, NULL, 0, &err), QKV_ERR);
    assert_string_equal(err.msg, "no_such.yaml: cannot open: No such file or directory");
    assert_int_equal(qkv_config_load("sub", schema, N_KEYS, &cfg, NULL, 0, &err), QKV_ERR);
    assert_string_equal(err.msg, "sub: cannot read: Is a directory");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_unknown_keys),
        cmocka_unit_test(test_wrong_section_and_unknown_section),
        cmocka_unit_test(test_duplicates),
        cmocka_unit_test(test_wrong_types),
        cmocka_unit_test(test_out_of_range),
        cmocka_unit_test(test_enum_choices),
        cmocka_unit_test(test_document_shape),
        cmocka_unit_test(test_yaml_syntax_errors),
        cmocka_unit_test(test_override_errors),
        cmocka_unit_test(test_expansion_errors),
        cmocka_unit_test(test_missing_file),
    };
    return cmocka_run_group_tests(tests, fx_setup, fx_teardown);
}
