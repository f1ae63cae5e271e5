/* float16 storage (qkv_store_set_float16): the IEEE 754 binary16 value of each parameter,
 * rounded to nearest even, 2 bytes a value on disk, read back as float (exactly the binary16
 * value) by qkv_store_read_real. The expected values are worked out by hand from the format
 * (1 sign bit, 5 exponent bits of bias 15, 10 fraction bits; subnormals below 2^-14). */
#include "store_fixture.h"

#include <hdf5.h>
#include <math.h>

/* in -> the binary16 value it rounds to */
static const double CASES[][2] = {
    {1.0, 1.0},
    {-2.5, -2.5},
    {0.1, 1638.0 / 16384.0},               /* 0.1 = 1.6 * 2^-4: fraction 0.6 * 1024 = 614.4 -> 614 */
    {1.0 + 1.0 / 2048.0, 1.0},             /* a tie between 1 and 1 + 2^-10: the even one */
    {1.0 + 3.0 / 2048.0, 1.0 + 2.0 / 1024.0}, /* a tie between 1 + 2^-10 and 1 + 2^-9: the even one */
    {65504.0, 65504.0},                    /* the largest finite value */
    {3.0 / 16777216.0, 3.0 / 16777216.0}, /* 3 * 2^-24: a subnormal, exact */
    {1.0 / 33554432.0, 0.0},               /* 2^-25: a tie between 0 and 2^-24: the even one, 0 */
    {1e-9, 0.0},                           /* below half the smallest subnormal (2^-25) */
    {0.0, 0.0},
};
#define N_CASES (sizeof CASES / sizeof CASES[0])

static void write_cases(bool half)
{
    qkv_real v[N_CASES];
    for (size_t i = 0; i < N_CASES; i++)
        v[i] = (qkv_real)CASES[i][0];
    qkv_store_writer *w;
    qkv_error err;
    assert_int_equal(qkv_store_create(path, &w, &err), QKV_OK);
    qkv_store_set_float16(w, half);
    if (qkv_store_write_real(w, "/x", 1, (int[]){(int)N_CASES}, v, &err))
        fail_msg("%s", err.msg);
    assert_int_equal(qkv_store_commit(w, &err), QKV_OK);
}

static void test_half_values_round_to_nearest_even(void **state)
{
    (void)state;
    write_cases(true);
    qkv_store_reader *r;
    qkv_error err;
    assert_int_equal(qkv_store_open(path, &r, &err), QKV_OK);
    qkv_real back[N_CASES];
    if (qkv_store_read_real(r, "/x", 1, (int[]){(int)N_CASES}, back, &err))
        fail_msg("%s", err.msg);
    for (size_t i = 0; i < N_CASES; i++)
        if (back[i] != (qkv_real)CASES[i][1])
            fail_msg("case %zu: %.10g stored as %.10g, expected %.10g", i, CASES[i][0], (double)back[i], CASES[i][1]);
    qkv_store_close(r);
}

/* The dataset's type on disk: a 2-byte float (h5py reads it as numpy float16); without the
 * flag, 4 bytes as before. */
static size_t stored_size(void)
{
    qkv_store_reader *r;
    qkv_error err;
    assert_int_equal(qkv_store_open(path, &r, &err), QKV_OK);
    hid_t d = H5Dopen2((hid_t)qkv_store_reader_hid(r), "/x", H5P_DEFAULT);
    assert_true(d >= 0);
    hid_t t = H5Dget_type(d);
    assert_int_equal(H5Tget_class(t), H5T_FLOAT);
    size_t size = H5Tget_size(t);
    if (size == 2) {
        size_t spos, epos, esize, mpos, msize;
        assert_true(H5Tget_fields(t, &spos, &epos, &esize, &mpos, &msize) >= 0);
        assert_int_equal(spos, 15);
        assert_int_equal(esize, 5);
        assert_int_equal(msize, 10);
        assert_int_equal(H5Tget_ebias(t), 15);
    }
    H5Tclose(t);
    H5Dclose(d);
    qkv_store_close(r);
    return size;
}

static void test_half_on_disk(void **state)
{
    (void)state;
    write_cases(true);
    assert_int_equal(stored_size(), 2);
    write_cases(false);
    assert_int_equal(stored_size(), 4);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_half_values_round_to_nearest_even, setup, teardown),
        cmocka_unit_test_setup_teardown(test_half_on_disk, setup, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
