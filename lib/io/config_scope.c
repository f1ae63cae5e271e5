/* Scoped keys (lib/io/config.h): keys read only by some kinds of a scope key (model.d_ff by
 * model.encoder: transformer). The schema check of a scope, and the check after loading that
 * a key no chosen kind reads is at its default, or is reset to it when --set switched the kind. */
#include "lib/io/config_internal.h"

#include <stdlib.h>
#include <string.h>

static size_t field_size(const qkv_cfg_key *k)
{
    if (k->size)
        return k->size;
    if (k->type == QKV_CFG_REAL)
        return sizeof(double);
    if (k->type == QKV_CFG_STRING || k->type == QKV_CFG_PATH || k->type == QKV_CFG_LIST)
        return QKV_CFG_STR_MAX;
    return k->type == QKV_CFG_BOOL ? sizeof(bool) : sizeof(int);
}

int qkv_cfg_scope_key(const qkv_cfg_key *schema, int n_keys, const qkv_cfg_key *k)
{
    for (int i = 0; k->scope && i < n_keys; i++)
        if (!strcmp(schema[i].section, k->section) && !strcmp(schema[i].name, k->scope))
            return i;
    return -1;
}

int qkv_cfg_check_scope_schema(const qkv_cfg_key *schema, int n_keys, const qkv_cfg_key *k, qkv_error *err)
{
    if (!k->scope)
        return k->scope_mask ? qkv_fail(err, "config schema: %s.%s: a scope mask without a scope key", k->section,
                                        k->name)
                             : QKV_OK;
    int s = qkv_cfg_scope_key(schema, n_keys, k);
    if (s < 0 || schema[s].type != QKV_CFG_ENUM || schema[s].scope)
        return qkv_fail(err, "config schema: %s.%s: scope '%s' must be an unscoped ENUM key of section '%s'",
                        k->section, k->name, k->scope, k->section);
    int n = 0;
    while (schema[s].choices && schema[s].choices[n])
        n++;
    if (!k->scope_mask || n > 32 || (n < 32 && k->scope_mask >> n))
        return qkv_fail(err, "config schema: %s.%s: scope mask %#x names no choice or one %s.%s does not have",
                        k->section, k->name, k->scope_mask, k->section, k->scope);
    return QKV_OK;
}

/* The choices of scope s that a key of scope_mask is read by, "transformer, cnn". */
static void readers(const qkv_cfg_key *s, unsigned mask, char *buf, size_t cap)
{
    size_t n = 0;
    buf[0] = 0;
    for (int i = 0; s->choices[i] && i < 32 && n < cap; i++)
        if (mask & (1u << i))
            n += (size_t)snprintf(buf + n, cap - n, "%s%s", n ? ", " : "", s->choices[i]);
}

/* Is key k's value in out its default? Reads the default into a scratch copy of the field. */
static int at_default(const qkv_cfg_key *k, const void *out, qkv_cfg_base *base, bool *same, qkv_error *err)
{
    size_t size = field_size(k);
    char *scratch = calloc(1, k->offset + size);
    if (!scratch)
        return qkv_fail(err, "out of memory checking %s.%s", k->section, k->name);
    int status = qkv_cfg_set_value(k, k->default_value, strlen(k->default_value), QKV_CFG_TEXT, base, scratch, err);
    const char *a = (const char *)out + k->offset, *b = scratch + k->offset;
    if (status == QKV_OK)
        *same = k->type == QKV_CFG_STRING || k->type == QKV_CFG_PATH || k->type == QKV_CFG_LIST ? !strcmp(a, b) : !memcmp(a, b, size);
    free(scratch);
    return status;
}

static void add_note(char *note, size_t cap, const char *name, const qkv_cfg_key *s, const char *chosen,
                     const qkv_cfg_key *k, bool first)
{
    size_t n = note ? strlen(note) : 0;
    if (n + 1 >= cap)
        return;
    if (first)
        snprintf(note + n, cap - n, "%s%s: --set %s.%s=%s: ignoring %s.%s", n ? "; " : "", name, s->section,
                 s->name, chosen, k->section, k->name);
    else
        snprintf(note + n, cap - n, ", %s.%s", k->section, k->name);
}

int qkv_cfg_check_scopes(const qkv_cfg_scope_ctx *c, qkv_error *err)
{
    for (int s = 0; s < c->n_keys; s++) {
        const qkv_cfg_key *sk = &c->schema[s];
        int v = (int)(sk->type == QKV_CFG_ENUM ? qkv_cfg_get_int(sk, c->out) : -1);
        /* --set switched the kind: the scope key's last value came from --set and differs from
         * what the file chose (its default when the file did not) */
        bool switched = c->key_line[s] == -1 && c->before[s] != v;
        int ignored = 0;
        for (int i = 0; i < c->n_keys; i++) {
            const qkv_cfg_key *k = &c->schema[i];
            if (qkv_cfg_scope_key(c->schema, c->n_keys, k) != s || (v >= 0 && v < 32 && (k->scope_mask >> v) & 1))
                continue;
            bool same = true;
            if (!k->default_value)
                continue;
            if (at_default(k, c->out, c->base, &same, err))
                return QKV_ERR;
            if (same)
                continue;
            if (switched && c->key_line[i] > 0) {
                if (qkv_cfg_set_value(k, k->default_value, strlen(k->default_value), QKV_CFG_TEXT, c->base, c->out,
                                      err))
                    return QKV_ERR;
                add_note(c->note, c->note_cap, c->name, sk, sk->choices[v], k, ignored++ == 0);
                continue;
            }
            char buf[256];
            readers(sk, k->scope_mask, buf, sizeof buf);
            return qkv_fail(err, "%s: %s.%s does not apply to %s.%s: %s (it is read by %s only); remove it", c->name,
                            k->section, k->name, sk->section, sk->name, sk->choices[v], buf);
        }
        if (ignored && c->note && strlen(c->note) + 1 < c->note_cap) {
            size_t n = strlen(c->note);
            snprintf(c->note + n, c->note_cap - n, " from the file (%s not apply to %s.%s: %s)",
                     ignored > 1 ? "they do" : "it does", sk->section, sk->name, sk->choices[v]);
        }
    }
    return QKV_OK;
}
