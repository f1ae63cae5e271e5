/* A model file's config is bounded by the parameters the file stores (api/model_file.h): a
 * small file whose /config declares a huge model (64 layers of width 4096 with d_ff 65536,
 * ~155 GB of parameters and gradients) is refused with an error naming the file, before the
 * model is allocated. The load runs in a child process whose address space is limited to what
 * it uses plus 512 MiB (RLIMIT_AS; not under AddressSanitizer, which reserves terabytes of
 * shadow memory): a reader that allocated the model first would fail there with "out of
 * memory" instead. The same parameters under their own config still load. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "api/model_file.h"
#include "child_run.h"

static char dir[64];

static const char DATA[] = "data: {source: synthetic, synthetic_train: 40, synthetic_dev: 10, synthetic_seed: 1}\n";
static const char SMALL[] = "model: {d_model: 8, n_heads: 2, n_layers: 1, d_ff: 16}\n";
static const char HUGE[] = "model: {d_model: 4096, n_heads: 4, n_layers: 64, d_ff: 65536}\n";

static int setup(void **state)
{
    (void)state;
    snprintf(dir, sizeof dir, "/tmp/qkv-test-bound-XXXXXX");
    return mkdtemp(dir) ? 0 : -1;
}

static int teardown(void **state)
{
    (void)state;
    char cmd[128];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    return system(cmd) == 0 ? 0 : -1;
}

/* A model file at path: the parameters and vocabularies of the small model of DATA and SMALL,
 * with DATA and model as its stored config. */
static void write_file(const char *path, const char *model)
{
    qkv_session s;
    qkv_session_init(&s);
    qkv_error err;
    char text[512];
    snprintf(text, sizeof text, "%s%s", DATA, SMALL);
    if (qkv_run_config_parse(text, "small", &s.cfg, &err) || qkv_session_data(&s, true, &err) ||
        qkv_session_model(&s, 1, &err))
        fail_msg("%s", err.msg);
    snprintf(text, sizeof text, "%s%s", DATA, model);
    assert_non_null(s.config_text = strdup(text));
    qkv_store_writer *w;
    if (qkv_store_create(path, &w, &err) || qkv_model_file_write(w, &s, &err) || qkv_store_commit(w, &err))
        fail_msg("%s", err.msg);
    qkv_session_free(&s);
}

/* Child: loads the model file at path (arg); writes '0' or '1' (the load's status) and the
 * load's message to fd. */
static void load_child(int fd, void *arg)
{
    qkv_session s;
    qkv_session_init(&s);
    qkv_error err = {.msg = ""};
    int status = qkv_checkpoint_load_model(arg, &s, &err);
    qkv_session_free(&s);
    char out[sizeof err.msg + 1];
    out[0] = status == QKV_OK ? '0' : '1';
    memcpy(out + 1, err.msg, sizeof err.msg);
    size_t n = 1 + strlen(err.msg);
    _exit(write(fd, out, n) == (ssize_t)n ? 0 : 2);
}

/* Loads path in a child under a limited address space (what it uses plus 512 MiB); the
 * load's status and message come back through a pipe. */
static int load_limited(const char *path, char *msg, size_t cap)
{
    assert_int_equal(child_run(load_child, (void *)path, (size_t)512 << 20, msg, cap), 0);
    assert_true(msg[0] == '0' || msg[0] == '1');
    return msg[0] == '0' ? QKV_OK : QKV_ERR;
}

static void test_huge_config_refused_before_allocation(void **state)
{
    (void)state;
    char path[128], msg[1200];
    snprintf(path, sizeof path, "%s/huge.h5", dir);
    write_file(path, HUGE);
    assert_int_equal(load_limited(path, msg, sizeof msg), QKV_ERR);
    const char *text = msg + 1;
    if (!strstr(text, path) || !strstr(text, "/params holds") || !strstr(text, "past their bound"))
        fail_msg("expected an error naming %s and the bound of its /params, got: %s", path, text);
}

static void test_own_config_loads(void **state)
{
    (void)state;
    char path[128], msg[1200];
    snprintf(path, sizeof path, "%s/small.h5", dir);
    write_file(path, SMALL);
    if (load_limited(path, msg, sizeof msg) != QKV_OK)
        fail_msg("%s", msg + 1);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_own_config_loads, setup, teardown),
        cmocka_unit_test_setup_teardown(test_huge_config_refused_before_allocation, setup, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
