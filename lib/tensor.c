#include "lib/tensor.h"

#include <math.h>
#include <stdio.h>

size_t qkv_shape_size(int rank, const int *shape)
{
    size_t n = 1;
    for (int i = 0; i < rank; i++)
        n *= (size_t)shape[i];
    return n;
}

size_t qkv_tensor_first_nonfinite(const qkv_tensor *t)
{
    for (size_t i = 0; i < t->size; i++)
        if (!isfinite(t->data[i]))
            return i;
    return t->size;
}

bool qkv_same_shape(const qkv_tensor *a, const qkv_tensor *b)
{
    if (a->rank != b->rank)
        return false;
    for (int i = 0; i < a->rank; i++)
        if (a->shape[i] != b->shape[i])
            return false;
    return true;
}

const char *qkv_shape_str(const qkv_tensor *t, char *buf, size_t len)
{
    size_t used = (size_t)snprintf(buf, len, "[");
    for (int i = 0; i < t->rank && used < len; i++)
        used += (size_t)snprintf(buf + used, len - used, i ? ", %d" : "%d", t->shape[i]);
    if (used < len)
        snprintf(buf + used, len - used, "]");
    return buf;
}
