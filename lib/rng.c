#include "lib/rng.h"

#include <math.h>

static uint64_t splitmix64(uint64_t *x)
{
    uint64_t z = (*x += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}

void qkv_rng_seed(qkv_rng *rng, uint64_t seed)
{
    for (int i = 0; i < 4; i++)
        rng->s[i] = splitmix64(&seed);
}

static uint64_t rotl(uint64_t x, int k) { return (x << k) | (x >> (64 - k)); }

uint64_t qkv_rng_next(qkv_rng *rng)
{
    uint64_t *s = rng->s;
    uint64_t result = rotl(s[1] * 5, 7) * 9;
    uint64_t t = s[1] << 17;
    s[2] ^= s[0];
    s[3] ^= s[1];
    s[1] ^= s[2];
    s[0] ^= s[3];
    s[2] ^= t;
    s[3] = rotl(s[3], 45);
    return result;
}

double qkv_rng_uniform(qkv_rng *rng)
{
    return (double)(qkv_rng_next(rng) >> 11) * 0x1.0p-53;
}

uint64_t qkv_rng_below(qkv_rng *rng, uint64_t n)
{
    uint64_t limit = UINT64_MAX - UINT64_MAX % n;
    uint64_t x;
    do
        x = qkv_rng_next(rng);
    while (x >= limit);
    return x % n;
}

double qkv_rng_normal(qkv_rng *rng)
{
    double u1 = 1.0 - qkv_rng_uniform(rng); /* (0, 1]: log is finite */
    double u2 = qkv_rng_uniform(rng);
    return sqrt(-2.0 * log(u1)) * cos(2.0 * M_PI * u2);
}

void qkv_rng_shuffle(qkv_rng *rng, int *items, int n)
{
    for (int i = n - 1; i > 0; i--) {
        int j = (int)qkv_rng_below(rng, (uint64_t)i + 1);
        int tmp = items[i];
        items[i] = items[j];
        items[j] = tmp;
    }
}

uint64_t qkv_rng_at(uint64_t key, uint64_t i)
{
    uint64_t x = key + i * 0x9e3779b97f4a7c15ULL;
    return splitmix64(&x);
}

uint64_t qkv_rng_key(uint64_t a, uint64_t b)
{
    /* two rounds, so that nearby (a, b) pairs (steps, sentence ids) give unrelated keys */
    return qkv_rng_at(qkv_rng_at(a, 0) ^ b, 1);
}

double qkv_rng_uniform_at(uint64_t key, uint64_t i)
{
    return (double)(qkv_rng_at(key, i) >> 11) * 0x1.0p-53;
}
