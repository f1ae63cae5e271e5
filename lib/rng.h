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

/* Counter-based draws: a pure function of its arguments, no state, so that a number can be had
 * for any (key, counter) in any order, on any process. qkv_rng_at(key, i) is number i of the
 * SplitMix64 sequence started at key (Steele, Lea & Flood 2014: output = mix(key + (i+1)·γ));
 * qkv_rng_key(a, b) derives the key of a sub-stream b of stream a (e.g. seed -> step -> sentence). */
uint64_t qkv_rng_at(uint64_t key, uint64_t i);
uint64_t qkv_rng_key(uint64_t a, uint64_t b);
/* qkv_rng_at as a uniform double in [0, 1) with 53 random bits. */
double qkv_rng_uniform_at(uint64_t key, uint64_t i);

#endif
