/* Relations between keys as data (lib/io/config.h: qkv_cfg_rule): each rule names its keys as
 * "section.key" and its conditions as "section.key=value"; the checker finds them in the schema
 * and words the message from the rule's kind. */
#include "lib/io/config_internal.h"

#include <string.h>

/* The schema index of "section.key" (name[0..len)), or -1. */
static int find(const qkv_cfg_key *schema, int n_keys, const char *name, size_t len)
{
    const char *dot = memchr(name, '.', len);
    if (!dot)
        return -1;
    size_t sl = (size_t)(dot - name);
    for (int i = 0; i < n_keys; i++)
        if (strlen(schema[i].section) == sl && !strncmp(schema[i].section, name, sl) &&
            strlen(schema[i].name) == len - sl - 1 && !strncmp(schema[i].name, dot + 1, len - sl - 1))
            return i;
    return -1;
}

/* Key k's value in cfg as a config writes it: an integer, %g, the choice, true/false, the text. */
static void value_text(const qkv_cfg_key *k, const void *cfg, char *buf, size_t cap)
{
    const char *field = (const char *)cfg + k->offset;
    double d;
    switch (k->type) {
    case QKV_CFG_INT:
        snprintf(buf, cap, "%lld", qkv_cfg_get_int(k, cfg));
        break;
    case QKV_CFG_REAL:
        memcpy(&d, field, sizeof d);
        snprintf(buf, cap, "%g", d);
        break;
    case QKV_CFG_BOOL:
        snprintf(buf, cap, "%s", qkv_cfg_get_int(k, cfg) ? "true" : "false");
        break;
    case QKV_CFG_ENUM:
        snprintf(buf, cap, "%s", k->choices[qkv_cfg_get_int(k, cfg)]);
        break;
    default:
        snprintf(buf, cap, "%s", field);
    }
}

static double number(const qkv_cfg_key *k, const void *cfg)
{
    if (k->type != QKV_CFG_REAL)
        return (double)qkv_cfg_get_int(k, cfg);
    double d;
    memcpy(&d, (const char *)cfg + k->offset, sizeof d);
    return d;
}

/* A rule's key ("section.key") or condition ("section.key=value"): its index in the schema and
 * whether the condition holds (*value gets the text after '='). */
typedef struct {
    int key;
    const char *value;
    bool holds;
} term;

static int read_term(const qkv_cfg_key *schema, int n_keys, const char *text, bool cond, const void *cfg, term *t,
                     qkv_error *err)
{
    const char *eq = text ? strchr(text, '=') : NULL;
    if (!text || (cond != (eq != NULL)))
        return qkv_fail(err, "config rules: '%s' must be %s", text ? text : "(null)",
                        cond ? "section.key=value" : "section.key");
    t->key = find(schema, n_keys, text, eq ? (size_t)(eq - text) : strlen(text));
    if (t->key < 0)
        return qkv_fail(err, "config rules: '%s' names no key of the schema", text);
    t->value = eq ? eq + 1 : NULL;
    char buf[QKV_CFG_STR_MAX];
    value_text(&schema[t->key], cfg, buf, sizeof buf);
    t->holds = eq && !strcmp(buf, t->value);
    return QKV_OK;
}

static void name_of(const qkv_cfg_key *k, char *buf, size_t cap) { snprintf(buf, cap, "%s.%s", k->section, k->name); }

/* The message of broken rule r (a, b: its terms; when: its condition, if any). */
static int broken(const qkv_cfg_key *schema, const qkv_cfg_rule *r, const term *a, const term *b, const term *w,
                  const void *cfg, const char *where, qkv_error *err)
{
    char an[128], av[QKV_CFG_STR_MAX], bn[128] = "", bv[QKV_CFG_STR_MAX] = "", wn[128] = "", msg[2 * QKV_CFG_STR_MAX];
    name_of(&schema[a->key], an, sizeof an);
    value_text(&schema[a->key], cfg, av, sizeof av);
    if (b) {
        name_of(&schema[b->key], bn, sizeof bn);
        value_text(&schema[b->key], cfg, bv, sizeof bv);
    }
    if (w)
        name_of(&schema[w->key], wn, sizeof wn);
    switch (r->kind) {
    case QKV_CFG_RULE_ODD:
        snprintf(msg, sizeof msg, "%s = %s must be odd", an, av);
        break;
    case QKV_CFG_RULE_DIVIDES:
        snprintf(msg, sizeof msg, "%s = %s does not divide %s = %s", an, av, bn, bv);
        break;
    case QKV_CFG_RULE_NOT_ABOVE:
        snprintf(msg, sizeof msg, "%s = %s is above %s = %s", an, av, bn, bv);
        break;
    case QKV_CFG_RULE_NEEDS:
        snprintf(msg, sizeof msg, "%s%s%s needs %s = %s, got %s", wn, w ? " = " : "", w ? w->value : "", an,
                 a->value, av);
        break;
    case QKV_CFG_RULE_REQUIRED:
        snprintf(msg, sizeof msg, "%s is required%s%s%s%s", an, w ? " when " : "", wn, w ? " is " : "",
                 w ? w->value : "");
        break;
    default:
        snprintf(msg, sizeof msg, "%s = %s", an, av);
    }
    return qkv_fail(err, "%s: %s%s%s", where, msg, r->why ? " " : "", r->why ? r->why : "");
}

static int check_rule(const qkv_cfg_key *schema, int n_keys, const qkv_cfg_rule *r, const void *cfg,
                      const char *where, qkv_error *err)
{
    if (r->kind == QKV_CFG_RULE_CHECK)
        return r->check ? r->check(cfg, where, err) : qkv_fail(err, "config rules: a CHECK rule without a check");
    bool cond_a = r->kind == QKV_CFG_RULE_NEEDS || r->kind == QKV_CFG_RULE_FORBIDDEN;
    bool has_b = r->kind == QKV_CFG_RULE_DIVIDES || r->kind == QKV_CFG_RULE_NOT_ABOVE;
    term a, b, w;
    if (read_term(schema, n_keys, r->a, cond_a, cfg, &a, err) ||
        (has_b && read_term(schema, n_keys, r->b, false, cfg, &b, err)) ||
        (r->when && read_term(schema, n_keys, r->when, true, cfg, &w, err)))
        return QKV_ERR;
    if (!has_b && r->b)
        return qkv_fail(err, "config rules: a rule on '%s' of this kind takes no second key", r->a);
    if (r->when && !w.holds)
        return QKV_OK;
    const qkv_cfg_key *ka = &schema[a.key];
    bool ok = true;
    switch (r->kind) {
    case QKV_CFG_RULE_ODD:
        ok = qkv_cfg_get_int(ka, cfg) % 2 != 0;
        break;
    case QKV_CFG_RULE_DIVIDES: {
        long long x = qkv_cfg_get_int(ka, cfg), y = qkv_cfg_get_int(&schema[b.key], cfg);
        ok = x != 0 && y % x == 0;
        break;
    }
    case QKV_CFG_RULE_NOT_ABOVE:
        ok = number(ka, cfg) <= number(&schema[b.key], cfg);
        break;
    case QKV_CFG_RULE_NEEDS:
        ok = a.holds;
        break;
    case QKV_CFG_RULE_REQUIRED:
        ok = ka->type == QKV_CFG_STRING || ka->type == QKV_CFG_PATH ? ((const char *)cfg + ka->offset)[0] != 0
                                                                    : number(ka, cfg) != 0;
        break;
    case QKV_CFG_RULE_FORBIDDEN:
        ok = !a.holds;
        break;
    default:
        return qkv_fail(err, "config rules: unknown kind %d", (int)r->kind);
    }
    if ((r->kind == QKV_CFG_RULE_ODD || r->kind == QKV_CFG_RULE_DIVIDES) &&
        (ka->type != QKV_CFG_INT || (has_b && schema[b.key].type != QKV_CFG_INT)))
        return qkv_fail(err, "config rules: '%s' must be INT keys for this rule", r->a);
    return ok ? QKV_OK : broken(schema, r, &a, has_b ? &b : NULL, r->when ? &w : NULL, cfg, where, err);
}

int qkv_config_check_rules(const qkv_cfg_key *schema, int n_keys, const qkv_cfg_rule *rules, int n_rules,
                           const void *cfg, const char *where, qkv_error *err)
{
    for (int i = 0; i < n_rules; i++)
        if (check_rule(schema, n_keys, &rules[i], cfg, where ? where : "config", err))
            return QKV_ERR;
    return QKV_OK;
}

int qkv_config_doc_rules(const qkv_cfg_rule *rules, int n_rules, FILE *out, qkv_error *err)
{
    static const char *const WORDS[] = {"is odd", "divides", "is at most", "must hold", "is required",
                                        "is refused: it"};
    for (int i = 0; i < n_rules; i++) {
        const qkv_cfg_rule *r = &rules[i];
        fprintf(out, "- ");
        if (r->kind == QKV_CFG_RULE_CHECK) {
            fprintf(out, "%s\n", r->why ? r->why : "");
            continue;
        }
        if (r->when)
            fprintf(out, "when `%s`: ", r->when);
        fprintf(out, "`%s` %s", r->a, (unsigned)r->kind < 6 ? WORDS[r->kind] : "?");
        if (r->b)
            fprintf(out, " `%s`", r->b);
        fprintf(out, "%s%s\n", r->why ? " " : "", r->why ? r->why : "");
    }
    if (fflush(out) || ferror(out))
        return qkv_fail(err, "config doc: write failed");
    return QKV_OK;
}
