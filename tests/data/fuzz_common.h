/* What the libFuzzer targets of tests/data/fuzz_*.c share (header only): a broken property
 * aborts with its name; a reader must not print (while standard output and standard error are
 * regular files, as tests/data/fuzz.sh and tests/data/fuzz_seed_run.c make them, a call that
 * writes to either is a broken property); readers that take a path get the input as a file
 * (qkv's HDF5 files: tests/data/fuzz_store.h). */
#ifndef QKV_TEST_FUZZ_COMMON_H
#define QKV_TEST_FUZZ_COMMON_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static inline void fuzz_check(int ok, const char *what)
{
    if (!ok) {
        fprintf(stderr, "fuzz: property broken: %s\n", what);
        abort();
    }
}

/* The sizes of standard output and standard error when they are regular files, else -1. */
typedef struct fuzz_output {
    long long out, err;
} fuzz_output;

static inline long long fuzz_fd_size(int fd)
{
    struct stat st;
    return fstat(fd, &st) == 0 && S_ISREG(st.st_mode) ? (long long)st.st_size : -1;
}

static inline fuzz_output fuzz_output_mark(void)
{
    fflush(stdout);
    fflush(stderr);
    return (fuzz_output){fuzz_fd_size(1), fuzz_fd_size(2)};
}

/* Breaks the property "the library returns errors, it does not print" when anything reached
 * standard output or standard error since mark. */
static inline void fuzz_output_check(fuzz_output mark)
{
    fuzz_output now = fuzz_output_mark();
    fuzz_check(now.out == mark.out && now.err == mark.err, "nothing printed (errors are returned)");
}

/* The input as the contents of one temporary file of this process (the same path every time,
 * removed at exit), for readers that take a path. suffix: the name's end (".h5", ".gz", ""). */
static char fuzz_path[256];

static inline void fuzz_remove_file(void)
{
    if (fuzz_path[0])
        unlink(fuzz_path);
}

static inline const char *fuzz_file(const uint8_t *data, size_t size, const char *suffix)
{
    if (!fuzz_path[0]) {
        const char *dir = getenv("TMPDIR");
        snprintf(fuzz_path, sizeof fuzz_path, "%s/qkv-fuzz-%ld%s", dir && dir[0] ? dir : "/tmp", (long)getpid(),
                 suffix);
        atexit(fuzz_remove_file);
    }
    FILE *f = fopen(fuzz_path, "wb");
    fuzz_check(f != NULL, "the temporary file can be written");
    fuzz_check((size == 0 || fwrite(data, 1, size, f) == size) && fclose(f) == 0, "the temporary file is written");
    return fuzz_path;
}


#endif
