/* Sizes declared by a file bound what is allocated: a checkpoint can declare a dataset far larger
 * than the bytes it holds (HDF5 allocates late: a 23 KB file declared a 3e9-byte /vocab). Every
 * reader of a dataset (strings, text, integer arrays, reals, a model's parameters, shapes) goes
 * through qkv_store_open_dataset, which refuses such a dataset before anything is allocated.
 * The test writes one declared-but-empty dataset of each type into a sealed checkpoint (through
 * the writer's HDF5 file) and reads it with each reader; the count of a group's values (which
 * bounds the model a model file's config may declare) is refused the same way. */
#include "store_fixture.h"

#include <hdf5.h>

#include "lib/io/store_internal.h"

/* A checkpoint at path whose item `item` declares n elements of type (n 0: one, a scalar) but
 * stores none. */
static void write_declared(const char *item, hid_t type, hsize_t n)
{
    qkv_store_writer *w;
    qkv_error err;
    assert_int_equal(qkv_store_create(path, &w, &err), QKV_OK);
    assert_int_equal(qkv_store_write_i64(w, "/train/step", 1, &err), QKV_OK);
    hid_t space = n ? H5Screate_simple(1, &n, NULL) : H5Screate(H5S_SCALAR);
    hid_t lcpl = H5Pcreate(H5P_LINK_CREATE);
    H5Pset_create_intermediate_group(lcpl, 1);
    hid_t d = H5Dcreate2(w->file, item, type, space, lcpl, H5P_DEFAULT, H5P_DEFAULT);
    assert_true(d >= 0);
    H5Dclose(d);
    H5Pclose(lcpl);
    H5Sclose(space);
    if (qkv_store_commit(w, &err))
        fail_msg("%s", err.msg);
}

static void assert_refused(int status, const qkv_error *err, const char *item)
{
    assert_int_equal(status, QKV_ERR);
    assert_msg_has((*err), item);
    assert_msg_has((*err), "declares");
}

static void test_every_reader_refuses_a_declared_size(void **state)
{
    (void)state;
    qkv_store_reader *r;
    qkv_error err;
    int rank, shape[QKV_MAX_RANK];

    write_declared("/vocab/words", H5T_NATIVE_UCHAR, 3000000000ULL);
    assert_int_equal(qkv_store_open(path, &r, &err), QKV_OK);
    size_t n;
    char **strings = NULL, *text = NULL;
    assert_refused(qkv_store_read_strings(r, "/vocab/words", &n, &strings, &err), &err, "/vocab/words");
    assert_refused(qkv_store_shape(r, "/vocab/words", &rank, shape, &err), &err, "/vocab/words");
    qkv_store_close(r);

    hid_t str = H5Tcopy(H5T_C_S1);
    H5Tset_size(str, 3000000000ULL);
    write_declared("/config", str, 0);
    H5Tclose(str);
    assert_int_equal(qkv_store_open(path, &r, &err), QKV_OK);
    assert_refused(qkv_store_read_text(r, "/config", &text, &err), &err, "/config");
    qkv_store_close(r);

    write_declared("/order", H5T_NATIVE_INT64, 400000000ULL);
    assert_int_equal(qkv_store_open(path, &r, &err), QKV_OK);
    int64_t *v = malloc(8);
    assert_refused(qkv_store_read_i64_array(r, "/order", 400000000ULL, v, &err), &err, "/order");
    free(v);
    qkv_store_close(r);

    write_declared("/params/w", H5T_NATIVE_FLOAT, 800000000ULL);
    assert_int_equal(qkv_store_open(path, &r, &err), QKV_OK);
    qkv_real one;
    assert_refused(qkv_store_read_real(r, "/params/w", 1, (int[]){800000000}, &one, &err), &err, "/params/w");
    size_t values = 1;
    assert_refused(qkv_store_count_values(r, "/params", &values, &err), &err, "/params/w");
    qkv_store_close(r);
}

/* what qkv writes itself is read as before */
static void test_written_data_still_reads(void **state)
{
    (void)state;
    fx_write_sample(path);
    qkv_store_reader *r;
    qkv_error err;
    assert_int_equal(qkv_store_open(path, &r, &err), QKV_OK);
    if (fx_check_sample(r, &err) != QKV_OK)
        fail_msg("%s", err.msg);
    /* the values of the sample model's parameters, counted from their shapes */
    qkv_params ps;
    fx_model(&ps, 0);
    size_t values = 0;
    assert_int_equal(qkv_store_count_values(r, "/params", &values, &err), QKV_OK);
    assert_int_equal(values, qkv_params_count(&ps));
    qkv_params_free(&ps);
    assert_int_equal(qkv_store_count_values(r, "/nothing", &values, &err), QKV_OK);
    assert_int_equal(values, 0);
    assert_int_equal(qkv_store_count_values(r, "/train/step", &values, &err), QKV_ERR);
    assert_msg_has(err, "/train/step: not a group");
    qkv_store_close(r);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_written_data_still_reads, setup, teardown),
        cmocka_unit_test_setup_teardown(test_every_reader_refuses_a_declared_size, setup, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
