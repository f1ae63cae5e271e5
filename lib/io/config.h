/* Schema-driven YAML configuration: a config file is a mapping of sections (model:, data:,
 * train:, ...), each a mapping of scalar keys. The caller describes every key once in a
 * schema (an array of qkv_cfg_key); the loader fills the caller's struct at the given offsets,
 * checks every value's type and range, and reports the first problem as
 * "config.yaml:LINE:COL: message" (1-based, from libyaml's marks) before any work starts.
 *
 * Rules of the language (YAML 1.2 core schema where it applies, stricter where it helps):
 * - INT: an optional sign and decimal digits only ("64", "-3", "+7"); no "1.5", "1e3", "0x10"
 *   or "1_000". Stored as int (or long, see the key's size); the value is within int's range.
 * - REAL: an integer or a decimal float with optional exponent ("3", "0.5", ".5", "1e-3",
 *   "-2.5E+2"); no ".inf" or ".nan" (every value must be finite). Stored as double.
 * - BOOL: true/True/TRUE or false/False/FALSE. YAML 1.1's yes/no/on/off are rejected (they
 *   are the classic YAML surprise). Stored as bool (or int, see the key's size): 1 or 0.
 * - ENUM: one of the key's choices, case-sensitive. Stored as the index into choices, in an
 *   int-like field: a C enum whose values are those indices (its names exported beside it, in
 *   the enum's order, are the choices), or an int.
 * - LIST: one item (a scalar) or a YAML list of them ("[upos, xpos]", or "- upos" lines); in
 *   --set, items separated by ',' ("upos,xpos", brackets allowed). Each item is one of the key's
 *   choices, none twice (or, for a key without choices, any word
 *   of [A-Za-z0-9_.-]); "[]" or "" is the empty list. Stored
 *   as the items joined by ',' ("upos,xpos"); written back as the bare item when there is one.
 * - STRING and PATH: any scalar; stored as char[QKV_CFG_STR_MAX], valid UTF-8, NUL-terminated.
 *   Both are expanded from the environment: "${VAR}" is VAR's value (an unset VAR is an error
 *   naming it), "${VAR:-text}" is VAR's value or text when VAR is unset or empty (text is
 *   expanded the same way, so defaults nest: "${A:-${B:-x}}", at most 8 deep; its other '}'
 *   are literal only after "$$"), "$$" is a literal '$', and any other '$' is literal.
 *   PATH values are then made absolute: a relative path is joined to the config file's
 *   directory (for --set overrides and when no file is given: the current directory), with
 *   "." components dropped and ".." resolved against that directory (the base is
 *   canonicalized by realpath; ".." after the path's own components is kept as written).
 *   An empty PATH stays empty (meaning "none"); an absolute PATH is kept as written.
 * - In a file, INT/REAL/BOOL values must be plain (unquoted) scalars: "64" in quotes is a
 *   string. An empty value, "~" or "null" is an error (delete the line to get the default).
 *   Quoted STRING/PATH/ENUM values are fine; '' or "" gives an empty STRING/PATH.
 * - A section written with no keys ("model:" alone) is an empty section: all defaults.
 * - A key missing from the file takes its default; a key whose default_value is NULL is
 *   required. Anchors, aliases, tags and more than one document are not supported.
 *
 * Overrides are "section.key=value" strings (from --set). The text after '=' is taken
 * literally (the shell has already removed any quotes): "--set data.name=" sets an empty
 * string. They are checked like file values and applied in order after the file, so the last
 * one wins; errors read "--set model.d_modle=4: unknown key 'd_modle' in section 'model', did
 * you mean 'd_model'?".
 *
 * A default_value is text read like an override's value, so it is expanded and (for PATH)
 * resolved too, relative to the config file's directory, as if written in the file. It is read
 * only when the key is missing; a bad one is reported as "config.yaml: default of section.key:
 * ...". Other schema mistakes (min >= max, a key listed twice, an ENUM without choices, a key
 * without doc, a field size the type cannot have) are reported by every load as
 * "config schema: section.key: ...".
 *
 * Scoped keys: a key with a scope is read only by some kinds (model.d_ff by the transformer
 * encoder). Set to other than its default while the scope key picks another kind, it is an
 * error "config.yaml: model.d_ff does not apply to model.encoder: bilstm (it is read by
 * transformer only); remove it", except when --set changed the scope key away from the kind the
 * file chose and the key came from the file: then it is reset to its default and named in a note
 * (qkv_config_load_noted), so that "--set model.encoder=bilstm" switches a file's encoder.
 *
 * Only the first problem is reported. Messages name keys by their bare name ("d_model must be
 * between 1 and 65536, got 0"); the line and column say where. */
#ifndef QKV_CONFIG_H
#define QKV_CONFIG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "lib/error.h"

/* Size of the char arrays that hold STRING and PATH values, including the final NUL. */
#define QKV_CFG_STR_MAX 1024

typedef enum {
    QKV_CFG_INT,    /* int or long */
    QKV_CFG_REAL,   /* double */
    QKV_CFG_BOOL,   /* bool or int */
    QKV_CFG_STRING, /* char[QKV_CFG_STR_MAX] */
    QKV_CFG_PATH,   /* char[QKV_CFG_STR_MAX], absolute after loading (or empty) */
    QKV_CFG_ENUM,   /* an enum or int: index into choices */
    QKV_CFG_LIST    /* char[QKV_CFG_STR_MAX]: the items joined by ',' */
} qkv_cfg_type;

typedef struct qkv_cfg_key {
    const char *section;        /* "model": letters, digits, '_' */
    const char *name;           /* "d_model": letters, digits, '_' */
    qkv_cfg_type type;
    size_t offset;              /* offsetof(the caller's struct, field) */
    double min, max;            /* INT/REAL: inclusive range, min < max; use -INFINITY,
                                   INFINITY (REAL) or INT_MIN, INT_MAX (INT) for no bound */
    const char *const *choices; /* ENUM: NULL-terminated list of words ([A-Za-z0-9_.-]) */
    const char *default_value;  /* text of the default, read like a --set value; NULL = required */
    const char *doc;            /* one line, for qkv_config_doc */
    size_t size;                /* sizeof the field, so that a key can fill a field of a library's
                                   own struct as declared there: INT, BOOL and ENUM store their
                                   integer in 1, 2, 4 or 8 bytes (bool, an enum, int, long); REAL
                                   needs sizeof(double), STRING and PATH QKV_CFG_STR_MAX.
                                   0: int (INT, ENUM), bool (BOOL), the only size (others). */
    const char *scope;          /* NULL: the key is always read. Else the name of an ENUM key of
                                   the same section that picks a kind ("encoder"): the key is
                                   read only by the kinds in scope_mask (see "Scoped keys") */
    unsigned scope_mask;        /* bit i: read when the scope key's value is its choice i */
} qkv_cfg_key;

/* Reads the YAML file at path and fills out (the caller's struct described by schema[0..n_keys))
 * with its values, the defaults of missing keys, and then the overrides
 * ("section.key=value", n_overrides of them; overrides may be NULL when n_overrides is 0).
 * path NULL: no file, defaults and overrides only.
 * Returns QKV_OK, or QKV_ERR with one message in err ("path:line:col: ...", "--set ...: ...",
 * "path: cannot open: ...", "path: default of s.k: ...", "config schema: ..."); out may be
 * partly written on error. */
int qkv_config_load(const char *path, const qkv_cfg_key *schema, int n_keys, void *out,
                    char *const *overrides, int n_overrides, qkv_error *err);

/* Like qkv_config_load; keys of a kind --set switched away from (see "Scoped keys") are reset to
 * their defaults and named in note ("config.yaml: --set model.encoder=bilstm: ignoring model.d_ff
 * from the file (it does not apply to model.encoder: bilstm)"; cap bytes, truncated; "" when
 * none was ignored). */
int qkv_config_load_noted(const char *path, const qkv_cfg_key *schema, int n_keys, void *out,
                          char *const *overrides, int n_overrides, char *note, size_t cap, qkv_error *err);

/* Like qkv_config_load, and also gives the text of one key (section.name) as it was written,
 * before ${VAR} expansion and path resolution, for messages that name the variables a value
 * came from: its last --set value, else its value in the file, else the schema's default,
 * copied into text (cap bytes, truncated). Errors: those of qkv_config_load; a key not in the
 * schema. */
int qkv_config_load_written(const char *path, const qkv_cfg_key *schema, int n_keys, void *out,
                            char *const *overrides, int n_overrides, const char *section, const char *name,
                            char *text, size_t cap, qkv_error *err);

/* Like qkv_config_load, from YAML text in memory (len bytes; e.g. the resolved config stored in
 * a checkpoint). name is used in messages in place of a file path; relative PATH values are
 * joined to base_dir (NULL: the current directory). */
int qkv_config_parse(const char *text, size_t len, const char *name, const char *base_dir,
                     const qkv_cfg_key *schema, int n_keys, void *out,
                     char *const *overrides, int n_overrides, qkv_error *err);

/* The resolved config cfg as YAML text: every key, sections in the order of their first key in
 * the schema, keys in schema order; STRING and PATH values double-quoted (with '$' written as
 * "$$"), REAL values in the fewest digits that read back to the same double. Loading the text
 * gives back the same struct. *text is malloc'd; the caller frees it. */
int qkv_config_dump(const qkv_cfg_key *schema, int n_keys, const void *cfg, char **text,
                    qkv_error *err);

/* The keys of section whose values differ between a and b (both filled by schema), as
 * "model.d_model 128 vs 64, model.d_ff 512 vs 256" (a's value first; values as a config writes
 * them, each cut at 100 bytes) into out (cap bytes, truncated). Returns how many differ. */
int qkv_config_differences(const qkv_cfg_key *schema, int n_keys, const char *section, const void *a,
                           const void *b, char *out, size_t cap);

/* Writes a markdown table of every key to out: section, key, type, default, range or
 * choices, description. Fails (QKV_ERR) only if writing fails. */
int qkv_config_doc(const qkv_cfg_key *schema, int n_keys, FILE *out, qkv_error *err);

/* --- lib/io/config_rules.c: relations between keys, as data ------------------------------ */
typedef enum {
    QKV_CFG_RULE_ODD,       /* a (INT) is odd: "A = 4 must be odd" */
    QKV_CFG_RULE_DIVIDES,   /* a (INT) divides b (INT): "A = 3 does not divide B = 64" */
    QKV_CFG_RULE_NOT_ABOVE, /* a <= b (INT or REAL): "A = 2 is above B = 1" */
    QKV_CFG_RULE_NEEDS,     /* when holds, a ("section.key=value") holds: "WHEN needs A = v, got w" */
    QKV_CFG_RULE_REQUIRED,  /* a is not empty (STRING, PATH) or not 0: "A is required when K is v" */
    QKV_CFG_RULE_FORBIDDEN, /* a ("section.key=value") does not hold: "A = v" and why */
    QKV_CFG_RULE_CHECK      /* check(cfg, where, err), for arithmetic the kinds above cannot say;
                               why describes it in the docs */
} qkv_cfg_rule_kind;

/* One relation between keys. Keys are named "section.key"; a condition is "section.key=value",
 * value as written in a config (an ENUM choice, an integer, true or false). */
typedef struct qkv_cfg_rule {
    qkv_cfg_rule_kind kind;
    const char *a, *b;  /* the keys (b: DIVIDES and NOT_ABOVE only; else NULL) */
    const char *when;   /* a condition: the rule applies only when it holds; NULL = always */
    const char *why;    /* ends the message after a space (the reason), or NULL */
    int (*check)(const void *cfg, const char *where, qkv_error *err); /* CHECK only */
} qkv_cfg_rule;

/* Checks cfg (filled by schema[0..n_keys)) against rules[0..n_rules) in order; the first one
 * broken is QKV_ERR with "where: " and the rule's message, naming its keys and their values
 * (INT as integers, REAL as %g, ENUM as the choice). A rule naming no key of the schema, or with
 * a malformed condition, is the error "config rules: ...". */
int qkv_config_check_rules(const qkv_cfg_key *schema, int n_keys, const qkv_cfg_rule *rules, int n_rules,
                           const void *cfg, const char *where, qkv_error *err);

/* Writes the rules as a markdown list, one line each ("- `model.cnn_kernel` is odd ..."). */
int qkv_config_doc_rules(const qkv_cfg_rule *rules, int n_rules, FILE *out, qkv_error *err);

/* True when typo is close enough to candidate to suggest it ("did you mean"): edit distance
 * (ASCII case ignored) 1 for candidates of up to 5 characters, 2 for longer ones, never
 * identical. Also used for the command line's option names. */
bool qkv_cfg_is_near(const char *typo, const char *candidate);

#endif
