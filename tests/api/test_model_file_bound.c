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
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>

#include "api/model_file.h"

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

/* The bytes of address space this process has mapped (/proc/self/statm, its first field). */
static size_t mapped_bytes(void)
{
    FILE *f = fopen("/proc/self/statm", "r");
    unsigned long pages = 0;
    if (!f || fscanf(f, "%lu", &pages) != 1)
        pages = 0;
    if (f)
        fclose(f);
    return (size_t)pages * (size_t)sysconf(_SC_PAGESIZE);
}

/* Loads path in a child under a limited address space; the load's status and message come back
 * through a pipe. */
static int load_limited(const char *path, char *msg, size_t cap)
{
    int fds[2];
    assert_int_equal(pipe(fds), 0);
    pid_t pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) {
        close(fds[0]);
#if !defined(__SANITIZE_ADDRESS__)
        size_t limit = mapped_bytes() + ((size_t)512 << 20);
        struct rlimit rl = {limit, limit};
        if (setrlimit(RLIMIT_AS, &rl) != 0)
            _exit(3);
#endif
        qkv_session s;
        qkv_session_init(&s);
        qkv_error err = {.msg = ""};
        int status = qkv_checkpoint_load_model(path, &s, &err);
        qkv_session_free(&s);
        char out[sizeof err.msg + 1];
        out[0] = status == QKV_OK ? '0' : '1';
        memcpy(out + 1, err.msg, sizeof err.msg);
        size_t n = 1 + strlen(err.msg);
        _exit(write(fds[1], out, n) == (ssize_t)n ? 0 : 2);
    }
    close(fds[1]);
    size_t got = 0;
    ssize_t n;
    while (got + 1 < cap && (n = read(fds[0], msg + got, cap - 1 - got)) > 0)
        got += (size_t)n;
    msg[got] = '\0';
    close(fds[0]);
    int wstatus;
    assert_int_equal(waitpid(pid, &wstatus, 0), pid);
    assert_true(WIFEXITED(wstatus));
    assert_int_equal(WEXITSTATUS(wstatus), 0);
    assert_true(got >= 1);
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
