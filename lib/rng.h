/* A seeded pseudo-random generator whose whole state is four 64-bit words, so that a
 * checkpoint can store it and a resumed run continues bit for bit.
 * Algorithm: xoshiro256** (Blackman & Vigna, "Scrambled linear pseudorandom number
 * generators", 2018), seeded through splitmix64. */
#ifndef QKV_RNG_H
#define QKV_RNG_H

#include <stdint.h>

typedef struct qkv_rng {
    uint64_t s[4];
} qkv_rng;

void qkv_rng_seed(qkv_rng *rng, uint64_t seed);
uint64_t qkv_rng_next(qkv_rng *rng);
/* Uniform in [0, 1) with 53 random bits. */
double qkv_rng_uniform(qkv_rng *rng);
/* Uniform integer in [0, n); n > 0. Unbiased (rejection sampling). */
uint64_t qkv_rng_below(qkv_rng *rng, uint64_t n);
/* Standard normal N(0, 1) by the Box-Muller transform (one value per two uniforms, no cache,
 * so that the state stays four words). */
double qkv_rng_normal(qkv_rng *rng);
/* Fisher-Yates shuffle of n ints in place. */
void qkv_rng_shuffle(qkv_rng *rng, int *items, int n);

#endif
