/* libFuzzer target for the reader under every corpus, plain or gzip (data/textfile.h; build and
 * run: tests/data/fuzz.sh gzip). The input is a file. Properties: reading it whole (by path and
 * by descriptor) and as a stream of lines (short lines cut as qkv_text_getline cuts them) give
 * the same bytes or the same error, which names the file; a file that does not begin with the
 * gzip bytes 1F 8B is its own text; a gzip file reads exactly when zlib, member after member
 * with nothing after the last, decompresses it, and to the same bytes. */
#include "fuzz_common.h"

#include <fcntl.h>
#include <zlib.h>

#include "data/textfile.h"

/* The most a reference decompression makes (bombs of a few KB stay cheap). */
#define REF_MAX ((size_t)64 << 20)

/* Members decompressed one after the other into *out (malloc'd); 0, or -1 for a stream that is
 * corrupt, truncated or followed by bytes that begin no member; 1 when it makes more than
 * REF_MAX bytes (not compared). */
static int reference(const uint8_t *data, size_t size, uint8_t **out, size_t *len)
{
    z_stream z = {0};
    size_t cap = 1 << 16;
    *out = malloc(cap);
    *len = 0;
    fuzz_check(*out && inflateInit2(&z, 16 + MAX_WBITS) == Z_OK, "zlib");
    z.next_in = (Bytef *)data;
    z.avail_in = (uInt)size;
    int status = -1;
    for (;;) {
        if (cap - *len < 4096) {
            cap *= 2;
            if (cap > REF_MAX) {
                status = 1;
                break;
            }
            *out = realloc(*out, cap);
            fuzz_check(*out != NULL, "realloc");
        }
        z.next_out = *out + *len;
        z.avail_out = (uInt)(cap - *len);
        int ret = inflate(&z, Z_NO_FLUSH);
        *len = cap - z.avail_out;
        if (ret == Z_STREAM_END) {
            if (z.avail_in == 0) {
                status = 0;
                break;
            }
            if (z.avail_in < 2 || z.next_in[0] != 0x1F || z.next_in[1] != 0x8B)
                break;
            inflateReset(&z);
        } else if (ret != Z_OK && !(ret == Z_BUF_ERROR && z.avail_out == 0)) {
            break; /* corrupt, or truncated (no progress with all input given) */
        }
    }
    inflateEnd(&z);
    return status;
}

/* The stream's lines, each at most max bytes a piece, end to end. */
static int read_lines(const char *path, size_t max, char **text, size_t *len, qkv_error *err)
{
    qkv_text_stream *ts = malloc(sizeof *ts);
    fuzz_check(ts != NULL, "malloc");
    if (qkv_text_stream_open(ts, path, path, err)) {
        free(ts);
        return QKV_ERR;
    }
    char *line = NULL;
    size_t cap = 0, n = 0, room = 1;
    *text = malloc(room);
    fuzz_check(*text != NULL, "malloc");
    long got;
    while ((got = qkv_text_getline(&line, &cap, ts->file, max)) != -1) {
        fuzz_check(got != -3, "out of memory");
        size_t piece = got == -2 ? max + 1 : (size_t)got;
        fuzz_check(got != -2 || cap <= max + 2, "a cut line takes at most max + 2 bytes");
        if (n + piece + 1 > room) {
            room = 2 * (n + piece + 1);
            *text = realloc(*text, room);
            fuzz_check(*text != NULL, "realloc");
        }
        memcpy(*text + n, line, piece);
        n += piece;
    }
    free(line);
    int status = qkv_text_stream_close(ts, err);
    free(ts);
    if (status) {
        free(*text);
        *text = NULL;
        return QKV_ERR;
    }
    *len = n;
    return QKV_OK;
}

static void same(int status, const char *text, size_t len, int status2, const char *text2, size_t len2,
                 const qkv_error *err, const qkv_error *err2)
{
    fuzz_check(status == status2, "every way of reading agrees on success");
    if (status)
        fuzz_check(!strcmp(err->msg, err2->msg), "every way of reading gives the same error");
    else
        fuzz_check(len == len2 && !memcmp(text, text2, len), "every way of reading gives the same text");
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const char *path = fuzz_file(data, size, "");
    char *text = NULL, *fd_text = NULL, *lines = NULL, *short_lines = NULL;
    size_t len = 0, fd_len = 0, lines_len = 0, short_len = 0;
    qkv_error err, fd_err, lines_err, short_err;
    fuzz_output mark = fuzz_output_mark();
    int status = qkv_text_read(path, &text, &len, &err);
    int fd = open(path, O_RDONLY);
    fuzz_check(fd >= 0, "the file opens");
    int fd_status = qkv_text_read_fd(fd, path, &fd_text, &fd_len, &fd_err);
    close(fd);
    int lines_status = read_lines(path, size + 2, &lines, &lines_len, &lines_err);
    int short_status = read_lines(path, 7, &short_lines, &short_len, &short_err);
    fuzz_output_check(mark);
    same(status, text, len, fd_status, fd_text, fd_len, &err, &fd_err);
    same(status, text, len, lines_status, lines, lines_len, &err, &lines_err);
    same(status, text, len, short_status, short_lines, short_len, &err, &short_err);
    if (status)
        fuzz_check(!strncmp(err.msg, path, strlen(path)), "an error names the file");
    if (size < 2 || data[0] != 0x1F || data[1] != 0x8B) {
        fuzz_check(status == QKV_OK && len == size && !memcmp(text, data, size), "plain text is its own text");
    } else {
        uint8_t *ref;
        size_t ref_len;
        int ref_status = reference(data, size, &ref, &ref_len);
        if (ref_status != 1)
            fuzz_check(status == (ref_status ? QKV_ERR : QKV_OK) &&
                       (status || (len == ref_len && !memcmp(text, ref, len))), "gzip read as zlib reads it");
        free(ref);
    }
    free(text);
    free(fd_text);
    free(lines);
    free(short_lines);
    return 0;
}
