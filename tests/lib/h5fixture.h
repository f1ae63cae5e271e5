/* Reading the PyTorch parity fixtures (tests/reference/make_fixtures.py) in cmocka tests.
 * Header only; include after testutil.h. */
#ifndef QKV_H5FIXTURE_H
#define QKV_H5FIXTURE_H

#include <hdf5.h>

#include "lib/tensor.h"

/* Opens tests/reference/fixtures/<file> under $QKV_SOURCE_DIR (or the working directory). */
static inline hid_t h5f_open(const char *file)
{
    const char *root = getenv("QKV_SOURCE_DIR");
    char path[1024];
    snprintf(path, sizeof path, "%s/tests/reference/fixtures/%s", root && *root ? root : ".", file);
    hid_t f = H5Fopen(path, H5F_ACC_RDONLY, H5P_DEFAULT);
    if (f < 0)
        fail_msg("cannot open fixture %s (run /usr/bin/python3 tests/reference/make_fixtures.py)", path);
    return f;
}

/* Number of elements of dataset `name` in group g (fails the test when missing). */
static inline size_t h5f_size(hid_t g, const char *name)
{
    hid_t d = H5Dopen2(g, name, H5P_DEFAULT);
    if (d < 0)
        fail_msg("fixture dataset %s is missing", name);
    hid_t s = H5Dget_space(d);
    hssize_t n = H5Sget_simple_extent_npoints(s);
    H5Sclose(s);
    H5Dclose(d);
    return (size_t)n;
}

/* Reads dataset `name` of exactly `n` elements into out (as qkv_real, or int32 when is_int). */
static inline void h5f_read(hid_t g, const char *name, void *out, size_t n, bool is_int)
{
    if (h5f_size(g, name) != n)
        fail_msg("fixture dataset %s has %zu elements, expected %zu", name, h5f_size(g, name), n);
    hid_t d = H5Dopen2(g, name, H5P_DEFAULT);
    hid_t type = is_int ? H5T_NATIVE_INT32 : (QKV_REAL_IS_DOUBLE ? H5T_NATIVE_DOUBLE : H5T_NATIVE_FLOAT);
    if (H5Dread(d, type, H5S_ALL, H5S_ALL, H5P_DEFAULT, out) < 0)
        fail_msg("cannot read fixture dataset %s", name);
    H5Dclose(d);
}

static inline int h5f_attr_int(hid_t g, const char *name)
{
    int v = 0;
    hid_t a = H5Aopen(g, name, H5P_DEFAULT);
    if (a < 0 || H5Aread(a, H5T_NATIVE_INT, &v) < 0)
        fail_msg("fixture attribute %s is missing", name);
    H5Aclose(a);
    return v;
}

/* Every element of got within 1e-5 relative of dataset `name` (plus 1e-9 absolute for zeros). */
static inline void h5f_assert_close(hid_t g, const char *name, const qkv_real *got, size_t n)
{
    double *want = malloc(n * sizeof *want);
    if (h5f_size(g, name) != n)
        fail_msg("fixture dataset %s has %zu elements, expected %zu", name, h5f_size(g, name), n);
    hid_t d = H5Dopen2(g, name, H5P_DEFAULT);
    H5Dread(d, H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT, want);
    H5Dclose(d);
    for (size_t i = 0; i < n; i++)
        if (!(fabs((double)got[i] - want[i]) <= 1e-5 * fabs(want[i]) + 1e-9))
            fail_msg("%s element %zu: qkv %.10g, PyTorch %.10g", name, i, (double)got[i], want[i]);
    free(want);
}

#endif
