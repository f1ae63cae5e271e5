/* libFuzzer target for the config reader (YAML through libyaml, lib/io/config.h, with the run
 * config's schema and rules, api/run_config.h; build and run: tests/data/fuzz.sh config). The
 * input is a config file's text. Properties: an error names the file; nothing is printed; an
 * accepted config written out (qkv_config_dump) reads back to the same config, and that text
 * written out again is the same text. */
#include "fuzz_common.h"

#include "api/run_config.h"

#define NAME "fuzz.yaml"

static void check_error(const qkv_error *err)
{
    fuzz_check(!strncmp(err->msg, NAME ":", strlen(NAME) + 1), "an error names the file");
}

/* cfg written out, read back and written out again gives the same text. */
static void check_round_trip(const qkv_run_config *cfg)
{
    char *text = NULL, *again = NULL;
    qkv_error err;
    fuzz_check(qkv_config_dump(QKV_RUN_SCHEMA, QKV_RUN_SCHEMA_LEN, cfg, &text, &err) == QKV_OK, "dump");
    qkv_run_config *back = calloc(1, sizeof *back);
    fuzz_check(back != NULL, "malloc");
    if (qkv_run_config_parse(text, "dumped", back, &err)) {
        fprintf(stderr, "fuzz_config: the dump does not read back: %s\n%s", err.msg, text);
        fuzz_check(0, "a dumped config reads back");
    }
    fuzz_check(qkv_config_dump(QKV_RUN_SCHEMA, QKV_RUN_SCHEMA_LEN, back, &again, &err) == QKV_OK, "dump");
    if (strcmp(text, again)) {
        fprintf(stderr, "fuzz_config: dumped\n%s\nread back and dumped\n%s", text, again);
        fuzz_check(0, "a dumped config reads back to the same config");
    }
    free(text);
    free(again);
    free(back);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static int once;
    if (!once++) { /* variables for ${VAR} and ${VAR:-default} in the seeds */
        setenv("QKV_FUZZ_DIR", "/data/corpora", 1);
        setenv("QKV_FUZZ_EMPTY", "", 1);
    }
    qkv_run_config *cfg = calloc(1, sizeof *cfg);
    char *text = malloc(size + 1);
    fuzz_check(cfg && text, "malloc");
    memcpy(text, data, size);
    text[size] = '\0';
    qkv_error err;
    fuzz_output mark = fuzz_output_mark();
    /* the text as a file gives it, NUL bytes included, against the schema alone */
    int status = qkv_config_parse(text, size, NAME, "/base", QKV_RUN_SCHEMA, QKV_RUN_SCHEMA_LEN, cfg, NULL, 0, &err);
    if (status)
        check_error(&err);
    /* and as a checkpoint's stored config: up to a NUL, with the rules between keys */
    status = qkv_run_config_parse(text, NAME, cfg, &err);
    fuzz_output_check(mark);
    if (status)
        check_error(&err);
    else
        check_round_trip(cfg);
    free(text);
    free(cfg);
    return 0;
}
