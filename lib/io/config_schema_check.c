/* The check every config load makes of its schema first (see lib/io/config.h). */
#include "lib/io/config_internal.h"

#include <string.h>

int qkv_cfg_check_schema(const qkv_cfg_key *schema, int n_keys, qkv_error *err)
{
    if (n_keys < 0 || (n_keys > 0 && !schema))
        return qkv_fail(err, "config schema: %d keys and schema %p", n_keys, (const void *)schema);
    for (int i = 0; i < n_keys; i++) {
        const qkv_cfg_key *k = &schema[i];
        if (!qkv_cfg_is_word(k->section, NULL) || !qkv_cfg_is_word(k->name, NULL))
            return qkv_fail(err, "config schema: key %d: section '%s' and name '%s' must be words of [A-Za-z0-9_]",
                            i, k->section ? k->section : "(null)", k->name ? k->name : "(null)");
        const char *id = k->name;
        for (int j = 0; j < i; j++)
            if (!strcmp(schema[j].section, k->section) && !strcmp(schema[j].name, id))
                return qkv_fail(err, "config schema: %s.%s: listed twice", k->section, id);
        if (!k->doc || !*k->doc)
            return qkv_fail(err, "config schema: %s.%s: no doc line", k->section, id);
        bool integer = k->type == QKV_CFG_INT || k->type == QKV_CFG_BOOL || k->type == QKV_CFG_ENUM;
        size_t only = k->type == QKV_CFG_REAL ? sizeof(double) : QKV_CFG_STR_MAX;
        if (k->size && (integer ? k->size != 1 && k->size != 2 && k->size != 4 && k->size != 8 : k->size != only))
            return qkv_fail(err, "config schema: %s.%s: a field of %zu bytes cannot hold this type", k->section,
                            id, k->size);
        switch (k->type) {
        case QKV_CFG_INT:
        case QKV_CFG_REAL:
            if (!(k->min < k->max))
                return qkv_fail(err, "config schema: %s.%s: range min %g must be below max %g",
                                k->section, id, k->min, k->max);
            break;
        case QKV_CFG_LIST: /* choices optional; when given, checked as an enum's */
        case QKV_CFG_ENUM:
            if (k->type == QKV_CFG_LIST && !k->choices)
                break;
            if (!k->choices || !k->choices[0])
                return qkv_fail(err, "config schema: %s.%s: an enum needs choices", k->section, id);
            for (int a = 0; k->choices[a]; a++) {
                if (!qkv_cfg_is_word(k->choices[a], "-."))
                    return qkv_fail(err, "config schema: %s.%s: choice '%s' must be a word of [A-Za-z0-9_.-]",
                                    k->section, id, k->choices[a]);
                for (int b = 0; b < a; b++)
                    if (!strcmp(k->choices[a], k->choices[b]))
                        return qkv_fail(err, "config schema: %s.%s: choice '%s' listed twice",
                                        k->section, id, k->choices[a]);
            }
            break;
        case QKV_CFG_BOOL:
        case QKV_CFG_STRING:
        case QKV_CFG_PATH:
            break;
        default:
            return qkv_fail(err, "config schema: %s.%s: unknown type %d", k->section, id, (int)k->type);
        }
        if (qkv_cfg_check_scope_schema(schema, n_keys, k, err))
            return QKV_ERR;
    }
    return QKV_OK;
}
