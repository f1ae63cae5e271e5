/* Arena: one bump allocator for all the activations, gradients and saved values of a
 * training step, reset (not freed) after the optimizer step, so that the training loop does
 * no malloc once the arena has grown to the largest step it has seen.
 *
 * Allocation never fails for lack of room: when no block from the current one on has room, an
 * overflow block at least as large as all blocks so far is malloc'd (2 MiB at least, backed by
 * huge pages where the kernel gives them). A reset keeps every block and empties them, so the
 * pages a step touched are touched again, not given back and faulted in anew; the same sequence
 * of allocations then finds the same room. Only an out-of-memory malloc returns NULL. All
 * pointers are 64-byte aligned. */
#ifndef QKV_ARENA_H
#define QKV_ARENA_H

#include <stddef.h>

typedef struct qkv_arena_block qkv_arena_block;

typedef struct qkv_arena {
    qkv_arena_block *first; /* the blocks in the order they were made */
    qkv_arena_block *cur;   /* the block allocations come from; the ones after it are empty */
    size_t used_total;      /* bytes handed out since the last reset */
    size_t cap_total;       /* bytes of all blocks */
    size_t peak;            /* largest used_total seen */
    size_t mallocs;         /* blocks malloc'd so far (lets tests prove a step allocates none) */
} qkv_arena;

/* An empty arena; `reserve` bytes are allocated up front (0: on first use). Returns 0 or -1. */
int qkv_arena_init(qkv_arena *a, size_t reserve);
void *qkv_arena_alloc(qkv_arena *a, size_t bytes);
/* Like qkv_arena_alloc, with the bytes set to zero. */
void *qkv_arena_calloc(qkv_arena *a, size_t bytes);
/* A place in the arena to come back to (qkv_arena_release). */
typedef struct qkv_arena_mark {
    qkv_arena_block *block; /* the current block then (NULL: the arena had none) */
    size_t used, used_total;
} qkv_arena_mark;

qkv_arena_mark qkv_arena_mark_now(const qkv_arena *a);
/* Forgets the allocations made since m (their room is handed out again); the earlier ones stay.
 * m must come from this arena since its last reset, and no later mark may be released first. */
void qkv_arena_release(qkv_arena *a, qkv_arena_mark m);
/* Forgets every allocation; keeps every block. */
void qkv_arena_reset(qkv_arena *a);
void qkv_arena_free(qkv_arena *a);

#endif
