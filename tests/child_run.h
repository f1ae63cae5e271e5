/* Runs a piece of a test in a child process (header only; include after cmocka.h): a crash,
 * an exit or an allocation that fails stays in the child, and what the child writes to its
 * pipe comes back as text. With an address-space headroom the child may map at most what it
 * has mapped plus that many bytes (RLIMIT_AS), so a reader that allocates what a file
 * declares fails there ("out of memory") instead of growing; not under AddressSanitizer,
 * which reserves terabytes of shadow memory. */
#ifndef QKV_TESTS_CHILD_RUN_H
#define QKV_TESTS_CHILD_RUN_H

#include <stdio.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

/* The bytes of address space this process has mapped (/proc/self/statm, its first field). */
static inline size_t child_mapped_bytes(void)
{
    FILE *f = fopen("/proc/self/statm", "r");
    unsigned long pages = 0;
    if (!f || fscanf(f, "%lu", &pages) != 1)
        pages = 0;
    if (f)
        fclose(f);
    return (size_t)pages * (size_t)sysconf(_SC_PAGESIZE);
}

/* Runs fn(fd, arg) in a child whose address space is limited to what it has mapped plus
 * headroom bytes (0: no limit); fn writes its result to fd and exits (returning from fn exits
 * 99). Puts what fn wrote (at most cap - 1 bytes, NUL-ended) in msg; returns the child's exit
 * status, failing the test when it did not exit (a signal). */
static inline int child_run(void (*fn)(int fd, void *arg), void *arg, size_t headroom, char *msg, size_t cap)
{
    int fds[2];
    assert_int_equal(pipe(fds), 0);
    fflush(NULL);
    pid_t pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) {
        close(fds[0]);
#if defined(__SANITIZE_ADDRESS__)
        (void)headroom; /* ASan reserves terabytes of shadow: no address-space limit under it */
#else
        if (headroom) {
            size_t limit = child_mapped_bytes() + headroom;
            struct rlimit rl = {limit, limit};
            if (setrlimit(RLIMIT_AS, &rl) != 0)
                _exit(97);
        }
#endif
        fn(fds[1], arg);
        _exit(99);
    }
    close(fds[1]);
    size_t got = 0;
    ssize_t n;
    while (got + 1 < cap && (n = read(fds[0], msg + got, cap - 1 - got)) > 0)
        got += (size_t)n;
    msg[got] = '\0';
    close(fds[0]);
    int status;
    assert_int_equal(waitpid(pid, &status, 0), pid);
    if (!WIFEXITED(status))
        fail_msg("the child was killed by signal %d; it wrote: %s", WTERMSIG(status), msg);
    return WEXITSTATUS(status);
}

#endif
