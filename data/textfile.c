/* Whole-file reading through zlib's gzread, which decompresses gzip and passes other bytes
 * through unchanged (see textfile.h). */
#include "data/textfile.h"

#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <zlib.h>

/* The corpus reader keeps byte offsets in 32 bits. */
#define MAX_TEXT ((size_t)UINT32_MAX - 1)

static bool ends_with_gz(const char *name)
{
    size_t n = strlen(name);
    return n >= 3 && !strcmp(name + n - 3, ".gz");
}

/* The message for a failed read from g; errno_after is errno right after the failing call. */
static int stream_error(gzFile g, int zstatus, int errno_after, const char *name, qkv_error *err)
{
    int code = zstatus;
    const char *zmsg = gzerror(g, &code);
    const char *fd_prefix = zmsg && !strncmp(zmsg, "<fd:", 4) ? strstr(zmsg, ">: ") : NULL;
    if (fd_prefix) /* zlib says "<fd:N>: reason": the reason alone */
        zmsg = fd_prefix + 3;
    if (zstatus != Z_OK)
        code = zstatus;
    switch (code) {
    case Z_ERRNO:
        return qkv_fail(err, "%.200s: read error: %s", name, strerror(errno_after));
    case Z_BUF_ERROR:
        return qkv_fail(err, "%.200s: truncated gzip stream (it ends before its end marker: "
                             "an incomplete download or copy?)", name);
    case Z_MEM_ERROR:
        return qkv_fail(err, "%.200s: out of memory", name);
    default:
        return qkv_fail(err, "%.200s: corrupt gzip stream: %s", name, zmsg && *zmsg ? zmsg : "unknown zlib error");
    }
}

/* Reads all of g into *text; closes g. */
static int read_stream(gzFile g, const char *name, char **text, size_t *len, qkv_error *err)
{
    size_t cap = (size_t)1 << 16, n = 0;
    char *buf = malloc(cap);
    int status = QKV_OK;
    if (!buf)
        status = qkv_fail(err, "%.200s: out of memory", name);
    gzbuffer(g, 1 << 17);
    while (status == QKV_OK) {
        if (cap - n < 2) {
            if (cap - 1 >= MAX_TEXT) {
                status = qkv_fail(err, "%.200s: text too large (more than %zu bytes)", name, MAX_TEXT);
                break;
            }
            size_t bigger = cap * 2 - 1 > MAX_TEXT ? MAX_TEXT + 1 : cap * 2;
            char *nb = realloc(buf, bigger);
            if (!nb) {
                status = qkv_fail(err, "%.200s: out of memory (%zu bytes read so far)", name, n);
                break;
            }
            buf = nb;
            cap = bigger;
        }
        size_t want = cap - n - 1;
        if (want > (size_t)1 << 30)
            want = (size_t)1 << 30;
        errno = 0;
        int got = gzread(g, buf + n, (unsigned)want);
        int errno_after = errno;
        if (got < 0) {
            status = stream_error(g, Z_OK, errno_after, name, err);
        } else if (got == 0) { /* the end, or a stream cut short (gzread then returns 0) */
            int code;
            gzerror(g, &code);
            if (code != Z_OK)
                status = stream_error(g, code, errno_after, name, err);
            break;
        } else {
            n += (size_t)got;
        }
    }
    if (status == QKV_OK && ends_with_gz(name) && gzdirect(g))
        status = qkv_fail(err, "%.200s: not a gzip stream (the name ends in .gz, but the file %s)", name,
                          n ? "does not begin with the gzip bytes 1F 8B" : "is empty");
    int closed = gzclose_r(g);
    if (status == QKV_OK && closed != Z_OK)
        status = closed == Z_BUF_ERROR
                     ? qkv_fail(err, "%.200s: truncated gzip stream (it ends before its end marker: "
                                     "an incomplete download or copy?)", name)
                     : qkv_fail(err, "%.200s: read error (zlib status %d)", name, closed);
    if (status != QKV_OK) {
        free(buf);
        return status;
    }
    buf[n] = '\0';
    *text = buf;
    *len = n;
    return QKV_OK;
}

/* Takes ownership of fd. */
static int read_fd_owned(int fd, const char *name, char **text, size_t *len, qkv_error *err)
{
    gzFile g = gzdopen(fd, "rb");
    if (!g) {
        close(fd);
        return qkv_fail(err, "%.200s: out of memory", name);
    }
    return read_stream(g, name, text, len, err);
}

int qkv_text_read(const char *path, char **text, size_t *len, qkv_error *err)
{
    *text = NULL;
    *len = 0;
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return qkv_fail(err, "%.200s: cannot open: %s", path, strerror(errno));
    return read_fd_owned(fd, path, text, len, err);
}

int qkv_text_read_fd(int fd, const char *name, char **text, size_t *len, qkv_error *err)
{
    *text = NULL;
    *len = 0;
    int own = dup(fd);
    if (own < 0)
        return qkv_fail(err, "%.200s: cannot read: %s", name, strerror(errno));
    return read_fd_owned(own, name, text, len, err);
}
