#include "train/cli/cli.h"

#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/io/config.h"

#define QKV_CLI_WIDTH 100 /* the usage line wraps before this column */

static bool is_positional_row(const qkv_cli_opt *o) { return o->name[0] != '-'; }

/* "N" in "--sentences N", "conllu|text" for a choice, "" for a flag. */
static void metavar_of(const qkv_cli_opt *o, char *buf, size_t cap)
{
    size_t n = 0;
    buf[0] = '\0';
    if (o->metavar || o->kind != QKV_CLI_CHOICE) {
        snprintf(buf, cap, "%s", o->metavar ? o->metavar : is_positional_row(o) ? o->name : "");
        return;
    }
    for (int c = 0; o->choices[c] && n < cap; c++)
        n += (size_t)snprintf(buf + n, cap - n, "%s%s", c ? "|" : "", o->choices[c]);
}

/* "usage: qkv CMD CONFIG [--out RUN_DIR] [--set section.key=value]... [--force]", wrapped. */
static void print_usage(const qkv_cli_spec *sp, FILE *out)
{
    int col = fprintf(out, "usage: qkv %s", sp->cmd), indent = col;
    for (int pass = 0; pass < 2; pass++)
        for (int k = 0; k < sp->n_opts; k++) {
            const qkv_cli_opt *o = &sp->opts[k];
            if (is_positional_row(o) != (pass == 0))
                continue;
            char mv[256], word[400];
            metavar_of(o, mv, sizeof mv);
            bool optional = !o->required, list = o->kind == QKV_CLI_LIST;
            if (pass == 0 && list && optional) /* "[MODEL...]" */
                snprintf(word, sizeof word, "[%s...]", mv);
            else
                snprintf(word, sizeof word, "%s%s%s%s%s%s", optional ? "[" : "", pass ? o->name : "",
                         pass && *mv ? " " : "", mv, optional ? "]" : "", list ? "..." : "");
            if (col + 1 + (int)strlen(word) > QKV_CLI_WIDTH) {
                fprintf(out, "\n%*s", indent, "");
                col = indent;
            }
            col += fprintf(out, " %s", word);
        }
    fputc('\n', out);
}

static void print_help(const qkv_cli_spec *sp, FILE *out)
{
    print_usage(sp, out);
    fprintf(out, "\n%s", sp->about);
    int width = 0;
    char mv[256];
    for (int k = 0; k < sp->n_opts; k++)
        if (!is_positional_row(&sp->opts[k]) && sp->opts[k].help) {
            metavar_of(&sp->opts[k], mv, sizeof mv);
            int w = (int)(strlen(sp->opts[k].name) + (*mv ? 1 + strlen(mv) : 0));
            width = w > width ? w : width;
        }
    bool first = true;
    for (int k = 0; k < sp->n_opts; k++) {
        const qkv_cli_opt *o = &sp->opts[k];
        if (is_positional_row(o) || !o->help)
            continue;
        metavar_of(o, mv, sizeof mv);
        char left[400];
        snprintf(left, sizeof left, "%s%s%s", o->name, *mv ? " " : "", mv);
        fprintf(out, "%s  %-*s  ", first ? "\n" : "", width, left);
        first = false;
        for (const char *p = o->help; *p;) {
            size_t n = strcspn(p, "\n");
            fprintf(out, "%.*s\n", (int)n, p);
            p += n;
            if (*p && *++p)
                fprintf(out, "  %*s  ", width, "");
        }
    }
    if (sp->notes)
        fprintf(out, "\n%s", sp->notes);
}

int qkv_cli_usage_error(const qkv_cli_spec *sp, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fprintf(stderr, "qkv %s: ", sp->cmd);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fputc('\n', stderr);
    print_usage(sp, stderr);
    fprintf(stderr, "(qkv %s --help describes every option)\n", sp->cmd);
    return 2;
}

bool qkv_cli_whole(const char *text, size_t len, long lo, long hi, long *out)
{
    size_t i = len > 0 && text[0] == '-' ? 1 : 0;
    if (i == len)
        return false;
    bool neg = i == 1;
    /* accumulate toward the sign so that LONG_MIN is reachable */
    long v = 0;
    for (; i < len; i++) {
        if (text[i] < '0' || text[i] > '9')
            return false;
        int d = text[i] - '0';
        if (neg ? v < (LONG_MIN + d) / 10 : v > (LONG_MAX - d) / 10)
            return false;
        v = neg ? v * 10 - d : v * 10 + d;
    }
    if (v < lo || v > hi)
        return false;
    *out = v;
    return true;
}

bool qkv_cli_wholes(const char *text, char sep, int n, long lo, long hi, long *out)
{
    const char *p = text;
    for (int k = 0; k < n; k++) {
        const char *end = k == n - 1 ? p + strlen(p) : strchr(p, sep);
        if (!end || !qkv_cli_whole(p, (size_t)(end - p), lo, hi, &out[k]))
            return false;
        p = end + 1;
    }
    return true;
}

/* Stores value into o's field; returns -1, or 2 after a usage error. */
static int take(const qkv_cli_spec *sp, const qkv_cli_opt *o, const char *value)
{
    switch (o->kind) {
    case QKV_CLI_FLAG:
        *(bool *)o->field = true;
        return -1;
    case QKV_CLI_STRING:
        *(const char **)o->field = value;
        return -1;
    case QKV_CLI_INT: {
        long v;
        bool ok = qkv_cli_whole(value, strlen(value), o->lo, o->hi, &v);
        if (!ok && o->hi >= INT_MAX)
            return qkv_cli_usage_error(sp, "%s takes a whole number from %ld up, got '%s'", o->name, o->lo, value);
        if (!ok)
            return qkv_cli_usage_error(sp, "%s takes a whole number from %ld to %ld, got '%s'", o->name, o->lo, o->hi,
                                       value);
        *(long *)o->field = v;
        return -1;
    }
    case QKV_CLI_CHOICE: {
        char list[400];
        size_t n = 0;
        const char *near = NULL;
        int c = 0;
        for (; o->choices[c]; c++)
            if (!strcmp(value, o->choices[c])) {
                *(int *)o->field = c;
                return -1;
            } else if (!near && qkv_cfg_is_near(value, o->choices[c]))
                near = o->choices[c];
        for (int k = 0; k < c && n < sizeof list; k++)
            n += (size_t)snprintf(list + n, sizeof list - n, "%s%s", k == 0 ? "" : k == c - 1 ? " or " : ", ",
                                  o->choices[k]);
        if (near)
            return qkv_cli_usage_error(sp, "%s is %s, not '%s'; did you mean '%s'?", o->name, list, value, near);
        return qkv_cli_usage_error(sp, "%s is %s, not '%s'", o->name, list, value);
    }
    case QKV_CLI_LIST:
        if (*o->count == QKV_CLI_MAX_LIST)
            return qkv_cli_usage_error(sp, "more than %d %s", QKV_CLI_MAX_LIST, o->name);
        ((char **)o->field)[(*o->count)++] = (char *)value;
        return -1;
    }
    return -1;
}

/* argv's argument a, not an option of the table: a usage error with the nearest name. */
static int unknown_option(const qkv_cli_spec *sp, const char *a, size_t len)
{
    char name[128];
    snprintf(name, sizeof name, "%.*s", (int)(len < sizeof name ? len : sizeof name - 1), a);
    for (int k = 0; k < sp->n_opts; k++)
        if (!is_positional_row(&sp->opts[k]) && qkv_cfg_is_near(name, sp->opts[k].name))
            return qkv_cli_usage_error(sp, "unknown option '%s', did you mean '%s'?", a, sp->opts[k].name);
    return qkv_cli_usage_error(sp, "unknown option '%s'", a);
}

/* The next positional row to fill after n_taken single positionals; NULL: none is left. */
static const qkv_cli_opt *positional_row(const qkv_cli_spec *sp, int n_taken)
{
    const qkv_cli_opt *list = NULL;
    for (int k = 0; k < sp->n_opts; k++) {
        const qkv_cli_opt *o = &sp->opts[k];
        if (!is_positional_row(o))
            continue;
        if (o->kind == QKV_CLI_LIST)
            list = o;
        else if (n_taken-- == 0)
            return o;
    }
    return list;
}

int qkv_cli_parse(const qkv_cli_spec *sp, int argc, char **argv)
{
    bool only_positional = false;
    bool given[sp->n_opts + 1];
    memset(given, 0, sizeof given);
    int n_taken = 0;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        const qkv_cli_opt *o = NULL;
        int status;
        if (only_positional || a[0] != '-' || !a[1]) {
            if (!(o = positional_row(sp, n_taken))) {
                char took[400] = "";
                size_t n = 0;
                for (int k = 0; k < sp->n_opts && n < sizeof took; k++)
                    if (is_positional_row(&sp->opts[k]))
                        n += (size_t)snprintf(took + n, sizeof took - n, " %s", sp->opts[k].name);
                return qkv_cli_usage_error(sp, "unexpected argument '%s' (qkv %s takes %s)", a, sp->cmd,
                                           n ? took + 1 : "options only");
            }
            n_taken += o->kind != QKV_CLI_LIST;
            status = take(sp, o, a);
        } else if (!strcmp(a, "--")) {
            only_positional = true;
            continue;
        } else if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
            print_help(sp, stdout);
            return 0;
        } else {
            size_t len = strcspn(a, "=");
            for (int k = 0; k < sp->n_opts && !o; k++)
                if (!is_positional_row(&sp->opts[k]) && strlen(sp->opts[k].name) == len &&
                    !strncmp(a, sp->opts[k].name, len))
                    o = &sp->opts[k];
            if (!o)
                return unknown_option(sp, a, len);
            if (o->kind == QKV_CLI_FLAG && a[len])
                return qkv_cli_usage_error(sp, "%s takes no value, got '%s'", o->name, a);
            char mv[256];
            metavar_of(o, mv, sizeof mv);
            if (o->kind != QKV_CLI_FLAG && !a[len] && i + 1 >= argc)
                return qkv_cli_usage_error(sp, "%s needs a value (%s)", o->name, mv);
            status = take(sp, o, o->kind == QKV_CLI_FLAG ? NULL : a[len] ? a + len + 1 : argv[++i]);
        }
        if (status >= 0)
            return status;
        given[o - sp->opts] = true;
    }
    for (int k = 0; k < sp->n_opts; k++)
        if (sp->opts[k].required && !given[k])
            return qkv_cli_usage_error(sp, "missing %s", sp->opts[k].name);
    return -1;
}
