/* The resolved config as YAML text (reads back to the same struct) and the key table as
 * markdown. */
#include "lib/io/config_internal.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

static const char *const type_names[] = {"int", "real", "bool", "string", "path", "enum", "list"};

/* A STRING/PATH value as a YAML double-quoted scalar; '$' doubled so that expansion on reload
 * gives it back. Non-ASCII UTF-8 is written as is. */
static void put_quoted(FILE *f, const char *s)
{
    fputc('"', f);
    for (; *s; s++) {
        unsigned char ch = (unsigned char)*s;
        if (ch == '"' || ch == '\\')
            fprintf(f, "\\%c", ch);
        else if (ch == '$')
            fputs("$$", f);
        else if (ch == '\n')
            fputs("\\n", f);
        else if (ch == '\t')
            fputs("\\t", f);
        else if (ch < 0x20 || ch == 0x7f)
            fprintf(f, "\\x%02x", ch);
        else
            fputc(ch, f);
    }
    fputc('"', f);
}

static void put_value(FILE *f, const qkv_cfg_key *k, const void *cfg)
{
    const char *field = (const char *)cfg + k->offset;
    char buf[64];
    switch (k->type) {
    case QKV_CFG_INT:
        fprintf(f, "%lld", qkv_cfg_get_int(k, cfg));
        break;
    case QKV_CFG_REAL:
        qkv_cfg_format_real(*(const double *)field, buf, sizeof buf);
        fputs(buf, f);
        break;
    case QKV_CFG_BOOL:
        fputs(qkv_cfg_get_int(k, cfg) ? "true" : "false", f);
        break;
    case QKV_CFG_ENUM:
        fputs(k->choices[qkv_cfg_get_int(k, cfg)], f);
        break;
    case QKV_CFG_LIST:
        if (strchr(field, ',') || !*field) {
            fputc('[', f);
            for (const char *c = field; *c; c++)
                fputs(*c == ',' ? ", " : (char[2]){*c, 0}, f);
            fputc(']', f);
        }
        else
            fputs(field, f);
        break;
    case QKV_CFG_STRING:
    case QKV_CFG_PATH:
        put_quoted(f, field);
        break;
    }
}

/* The value of key k in cfg as a config would write it (STRING and PATH unquoted), into buf. */
static void value_text(const qkv_cfg_key *k, const void *cfg, char *buf, size_t cap)
{
    const char *field = (const char *)cfg + k->offset;
    switch (k->type) {
    case QKV_CFG_INT:
        snprintf(buf, cap, "%lld", qkv_cfg_get_int(k, cfg));
        break;
    case QKV_CFG_REAL:
        qkv_cfg_format_real(*(const double *)field, buf, cap);
        break;
    case QKV_CFG_BOOL:
        snprintf(buf, cap, "%s", qkv_cfg_get_int(k, cfg) ? "true" : "false");
        break;
    case QKV_CFG_ENUM:
        snprintf(buf, cap, "%s", k->choices[qkv_cfg_get_int(k, cfg)]);
        break;
    case QKV_CFG_STRING:
    case QKV_CFG_PATH:
    case QKV_CFG_LIST: /* "a,b": as stored */
        snprintf(buf, cap, "%s", field);
        break;
    }
}

int qkv_config_differences(const qkv_cfg_key *schema, int n_keys, const char *section, const void *a,
                           const void *b, char *out, size_t cap)
{
    int n = 0;
    size_t used = 0;
    if (cap)
        out[0] = 0;
    for (int i = 0; i < n_keys; i++) {
        const qkv_cfg_key *k = &schema[i];
        if (strcmp(k->section, section))
            continue;
        char va[QKV_CFG_STR_MAX], vb[QKV_CFG_STR_MAX];
        value_text(k, a, va, sizeof va);
        value_text(k, b, vb, sizeof vb);
        if (!strcmp(va, vb))
            continue;
        if (used < cap) {
            int w = snprintf(out + used, cap - used, "%s%s.%s %.100s vs %.100s", n ? ", " : "", k->section,
                             k->name, va, vb);
            used += w > 0 ? (size_t)w : 0;
        }
        n++;
    }
    return n;
}

/* Index of the first key of the section of schema[i]. */
static int first_of_section(const qkv_cfg_key *schema, int i)
{
    int j = 0;
    while (strcmp(schema[j].section, schema[i].section))
        j++;
    return j;
}

int qkv_config_dump(const qkv_cfg_key *schema, int n_keys, const void *cfg, char **text,
                    qkv_error *err)
{
    *text = NULL;
    size_t size = 0;
    FILE *f = open_memstream(text, &size);
    if (!f)
        return qkv_fail(err, "config dump: cannot open a memory stream: %s", strerror(errno));
    for (int s = 0; s < n_keys; s++) {
        if (first_of_section(schema, s) != s)
            continue;
        fprintf(f, "%s:\n", schema[s].section);
        for (int i = s; i < n_keys; i++) {
            if (strcmp(schema[i].section, schema[s].section))
                continue;
            const qkv_cfg_key *k = &schema[i];
            if (k->type == QKV_CFG_ENUM) {
                long long v = qkv_cfg_get_int(k, cfg);
                int n = 0;
                while (k->choices[n])
                    n++;
                if (v < 0 || v >= n) {
                    fclose(f);
                    free(*text);
                    *text = NULL;
                    return qkv_fail(err, "config dump: %s.%s holds %lld, not an index into its %d choices",
                                    k->section, k->name, v, n);
                }
            }
            fprintf(f, "  %s: ", k->name);
            put_value(f, k, cfg);
            fputc('\n', f);
        }
    }
    if (fclose(f) || !*text) {
        free(*text);
        *text = NULL;
        return qkv_fail(err, "config dump: out of memory");
    }
    return QKV_OK;
}

/* Markdown table cell text: '|' escaped. */
static void put_cell(FILE *f, const char *s)
{
    for (; *s; s++) {
        if (*s == '|')
            fputc('\\', f);
        fputc(*s, f);
    }
}

int qkv_config_doc(const qkv_cfg_key *schema, int n_keys, FILE *out, qkv_error *err)
{
    fputs("| section | key | type | default | range / choices | description |\n", out);
    fputs("|---|---|---|---|---|---|\n", out);
    for (int s = 0; s < n_keys; s++) {
        if (first_of_section(schema, s) != s)
            continue;
        for (int i = s; i < n_keys; i++) {
            const qkv_cfg_key *k = &schema[i];
            if (strcmp(k->section, schema[s].section))
                continue;
            fprintf(out, "| %s | %s | %s | ", k->section, k->name, type_names[k->type]);
            if (!k->default_value) {
                fputs("(required)", out);
            } else if (!*k->default_value) {
                fputs("(empty)", out);
            } else {
                fputc('`', out);
                put_cell(out, k->default_value);
                fputc('`', out);
            }
            fputs(" | ", out);
            if (k->type == QKV_CFG_INT || k->type == QKV_CFG_REAL) {
                char lo[64], hi[64];
                bool has_lo, has_hi;
                qkv_cfg_bounds(k, lo, hi, sizeof lo, &has_lo, &has_hi);
                if (has_lo && has_hi)
                    fprintf(out, "%s to %s", lo, hi);
                else if (has_lo)
                    fprintf(out, ">= %s", lo);
                else if (has_hi)
                    fprintf(out, "<= %s", hi);
                else
                    fputs("any", out);
            } else if (k->type == QKV_CFG_ENUM || (k->type == QKV_CFG_LIST && k->choices)) {
                for (int c = 0; k->choices[c]; c++)
                    fprintf(out, "%s`%s`", c ? ", " : "", k->choices[c]);
            }
            fputs(" | ", out);
            put_cell(out, k->doc);
            int sc = qkv_cfg_scope_key(schema, n_keys, k);
            if (sc >= 0)
                fprintf(out, " (read by %s.%s: ", k->section, k->scope);
            for (int c = 0, n = 0; sc >= 0 && schema[sc].choices[c] && c < 32; c++)
                if (k->scope_mask & (1u << c))
                    fprintf(out, "%s%s", n++ ? ", " : "", schema[sc].choices[c]);
            if (sc >= 0)
                fputc(')', out);
            fputs(" |\n", out);
        }
    }
    if (fflush(out) || ferror(out))
        return qkv_fail(err, "config doc: write failed: %s", strerror(errno));
    return QKV_OK;
}
