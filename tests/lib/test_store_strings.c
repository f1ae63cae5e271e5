/* Checkpoints, part 3: lists of strings (vocabularies). Stored as their UTF-8 bytes, each
 * string NUL-ended, so a checkpoint grows with the text of its strings, not with their number
 * times the longest one (format_version 2); format_version 1's fixed-length string datasets
 * are still read, and variable-length string datasets (h5py's) in blocks of
 * QKV_STORE_VLEN_BLOCK strings, one H5Dread each (counted through an H5Dread of this program's
 * own that calls HDF5's); damaged byte lists are errors naming the item. */
#define _GNU_SOURCE /* RTLD_NEXT */
#include "store_fixture.h"

#include <dlfcn.h>
#include <hdf5.h>
#include <sys/stat.h>

#include "lib/io/store_internal.h"

static int h5dread_calls;

/* The library's H5Dread calls resolve to this definition: counted, then HDF5's own. */
herr_t H5Dread(hid_t dset, hid_t mem_type, hid_t mem_space, hid_t file_space, hid_t dxpl, void *buf)
{
    static herr_t (*real)(hid_t, hid_t, hid_t, hid_t, hid_t, void *);
    if (!real) {
        void *sym = dlsym(RTLD_NEXT, "H5Dread");
        assert_non_null(sym);
        memcpy(&real, &sym, sizeof real);
    }
    h5dread_calls++;
    return real(dset, mem_type, mem_space, file_space, dxpl, buf);
}

enum { N_WORDS = 300, LONG_LEN = 100000 };

/* Reads /vocab/words of p back, compares it with words [n] and frees them and their array;
 * returns the H5Dread calls of the read. */
static int read_back(const char *p, char **words, size_t n)
{
    qkv_store_reader *r;
    qkv_error err;
    if (qkv_store_open(p, &r, &err))
        fail_msg("%s", err.msg);
    char **back;
    size_t n_back;
    int before = h5dread_calls;
    if (qkv_store_read_strings(r, "/vocab/words", &n_back, &back, &err))
        fail_msg("%s", err.msg);
    int calls = h5dread_calls - before;
    assert_int_equal(n_back, n);
    for (size_t i = 0; i < n; i++) {
        assert_string_equal(back[i], words[i]);
        free(words[i]);
    }
    assert_null(back[n]);
    free(back);
    free(words);
    qkv_store_close(r);
    return calls;
}

/* Commits a checkpoint holding one list of N_WORDS strings ("w0", "w1", ...); with a long
 * string of LONG_LEN bytes in place of "w7" when long_len > 0. Returns the file's size. */
static long save_vocab(const char *p, size_t long_len)
{
    char **words = calloc(N_WORDS, sizeof *words);
    assert_non_null(words);
    for (int i = 0; i < N_WORDS; i++) {
        words[i] = malloc(16);
        snprintf(words[i], 16, "w%d", i);
    }
    if (long_len) {
        free(words[7]);
        words[7] = malloc(long_len + 1);
        for (size_t k = 0; k < long_len; k++)
            words[7][k] = (char)('a' + k % 26);
        words[7][long_len] = '\0';
    }
    qkv_store_writer *w;
    qkv_error err;
    assert_int_equal(qkv_store_create(p, &w, &err), QKV_OK);
    if (qkv_store_write_strings(w, "/vocab/words", N_WORDS, (const char *const *)words, &err) ||
        qkv_store_commit(w, &err))
        fail_msg("%s", err.msg);
    read_back(p, words, N_WORDS);
    struct stat st;
    assert_int_equal(stat(p, &st), 0);
    return (long)st.st_size;
}

/* One 100,000-byte string among 300 short ones adds its own bytes to the file, not 300 times
 * them (a fixed-length list was 300 x 100,000 = 30 MB). */
static void test_size_grows_with_the_text(void **state)
{
    (void)state;
    char p[200];
    snprintf(p, sizeof p, "%s/short.h5", dir);
    long plain = save_vocab(p, 0);
    snprintf(p, sizeof p, "%s/long.h5", dir);
    long with_long = save_vocab(p, LONG_LEN);
    print_message("    300 short strings: %ld bytes; one of them 100,000 bytes long: %ld bytes\n", plain, with_long);
    assert_true(with_long > plain + LONG_LEN - 16);
    assert_true(with_long < plain + LONG_LEN + 1024);
}

/* A checkpoint of format_version 1: lists as fixed-length NUL-padded UTF-8 strings. */
static void write_version1(const char *p)
{
    qkv_store_writer *w;
    qkv_error err;
    assert_int_equal(qkv_store_create(p, &w, &err), QKV_OK);
    hid_t file = (hid_t)qkv_store_writer_hid(w);
    int64_t one = 1;
    hid_t a = H5Aopen(file, "format_version", H5P_DEFAULT);
    assert_true(a >= 0 && H5Awrite(a, H5T_NATIVE_INT64, &one) >= 0);
    H5Aclose(a);
    const char fixed[3][8] = {"<unk>", "naïve", ""};
    hid_t str = H5Tcopy(H5T_C_S1);
    assert_true(H5Tset_size(str, 8) >= 0 && H5Tset_strpad(str, H5T_STR_NULLPAD) >= 0 &&
                H5Tset_cset(str, H5T_CSET_UTF8) >= 0);
    hsize_t dims[1] = {3};
    hid_t space = H5Screate_simple(1, dims, NULL);
    hid_t g = H5Gcreate2(file, "vocab", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
    hid_t d = H5Dcreate2(g, "words", str, space, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
    assert_true(d >= 0 && H5Dwrite(d, str, H5S_ALL, H5S_ALL, H5P_DEFAULT, fixed) >= 0);
    H5Dclose(d);
    H5Gclose(g);
    H5Sclose(space);
    H5Tclose(str);
    assert_int_equal(qkv_store_commit(w, &err), QKV_OK);
}

static void test_format_version_1_is_read(void **state)
{
    (void)state;
    write_version1(path);
    qkv_store_reader *r;
    qkv_error err;
    if (qkv_store_open(path, &r, &err))
        fail_msg("%s", err.msg);
    assert_int_equal(qkv_store_format_version(r), 1);
    char **s;
    size_t n;
    if (qkv_store_read_strings(r, "/vocab/words", &n, &s, &err))
        fail_msg("%s", err.msg);
    assert_int_equal(n, 3);
    assert_string_equal(s[0], "<unk>");
    assert_string_equal(s[1], "naïve");
    assert_string_equal(s[2], "");
    free(s);
    qkv_store_close(r);
}

/* Two blocks and 5 strings of variable-length strings (empty and non-ASCII ones among them)
 * read back in three H5Dreads, every string in its place. */
static void test_vlen_strings_read_in_blocks(void **state)
{
    (void)state;
    enum { N = 2 * QKV_STORE_VLEN_BLOCK + 5 };
    char **words = malloc(N * sizeof *words);
    assert_non_null(words);
    for (int i = 0; i < N; i++) {
        words[i] = malloc(24);
        snprintf(words[i], 24, i % 7 == 3 ? "" : i % 5 ? "w%d" : "naïve %d", i);
    }
    fx_write_vl_words(path, (const char *const *)words, N);
    assert_int_equal(read_back(path, words, N), 3);
}

/* A byte list written through the escape hatch (as a damaged or hand-made file could hold). */
static void write_bytes(const char *p, int rank, const unsigned char *bytes, hsize_t n)
{
    qkv_store_writer *w;
    qkv_error err;
    assert_int_equal(qkv_store_create(p, &w, &err), QKV_OK);
    hid_t file = (hid_t)qkv_store_writer_hid(w);
    hsize_t dims[2] = {rank == 2 ? 1 : n, n};
    hid_t space = H5Screate_simple(rank, dims, NULL);
    hid_t d = H5Dcreate2(file, "words", H5T_STD_U8LE, space, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
    assert_true(d >= 0 && H5Dwrite(d, H5T_NATIVE_UCHAR, H5S_ALL, H5S_ALL, H5P_DEFAULT, bytes) >= 0);
    H5Dclose(d);
    H5Sclose(space);
    assert_int_equal(qkv_store_commit(w, &err), QKV_OK);
}

static void assert_bytes_error(int rank, const char *bytes, hsize_t n, const char *expected)
{
    write_bytes(path, rank, (const unsigned char *)bytes, n);
    qkv_store_reader *r;
    qkv_error err;
    assert_int_equal(qkv_store_open(path, &r, &err), QKV_OK);
    char **s = (char **)1;
    size_t count = 7;
    assert_int_equal(qkv_store_read_strings(r, "/words", &count, &s, &err), QKV_ERR);
    assert_null(s);
    assert_int_equal(count, 0);
    assert_msg_has(err, expected);
    assert_msg_has(err, "/words: ");
    qkv_store_close(r);
}

static void test_damaged_byte_lists(void **state)
{
    (void)state;
    assert_bytes_error(1, "ab\0cd", 5, "the last string has no terminating NUL byte");
    assert_bytes_error(1, "ab\0caf\xe9\0", 8, "string 1 is not valid UTF-8");
    assert_bytes_error(2, "ab\0", 3, "[1, 3] of bytes, expected a 1-D list");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_size_grows_with_the_text, setup, teardown),
        cmocka_unit_test_setup_teardown(test_format_version_1_is_read, setup, teardown),
        cmocka_unit_test_setup_teardown(test_vlen_strings_read_in_blocks, setup, teardown),
        cmocka_unit_test_setup_teardown(test_damaged_byte_lists, setup, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
