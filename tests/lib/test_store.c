/* Checkpoints, part 1: save -> load round trips of every item type (exact, in the float and
 * the double build), type/shape/version errors and their messages, plain open errors.
 * Atomic saves and corrupted files are in test_checkpoint_safety.c. */
#include "store_fixture.h"

#include <hdf5.h>

static void test_round_trip_every_item(void **state)
{
    (void)state;
    fx_write_sample(path);
    char tmp[160];
    snprintf(tmp, sizeof tmp, "%s.tmp-%ld", path, (long)getpid());
    assert_int_not_equal(access(tmp, F_OK), 0); /* the temporary file is gone */
    qkv_store_reader *r;
    qkv_error err = {0};
    if (qkv_store_open(path, &r, &err) != QKV_OK)
        fail_msg("%s", err.msg);
    assert_int_equal(qkv_store_format_version(r), QKV_STORE_FORMAT_VERSION);
    assert_string_equal(qkv_store_qkv_version(r), QKV_VERSION);
    if (fx_check_sample(r, &err) != QKV_OK)
        fail_msg("%s", err.msg);
    assert_true(qkv_store_has(r, "/params/encoder.layers.0.attn.w_q"));
    assert_true(qkv_store_has(r, "/optim/m"));
    assert_false(qkv_store_has(r, "/params/encoder"));
    assert_false(qkv_store_has(r, "/nothing/here"));
    assert_false(qkv_store_has(r, "no-slash"));
    int rank, shape[QKV_MAX_RANK];
    assert_int_equal(qkv_store_shape(r, "/params/encoder.layers.0.odd4d", &rank, shape, &err), QKV_OK);
    assert_int_equal(rank, 4);
    assert_int_equal(shape[0], 2);
    assert_int_equal(shape[1], 3);
    assert_int_equal(shape[2], 1);
    assert_int_equal(shape[3], 5);
    assert_int_equal(qkv_store_shape(r, "/train/step", &rank, shape, &err), QKV_OK);
    assert_int_equal(rank, 0);
    assert_int_equal(qkv_store_shape(r, "/vocab/words", &rank, shape, &err), QKV_OK);
    assert_int_equal(rank, 1); /* the strings' bytes, each string NUL-ended */
    int bytes = 0;
    for (size_t i = 0; i < FX_N_WORDS; i++)
        bytes += (int)strlen(fx_words[i]) + 1;
    assert_int_equal(shape[0], bytes);
    qkv_store_close(r);
}

/* No timestamps in the file: saving the same content a second later gives the same bytes
 * (so two runs that should agree bit for bit can be compared with cmp). */
static void test_same_content_same_bytes(void **state)
{
    (void)state;
    char second[160];
    snprintf(second, sizeof second, "%s/second.h5", dir);
    fx_write_sample(path);
    usleep(1100000);
    fx_write_sample(second);
    size_t len1, len2;
    unsigned char *a = fx_slurp(path, &len1), *b = fx_slurp(second, &len2);
    assert_int_equal(len1, len2);
    assert_memory_equal(a, b, len1);
    free(a);
    free(b);
}

/* Types on disk are the fixed-width little-endian ones, whatever qkv_real is. */
static void test_types_on_disk(void **state)
{
    (void)state;
    fx_write_sample(path);
    qkv_store_reader *r;
    qkv_error err;
    assert_int_equal(qkv_store_open(path, &r, &err), QKV_OK);
    hid_t file = (hid_t)qkv_store_reader_hid(r);
    const struct {
        const char *path;
        hid_t type;
    } want[] = {{"/params/embed.words", H5T_IEEE_F32LE}, {"/optim/m/classifier.w", H5T_IEEE_F32LE},
                {"/train/step", H5T_STD_I64LE},        {"/train/seed", H5T_STD_U64LE},
                {"/rng/state", H5T_STD_U64LE},         {"/optim/lr", H5T_IEEE_F64LE}};
    for (size_t i = 0; i < sizeof want / sizeof want[0]; i++) {
        hid_t d = H5Dopen2(file, want[i].path, H5P_DEFAULT);
        assert_true(d >= 0);
        hid_t t = H5Dget_type(d);
        if (H5Tequal(t, want[i].type) <= 0)
            fail_msg("%s has the wrong type on disk", want[i].path);
        H5Tclose(t);
        H5Dclose(d);
    }
    /* a list of strings: its bytes, each string NUL-ended (stored inline, no heap) */
    hid_t d = H5Dopen2(file, "/vocab/words", H5P_DEFAULT);
    hid_t t = H5Dget_type(d);
    assert_true(H5Tequal(t, H5T_STD_U8LE) > 0);
    size_t total = 0;
    for (size_t i = 0; i < FX_N_WORDS; i++)
        total += strlen(fx_words[i]) + 1;
    hid_t space = H5Dget_space(d);
    assert_int_equal(H5Sget_simple_extent_npoints(space), total);
    H5Sclose(space);
    H5Tclose(t);
    H5Dclose(d);
    /* a text: one fixed-length UTF-8 string */
    d = H5Dopen2(file, "/config", H5P_DEFAULT);
    t = H5Dget_type(d);
    assert_int_equal(H5Tget_class(t), H5T_STRING);
    assert_int_equal(H5Tis_variable_str(t), 0);
    assert_int_equal(H5Tget_cset(t), H5T_CSET_UTF8);
    H5Tclose(t);
    H5Dclose(d);
    qkv_store_close(r);
}

/* Values that do not fit float32 exactly are rounded to nearest, as a C cast does. */
static void test_real_rounding(void **state)
{
    (void)state;
    qkv_real v[3] = {(qkv_real)0.1, (qkv_real)(1.0 / 3.0), (qkv_real)-1e-3}, back[3];
    qkv_store_writer *w;
    qkv_error err;
    assert_int_equal(qkv_store_create(path, &w, &err), QKV_OK);
    assert_int_equal(qkv_store_write_real(w, "/x", 1, (int[]){3}, v, &err), QKV_OK);
    assert_int_equal(qkv_store_write_real(w, "/s", 0, NULL, v, &err), QKV_OK);
    assert_int_equal(qkv_store_commit(w, &err), QKV_OK);
    qkv_store_reader *r;
    assert_int_equal(qkv_store_open(path, &r, &err), QKV_OK);
    assert_int_equal(qkv_store_read_real(r, "/x", 1, (int[]){3}, back, &err), QKV_OK);
    for (int i = 0; i < 3; i++)
        assert_true(back[i] == (qkv_real)(float)v[i]);
    assert_int_equal(qkv_store_read_real(r, "/s", 0, NULL, back, &err), QKV_OK);
    assert_true(back[0] == (qkv_real)(float)v[0]);
    qkv_store_close(r);
}

static void test_read_errors_name_item_and_shapes(void **state)
{
    (void)state;
    fx_write_sample(path);
    qkv_store_reader *r;
    qkv_error err;
    assert_int_equal(qkv_store_open(path, &r, &err), QKV_OK);
    int64_t i64;
    uint64_t u64[4];
    qkv_real buf[64];
    char **strs;
    size_t n;
    assert_int_equal(qkv_store_read_i64(r, "/train/nope", &i64, &err), QKV_ERR);
    assert_msg_has(err, "/train/nope: missing");
    assert_msg_has(err, path);
    assert_int_equal(qkv_store_read_i64(r, "/optim/lr", &i64, &err), QKV_ERR);
    assert_msg_has(err, "/optim/lr: floating-point data, expected signed integer");
    assert_int_equal(qkv_store_read_u64(r, "/train/step", u64, &err), QKV_ERR);
    assert_msg_has(err, "signed integer data, expected unsigned integer");
    assert_int_equal(qkv_store_read_u64_array(r, "/rng/state", 3, u64, &err), QKV_ERR);
    assert_msg_has(err, "/rng/state: [4] in the checkpoint, expected [3]");
    assert_int_equal(qkv_store_read_i64(r, "/train/order", &i64, &err), QKV_ERR);
    assert_msg_has(err, "[5] in the checkpoint, expected a scalar");
    assert_int_equal(qkv_store_read_real(r, "/params/encoder.layers.0.attn.w_q", 2, (int[]){3, 4}, buf, &err),
                     QKV_ERR);
    assert_msg_has(err, "/params/encoder.layers.0.attn.w_q: [4, 3] in the checkpoint, expected [3, 4]");
    assert_int_equal(qkv_store_read_real(r, "/optim/m", 1, (int[]){1}, buf, &err), QKV_ERR);
    assert_msg_has(err, "/optim/m: a group, not a dataset");
    assert_int_equal(qkv_store_read_real(r, "/vocab/words", 1, (int[]){8}, buf, &err), QKV_ERR);
    assert_msg_has(err, "unsigned integer data, expected floating-point");
    assert_int_equal(qkv_store_read_strings(r, "/rng/state", &n, &strs, &err), QKV_ERR);
    assert_msg_has(err, "/rng/state: integer data, expected strings (NUL-ended UTF-8 bytes, uint8)");
    assert_int_equal(qkv_store_read_strings(r, "/config", &n, &strs, &err), QKV_ERR);
    assert_msg_has(err, "a scalar of strings, expected a 1-D list");
    char *text;
    assert_int_equal(qkv_store_read_text(r, "/vocab/words", &text, &err), QKV_ERR);
    assert_msg_has(err, "unsigned integer data, expected string");
    assert_int_equal(qkv_store_read_i64(r, "bad//path", &i64, &err), QKV_ERR);
    assert_msg_has(err, "must start with '/'");
    qkv_store_close(r);
}

/* Loading into a model whose shapes differ names every problem and changes no value. */
static void test_params_mismatch(void **state)
{
    (void)state;
    fx_write_sample(path);
    qkv_params other;
    fx_model(&other, 1);
    for (int i = 0; i < other.n; i++)
        qkv_init_constant(&other.items[i]->t, 7);
    qkv_store_reader *r;
    qkv_error err;
    assert_int_equal(qkv_store_open(path, &r, &err), QKV_OK);
    assert_int_equal(qkv_store_read_params(r, "/params", &other, &err), QKV_ERR);
    print_message("    (message: %s)\n", err.msg);
    assert_msg_has(err, "does not match the model");
    assert_msg_has(err, "/params/encoder.layers.0.attn.w_q is [4, 3] in the checkpoint but [3, 4] in the model");
    assert_msg_has(err, "/params/classifier.extra is missing");
    assert_msg_has(err, "not in the model: classifier.w");
    for (int i = 0; i < other.n; i++)
        for (size_t k = 0; k < other.items[i]->t.size; k++)
            assert_true(other.items[i]->t.data[k] == 7);
    /* a group that is not there: every parameter is missing */
    assert_int_equal(qkv_store_read_params(r, "/best", &other, &err), QKV_ERR);
    assert_msg_has(err, "/best/embed.words is missing");
    /* the optimizer group has the same names: loading it as parameters works */
    qkv_params same;
    fx_model(&same, 0);
    assert_int_equal(qkv_store_read_params(r, "/optim/m", &same, &err), QKV_OK);
    assert_true(same.items[0]->t.data[1] == -fx_value(1, 1));
    qkv_params_free(&same);
    qkv_store_close(r);
    qkv_params_free(&other);
}

static void test_writer_errors_block_commit(void **state)
{
    (void)state;
    fx_write_sample(path);
    size_t len0, len1;
    unsigned char *before = fx_slurp(path, &len0);
    qkv_store_writer *w;
    qkv_error err;
    assert_int_equal(qkv_store_create(path, &w, &err), QKV_OK);
    char tmp[160];
    snprintf(tmp, sizeof tmp, "%s", qkv_store_temp_path(w));
    assert_int_equal(access(tmp, F_OK), 0);
    assert_int_equal(qkv_store_write_i64(w, "/a/b", 1, &err), QKV_OK);
    assert_int_equal(qkv_store_write_i64(w, "/a/b", 2, &err), QKV_ERR);
    assert_msg_has(err, "cannot write /a/b: an item with this path was already written");
    assert_msg_has(err, path);
    /* every later write and the commit repeat the first error; nothing is saved */
    assert_int_equal(qkv_store_write_i64(w, "/a/c", 2, &err), QKV_ERR);
    assert_msg_has(err, "already written");
    assert_int_equal(qkv_store_commit(w, &err), QKV_ERR);
    assert_msg_has(err, "not saved, an earlier write failed");
    assert_int_not_equal(access(tmp, F_OK), 0);
    unsigned char *after = fx_slurp(path, &len1);
    assert_int_equal(len0, len1);
    assert_memory_equal(before, after, len0);
    free(before);
    free(after);

    const char *bad_paths[] = {"x", "/", "/a//b", "/a/", "/a/./b", "/.."};
    for (size_t i = 0; i < sizeof bad_paths / sizeof *bad_paths; i++) {
        assert_int_equal(qkv_store_create(path, &w, &err), QKV_OK);
        assert_int_equal(qkv_store_write_u64(w, bad_paths[i], 1, &err), QKV_ERR);
        qkv_store_abort(w);
    }
    assert_int_equal(qkv_store_create(path, &w, &err), QKV_OK);
    const char *bad_utf8[] = {"ok", "caf\xe9"};
    assert_int_equal(qkv_store_write_strings(w, "/v", 2, bad_utf8, &err), QKV_ERR);
    assert_msg_has(err, "string 1 is not valid UTF-8");
    qkv_store_abort(w);
    assert_int_equal(qkv_store_create(path, &w, &err), QKV_OK);
    assert_int_equal(qkv_store_write_text(w, "/t", "\xed\xa0\x80", &err), QKV_ERR); /* a surrogate */
    qkv_store_abort(w);
    qkv_params ps;
    qkv_params_init(&ps);
    assert_non_null(qkv_params_add(&ps, &err, 1, (int[]){2}, "a/b"));
    assert_int_equal(qkv_store_create(path, &w, &err), QKV_OK);
    assert_int_equal(qkv_store_write_params(w, "/params", &ps, &err), QKV_ERR);
    assert_msg_has(err, "/params/a/b");
    qkv_store_abort(w);
    qkv_params_free(&ps);
    assert_int_not_equal(access(tmp, F_OK), 0);
}

/* A checkpoint whose root attributes were altered through the escape hatch. */
static void write_with_version(int mode)
{
    qkv_store_writer *w;
    qkv_error err;
    assert_int_equal(qkv_store_create(path, &w, &err), QKV_OK);
    hid_t file = (hid_t)qkv_store_writer_hid(w);
    assert_true(H5Adelete(file, "format_version") >= 0);
    if (mode > 0) {
        hid_t space = H5Screate(H5S_SCALAR);
        hid_t a = H5Acreate2(file, "format_version", mode == 3 ? H5T_IEEE_F64LE : H5T_STD_I64LE, space,
                             H5P_DEFAULT, H5P_DEFAULT);
        int64_t v = mode == 1 ? QKV_STORE_FORMAT_VERSION + 1 : 0;
        double dv = 1.0;
        assert_true(H5Awrite(a, mode == 3 ? H5T_NATIVE_DOUBLE : H5T_NATIVE_INT64, mode == 3 ? (void *)&dv : (void *)&v) >= 0);
        H5Aclose(a);
        H5Sclose(space);
    }
    assert_int_equal(qkv_store_commit(w, &err), QKV_OK);
}

static void test_format_version_errors(void **state)
{
    (void)state;
    qkv_store_reader *r;
    qkv_error err;
    write_with_version(0);
    assert_int_equal(qkv_store_open(path, &r, &err), QKV_ERR);
    assert_msg_has(err, "root attribute format_version is missing");
    write_with_version(1);
    assert_int_equal(qkv_store_open(path, &r, &err), QKV_ERR);
    assert_msg_has(err, "written by a newer qkv (format_version 3; this qkv reads 1 to 2)");
    write_with_version(2);
    assert_int_equal(qkv_store_open(path, &r, &err), QKV_ERR);
    assert_msg_has(err, "format_version 0 is not supported");
    write_with_version(3);
    assert_int_equal(qkv_store_open(path, &r, &err), QKV_ERR);
    assert_msg_has(err, "format_version is not one integer");
}

static void test_open_errors(void **state)
{
    (void)state;
    qkv_store_reader *r = (qkv_store_reader *)1;
    qkv_error err;
    char p[200];
    snprintf(p, sizeof p, "%s/missing.h5", dir);
    assert_int_equal(qkv_store_open(p, &r, &err), QKV_ERR);
    assert_null(r);
    assert_msg_has(err, "missing.h5: cannot open: No such file or directory");
    assert_int_equal(qkv_store_open(dir, &r, &err), QKV_ERR);
    assert_msg_has(err, "not a regular file");
    snprintf(p, sizeof p, "%s/empty.h5", dir);
    fx_spit(p, "", 0);
    assert_int_equal(qkv_store_open(p, &r, &err), QKV_ERR);
    assert_msg_has(err, "the file is empty");
    snprintf(p, sizeof p, "%s/text.h5", dir);
    fx_spit(p, "model:\n  d_model: 4\n", 20);
    assert_int_equal(qkv_store_open(p, &r, &err), QKV_ERR);
    assert_msg_has(err, "not an HDF5 file");
    /* a plain HDF5 file, as h5py would write it */
    snprintf(p, sizeof p, "%s/plain.h5", dir);
    hid_t f = H5Fcreate(p, H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT);
    assert_true(f >= 0);
    H5Fclose(f);
    assert_int_equal(qkv_store_open(p, &r, &err), QKV_ERR);
    assert_msg_has(err, "an HDF5 file, but not a qkv checkpoint");
    assert_int_equal(qkv_store_open("", &r, &err), QKV_ERR);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_round_trip_every_item, setup, teardown),
        cmocka_unit_test_setup_teardown(test_same_content_same_bytes, setup, teardown),
        cmocka_unit_test_setup_teardown(test_types_on_disk, setup, teardown),
        cmocka_unit_test_setup_teardown(test_real_rounding, setup, teardown),
        cmocka_unit_test_setup_teardown(test_read_errors_name_item_and_shapes, setup, teardown),
        cmocka_unit_test_setup_teardown(test_params_mismatch, setup, teardown),
        cmocka_unit_test_setup_teardown(test_writer_errors_block_commit, setup, teardown),
        cmocka_unit_test_setup_teardown(test_format_version_errors, setup, teardown),
        cmocka_unit_test_setup_teardown(test_open_errors, setup, teardown),
    };
    if (getenv("QKV_TEST_FILTER")) /* e.g. QKV_TEST_FILTER='*flip*' to run some tests only */
        cmocka_set_test_filter(getenv("QKV_TEST_FILTER"));
    return cmocka_run_group_tests(tests, NULL, NULL);
}
