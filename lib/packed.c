/* The packed batch's one check and copy; see lib/packed.h. */
#include "lib/packed.h"

#include <string.h>

static qkv_packed failed(void) { return (qkv_packed){0, NULL}; }

qkv_packed qkv_tape_packed(qkv_tape *tp, const char *op, qkv_packed s, const qkv_tensor *x, bool nonempty)
{
    if (tp->failed)
        return failed();
    if (!s.offsets) {
        qkv_tape_fail(tp, "%s: the offsets of the packed batch are NULL", op);
        return failed();
    }
    if (s.n < 0) {
        qkv_tape_fail(tp, "%s: %d segments, a negative count", op, s.n);
        return failed();
    }
    const int32_t *off = s.offsets;
    int rows = x->shape[0];
    if (off[0] != 0 || off[s.n] != rows) {
        char sx[64];
        qkv_tape_fail(tp, "%s: %d segments with offsets[0] = %ld and offsets[%d] = %ld; they must be 0 and the "
                      "number of rows of the input %s (%d)", op, s.n, (long)off[0], s.n, (long)off[s.n],
                      qkv_shape_str(x, sx, sizeof sx), rows);
        return failed();
    }
    for (int i = 0; i < s.n; i++) {
        if (off[i + 1] < off[i]) {
            qkv_tape_fail(tp, "%s: offsets decrease at segment %d (offsets[%d] = %ld > offsets[%d] = %ld)", op, i, i,
                          (long)off[i], i + 1, (long)off[i + 1]);
            return failed();
        }
        if (nonempty && off[i + 1] == off[i]) {
            qkv_tape_fail(tp, "%s: segment %d is empty (offsets[%d] = offsets[%d] = %ld)", op, i, i, i + 1,
                          (long)off[i]);
            return failed();
        }
    }
    int32_t *copy = qkv_tape_alloc(tp, (size_t)(s.n + 1) * sizeof *copy);
    if (!copy)
        return failed();
    memcpy(copy, off, (size_t)(s.n + 1) * sizeof *copy);
    return (qkv_packed){s.n, copy};
}
