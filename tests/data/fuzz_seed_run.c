/* Runs a fuzz target's properties (tests/data/fuzz_<target>.c, linked beside this file) over
 * every file of its seed folder, and over every prefix of its first few small seeds, with the
 * ordinary compiler: each harness stays correct and its seeds stay valid inputs where clang and
 * libFuzzer are missing (ctest runs one a target: data/fuzz_seeds_<target>). Standard error goes
 * to a temporary file while the target runs, so that its "nothing printed" property holds
 * here as under tests/data/fuzz.sh; the file is shown when a property breaks.
 * usage: fuzz_seeds_<target> SEED_FOLDER */
#include <dirent.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
/* In a sanitizer build, where its reports go (they must not vanish with the temporary file). */
void __sanitizer_set_report_fd(void *fd) __attribute__((weak));

/* The seeds whose prefixes are run too, and the largest of them; beyond PREFIX_ALL bytes every
 * PREFIX_STEP-th prefix. */
#define PREFIX_FILES 4
#define PREFIX_MAX 4096
#define PREFIX_ALL 512
#define PREFIX_STEP 16

static int run_file(const char *path, int prefixes)
{
    FILE *f = fopen(path, "rb");
    if (!f) {
        fprintf(stderr, "%s: cannot open\n", path);
        return 1;
    }
    fseek(f, 0, SEEK_END);
    long size = ftell(f);
    rewind(f);
    uint8_t *buf = malloc(size > 0 ? (size_t)size : 1);
    if (!buf || fread(buf, 1, (size_t)size, f) != (size_t)size) {
        fprintf(stderr, "%s: cannot read\n", path);
        fclose(f);
        free(buf);
        return 1;
    }
    fclose(f);
    LLVMFuzzerTestOneInput(buf, (size_t)size);
    for (long len = 0; prefixes && size <= PREFIX_MAX && len < size; len += len < PREFIX_ALL ? 1 : PREFIX_STEP) {
        uint8_t *prefix = malloc(len ? (size_t)len : 1); /* exactly len bytes, as libFuzzer gives them */
        memcpy(prefix, buf, (size_t)len);
        LLVMFuzzerTestOneInput(prefix, (size_t)len);
        free(prefix);
    }
    free(buf);
    return 0;
}

static int log_fd = -1, real_stderr = -1;

/* A broken property aborts: what the target wrote goes to the real standard error first. */
static void show_log(int sig)
{
    char buf[4096];
    ssize_t n;
    lseek(log_fd, 0, SEEK_SET);
    while ((n = read(log_fd, buf, sizeof buf)) > 0)
        if (write(real_stderr, buf, (size_t)n) != n)
            break;
    signal(sig, SIG_DFL);
    raise(sig);
}

/* Standard error into a temporary file (a regular file: fuzz_common.h checks its size). */
static FILE *capture_stderr(int *saved)
{
    FILE *log = tmpfile();
    fflush(stderr);
    *saved = dup(2);
    if (!log || *saved < 0 || dup2(fileno(log), 2) < 0) {
        fprintf(stderr, "cannot capture standard error\n");
        exit(1);
    }
    log_fd = fileno(log);
    real_stderr = *saved;
    signal(SIGABRT, show_log);
    signal(SIGSEGV, show_log);
    if (__sanitizer_set_report_fd)
        __sanitizer_set_report_fd((void *)(intptr_t)real_stderr);
    return log;
}

static void restore_stderr(FILE *log, int saved)
{
    fflush(stderr);
    signal(SIGABRT, SIG_DFL);
    signal(SIGSEGV, SIG_DFL);
    if (__sanitizer_set_report_fd)
        __sanitizer_set_report_fd((void *)(intptr_t)2);
    dup2(saved, 2);
    close(saved);
    fclose(log);
}

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: %s SEED_FOLDER\n", argv[0]);
        return 2;
    }
    DIR *d = opendir(argv[1]);
    if (!d) {
        fprintf(stderr, "%s: cannot open the seed folder\n", argv[1]);
        return 1;
    }
    int n = 0, failed = 0, saved;
    FILE *log = capture_stderr(&saved);
    struct dirent *e;
    while ((e = readdir(d))) {
        if (e->d_name[0] == '.')
            continue;
        char path[4096];
        snprintf(path, sizeof path, "%s/%s", argv[1], e->d_name);
        failed |= run_file(path, n < PREFIX_FILES);
        n++;
    }
    closedir(d);
    restore_stderr(log, saved);
    printf("%d seeds of %s\n", n, argv[1]);
    return failed || n < 3;
}
