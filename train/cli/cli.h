/* The subcommands' options, declared as a table and parsed by one function, and small helpers. */
#ifndef QKV_CLI_H
#define QKV_CLI_H

#include <stdbool.h>
#include <stddef.h>

/* Most values a LIST row takes (--set overrides, plot's RUN_DIRs). */
#define QKV_CLI_MAX_LIST 256

typedef enum {
    QKV_CLI_FLAG,   /* field: bool *, set true when given (a flag takes no value) */
    QKV_CLI_STRING, /* field: const char **, the value (given last wins) */
    QKV_CLI_INT,    /* field: long *, a whole number in [lo, hi] */
    QKV_CLI_CHOICE, /* field: int *, the index of the value in choices (NULL-terminated) */
    QKV_CLI_LIST,   /* field: char *[QKV_CLI_MAX_LIST] and count: every value in order (repeatable) */
} qkv_cli_kind;

/* One row of a command's table: an option ("--out") or a positional argument ("CONFIG", taken
 * in table order; a LIST positional takes all that are left). Rows after the kind are
 * optional: write them with designated initializers (.lo, .hi, .choices, .count, .required). */
typedef struct qkv_cli_opt {
    const char *name;
    qkv_cli_kind kind;
    void *field;
    const char *metavar; /* "FILE" in "--out FILE"; positional: its form in the usage line
                          * (e.g. "FILE|-"); NULL: none (CHOICE: the choices joined by '|') */
    const char *help;    /* the option's text in --help ('\n' continues it, indented); NULL: an
                          * option left out of the list (positionals are never listed) */
    long lo, hi;                /* INT */
    const char *const *choices; /* CHOICE */
    int *count;                 /* LIST */
    bool required;              /* STRING or LIST: missing is a usage error */
} qkv_cli_opt;

/* A command: its name, the text of its --help around the option list, and its table. */
typedef struct qkv_cli_spec {
    const char *cmd;   /* "train" */
    const char *about; /* what the command does (paragraphs; ends in '\n') */
    const char *notes; /* after the option list (NULL: nothing) */
    const qkv_cli_opt *opts;
    int n_opts;
} qkv_cli_spec;

/* Rows name only the fields they use; C zeroes the rest (which -Wextra would flag). */
#pragma GCC diagnostic ignored "-Wmissing-field-initializers"

#define QKV_CLI_N(table) ((int)(sizeof(table) / sizeof((table)[0])))

/* A whole-number macro's digits as a string literal, so that a help line states the default the
 * code uses: "default " QKV_CLI_STR(QKV_SEG_MAX_SENTENCE_WORDS). */
#define QKV_CLI_STR(x) QKV_CLI_STR_(x)
#define QKV_CLI_STR_(x) #x

/* Parses argv[1 .. argc-1] (argv[0] is the command's name) into the table's fields:
 * `--opt value`, `--opt=value`, flags, positional arguments ("-" is one; after "--" every
 * argument is one). --help or -h prints the help (usage line, about, one line per option,
 * notes) on stdout and returns 0. A usage error (unknown option, with a "did you mean" for a
 * near one; missing value; a value that is no whole number in range or not one of the choices;
 * a missing required argument; one argument too many) prints "qkv CMD: what is wrong" and the
 * usage line on stderr and returns 2. Otherwise returns -1: go on. */
int qkv_cli_parse(const qkv_cli_spec *spec, int argc, char **argv);

/* text[0 .. len-1] as a whole number in [lo, hi] into *out: an optional '-' then decimal
 * digits, nothing else (no space, no '+'), checked for overflow digit by digit. Every integer
 * that enters from the command line goes through it (QKV_CLI_INT rows, the numbers inside
 * string options). false (and *out untouched) when it is not one or out of range. */
bool qkv_cli_whole(const char *text, size_t len, long lo, long hi, long *out);

/* text as exactly n whole numbers in [lo, hi] separated by sep ("3,4", "1600x800") into out[n];
 * false when it is not. */
bool qkv_cli_wholes(const char *text, char sep, int n, long lo, long hi, long *out);

/* A usage error found by the command itself (a check across options): prints
 * "qkv CMD: " and the formatted message and the usage line on stderr; returns 2. */
int qkv_cli_usage_error(const qkv_cli_spec *spec, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* The config part of a command line: CONFIG and its --set section.key=value overrides; the rows
 * QKV_CLI_CONFIG_ROWS(c, required) fill it. */
typedef struct qkv_cli_config {
    const char *path;
    char *overrides[QKV_CLI_MAX_LIST];
    int n_overrides;
} qkv_cli_config;

#define QKV_CLI_CONFIG_ROWS(c, req)                                                                                  \
    {"CONFIG", QKV_CLI_STRING, &(c)->path, NULL, NULL, .required = (req)},                                        \
    {"--set", QKV_CLI_LIST, (c)->overrides, "section.key=value",                                                   \
     "override one config key (repeatable), e.g. --set train.epochs=3", .count = &(c)->n_overrides}

#endif
