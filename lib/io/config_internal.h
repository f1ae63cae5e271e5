/* Shared by lib/io/config.c (parsing), lib/io/config_value.c (typed values) and lib/io/config_dump.c
 * (dump, docs). Not part of the public API. */
#ifndef QKV_CONFIG_INTERNAL_H
#define QKV_CONFIG_INTERNAL_H

#include <limits.h>

#include "lib/io/config.h"

#ifndef PATH_MAX
#define PATH_MAX 4096
#endif

/* How a value's text was written: literally (a --set value or a schema default), or in a YAML
 * file as a plain scalar or a quoted/block scalar (a quoted scalar is always a string). */
typedef enum { QKV_CFG_TEXT, QKV_CFG_PLAIN, QKV_CFG_QUOTED } qkv_cfg_style;

/* The directory relative PATH values are joined to; made absolute on first use. */
typedef struct qkv_cfg_base {
    const char *dir; /* NULL: the current directory */
    char abs[PATH_MAX];
    bool resolved;
} qkv_cfg_base;

/* Parses text[0..len) as key k's type, checks its range or choices, expands STRING/PATH values
 * and resolves PATH values against base, and stores the result at (char *)out + k->offset.
 * text[len] must be the NUL. On failure returns QKV_ERR with a message that names the key but
 * not the place. */
int qkv_cfg_set_value(const qkv_cfg_key *k, const char *text, size_t len, qkv_cfg_style style,
                      qkv_cfg_base *base, void *out, qkv_error *err);

/* The integer in the field of an INT, BOOL or ENUM key k of the struct at cfg (k->size bytes,
 * see lib/io/config.h), read and written. The size is checked by the schema check. */
long long qkv_cfg_get_int(const qkv_cfg_key *k, const void *cfg);
void qkv_cfg_put_int(const qkv_cfg_key *k, void *cfg, long long v);

/* (lib/io/config_schema_check.c) The schema's own mistakes: names that are not words, a key
 * listed twice, no doc, a field size its type cannot have, a bad range, an enum without choices,
 * a bad scope ("config schema: section.key: ..."). */
int qkv_cfg_check_schema(const qkv_cfg_key *schema, int n_keys, qkv_error *err);

/* (lib/io/config_scope.c) The index of key k's scope key in schema, or -1 (none, or not found). */
int qkv_cfg_scope_key(const qkv_cfg_key *schema, int n_keys, const qkv_cfg_key *k);
/* Schema check of k's scope: an unscoped ENUM key of k's section, a mask of its choices. */
int qkv_cfg_check_scope_schema(const qkv_cfg_key *schema, int n_keys, const qkv_cfg_key *k, qkv_error *err);

/* A loaded config as qkv_cfg_check_scopes sees it. */
typedef struct qkv_cfg_scope_ctx {
    const qkv_cfg_key *schema;
    int n_keys;
    void *out;
    const char *name;        /* the file name for messages ("config" without a file) */
    const int *key_line;     /* [n_keys]: line in the file, -1 = last set by --set, 0 = default */
    const long long *before; /* [n_keys]: ENUM values after the file and its defaults, before --set */
    qkv_cfg_base *base;
    char *note;              /* the ignored keys, appended (may be NULL) */
    size_t note_cap;
} qkv_cfg_scope_ctx;

/* After loading: each scoped key that the chosen kind does not read must be at its default
 * (else the error "NAME: model.d_ff does not apply to model.encoder: bilstm (it is read by
 * transformer only); remove it"), unless --set switched the kind and the key came from the
 * file: then it is reset to its default and named in the note. */
int qkv_cfg_check_scopes(const qkv_cfg_scope_ctx *c, qkv_error *err);

/* Optimal-string-alignment edit distance (insertions, deletions, substitutions and swaps of
 * neighbours each cost 1), ignoring ASCII case. */
int qkv_cfg_distance(const char *a, const char *b);

/* v in the fewest significant digits that read back as exactly v, without an exponent when
 * it fits in 17 digits ("10", "1000000", "0.001", "1e-05", "1e+20"). */
void qkv_cfg_format_real(double v, char *buf, size_t cap);

/* Lower and upper bound of an INT/REAL key as text for messages and docs; *has_lo / *has_hi are
 * false for a side with no bound (-INFINITY/INFINITY, or INT_MIN/INT_MAX for INT). */
void qkv_cfg_bounds(const qkv_cfg_key *k, char *lo, char *hi, size_t cap, bool *has_lo, bool *has_hi);

/* True for a non-empty word of [A-Za-z0-9_] (extra: further allowed characters). */
bool qkv_cfg_is_word(const char *s, const char *extra);

#endif
