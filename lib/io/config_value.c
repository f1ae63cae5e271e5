/* Typed config values: parsing and range checks, ${VAR} expansion, relative paths, and the
 * small helpers shared with the parser (edit distance, number formatting). The rules are
 * listed in lib/io/config.h. */
#include "lib/io/config_internal.h"
#include "lib/io/utf8.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* The value text for a message: at most 60 bytes, control characters shown as '?'. */
static const char *show(const char *text, size_t len, char *buf, size_t cap)
{
    size_t n = 0;
    for (size_t i = 0; i < len && n + 4 < cap && n < 60; i++)
        buf[n++] = (unsigned char)text[i] < 0x20 || text[i] == 0x7f ? '?' : text[i];
    if (n < len && n + 4 <= cap) {
        memcpy(buf + n, "...", 3);
        n += 3;
    }
    buf[n] = '\0';
    return buf;
}

bool qkv_cfg_is_word(const char *s, const char *extra)
{
    if (!s || !*s)
        return false;
    for (; *s; s++)
        if (!isalnum((unsigned char)*s) && *s != '_' && !(extra && strchr(extra, *s)))
            return false;
    return true;
}

int qkv_cfg_distance(const char *a, const char *b)
{
    enum { MAXLEN = 64 };
    size_t na = strlen(a), nb = strlen(b);
    if (na >= MAXLEN || nb >= MAXLEN)
        return MAXLEN;
    int d[MAXLEN + 1][MAXLEN + 1];
    for (size_t i = 0; i <= na; i++)
        d[i][0] = (int)i;
    for (size_t j = 0; j <= nb; j++)
        d[0][j] = (int)j;
    for (size_t i = 1; i <= na; i++) {
        for (size_t j = 1; j <= nb; j++) {
            int ca = tolower((unsigned char)a[i - 1]), cb = tolower((unsigned char)b[j - 1]);
            int best = d[i - 1][j - 1] + (ca != cb);
            if (d[i - 1][j] + 1 < best)
                best = d[i - 1][j] + 1;
            if (d[i][j - 1] + 1 < best)
                best = d[i][j - 1] + 1;
            if (i > 1 && j > 1 && ca == tolower((unsigned char)b[j - 2]) &&
                tolower((unsigned char)a[i - 2]) == cb && d[i - 2][j - 2] + 1 < best)
                best = d[i - 2][j - 2] + 1;
            d[i][j] = best;
        }
    }
    return d[na][nb];
}

bool qkv_cfg_is_near(const char *typo, const char *candidate)
{
    if (strcmp(typo, candidate) == 0)
        return false;
    return qkv_cfg_distance(typo, candidate) <= (strlen(candidate) <= 5 ? 1 : 2);
}

void qkv_cfg_format_real(double v, char *buf, size_t cap)
{
    for (int prec = 1; prec <= 17; prec++) {
        snprintf(buf, cap, "%.*g", prec, v);
        if (strtod(buf, NULL) != v)
            continue;
        /* %g switches to an exponent once it is >= prec: write 10 and 65536, not 1e+01 and
         * 7e+04-like forms, while the digits fit in 17 */
        char *e = strchr(buf, 'e');
        int exp10 = e ? atoi(e + 1) : 0;
        if (e && exp10 >= prec && exp10 < 17)
            snprintf(buf, cap, "%.*g", exp10 + 1, v);
        return;
    }
}

void qkv_cfg_bounds(const qkv_cfg_key *k, char *lo, char *hi, size_t cap, bool *has_lo, bool *has_hi)
{
    if (k->type == QKV_CFG_INT) {
        *has_lo = k->min > INT_MIN;
        *has_hi = k->max < INT_MAX;
        snprintf(lo, cap, "%.0f", *has_lo ? k->min : (double)INT_MIN);
        snprintf(hi, cap, "%.0f", *has_hi ? k->max : (double)INT_MAX);
    } else {
        *has_lo = !isinf(k->min);
        *has_hi = !isinf(k->max);
        qkv_cfg_format_real(k->min, lo, cap);
        qkv_cfg_format_real(k->max, hi, cap);
    }
}

/* shown is the value as written; too_high tells which side it failed on. */
static int range_error(const qkv_cfg_key *k, const char *shown, bool too_high, qkv_error *err)
{
    char lo[64], hi[64];
    bool has_lo, has_hi;
    qkv_cfg_bounds(k, lo, hi, sizeof lo, &has_lo, &has_hi);
    if ((too_high && !has_hi) || (!too_high && !has_lo)) {
        if (k->type == QKV_CFG_REAL)
            return qkv_fail(err, "%s must be a finite number, got %s", k->name, shown);
        return qkv_fail(err, "%s must be at %s %s (the %s int), got %s", k->name, too_high ? "most" : "least",
                        too_high ? hi : lo, too_high ? "largest" : "smallest", shown);
    }
    if (has_lo && has_hi)
        return qkv_fail(err, "%s must be between %s and %s, got %s", k->name, lo, hi, shown);
    if (has_lo)
        return qkv_fail(err, "%s must be at least %s, got %s", k->name, lo, shown);
    return qkv_fail(err, "%s must be at most %s, got %s", k->name, hi, shown);
}

/* [-+]?[0-9]+ */
static bool is_int_text(const char *s)
{
    if (*s == '+' || *s == '-')
        s++;
    if (!isdigit((unsigned char)*s))
        return false;
    while (isdigit((unsigned char)*s))
        s++;
    return *s == '\0';
}

/* [-+]?(\.[0-9]+|[0-9]+(\.[0-9]*)?)([eE][-+]?[0-9]+)? (YAML 1.2 core, finite only) */
static bool is_real_text(const char *s)
{
    if (*s == '+' || *s == '-')
        s++;
    int digits = 0;
    while (isdigit((unsigned char)*s))
        s++, digits++;
    if (*s == '.') {
        s++;
        while (isdigit((unsigned char)*s))
            s++, digits++;
    }
    if (digits == 0)
        return false;
    if (*s == 'e' || *s == 'E') {
        s++;
        if (*s == '+' || *s == '-')
            s++;
        if (!isdigit((unsigned char)*s))
            return false;
        while (isdigit((unsigned char)*s))
            s++;
    }
    return *s == '\0';
}

static bool is_null_text(const char *s)
{
    return !*s || !strcmp(s, "~") || !strcmp(s, "null") || !strcmp(s, "Null") || !strcmp(s, "NULL");
}

/* The '}' that closes the '${' at open (nested ${...} inside it skipped), or NULL. */
static const char *closing_brace(const char *open)
{
    int depth = 0;
    for (const char *p = open; *p; p++)
        if (p[0] == '$' && p[1] == '{')
            depth++, p++;
        else if (p[0] == '}' && --depth == 0)
            return p;
    return NULL;
}

static int expand_depth(const qkv_cfg_key *k, const char *text, char *dst, size_t cap, int depth, qkv_error *err);

/* Whether s[0..n) holds "${". */
static bool has_var(const char *s, size_t n)
{
    for (size_t i = 0; i + 1 < n; i++)
        if (s[i] == '$' && s[i + 1] == '{')
            return true;
    return false;
}

/* Expands ${VAR}, ${VAR:-text} (text may hold ${...} itself) and $$ from text into dst (cap bytes
 * with the NUL). */
static int expand(const qkv_cfg_key *k, const char *text, char *dst, size_t cap, qkv_error *err)
{
    return expand_depth(k, text, dst, cap, 0, err);
}

static int expand_depth(const qkv_cfg_key *k, const char *text, char *dst, size_t cap, int depth, qkv_error *err)
{
    char nested[QKV_CFG_STR_MAX];
    char shown[80];
    size_t n = 0;
    for (const char *p = text; *p;) {
        const char *piece = p;
        size_t plen = 1;
        if (p[0] == '$' && p[1] == '$') {
            p += 2;
        } else if (p[0] == '$' && p[1] == '{') {
            const char *close = closing_brace(p);
            if (!close)
                return qkv_fail(err, "unterminated '${' in %s: '%s'", k->name,
                                show(text, strlen(text), shown, sizeof shown));
            const char *name = p + 2, *dflt = strstr(name, ":-");
            size_t name_len = (dflt && dflt < close ? dflt : close) - name;
            char var[128];
            bool ok = name_len > 0 && name_len < sizeof var && !isdigit((unsigned char)name[0]);
            for (size_t i = 0; ok && i < name_len; i++)
                ok = isalnum((unsigned char)name[i]) || name[i] == '_';
            if (!ok)
                return qkv_fail(err, "bad variable name in '%.*s' in %s (expected ${NAME} or ${NAME:-default})",
                                (int)(close - p + 1 < 60 ? close - p + 1 : 60), p, k->name);
            memcpy(var, name, name_len);
            var[name_len] = '\0';
            const char *val = getenv(var);
            if (dflt && dflt < close) {
                if (!val || !*val) {
                    val = dflt + 2;
                    plen = close - val;
                    if (has_var(val, plen)) { /* a default with its own ${...}: expanded too */
                        char inner[QKV_CFG_STR_MAX];
                        if (plen >= sizeof inner || depth >= 8)
                            return qkv_fail(err, "the default in %s is too long or nested too deep", k->name);
                        memcpy(inner, val, plen);
                        inner[plen] = '\0';
                        if (expand_depth(k, inner, nested, sizeof nested, depth + 1, err))
                            return QKV_ERR;
                        val = nested;
                        plen = strlen(nested);
                    }
                } else {
                    plen = strlen(val);
                }
            } else {
                if (!val)
                    return qkv_fail(err, "environment variable '%s' is not set (used in %s; "
                                         "write ${%s:-default} for a fallback)",
                                    var, k->name, var);
                plen = strlen(val);
            }
            piece = val;
            p = close + 1;
        } else {
            p++;
        }
        if (n + plen >= cap)
            return qkv_fail(err, "%s is longer than %zu bytes", k->name, cap - 1);
        memcpy(dst + n, piece, plen);
        n += plen;
    }
    dst[n] = '\0';
    return QKV_OK;
}

static const char *base_dir(qkv_cfg_base *base, const char *value, qkv_error *err)
{
    if (!base->resolved) {
        const char *dir = base->dir ? base->dir : ".";
        if (!realpath(dir, base->abs)) {
            qkv_fail(err, "cannot resolve directory '%s' for relative path '%s': %s", dir, value,
                     strerror(errno));
            return NULL;
        }
        base->resolved = true;
    }
    return base->abs;
}

/* value made absolute into dst (cap bytes): see lib/io/config.h. */
static int resolve_path(const qkv_cfg_key *k, const char *value, qkv_cfg_base *base, char *dst,
                        size_t cap, qkv_error *err)
{
    if (!*value || value[0] == '/') {
        if (strlen(value) >= cap)
            return qkv_fail(err, "%s is longer than %zu bytes", k->name, cap - 1);
        strcpy(dst, value);
        return QKV_OK;
    }
    const char *b = base_dir(base, value, err);
    if (!b)
        return QKV_ERR;
    if (strlen(b) >= cap)
        return qkv_fail(err, "%s is longer than %zu bytes", k->name, cap - 1);
    strcpy(dst, b);
    size_t n = strlen(dst);
    int own = 0; /* components of value appended so far */
    for (const char *p = value; *p;) {
        const char *end = strchr(p, '/');
        size_t len = end ? (size_t)(end - p) : strlen(p);
        if (len == 0 || (len == 1 && p[0] == '.')) {
            /* skip */
        } else if (len == 2 && p[0] == '.' && p[1] == '.' && own == 0) {
            char *slash = strrchr(dst, '/');
            n = slash == dst ? 1 : (size_t)(slash - dst);
            dst[n] = '\0';
        } else {
            size_t sep = n > 1 ? 1 : 0;
            if (n + sep + len >= cap)
                return qkv_fail(err, "%s is longer than %zu bytes", k->name, cap - 1);
            if (sep)
                dst[n++] = '/';
            memcpy(dst + n, p, len);
            n += len;
            dst[n] = '\0';
            own++;
        }
        p += len + (end ? 1 : 0);
    }
    return QKV_OK;
}

static int set_string(const qkv_cfg_key *k, const char *text, qkv_cfg_base *base, char *field,
                      qkv_error *err)
{
    char expanded[QKV_CFG_STR_MAX];
    if (expand(k, text, expanded, sizeof expanded, err))
        return QKV_ERR;
    if (qkv_utf8_check(expanded, strlen(expanded)) != strlen(expanded))
        return qkv_fail(err, "%s is not valid UTF-8", k->name);
    if (k->type == QKV_CFG_STRING) {
        memcpy(field, expanded, strlen(expanded) + 1);
        return QKV_OK;
    }
    return resolve_path(k, expanded, base, field, QKV_CFG_STR_MAX, err);
}

/* Bytes of an INT, BOOL or ENUM field (1, 2, 4 or 8 after the schema check). */
static size_t int_size(const qkv_cfg_key *k)
{
    return k->size ? k->size : k->type == QKV_CFG_BOOL ? sizeof(bool) : sizeof(int);
}

long long qkv_cfg_get_int(const qkv_cfg_key *k, const void *cfg)
{
    const char *field = (const char *)cfg + k->offset;
    switch (int_size(k)) {
    case 1: { int8_t v; memcpy(&v, field, 1); return v; }
    case 2: { int16_t v; memcpy(&v, field, 2); return v; }
    case 4: { int32_t v; memcpy(&v, field, 4); return v; }
    default: { int64_t v; memcpy(&v, field, 8); return v; }
    }
}

void qkv_cfg_put_int(const qkv_cfg_key *k, void *cfg, long long v)
{
    char *field = (char *)cfg + k->offset;
    switch (int_size(k)) {
    case 1: { int8_t x = (int8_t)v; memcpy(field, &x, 1); break; }
    case 2: { int16_t x = (int16_t)v; memcpy(field, &x, 2); break; }
    case 4: { int32_t x = (int32_t)v; memcpy(field, &x, 4); break; }
    default: { int64_t x = (int64_t)v; memcpy(field, &x, 8); break; }
    }
}

static int set_enum(const qkv_cfg_key *k, const char *text, const char *shown, void *out,
                    qkv_error *err)
{
    char list[512];
    size_t n = 0;
    list[0] = '\0';
    const char *near = NULL;
    for (int i = 0; k->choices[i]; i++) {
        if (!strcmp(text, k->choices[i])) {
            qkv_cfg_put_int(k, out, i);
            return QKV_OK;
        }
        if (!near && qkv_cfg_is_near(text, k->choices[i]))
            near = k->choices[i];
        if (n < sizeof list)
            n += snprintf(list + n, sizeof list - n, "%s'%s'", i ? ", " : "", k->choices[i]);
    }
    if (near)
        return qkv_fail(err, "%s must be one of %s, got %s, did you mean '%s'?", k->name, list, shown, near);
    return qkv_fail(err, "%s must be one of %s, got %s", k->name, list, shown);
}

/* A LIST value: items separated by ',' (brackets and blanks around items dropped), each a choice
 * (or a word), none twice, joined by ',' into the field. */
static int set_list(const qkv_cfg_key *k, const char *text, const char *shown, char *field, qkv_error *err)
{
    char buf[QKV_CFG_STR_MAX], out[QKV_CFG_STR_MAX];
    snprintf(buf, sizeof buf, "%s", text);
    char *s = buf, *end = buf + strlen(buf);
    while (*s == ' ' || *s == '\t')
        s++;
    while (end > s && (end[-1] == ' ' || end[-1] == '\t'))
        *--end = '\0';
    if (*s == '[' && end > s && end[-1] == ']') {
        s++;
        *--end = '\0';
    }
    size_t n = 0;
    int count = 0;
    out[0] = '\0';
    while (*s == ' ' || *s == '\t')
        s++;
    for (char *item = *s ? s : NULL, *next; item; item = next) {
        next = strchr(item, ',');
        if (next)
            *next++ = '\0';
        while (*item == ' ' || *item == '\t')
            item++;
        for (char *e = item + strlen(item); e > item && (e[-1] == ' ' || e[-1] == '\t');)
            *--e = '\0';
        if (!*item)
            return qkv_fail(err, "%s: expected a list of names separated by ',', got %s (an empty item)", k->name, shown);
        if (k->choices) {
            int probe = 0;
            qkv_cfg_key as_enum = *k;
            as_enum.offset = 0;
            as_enum.size = sizeof probe;
            char quoted[QKV_CFG_STR_MAX + 2];
            snprintf(quoted, sizeof quoted, "'%s'", item);
            if (set_enum(&as_enum, item, quoted, &probe, err))
                return QKV_ERR;
        } else if (!qkv_cfg_is_word(item, "-."))
            return qkv_fail(err, "%s: item '%s' must be a word of [A-Za-z0-9_.-]", k->name, item);
        for (const char *o = out; k->choices && *o;) {
            size_t len = strcspn(o, ",");
            if (len == strlen(item) && !memcmp(o, item, len))
                return qkv_fail(err, "%s names '%s' twice", k->name, item);
            o += len + (o[len] == ',');
        }
        n += (size_t)snprintf(out + n, sizeof out - n, "%s%s", count++ ? "," : "", item);
    }
    memcpy(field, out, n + 1);
    return QKV_OK;
}


int qkv_cfg_set_value(const qkv_cfg_key *k, const char *text, size_t len, qkv_cfg_style style,
                      qkv_cfg_base *base, void *out, qkv_error *err)
{
    char *field = (char *)out + k->offset;
    char shown_buf[80], shown[90];
    snprintf(shown, sizeof shown, "'%s'", show(text, len, shown_buf, sizeof shown_buf));
    if (memchr(text, '\0', len))
        return qkv_fail(err, "%s contains a NUL character", k->name);
    if (style == QKV_CFG_PLAIN && is_null_text(text))
        return qkv_fail(err, "no value given for %s (delete the line to use the default)", k->name);
    bool quoted = style == QKV_CFG_QUOTED;
    const char *what = quoted ? "the quoted string " : "";
    switch (k->type) {
    case QKV_CFG_INT: {
        if (quoted || !is_int_text(text))
            return qkv_fail(err, "expected an integer for %s, got %s%s", k->name, what, shown);
        errno = 0;
        long long v = strtoll(text, NULL, 10);
        if (errno == ERANGE || v < INT_MIN || v > INT_MAX || (double)v < k->min || (double)v > k->max)
            return range_error(k, shown_buf, text[0] != '-' && (errno == ERANGE || (double)v > k->max), err);
        qkv_cfg_put_int(k, out, v);
        return QKV_OK;
    }
    case QKV_CFG_REAL: {
        if (quoted || !is_real_text(text))
            return qkv_fail(err, "expected a number for %s, got %s%s", k->name, what, shown);
        double v = strtod(text, NULL);
        if (isinf(v) || v < k->min || v > k->max)
            return range_error(k, shown_buf, v > 0 && (isinf(v) || v > k->max), err);
        *(double *)field = v;
        return QKV_OK;
    }
    case QKV_CFG_BOOL: {
        bool t = !strcmp(text, "true") || !strcmp(text, "True") || !strcmp(text, "TRUE");
        bool f = !strcmp(text, "false") || !strcmp(text, "False") || !strcmp(text, "FALSE");
        if (quoted || (!t && !f))
            return qkv_fail(err, "expected true or false for %s, got %s%s", k->name, what, shown);
        qkv_cfg_put_int(k, out, t);
        return QKV_OK;
    }
    case QKV_CFG_ENUM:
        return set_enum(k, text, shown, out, err);
    case QKV_CFG_LIST:
        return set_list(k, text, shown, field, err);
    case QKV_CFG_STRING:
    case QKV_CFG_PATH:
        return set_string(k, text, base, field, err);
    }
    return qkv_fail(err, "%s has an unknown type %d", k->name, (int)k->type);
}
