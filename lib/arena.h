/* Arena: one bump allocator for all the activations, gradients and saved values of a
 * training step, reset (not freed) after the optimizer step, so that the training loop does
 * no malloc once the arena has grown to the largest step it has seen.
 *
 * Allocation never fails for lack of room: when the current block is full, an overflow block
 * is malloc'd; the next reset replaces all blocks by one block of the peak use plus a quarter.
 * Only an out-of-memory malloc returns NULL. All pointers are 64-byte aligned. */
#ifndef QKV_ARENA_H
#define QKV_ARENA_H

#include <stddef.h>

typedef struct qkv_arena_block qkv_arena_block;

typedef struct qkv_arena {
    qkv_arena_block *head;  /* current block; older overflow blocks follow it */
    size_t used_total;      /* bytes handed out since the last reset */
    size_t peak;            /* largest used_total seen */
    size_t mallocs;         /* blocks malloc'd so far (lets tests prove a step allocates none) */
} qkv_arena;

/* An empty arena; `reserve` bytes are allocated up front (0: on first use). Returns 0 or -1. */
int qkv_arena_init(qkv_arena *a, size_t reserve);
void *qkv_arena_alloc(qkv_arena *a, size_t bytes);
/* Like qkv_arena_alloc, with the bytes set to zero. */
void *qkv_arena_calloc(qkv_arena *a, size_t bytes);
/* Forgets every allocation; keeps (and if needed merges into) one block of 1.25 x the peak. */
void qkv_arena_reset(qkv_arena *a);
void qkv_arena_free(qkv_arena *a);

#endif
