#include "lib/arena.h"

#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#define ARENA_ALIGN 64
/* The smallest overflow block, and the size from which a block is made of whole huge pages on a
 * huge page's boundary and asks the kernel to back it with them (madvise; transparent huge
 * pages in "madvise" or "always" mode). A 4 KiB page costs one fault the first time it is
 * touched, which on a virtual machine is several microseconds: a block of 2 MiB pages takes 512
 * times fewer. */
#define HUGE_PAGE ((size_t)2 << 20)

struct qkv_arena_block {
    qkv_arena_block *next;
    size_t cap, used;
    unsigned char *mem;
};

static size_t round_up(size_t n) { return (n + ARENA_ALIGN - 1) & ~(size_t)(ARENA_ALIGN - 1); }

static qkv_arena_block *block_new(qkv_arena *a, size_t cap)
{
    qkv_arena_block *b = malloc(sizeof *b);
    if (!b)
        return NULL;
    bool huge = cap >= HUGE_PAGE;
    size_t bytes = huge ? (cap + HUGE_PAGE - 1) / HUGE_PAGE * HUGE_PAGE : round_up(cap);
    b->mem = aligned_alloc(huge ? HUGE_PAGE : ARENA_ALIGN, bytes);
    if (!b->mem) {
        free(b);
        return NULL;
    }
#ifdef MADV_HUGEPAGE
    if (huge)
        madvise(b->mem, bytes, MADV_HUGEPAGE); /* a hint: refused or ignored, nothing changes */
#endif
    b->cap = bytes;
    b->used = 0;
    b->next = NULL;
    a->mallocs++;
    a->cap_total += bytes;
    return b;
}

int qkv_arena_init(qkv_arena *a, size_t reserve)
{
    memset(a, 0, sizeof *a);
    if (reserve) {
        a->first = a->cur = block_new(a, reserve);
        if (!a->first)
            return -1;
    }
    return 0;
}

/* The first block from cur on with `need` bytes free (cur moves to it), or a new last block of at
 * least the arena's capacity so far (so that the blocks' number grows with the log of the peak). */
static qkv_arena_block *block_with_room(qkv_arena *a, size_t need)
{
    qkv_arena_block *b = a->cur, *last = NULL;
    for (; b; last = b, b = b->next)
        if (b->cap - b->used >= need)
            return a->cur = b;
    size_t cap = need > HUGE_PAGE ? need : HUGE_PAGE;
    if (a->cap_total > cap)
        cap = a->cap_total;
    b = block_new(a, cap);
    if (!b)
        return NULL;
    if (last)
        last->next = b;
    else
        a->first = b;
    return a->cur = b;
}

void *qkv_arena_alloc(qkv_arena *a, size_t bytes)
{
    size_t need = round_up(bytes ? bytes : 1);
    qkv_arena_block *b = block_with_room(a, need);
    if (!b)
        return NULL;
    void *p = b->mem + b->used;
    b->used += need;
    a->used_total += need;
    if (a->used_total > a->peak)
        a->peak = a->used_total;
    return p;
}

void *qkv_arena_calloc(qkv_arena *a, size_t bytes)
{
    void *p = qkv_arena_alloc(a, bytes);
    if (p)
        memset(p, 0, bytes);
    return p;
}

qkv_arena_mark qkv_arena_mark_now(const qkv_arena *a)
{
    return (qkv_arena_mark){a->cur, a->cur ? a->cur->used : 0, a->used_total};
}

void qkv_arena_release(qkv_arena *a, qkv_arena_mark m)
{
    if (!m.block) {
        qkv_arena_reset(a);
        return;
    }
    for (qkv_arena_block *b = m.block->next; b; b = b->next) /* blocks after it: used after the mark */
        b->used = 0;
    m.block->used = m.used;
    a->cur = m.block;
    a->used_total = m.used_total;
}

void qkv_arena_reset(qkv_arena *a)
{
    for (qkv_arena_block *b = a->first; b; b = b->next)
        b->used = 0;
    a->cur = a->first;
    a->used_total = 0;
}

void qkv_arena_free(qkv_arena *a)
{
    for (qkv_arena_block *b = a->first; b;) {
        qkv_arena_block *next = b->next;
        free(b->mem);
        free(b);
        b = next;
    }
    memset(a, 0, sizeof *a);
}
