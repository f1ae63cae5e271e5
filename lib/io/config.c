/* Config loading: the YAML event walk (libyaml), --set overrides, defaults (the schema check is
 * lib/io/config_schema_check.c).
 * The language is described in lib/io/config.h; typed values live in lib/io/config_value.c. */
#include "lib/io/config_internal.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <yaml.h>

/* qkv_config_load_written: the key whose text as written is wanted, and where it goes. */
typedef struct {
    const char *section, *name;
    char *text;
    size_t cap;
} written_req;

typedef struct {
    const char *name; /* file name for messages */
    const char *text;
    size_t len;
    const qkv_cfg_key *schema;
    int n_keys;
    void *out;
    int n_sections;
    int *sec_key;  /* [n_sections]: index of the section's first key in the schema */
    int *sec_line; /* [n_sections]: line, column of the section in the file (0 = absent) */
    int *sec_col;
    int *key_line; /* [n_keys]: line of the key in the file; -1 = set by --set; 0 = unset */
    yaml_parser_t parser;
    yaml_event_t ev;
    bool have_ev;
    qkv_cfg_base file_base;
    const written_req *want; /* NULL: nothing captured */
    char *note;              /* keys of a kind --set switched away from (NULL: not wanted) */
    size_t note_cap;
    qkv_error *err;
} ctx;

static const char *section_name(const ctx *c, int s)
{
    return c->schema[c->sec_key[s]].section;
}

/* Keeps the text key k was given as, when it is the wanted one (qkv_config_load_written). */
static void note_written(const ctx *c, int k, const char *text)
{
    const written_req *w = c->want;
    if (w && !strcmp(c->schema[k].section, w->section) && !strcmp(c->schema[k].name, w->name))
        snprintf(w->text, w->cap, "%s", text);
}

/* --- schema --------------------------------------------------------------------------------- */

/* --- name lookup, shared by the file walk and --set ----------------------------------------- */

static int find_section(const ctx *c, const char *name)
{
    for (int s = 0; s < c->n_sections; s++)
        if (!strcmp(section_name(c, s), name))
            return s;
    return -1;
}

static int find_key(const ctx *c, const char *section, const char *name)
{
    for (int i = 0; i < c->n_keys; i++)
        if (!strcmp(c->schema[i].section, section) && !strcmp(c->schema[i].name, name))
            return i;
    return -1;
}

static int unknown_section(const ctx *c, const char *name)
{
    for (int i = 0; i < c->n_keys; i++)
        if (!strcmp(c->schema[i].name, name))
            return qkv_fail(c->err, "'%s' is a key, not a section: it belongs in section '%s'", name,
                            c->schema[i].section);
    for (int s = 0; s < c->n_sections; s++)
        if (qkv_cfg_is_near(name, section_name(c, s)))
            return qkv_fail(c->err, "unknown section '%s', did you mean '%s'?", name, section_name(c, s));
    char list[512];
    size_t n = 0;
    list[0] = '\0';
    for (int s = 0; s < c->n_sections && n < sizeof list; s++)
        n += snprintf(list + n, sizeof list - n, "%s%s", s ? ", " : "", section_name(c, s));
    return qkv_fail(c->err, "unknown section '%s' (the sections are: %s)", name, list);
}

static int unknown_key(const ctx *c, const char *section, const char *name)
{
    char where[256];
    size_t n = 0;
    for (int i = 0; i < c->n_keys && n < sizeof where; i++)
        if (!strcmp(c->schema[i].name, name))
            n += snprintf(where + n, sizeof where - n, "%s'%s'", n ? " or " : "", c->schema[i].section);
    if (n)
        return qkv_fail(c->err, "key '%s' belongs in section %s, not '%s'", name, where, section);
    for (int i = 0; i < c->n_keys; i++)
        if (!strcmp(c->schema[i].section, section) && qkv_cfg_is_near(name, c->schema[i].name))
            return qkv_fail(c->err, "unknown key '%s' in section '%s', did you mean '%s'?", name, section,
                            c->schema[i].name);
    for (int i = 0; i < c->n_keys; i++)
        if (qkv_cfg_is_near(name, c->schema[i].name))
            return qkv_fail(c->err, "unknown key '%s' in section '%s', did you mean '%s' in section '%s'?",
                            name, section, c->schema[i].name, c->schema[i].section);
    return qkv_fail(c->err, "unknown key '%s' in section '%s'", name, section);
}

/* --- the YAML walk -------------------------------------------------------------------------- */

static int fail_at(const ctx *c, yaml_mark_t m)
{
    return qkv_fail_prefix(c->err, "%s:%d:%d", c->name, (int)m.line + 1, (int)m.column + 1);
}

/* libyaml's problem with its place. Reader errors (bad encoding) carry only a byte offset:
 * the line and column are counted from the text (columns in characters, as libyaml does). */
static int syntax_error(ctx *c)
{
    yaml_parser_t *p = &c->parser;
    const char *problem = p->problem ? p->problem : "unknown YAML error";
    if (p->error == YAML_MEMORY_ERROR)
        return qkv_fail(c->err, "%s: out of memory while reading YAML", c->name);
    if (p->error == YAML_READER_ERROR) {
        int line = 1, col = 1;
        for (size_t i = 0; i < p->problem_offset && i < c->len; i++) {
            if (c->text[i] == '\n')
                line++, col = 1;
            else if (((unsigned char)c->text[i] & 0xc0) != 0x80)
                col++;
        }
        return qkv_fail(c->err, "%s:%d:%d: %s (byte offset %zu)", c->name, line, col, problem, p->problem_offset);
    }
    if (p->context)
        return qkv_fail(c->err, "%s:%d:%d: %s (%s at line %d, column %d)", c->name,
                        (int)p->problem_mark.line + 1, (int)p->problem_mark.column + 1, problem,
                        p->context, (int)p->context_mark.line + 1, (int)p->context_mark.column + 1);
    return qkv_fail(c->err, "%s:%d:%d: %s", c->name, (int)p->problem_mark.line + 1,
                    (int)p->problem_mark.column + 1, problem);
}

/* Moves to the next event (c->ev); anchors are ignored, aliases and tags rejected. */
static int next(ctx *c)
{
    if (c->have_ev)
        yaml_event_delete(&c->ev);
    c->have_ev = false;
    if (!yaml_parser_parse(&c->parser, &c->ev))
        return syntax_error(c);
    c->have_ev = true;
    const yaml_event_t *e = &c->ev;
    if (e->type == YAML_ALIAS_EVENT) {
        qkv_fail(c->err, "aliases (*%s) are not supported in a config", (const char *)e->data.alias.anchor);
        return fail_at(c, e->start_mark);
    }
    const yaml_char_t *tag = e->type == YAML_SCALAR_EVENT           ? e->data.scalar.tag
                             : e->type == YAML_MAPPING_START_EVENT  ? e->data.mapping_start.tag
                             : e->type == YAML_SEQUENCE_START_EVENT ? e->data.sequence_start.tag
                                                                    : NULL;
    if (tag) {
        qkv_fail(c->err, "tags (%s) are not supported in a config", (const char *)tag);
        return fail_at(c, e->start_mark);
    }
    return QKV_OK;
}

static const char *node_kind(const yaml_event_t *e)
{
    if (e->type == YAML_MAPPING_START_EVENT)
        return "a mapping";
    return e->type == YAML_SEQUENCE_START_EVENT ? "a list" : "a scalar";
}

static bool is_null_scalar(const yaml_event_t *e)
{
    const char *v = (const char *)e->data.scalar.value;
    return e->type == YAML_SCALAR_EVENT && e->data.scalar.style == YAML_PLAIN_SCALAR_STYLE &&
           (!*v || !strcmp(v, "~") || !strcmp(v, "null") || !strcmp(v, "Null") || !strcmp(v, "NULL"));
}

/* A LIST key's YAML list of scalars (the sequence start is c->ev), set as its items joined by ','. */
static int walk_list(ctx *c, int k)
{
    char joined[QKV_CFG_STR_MAX];
    size_t n = 0;
    yaml_mark_t start = c->ev.start_mark;
    joined[0] = '\0';
    for (;;) {
        if (next(c))
            return QKV_ERR;
        if (c->ev.type == YAML_SEQUENCE_END_EVENT)
            break;
        if (c->ev.type != YAML_SCALAR_EVENT) {
            qkv_fail(c->err, "the items of %s must be single values, got %s", c->schema[k].name, node_kind(&c->ev));
            return fail_at(c, c->ev.start_mark);
        }
        const char *v = (const char *)c->ev.data.scalar.value;
        if (!*v || strchr(v, ',') || n + strlen(v) + 2 > sizeof joined) {
            qkv_fail(c->err, "%s: item '%.40s' is empty, holds ',' or makes the list too long", c->schema[k].name, v);
            return fail_at(c, c->ev.start_mark);
        }
        n += (size_t)snprintf(joined + n, sizeof joined - n, "%s%s", n ? "," : "", v);
    }
    note_written(c, k, joined);
    if (qkv_cfg_set_value(&c->schema[k], joined, n, QKV_CFG_QUOTED, &c->file_base, c->out, c->err))
        return fail_at(c, start);
    return QKV_OK;
}

static int walk_keys(ctx *c, int s)
{
    const char *section = section_name(c, s);
    for (;;) {
        if (next(c))
            return QKV_ERR;
        if (c->ev.type == YAML_MAPPING_END_EVENT)
            return QKV_OK;
        yaml_mark_t key_mark = c->ev.start_mark;
        if (c->ev.type != YAML_SCALAR_EVENT) {
            qkv_fail(c->err, "keys in section '%s' must be plain names, got %s", section, node_kind(&c->ev));
            return fail_at(c, key_mark);
        }
        char name[256];
        snprintf(name, sizeof name, "%s", (const char *)c->ev.data.scalar.value);
        int k = find_key(c, section, name);
        if (k < 0) {
            unknown_key(c, section, name);
            return fail_at(c, key_mark);
        }
        if (c->key_line[k] > 0) {
            qkv_fail(c->err, "duplicate key '%s' in section '%s' (first at line %d)", name, section, c->key_line[k]);
            return fail_at(c, key_mark);
        }
        c->key_line[k] = (int)key_mark.line + 1;
        if (next(c))
            return QKV_ERR;
        if (c->ev.type == YAML_SEQUENCE_START_EVENT && c->schema[k].type == QKV_CFG_LIST) {
            if (walk_list(c, k))
                return QKV_ERR;
            continue;
        }
        if (c->ev.type != YAML_SCALAR_EVENT) {
            qkv_fail(c->err, "%s must be a single value, got %s", name, node_kind(&c->ev));
            return fail_at(c, c->ev.start_mark);
        }
        qkv_cfg_style style = c->ev.data.scalar.style == YAML_PLAIN_SCALAR_STYLE ? QKV_CFG_PLAIN : QKV_CFG_QUOTED;
        note_written(c, k, (const char *)c->ev.data.scalar.value);
        if (qkv_cfg_set_value(&c->schema[k], (const char *)c->ev.data.scalar.value, c->ev.data.scalar.length,
                              style, &c->file_base, c->out, c->err))
            return fail_at(c, c->ev.start_mark);
    }
}

static int walk_sections(ctx *c)
{
    for (;;) {
        if (next(c))
            return QKV_ERR;
        if (c->ev.type == YAML_MAPPING_END_EVENT)
            return QKV_OK;
        yaml_mark_t mark = c->ev.start_mark;
        if (c->ev.type != YAML_SCALAR_EVENT) {
            qkv_fail(c->err, "section names must be plain names, got %s", node_kind(&c->ev));
            return fail_at(c, mark);
        }
        char name[256];
        snprintf(name, sizeof name, "%s", (const char *)c->ev.data.scalar.value);
        int s = find_section(c, name);
        if (s < 0) {
            unknown_section(c, name);
            return fail_at(c, mark);
        }
        if (c->sec_line[s]) {
            qkv_fail(c->err, "duplicate section '%s' (first at line %d)", name, c->sec_line[s]);
            return fail_at(c, mark);
        }
        c->sec_line[s] = (int)mark.line + 1;
        c->sec_col[s] = (int)mark.column + 1;
        if (next(c))
            return QKV_ERR;
        if (c->ev.type == YAML_MAPPING_START_EVENT) {
            if (walk_keys(c, s))
                return QKV_ERR;
        } else if (!is_null_scalar(&c->ev)) {
            qkv_fail(c->err, "section '%s' must be a mapping of keys (key: value lines indented below it), got %s",
                     name, node_kind(&c->ev));
            return fail_at(c, c->ev.start_mark);
        }
    }
}

static int sections_list(const ctx *c, char *buf, size_t cap)
{
    size_t n = 0;
    buf[0] = '\0';
    for (int s = 0; s < c->n_sections && n < cap; s++)
        n += snprintf(buf + n, cap - n, "%s%s:", s ? ", " : "", section_name(c, s));
    return 0;
}

static int walk_document(ctx *c)
{
    char list[512];
    sections_list(c, list, sizeof list);
    if (next(c) || next(c)) /* stream start, then document start or stream end */
        return QKV_ERR;
    if (c->ev.type == YAML_STREAM_END_EVENT)
        return qkv_fail(c->err, "%s:1:1: the file is empty (expected a mapping of sections: %s)", c->name, list);
    if (next(c))
        return QKV_ERR;
    if (c->ev.type != YAML_MAPPING_START_EVENT) {
        if (is_null_scalar(&c->ev))
            qkv_fail(c->err, "the document is empty (expected a mapping of sections: %s)", list);
        else
            qkv_fail(c->err, "the top level must be a mapping of sections (%s), got %s", list, node_kind(&c->ev));
        return fail_at(c, c->ev.start_mark);
    }
    if (walk_sections(c) || next(c) || next(c)) /* the mapping, document end, then stream end? */
        return QKV_ERR;
    if (c->ev.type != YAML_STREAM_END_EVENT) {
        qkv_fail(c->err, "a config is one YAML document; found a second one");
        return fail_at(c, c->ev.start_mark);
    }
    return QKV_OK;
}

/* --- overrides, defaults, entry points ------------------------------------------------------ */

static int apply_override(ctx *c, const char *arg, qkv_cfg_base *cwd)
{
    const char *eq = strchr(arg, '=');
    const char *dot = eq ? memchr(arg, '.', (size_t)(eq - arg)) : NULL;
    char section[256], name[256];
    if (!dot) {
        int n = eq ? (int)(eq - arg) : (int)strlen(arg);
        snprintf(name, sizeof name, "%.*s", n, arg);
        for (int i = 0; i < c->n_keys; i++)
            if (!strcmp(c->schema[i].name, name))
                return qkv_fail(c->err, "--set %s: expected section.key=value, e.g. %s.%s=%s", arg,
                                c->schema[i].section, name, eq ? eq + 1 : "...");
        return qkv_fail(c->err, "--set %s: expected section.key=value", arg);
    }
    snprintf(section, sizeof section, "%.*s", (int)(dot - arg), arg);
    snprintf(name, sizeof name, "%.*s", (int)(eq - dot - 1), dot + 1);
    int k = -1;
    if (find_section(c, section) < 0)
        unknown_section(c, section);
    else if ((k = find_key(c, section, name)) < 0)
        unknown_key(c, section, name);
    else if (!qkv_cfg_set_value(&c->schema[k], eq + 1, strlen(eq + 1), QKV_CFG_TEXT, cwd, c->out, c->err)) {
        c->key_line[k] = -1;
        note_written(c, k, eq + 1);
    } else
        k = -1;
    if (k < 0)
        return qkv_fail_prefix(c->err, "--set %s", arg);
    return QKV_OK;
}

static int apply_defaults(ctx *c, bool have_file)
{
    for (int i = 0; i < c->n_keys; i++) {
        const qkv_cfg_key *k = &c->schema[i];
        if (c->key_line[i])
            continue;
        if (!k->default_value) {
            int s = 0;
            while (strcmp(section_name(c, s), k->section))
                s++;
            if (!have_file)
                return qkv_fail(c->err, "missing required key %s.%s (give it with --set %s.%s=...)", k->section,
                                k->name, k->section, k->name);
            if (c->sec_line[s])
                return qkv_fail(c->err, "%s:%d:%d: missing required key '%s' in section '%s'", c->name,
                                c->sec_line[s], c->sec_col[s], k->name, k->section);
            return qkv_fail(c->err, "%s:1:1: missing required key '%s' in section '%s'", c->name, k->name,
                            k->section);
        }
        note_written(c, i, k->default_value);
        if (qkv_cfg_set_value(k, k->default_value, strlen(k->default_value), QKV_CFG_TEXT, &c->file_base, c->out,
                              c->err)) {
            if (have_file)
                return qkv_fail_prefix(c->err, "%s: default of %s.%s", c->name, k->section, k->name);
            return qkv_fail_prefix(c->err, "default of %s.%s", k->section, k->name);
        }
    }
    return QKV_OK;
}

/* ENUM values as the file chose them (its value, else the default's choice), before --set. */
static void enum_values(const ctx *c, long long *before)
{
    for (int i = 0; i < c->n_keys; i++) {
        const qkv_cfg_key *k = &c->schema[i];
        before[i] = -2;
        if (k->type != QKV_CFG_ENUM)
            continue;
        if (c->key_line[i] > 0)
            before[i] = qkv_cfg_get_int(k, c->out);
        else
            for (int a = 0; k->default_value && k->choices[a]; a++)
                if (!strcmp(k->choices[a], k->default_value))
                    before[i] = a;
    }
}

static int run(ctx *c, bool have_file, char *const *overrides, int n_overrides)
{
    c->sec_key = malloc(sizeof(int) * (size_t)(c->n_keys + 1));
    c->sec_line = calloc((size_t)c->n_keys + 1, sizeof(int));
    c->sec_col = calloc((size_t)c->n_keys + 1, sizeof(int));
    c->key_line = calloc((size_t)c->n_keys + 1, sizeof(int));
    if (!c->sec_key || !c->sec_line || !c->sec_col || !c->key_line)
        return qkv_fail(c->err, "out of memory loading a config");
    for (int i = 0; i < c->n_keys; i++)
        if (find_section(c, c->schema[i].section) < 0)
            c->sec_key[c->n_sections++] = i;
    if (have_file) {
        if (!yaml_parser_initialize(&c->parser))
            return qkv_fail(c->err, "out of memory starting the YAML parser");
        yaml_parser_set_input_string(&c->parser, (const unsigned char *)c->text, c->len);
        int status = walk_document(c);
        if (c->have_ev)
            yaml_event_delete(&c->ev);
        yaml_parser_delete(&c->parser);
        if (status)
            return QKV_ERR;
    }
    long long *before = malloc(sizeof(long long) * (size_t)(c->n_keys + 1));
    if (!before)
        return qkv_fail(c->err, "out of memory loading a config");
    enum_values(c, before);
    qkv_cfg_base cwd = {.dir = NULL};
    int status = QKV_OK;
    for (int i = 0; status == QKV_OK && i < n_overrides; i++)
        status = apply_override(c, overrides[i], &cwd);
    if (status == QKV_OK)
        status = apply_defaults(c, have_file);
    qkv_cfg_scope_ctx sc = {c->schema, c->n_keys, c->out, c->name, c->key_line, before, &c->file_base,
                            c->note, c->note_cap};
    if (status == QKV_OK)
        status = qkv_cfg_check_scopes(&sc, c->err);
    free(before);
    return status;
}

static int start(ctx *c, const char *text, size_t len, const char *name, const char *base_dir,
                 const qkv_cfg_key *schema, int n_keys, void *out, char *const *overrides,
                 int n_overrides, const written_req *want, qkv_error *err)
{
    char *note = c->note;
    size_t note_cap = c->note_cap;
    *c = (ctx){.name = name ? name : "config", .text = text, .len = len, .schema = schema,
               .n_keys = n_keys, .out = out, .err = err, .file_base = {.dir = base_dir}, .want = want,
               .note = note, .note_cap = note_cap};
    if (note && note_cap)
        note[0] = 0;
    if (qkv_cfg_check_schema(schema, n_keys, err))
        return QKV_ERR;
    if (want) {
        bool known = false;
        for (int i = 0; i < n_keys && !known; i++)
            known = !strcmp(schema[i].section, want->section) && !strcmp(schema[i].name, want->name);
        if (!known)
            return qkv_fail(err, "config: no key %s.%s in the schema", want->section, want->name);
        snprintf(want->text, want->cap, "%s", "");
    }
    if (n_overrides < 0 || (n_overrides > 0 && !overrides))
        return qkv_fail(err, "config: %d overrides and no list", n_overrides);
    int status = run(c, text != NULL, overrides, n_overrides);
    free(c->sec_key);
    free(c->sec_line);
    free(c->sec_col);
    free(c->key_line);
    return status;
}

int qkv_config_parse(const char *text, size_t len, const char *name, const char *base_dir,
                     const qkv_cfg_key *schema, int n_keys, void *out,
                     char *const *overrides, int n_overrides, qkv_error *err)
{
    ctx c = {0};
    return start(&c, text ? text : "", len, name, base_dir, schema, n_keys, out, overrides, n_overrides, NULL,
                 err);
}

static int load(const char *path, const qkv_cfg_key *schema, int n_keys, void *out, char *const *overrides,
                int n_overrides, const written_req *want, char *note, size_t note_cap, qkv_error *err)
{
    ctx c = {.note = note, .note_cap = note_cap};
    if (!path)
        return start(&c, NULL, 0, NULL, NULL, schema, n_keys, out, overrides, n_overrides, want, err);
    FILE *f = fopen(path, "rb");
    if (!f)
        return qkv_fail(err, "%s: cannot open: %s", path, strerror(errno));
    char *text = NULL;
    size_t len = 0, cap = 0;
    for (;;) {
        if (len + 4096 + 1 > cap) {
            cap = cap ? cap * 2 : 8192;
            char *grown = realloc(text, cap);
            if (!grown) {
                free(text);
                fclose(f);
                return qkv_fail(err, "%s: out of memory reading the file", path);
            }
            text = grown;
        }
        size_t got = fread(text + len, 1, cap - len - 1, f);
        len += got;
        if (got == 0)
            break;
    }
    int read_error = ferror(f) ? errno : 0;
    fclose(f);
    if (read_error) {
        free(text);
        return qkv_fail(err, "%s: cannot read: %s", path, strerror(read_error));
    }
    text[len] = '\0';
    char dir[PATH_MAX];
    const char *slash = strrchr(path, '/');
    if (!slash)
        snprintf(dir, sizeof dir, ".");
    else if (slash == path)
        snprintf(dir, sizeof dir, "/");
    else
        snprintf(dir, sizeof dir, "%.*s", (int)(slash - path), path);
    int status = start(&c, text, len, path, dir, schema, n_keys, out, overrides, n_overrides, want, err);
    free(text);
    return status;
}

int qkv_config_load(const char *path, const qkv_cfg_key *schema, int n_keys, void *out,
                    char *const *overrides, int n_overrides, qkv_error *err)
{
    return load(path, schema, n_keys, out, overrides, n_overrides, NULL, NULL, 0, err);
}

int qkv_config_load_noted(const char *path, const qkv_cfg_key *schema, int n_keys, void *out,
                          char *const *overrides, int n_overrides, char *note, size_t cap, qkv_error *err)
{
    return load(path, schema, n_keys, out, overrides, n_overrides, NULL, note, cap, err);
}

int qkv_config_load_written(const char *path, const qkv_cfg_key *schema, int n_keys, void *out,
                            char *const *overrides, int n_overrides, const char *section, const char *name,
                            char *text, size_t cap, qkv_error *err)
{
    if (!text || cap == 0)
        return qkv_fail(err, "config: no room for the text of %s.%s", section, name);
    written_req want = {section, name, text, cap};
    return load(path, schema, n_keys, out, overrides, n_overrides, &want, NULL, 0, err);
}
