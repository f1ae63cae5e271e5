/* Sizes declared by a file bound what is allocated: a checkpoint can declare a dataset far larger
 * than the bytes it holds (HDF5 allocates late: a 23 KB file declared a 3e9-byte /vocab). Every
 * reader of a dataset (strings, text, integer arrays, reals, a model's parameters, shapes) goes
 * through qkv_store_open_dataset, which refuses such a dataset before anything is allocated.
 * The test writes one declared-but-empty dataset of each type into a sealed checkpoint (through
 * the writer's HDF5 file) and reads it with each reader; the count of a group's values (which
 * bounds the model a model file's config may declare) is refused the same way.
 * Variable-length strings (what h5py writes for a list of str) are global-heap references of
 * 16 bytes each in the dataset: a file declaring 1e9 of them with no storage is refused, and
 * so is one whose references all name one long string (each read would allocate a copy of it)
 * and one whose references give lengths far past the file (HDF5 allocates a reference's length
 * before it reads the string); each is read in a child whose address space is limited
 * (tests/child_run.h), where a reader that allocated first fails with "out of memory" instead.
 * The refusal names the string by its position in the list, NULL strings before it counted. */
#include "store_fixture.h"

#include <hdf5.h>

#include "child_run.h"
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

/* Child: reads /vocab/words of path; writes the count or the error to fd. */
static void read_words_child(int fd, void *arg)
{
    (void)arg;
    qkv_store_reader *r;
    qkv_error err = {.msg = ""};
    size_t n = 0;
    char **words = NULL;
    if (qkv_store_open(path, &r, &err) == QKV_OK) {
        if (qkv_store_read_strings(r, "/vocab/words", &n, &words, &err) == QKV_OK)
            snprintf(err.msg, sizeof err.msg, "read %zu strings", n);
        free(words);
        qkv_store_close(r);
    }
    _exit(write(fd, err.msg, strlen(err.msg)) < 0);
}

/* /vocab/words read in a child limited to 512 MiB more than it has mapped: its message. */
static void read_words_limited(char *msg, size_t cap)
{
    assert_int_equal(child_run(read_words_child, NULL, (size_t)512 << 20, msg, cap), 0);
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

static void test_declared_vl_strings_refused(void **state)
{
    (void)state;
    char msg[1200];
    hid_t str = fx_vl_string();
    write_declared("/vocab/words", str, 1000000000ULL);
    H5Tclose(str);
    read_words_limited(msg, sizeof msg);
    if (!strstr(msg, "/vocab/words") || !strstr(msg, "declares 16000000000 bytes"))
        fail_msg("expected /vocab/words refused for its declared size, got: %s", msg);
}

/* buf [len], a checkpoint edited after its header, sealed again (its CRC-32) and written to path. */
static void reseal(unsigned char *buf, size_t len)
{
    uint32_t crc = qkv_store_crc32(0, buf + QKV_STORE_HEADER_SIZE, len - QKV_STORE_HEADER_SIZE);
    qkv_store_header_format((char *)buf, len, crc);
    fx_spit(path, buf, len);
}

/* 20,000 references to one 60,000-byte string: 1.2 GB of strings from a file of ~400 KB */
static void test_shared_vl_string_refused(void **state)
{
    (void)state;
    enum { N = 20000, LONG = 60000 };
    char *text = malloc(LONG + 1);
    const char **words = malloc(N * sizeof *words);
    assert_true(text && words);
    memset(text, 'x', LONG);
    text[LONG] = '\0';
    for (int i = 0; i < N; i++)
        words[i] = i ? "a" : text;
    size_t at = fx_write_vl_words(path, words, N), len;
    unsigned char *buf = fx_slurp(path, &len), *ref = buf + at;
    assert_true(at + 16 * (size_t)N <= len);
    assert_true(ref[0] == (LONG & 255) && ref[1] == (LONG >> 8) && ref[2] == 0 && ref[3] == 0);
    for (int i = 1; i < N; i++)
        memcpy(ref + 16 * i, ref, 16);
    reseal(buf, len);
    char msg[1200];
    read_words_limited(msg, sizeof msg);
    if (!strstr(msg, "/vocab/words") || !strstr(msg, "strings hold") || !strstr(msg, "more than the whole file"))
        fail_msg("expected /vocab/words refused for its strings' bytes, got: %s", msg);
    /* the file as written (each reference its own string) reads */
    fx_write_vl_words(path, words, N);
    read_words_limited(msg, sizeof msg);
    assert_string_equal(msg, "read 20000 strings");
    free(buf);
    free(words);
    free(text);
}

/* Writes words[0 .. n-1] as the file's /vocab/words, makes the references of the strings at
 * the positions in long_at[0 .. n_long-1] (3-byte strings) say 0x10000003 bytes (HDF5
 * allocates a reference's length before it reads the heap object) and reads the file in a
 * limited child: its message in msg. */
static void read_lengths_past_the_file(const char *const *words, int n, const int *long_at, int n_long, char *msg,
                                       size_t cap)
{
    size_t at = fx_write_vl_words(path, words, (size_t)n), len;
    unsigned char *buf = fx_slurp(path, &len), *ref = buf + at;
    for (int j = 0; j < n_long; j++) {
        int i = long_at[j];
        assert_true(ref[16 * i] == 3 && ref[16 * i + 1] == 0);
        ref[16 * i + 3] = 0x10; /* 0x10000003 bytes */
    }
    reseal(buf, len);
    read_words_limited(msg, cap);
    free(buf);
}

/* 8 references whose lengths say 256 MiB for strings of 3 bytes */
static void test_vl_length_past_the_file_refused(void **state)
{
    (void)state;
    const char *words[8] = {"abc", "abc", "abc", "abc", "abc", "abc", "abc", "abc"};
    char msg[1200];
    read_lengths_past_the_file(words, 8, (int[]){0, 1, 2, 3, 4, 5, 6, 7}, 8, msg, sizeof msg);
    if (!strstr(msg, "/vocab/words") || !strstr(msg, "strings hold") || !strstr(msg, "more than the whole file"))
        fail_msg("expected /vocab/words refused for its strings' lengths, got: %s", msg);
}

/* The refused string is named by its position in the list: NULL strings (nil references, which
 * HDF5 reads without an allocation) before it count too. */
static void test_refused_string_named_by_position(void **state)
{
    (void)state;
    const char *words[6] = {NULL, "a", NULL, NULL, "abc", "b"};
    char msg[1200];
    read_lengths_past_the_file(words, 6, (int[]){4}, 1, msg, sizeof msg);
    if (!strstr(msg, "/vocab/words") || !strstr(msg, "more than the whole file") || !strstr(msg, "by string 4:"))
        fail_msg("expected /vocab/words refused by string 4, got: %s", msg);
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
        cmocka_unit_test_setup_teardown(test_declared_vl_strings_refused, setup, teardown),
        cmocka_unit_test_setup_teardown(test_shared_vl_string_refused, setup, teardown),
        cmocka_unit_test_setup_teardown(test_vl_length_past_the_file_refused, setup, teardown),
        cmocka_unit_test_setup_teardown(test_refused_string_named_by_position, setup, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
