#include "lib/param.h"

#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void qkv_params_init(qkv_params *ps) { memset(ps, 0, sizeof *ps); }

void qkv_params_free(qkv_params *ps)
{
    for (int i = 0; i < ps->n; i++) {
        free(ps->items[i]->t.data);
        free(ps->items[i]->t.grad);
        free(ps->items[i]);
    }
    free(ps->items);
    memset(ps, 0, sizeof *ps);
}

/* Whether a parameter of this shape is too large: more values than a size_t counts, or more than
 * ps->max_values with those ps holds (err set then). */
static bool too_large(const qkv_params *ps, const char *name, int rank, const int *shape, qkv_error *err)
{
    size_t size = 1;
    for (int i = 0; i < rank; i++)
        size = size > SIZE_MAX / sizeof(qkv_real) / (size_t)shape[i] ? SIZE_MAX : size * (size_t)shape[i];
    size_t held = ps->max_values ? qkv_params_count(ps) : 0;
    bool past = ps->max_values && (held > ps->max_values || size > ps->max_values - held);
    if (size < SIZE_MAX && !past)
        return false;
    qkv_tensor t = {.rank = rank};
    memcpy(t.shape, shape, (size_t)rank * sizeof *shape);
    char dims[64];
    if (size == SIZE_MAX)
        qkv_fail(err, "parameter %s %s: more values than memory can address", name,
                 qkv_shape_str(&t, dims, sizeof dims));
    else
        qkv_fail(err, "parameter %s %s of %zu values would take the parameters past their bound of %zu values",
                 name, qkv_shape_str(&t, dims, sizeof dims), size, ps->max_values);
    return true;
}

qkv_tensor *qkv_params_add(qkv_params *ps, qkv_error *err, int rank, const int *shape,
                           const char *name_fmt, ...)
{
    char name[QKV_PARAM_NAME_MAX];
    va_list ap;
    va_start(ap, name_fmt);
    int len = vsnprintf(name, sizeof name, name_fmt, ap);
    va_end(ap);
    if (len < 0 || len >= (int)sizeof name) {
        qkv_fail(err, "parameter name too long (%d characters, at most %d)", len, QKV_PARAM_NAME_MAX - 1);
        return NULL;
    }
    if (qkv_params_find(ps, name)) {
        qkv_fail(err, "parameter %s is defined twice", name);
        return NULL;
    }
    if (rank < 1 || rank > QKV_MAX_RANK) {
        qkv_fail(err, "parameter %s: rank %d is outside 1..%d", name, rank, QKV_MAX_RANK);
        return NULL;
    }
    for (int i = 0; i < rank; i++)
        if (shape[i] <= 0) {
            qkv_fail(err, "parameter %s: dimension %d is %d, must be positive", name, i, shape[i]);
            return NULL;
        }
    if (too_large(ps, name, rank, shape, err))
        return NULL;
    if (ps->n == ps->cap) {
        int cap = ps->cap ? 2 * ps->cap : 32;
        qkv_param **items = realloc(ps->items, (size_t)cap * sizeof *items);
        if (!items) {
            qkv_fail(err, "out of memory");
            return NULL;
        }
        ps->items = items;
        ps->cap = cap;
    }
    qkv_param *p = calloc(1, sizeof *p);
    if (!p) {
        qkv_fail(err, "out of memory");
        return NULL;
    }
    memcpy(p->name, name, (size_t)len + 1);
    p->t.rank = rank;
    memcpy(p->t.shape, shape, (size_t)rank * sizeof *shape);
    p->t.size = qkv_shape_size(rank, shape);
    p->t.data = calloc(p->t.size, sizeof(qkv_real));
    p->t.grad = calloc(p->t.size, sizeof(qkv_real));
    p->t.requires_grad = true;
    if (!p->t.data || !p->t.grad) {
        free(p->t.data);
        free(p->t.grad);
        free(p);
        qkv_fail(err, "out of memory for parameter %s (%zu elements)", name, qkv_shape_size(rank, shape));
        return NULL;
    }
    ps->items[ps->n++] = p;
    return &p->t;
}

qkv_param *qkv_params_find(const qkv_params *ps, const char *name)
{
    for (int i = 0; i < ps->n; i++)
        if (strcmp(ps->items[i]->name, name) == 0)
            return ps->items[i];
    return NULL;
}

qkv_param *qkv_params_of(const qkv_params *ps, const qkv_tensor *t)
{
    for (int i = 0; i < ps->n; i++)
        if (&ps->items[i]->t == t)
            return ps->items[i];
    return NULL;
}

void qkv_params_zero_grad(qkv_params *ps)
{
    for (int i = 0; i < ps->n; i++)
        memset(ps->items[i]->t.grad, 0, ps->items[i]->t.size * sizeof(qkv_real));
}

size_t qkv_params_count(const qkv_params *ps)
{
    size_t n = 0;
    for (int i = 0; i < ps->n; i++)
        n += ps->items[i]->t.size;
    return n;
}

void qkv_init_constant(qkv_tensor *t, double value)
{
    for (size_t i = 0; i < t->size; i++)
        t->data[i] = (qkv_real)value;
}

void qkv_init_normal(qkv_tensor *t, qkv_rng *rng, double std)
{
    if (!rng)
        return;
    for (size_t i = 0; i < t->size; i++)
        t->data[i] = (qkv_real)(std * qkv_rng_normal(rng));
}

static int fan_in(const qkv_tensor *t) { return t->shape[t->rank - 1]; }
static int fan_out(const qkv_tensor *t) { return t->shape[0]; }

void qkv_init_xavier_uniform(qkv_tensor *t, qkv_rng *rng)
{
    if (!rng)
        return;
    double a = sqrt(6.0 / (fan_in(t) + fan_out(t)));
    for (size_t i = 0; i < t->size; i++)
        t->data[i] = (qkv_real)(a * (2.0 * qkv_rng_uniform(rng) - 1.0));
}

void qkv_init_uniform(qkv_tensor *t, qkv_rng *rng, double bound)
{
    if (!rng)
        return;
    for (size_t i = 0; i < t->size; i++)
        t->data[i] = (qkv_real)(bound * (2.0 * qkv_rng_uniform(rng) - 1.0));
}
