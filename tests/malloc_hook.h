/* malloc and its relatives replaced in a test program (glibc supports replacing them by symbol
 * interposition, see its manual, "Replacing malloc"): every allocation first calls the
 * program's own `static bool malloc_hook(void)`, defined after this include, and fails (NULL)
 * when it returns false; free is glibc's. Under AddressSanitizer, which owns malloc itself,
 * nothing is replaced and MALLOC_HOOKED is 0 (the tests that need the hook skip). */
#ifndef QKV_TEST_MALLOC_HOOK_H
#define QKV_TEST_MALLOC_HOOK_H

#include <errno.h>
#include <stdbool.h>
#include <stddef.h>

#if defined(__SANITIZE_ADDRESS__)
#define MALLOC_HOOKED 0
#else
#define MALLOC_HOOKED 1
extern void *__libc_malloc(size_t);
extern void *__libc_calloc(size_t, size_t);
extern void *__libc_realloc(void *, size_t);
extern void *__libc_memalign(size_t, size_t);
extern void __libc_free(void *);

static bool malloc_hook(void);
void *malloc(size_t n) { return malloc_hook() ? __libc_malloc(n) : NULL; }
void *calloc(size_t n, size_t size) { return malloc_hook() ? __libc_calloc(n, size) : NULL; }
void *realloc(void *p, size_t n) { return malloc_hook() ? __libc_realloc(p, n) : NULL; }
void *aligned_alloc(size_t align, size_t n) { return malloc_hook() ? __libc_memalign(align, n) : NULL; }
void *memalign(size_t align, size_t n) { return malloc_hook() ? __libc_memalign(align, n) : NULL; }
int posix_memalign(void **p, size_t align, size_t n)
{
    *p = malloc_hook() ? __libc_memalign(align, n) : NULL;
    return *p ? 0 : ENOMEM;
}
void free(void *p) { __libc_free(p); }
#endif

#endif
