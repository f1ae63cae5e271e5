/* Whole-file reading (data/textfile.h): plain bytes as they are, gzip streams decompressed
 * (one member or several), and every damaged stream an error naming the file, with no text:
 * cut short (in the data, in the trailer, after the header), corrupt data or checksum, a .gz
 * name on plain text or on an empty file, bytes after the last member (streams too). The corpus reader and a file descriptor go the same
 * way. The compressed input is the committed EWT sample; the expected text comes from gzip. */
#include "testutil.h"

#include <fcntl.h>
#include <unistd.h>

#include "corpus_checks.h"
#include "data/textfile.h"

static char tmpdir[64];

static char *file_bytes(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    assert_non_null(f);
    char *bytes = stream_bytes(f, len);
    fclose(f);
    return bytes;
}

static const char *tmp_path(const char *name)
{
    static char path[4][256];
    static int k;
    k = (k + 1) % 4;
    snprintf(path[k], sizeof path[k], "%s/%s", tmpdir, name);
    return path[k];
}

static const char *write_tmp(const char *name, const char *bytes, size_t len)
{
    const char *path = tmp_path(name);
    FILE *f = fopen(path, "wb");
    assert_non_null(f);
    assert_int_equal(fwrite(bytes, 1, len, f), len);
    assert_int_equal(fclose(f), 0);
    return path;
}

static void assert_reads(const char *path, const char *want, size_t want_len)
{
    char *text = NULL;
    size_t len = 0;
    qkv_error err = {0};
    if (qkv_text_read(path, &text, &len, &err) != QKV_OK)
        fail_msg("%s", err.msg);
    assert_int_equal(len, want_len);
    assert_memory_equal(text, want, len);
    assert_int_equal(text[len], '\0');
    free(text);
}

/* Reading path fails; the message begins with "path: " followed by expected. */
static void assert_read_fails(const char *path, const char *expected)
{
    char *text = (char *)1;
    size_t len = 7;
    qkv_error err = {0};
    assert_int_equal(qkv_text_read(path, &text, &len, &err), QKV_ERR);
    assert_null(text);
    assert_int_equal(len, 0);
    char want[512];
    snprintf(want, sizeof want, "%s: %s", path, expected);
    if (strncmp(err.msg, want, strlen(want)))
        fail_msg("got \"%s\", expected it to begin with \"%s\"", err.msg, want);
    /* the corpus reader gives the same message and an empty corpus */
    qkv_corpus c;
    qkv_error cerr = {0};
    assert_int_equal(qkv_corpus_read(&c, path, NULL, &cerr), QKV_ERR);
    assert_string_equal(cerr.msg, err.msg);
    assert_int_equal(c.n_words, 0);
    assert_null(c.text);
    qkv_corpus_free(&c);
}

static int setup(void **state)
{
    (void)state;
    snprintf(tmpdir, sizeof tmpdir, "/tmp/qkv-textfile-XXXXXX");
    return mkdtemp(tmpdir) ? 0 : -1;
}

static int teardown(void **state)
{
    (void)state;
    char cmd[128];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", tmpdir);
    return system(cmd) == 0 ? 0 : -1;
}

static void test_plain_and_gzip(void **state)
{
    (void)state;
    size_t plain_len;
    char *plain = file_bytes("tests/data/files/crlf.conllu", &plain_len);
    assert_reads("tests/data/files/crlf.conllu", plain, plain_len); /* bytes as they are */
    assert_reads(write_tmp("empty.conllu", "", 0), "", 0);
    free(plain);

    size_t want_len, gz_len;
    char *want = gzip_dc(EWT_SAMPLE_DEV, &want_len);
    char *gz = file_bytes(EWT_SAMPLE_DEV, &gz_len);
    assert_true(gz_len > 1000 && want_len > 4 * gz_len); /* a text that gzip compresses 4 times at least */
    assert_reads(EWT_SAMPLE_DEV, want, want_len);
    /* gzip bytes under any name are decompressed */
    assert_reads(write_tmp("compressed.conllu", gz, gz_len), want, want_len);
    /* two members in a row (cat a.gz b.gz) read as the two texts in a row */
    char *two = malloc(2 * gz_len), *two_want = malloc(2 * want_len);
    memcpy(two, gz, gz_len);
    memcpy(two + gz_len, gz, gz_len);
    memcpy(two_want, want, want_len);
    memcpy(two_want + want_len, want, want_len);
    assert_reads(write_tmp("two.conllu.gz", two, 2 * gz_len), two_want, 2 * want_len);
    free(two);
    free(two_want);

    /* a file descriptor: the same text, and the descriptor stays open */
    int fd = open(EWT_SAMPLE_DEV, O_RDONLY);
    assert_true(fd >= 0);
    char *text = NULL;
    size_t len = 0;
    qkv_error err = {0};
    if (qkv_text_read_fd(fd, "<stdin>", &text, &len, &err) != QKV_OK)
        fail_msg("%s", err.msg);
    assert_int_equal(len, want_len);
    assert_memory_equal(text, want, len);
    free(text);
    assert_int_equal(close(fd), 0);
    assert_int_equal(qkv_text_read_fd(-1, "<stdin>", &text, &len, &err), QKV_ERR);
    assert_string_equal(err.msg, "<stdin>: cannot read: Bad file descriptor");
    free(gz);
    free(want);
}

static void test_damaged_gzip(void **state)
{
    (void)state;
    size_t gz_len;
    char *gz = file_bytes(EWT_SAMPLE_DEV, &gz_len);
    const char *truncated = "truncated gzip stream (it ends before its end marker: an incomplete download or copy?)";
    assert_read_fails(write_tmp("half.conllu.gz", gz, gz_len / 2), truncated);
    assert_read_fails(write_tmp("no_trailer.conllu.gz", gz, gz_len - 4), truncated); /* length field cut */
    assert_read_fails(write_tmp("header.conllu.gz", gz, 12), truncated);
    assert_read_fails(write_tmp("magic.conllu.gz", gz, 2), truncated);
    /* a wrong CRC-32 in the trailer (the 8 bytes are CRC-32, then length) */
    gz[gz_len - 8] ^= 0x01;
    assert_read_fails(write_tmp("crc.conllu.gz", gz, gz_len), "corrupt gzip stream: incorrect data check");
    gz[gz_len - 8] ^= 0x01;
    /* bytes overwritten inside the compressed data: whatever zlib finds first, it is corrupt */
    for (size_t i = 0; i < 64; i++)
        gz[gz_len / 2 + i] = (char)(i * 37);
    assert_read_fails(write_tmp("corrupt.conllu.gz", gz, gz_len), "corrupt gzip stream: ");
    free(gz);

    assert_read_fails(write_tmp("plain.conllu.gz", "1\ta\t_\tX\t_\t_\t_\t_\t_\t_\n", 20),
                      "not a gzip stream (the name ends in .gz, but the file does not begin with the gzip bytes 1F 8B)");
    assert_read_fails(write_tmp("empty.conllu.gz", "", 0),
                      "not a gzip stream (the name ends in .gz, but the file is empty)");
    assert_read_fails(tmp_path("missing.conllu.gz"), "cannot open: No such file or directory");
    assert_read_fails(tmpdir, "read error: Is a directory");
}

/* Reading path as a stream (qkv_text_stream: raw text for a segmenter) fails with the message of
 * assert_read_fails, after handing on at most the text before the failure. */
static void assert_stream_fails(const char *path, const char *expected)
{
    qkv_text_stream *ts = malloc(sizeof *ts);
    qkv_error err = {0};
    assert_int_equal(qkv_text_stream_open(ts, path, path, &err), QKV_OK);
    char buf[4096];
    while (fread(buf, 1, sizeof buf, ts->file) > 0)
        ;
    assert_int_equal(qkv_text_stream_close(ts, &err), QKV_ERR);
    free(ts);
    char want[512];
    snprintf(want, sizeof want, "%s: %s", path, expected);
    if (strncmp(err.msg, want, strlen(want)))
        fail_msg("stream: got \"%s\", expected it to begin with \"%s\"", err.msg, want);
}

/* Bytes after the last member that begin no other member (text, zero padding, a lone 1F byte)
 * are an error for every reader: whole files (corpora, IDX), the corpus reader, streams. */
static void test_trailing_bytes(void **state)
{
    (void)state;
    size_t gz_len;
    char *gz = file_bytes(EWT_SAMPLE_DEV, &gz_len);
    static const struct {
        const char *name, *bytes;
        size_t len;
    } TAILS[] = {{"text.conllu.gz", "1\tx\t_\tX\t_\t_\t_\t_\t_\t_\n", 20},
                 {"zeros.conllu.gz", "\0\0\0\0\0\0\0\0", 8},
                 {"lone.conllu.gz", "\x1f", 1}};
    const char *msg = "bytes after the last gzip member are not gzip data";
    for (size_t k = 0; k < sizeof TAILS / sizeof TAILS[0]; k++) {
        char *bytes = malloc(2 * gz_len + TAILS[k].len);
        memcpy(bytes, gz, gz_len);
        memcpy(bytes + gz_len, gz, gz_len); /* two members, then the tail */
        memcpy(bytes + 2 * gz_len, TAILS[k].bytes, TAILS[k].len);
        const char *path = write_tmp(TAILS[k].name, bytes, 2 * gz_len + TAILS[k].len);
        assert_read_fails(path, msg);
        assert_stream_fails(path, msg);
        free(bytes);
    }
    free(gz);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_plain_and_gzip),
        cmocka_unit_test(test_damaged_gzip),
        cmocka_unit_test(test_trailing_bytes),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
