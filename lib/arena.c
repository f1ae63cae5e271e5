#include "lib/arena.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define ARENA_ALIGN 64

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
    b->mem = aligned_alloc(ARENA_ALIGN, round_up(cap));
    if (!b->mem) {
        free(b);
        return NULL;
    }
    b->cap = round_up(cap);
    b->used = 0;
    b->next = NULL;
    a->mallocs++;
    return b;
}

int qkv_arena_init(qkv_arena *a, size_t reserve)
{
    memset(a, 0, sizeof *a);
    if (reserve) {
        a->head = block_new(a, reserve);
        if (!a->head)
            return -1;
    }
    return 0;
}

void *qkv_arena_alloc(qkv_arena *a, size_t bytes)
{
    size_t need = round_up(bytes ? bytes : 1);
    qkv_arena_block *b = a->head;
    if (!b || b->cap - b->used < need) {
        size_t cap = need > (1u << 20) ? need : (1u << 20);
        if (b && b->cap > cap)
            cap = b->cap; /* an overflow block is as large as the block before it */
        qkv_arena_block *nb = block_new(a, cap);
        if (!nb)
            return NULL;
        nb->next = b;
        a->head = b = nb;
    }
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

static void free_blocks(qkv_arena_block *b)
{
    while (b) {
        qkv_arena_block *next = b->next;
        free(b->mem);
        free(b);
        b = next;
    }
}

void qkv_arena_reset(qkv_arena *a)
{
    if (a->head && a->head->next) {
        /* Several blocks were needed: replace them by one that holds the peak. */
        free_blocks(a->head);
        a->head = block_new(a, a->peak + a->peak / 4); /* headroom for a larger next step */
    } else if (a->head) {
        a->head->used = 0;
    }
    a->used_total = 0;
}

void qkv_arena_free(qkv_arena *a)
{
    free_blocks(a->head);
    memset(a, 0, sizeof *a);
}
