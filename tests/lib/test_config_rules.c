/* Scoped keys (a key read only by some kinds of an ENUM key) and the rules table of relations
 * between keys (lib/io/config.h): the errors name the keys, --set switching a kind ignores the
 * file's keys of the old kind with a note, and each rule kind words its message. */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "lib/io/config.h"

typedef struct {
    int kind, width, heads, d;
    double lo, hi;
    char path[QKV_CFG_STR_MAX];
} rules_cfg;

static const char *const KINDS[] = {"a", "b", "c", NULL};

#define O(f) offsetof(rules_cfg, f)
static const qkv_cfg_key SCHEMA[] = {
    {"m", "kind", QKV_CFG_ENUM, O(kind), 0, 0, KINDS, "a", "the kind", 0, NULL, 0},
    {"m", "width", QKV_CFG_INT, O(width), 1, 99, NULL, "3", "read by a and c", 0, "kind", 1u | 4u},
    {"m", "heads", QKV_CFG_INT, O(heads), 1, 99, NULL, "2", "read by a", 0, "kind", 1u},
    {"m", "d", QKV_CFG_INT, O(d), 1, 999, NULL, "8", "always read", 0, NULL, 0},
    {"o", "lo", QKV_CFG_REAL, O(lo), 0, 10, NULL, "0", "low", 0, NULL, 0},
    {"o", "hi", QKV_CFG_REAL, O(hi), 0, 10, NULL, "1", "high", 0, NULL, 0},
    {"o", "path", QKV_CFG_STRING, O(path), 0, 0, NULL, "", "a name", 0, NULL, 0},
};
#define N_KEYS ((int)(sizeof SCHEMA / sizeof SCHEMA[0]))

static char file[64];

static int load(const char *yaml, char **sets, int n_sets, rules_cfg *cfg, char *note, qkv_error *err)
{
    FILE *f = fopen(file, "w");
    assert_non_null(f);
    fputs(yaml, f);
    fclose(f);
    memset(cfg, 0, sizeof *cfg);
    return qkv_config_load_noted(file, SCHEMA, N_KEYS, cfg, sets, n_sets, note, 256, err);
}

static void test_scoped_keys(void **state)
{
    (void)state;
    rules_cfg cfg;
    qkv_error err = {0};
    char note[256];
    /* in the file alone, a key the chosen kind does not read is an error naming it and its readers */
    assert_int_equal(load("m:\n  kind: b\n  width: 5\n", NULL, 0, &cfg, note, &err), QKV_ERR);
    assert_string_equal(err.msg, "rules.yaml: m.width does not apply to m.kind: b (it is read by a, c only); remove it");
    /* at its default it is fine */
    assert_int_equal(load("m:\n  kind: b\n  width: 3\n", NULL, 0, &cfg, note, &err), QKV_OK);
    assert_string_equal(note, "");
    /* --set switching the kind: the file's keys of the old kind take their defaults, one note */
    char *to_b[] = {"m.kind=b"};
    assert_int_equal(load("m:\n  width: 5\n  heads: 7\n  d: 16\n", to_b, 1, &cfg, note, &err), QKV_OK);
    assert_int_equal(cfg.kind, 1);
    assert_int_equal(cfg.width, 3);
    assert_int_equal(cfg.heads, 2);
    assert_int_equal(cfg.d, 16);
    assert_string_equal(note, "rules.yaml: --set m.kind=b: ignoring m.width, m.heads from the file (they do not "
                              "apply to m.kind: b)");
    /* to c, which reads width: only heads is ignored */
    char *to_c[] = {"m.kind=c"};
    assert_int_equal(load("m:\n  width: 5\n  heads: 7\n", to_c, 1, &cfg, note, &err), QKV_OK);
    assert_int_equal(cfg.width, 5);
    assert_string_equal(note, "rules.yaml: --set m.kind=c: ignoring m.heads from the file (it does not apply to "
                              "m.kind: c)");
    /* a key of the old kind given by --set itself is still an error */
    char *both[] = {"m.kind=b", "m.heads=4"};
    assert_int_equal(load("m:\n  d: 16\n", both, 2, &cfg, note, &err), QKV_ERR);
    assert_string_equal(err.msg, "rules.yaml: m.heads does not apply to m.kind: b (it is read by a only); remove it");
    /* --set giving the file's own kind again switches nothing */
    assert_int_equal(load("m:\n  kind: b\n  heads: 4\n", to_b, 1, &cfg, note, &err), QKV_ERR);
    assert_string_equal(err.msg, "rules.yaml: m.heads does not apply to m.kind: b (it is read by a only); remove it");
}

static void test_scope_schema_errors(void **state)
{
    (void)state;
    rules_cfg cfg;
    qkv_error err = {0};
    qkv_cfg_key bad[2] = {SCHEMA[3], SCHEMA[1]};
    bad[1].scope = "d"; /* not an ENUM */
    assert_int_equal(qkv_config_parse("{}", 2, "x", NULL, bad, 2, &cfg, NULL, 0, &err), QKV_ERR);
    assert_string_equal(err.msg, "config schema: m.width: scope 'd' must be an unscoped ENUM key of section 'm'");
    qkv_cfg_key wide[2] = {SCHEMA[0], SCHEMA[1]};
    wide[1].scope_mask = 8u; /* a fourth choice that kind does not have */
    assert_int_equal(qkv_config_parse("{}", 2, "x", NULL, wide, 2, &cfg, NULL, 0, &err), QKV_ERR);
    assert_non_null(strstr(err.msg, "config schema: m.width: scope mask 0x8 names no choice"));
}

static void expect_rule(const qkv_cfg_rule *r, const char *yaml, const char *expected)
{
    rules_cfg cfg;
    qkv_error err = {0};
    assert_int_equal(qkv_config_parse(yaml, strlen(yaml), "c.yaml", NULL, SCHEMA, N_KEYS, &cfg, NULL, 0, &err),
                     QKV_OK);
    int status = qkv_config_check_rules(SCHEMA, N_KEYS, r, 1, &cfg, "c.yaml", &err);
    if (!expected) {
        assert_int_equal(status, QKV_OK);
        return;
    }
    assert_int_equal(status, QKV_ERR);
    assert_string_equal(err.msg, expected);
}

static void test_rules(void **state)
{
    (void)state;
    const qkv_cfg_rule odd = {QKV_CFG_RULE_ODD, "m.width", NULL, NULL, "(centred)", NULL};
    expect_rule(&odd, "m:\n  width: 4\n", "c.yaml: m.width = 4 must be odd (centred)");
    expect_rule(&odd, "m:\n  width: 5\n", NULL);
    const qkv_cfg_rule div = {QKV_CFG_RULE_DIVIDES, "m.heads", "m.d", "m.kind=a", NULL, NULL};
    expect_rule(&div, "m:\n  heads: 3\n", "c.yaml: m.heads = 3 does not divide m.d = 8");
    expect_rule(&div, "m:\n  heads: 4\n", NULL);
    expect_rule(&div, "m:\n  kind: b\n  d: 7\n", NULL); /* the condition does not hold */
    const qkv_cfg_rule needs = {QKV_CFG_RULE_NEEDS, "m.d=8", NULL, "m.kind=c", "(why)", NULL};
    expect_rule(&needs, "m:\n  kind: c\n  d: 9\n", "c.yaml: m.kind = c needs m.d = 8, got 9 (why)");
    expect_rule(&needs, "m:\n  kind: c\n", NULL);
    const qkv_cfg_rule above = {QKV_CFG_RULE_NOT_ABOVE, "o.lo", "o.hi", NULL, NULL, NULL};
    expect_rule(&above, "o:\n  lo: 2.5\n", "c.yaml: o.lo = 2.5 is above o.hi = 1");
    expect_rule(&above, "o:\n  lo: 1\n", NULL);
    const qkv_cfg_rule req = {QKV_CFG_RULE_REQUIRED, "o.path", NULL, "m.kind=b", NULL, NULL};
    expect_rule(&req, "m:\n  kind: b\n", "c.yaml: o.path is required when m.kind is b");
    expect_rule(&req, "m:\n  kind: b\no:\n  path: x\n", NULL);
    const qkv_cfg_rule never = {QKV_CFG_RULE_FORBIDDEN, "m.d=1", NULL, NULL, "is too small", NULL};
    expect_rule(&never, "m:\n  d: 1\n", "c.yaml: m.d = 1 is too small");
    expect_rule(&never, "m:\n  d: 2\n", NULL);
    const qkv_cfg_rule typo = {QKV_CFG_RULE_ODD, "m.widht", NULL, NULL, NULL, NULL};
    expect_rule(&typo, "m:\n  d: 2\n", "config rules: 'm.widht' names no key of the schema");
    const qkv_cfg_rule nocond = {QKV_CFG_RULE_NEEDS, "m.d", NULL, NULL, NULL, NULL};
    expect_rule(&nocond, "m:\n  d: 2\n", "config rules: 'm.d' must be section.key=value");
}

static char dir[] = "/tmp/qkv_rules_XXXXXX";

static int setup(void **state)
{
    (void)state;
    snprintf(file, sizeof file, "rules.yaml");
    return !mkdtemp(dir) || chdir(dir) ? -1 : 0;
}

static int teardown(void **state)
{
    (void)state;
    unlink(file);
    return chdir("/") || rmdir(dir) ? -1 : 0;
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_scoped_keys),
        cmocka_unit_test(test_scope_schema_errors),
        cmocka_unit_test(test_rules),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
