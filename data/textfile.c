#define _GNU_SOURCE /* fopencookie */
/* Reading text, gzip-compressed or not, as a stream or a whole file (see textfile.h). */
#include "data/textfile.h"

#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
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

static int stream_open_fd(qkv_text_stream *ts, int fd, bool own_fd, const char *name, qkv_error *err);

/* Reads all of the stream ts (open) into *text; closes ts. */
static int read_all(qkv_text_stream *ts, char **text, size_t *len, qkv_error *err)
{
    const char *name = ts->name;
    size_t cap = (size_t)1 << 16, n = 0;
    char *buf = malloc(cap);
    int status = buf ? QKV_OK : qkv_fail(err, "%.200s: out of memory", name);
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
        size_t got = fread(buf + n, 1, cap - n - 1, ts->file);
        n += got;
        if (got == 0)
            break; /* the end, or an error the stream keeps for close */
    }
    int closed = qkv_text_stream_close(ts, err);
    if (status == QKV_OK)
        status = closed;
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
    qkv_text_stream *ts = malloc(sizeof *ts);
    if (!ts) {
        close(fd);
        return qkv_fail(err, "%.200s: out of memory", name);
    }
    int status = stream_open_fd(ts, fd, true, name, err);
    if (status == QKV_OK)
        status = read_all(ts, text, len, err);
    free(ts);
    return status;
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

/* ---- streams ---------------------------------------------------------------------------- */
/* Plain text is passed on as read(2) returns it, and gzip inflated as its bytes arrive, so that
 * a pipe's input is handed on while more is still to come (zlib's gzread waits for a full
 * buffer). */

enum { STREAM_UNKNOWN, STREAM_PLAIN, STREAM_GZIP, STREAM_DONE };

static ssize_t stream_fail(qkv_text_stream *ts, const char *what)
{
    qkv_fail(&ts->err, "%.200s: %s", ts->name, what);
    ts->failed = true;
    errno = EIO;
    return -1;
}

/* Reads more input into ts->in after the bytes still unread; 0 at the end, -1 on an error. */
static ssize_t stream_fill(qkv_text_stream *ts)
{
    if (ts->in_at > 0) {
        memmove(ts->in, ts->in + ts->in_at, ts->in_len - ts->in_at);
        ts->in_len -= ts->in_at;
        ts->in_at = 0;
    }
    ssize_t got;
    do
        got = read(ts->fd, ts->in + ts->in_len, sizeof ts->in - ts->in_len);
    while (got < 0 && errno == EINTR);
    if (got < 0) {
        char what[160];
        snprintf(what, sizeof what, "read error: %s", strerror(errno));
        return stream_fail(ts, what);
    }
    ts->in_len += (size_t)got;
    return got;
}

static ssize_t gzip_read(qkv_text_stream *ts, char *buf, size_t size)
{
    z_stream *z = ts->z;
    for (;;) {
        if (ts->in_at == ts->in_len && !ts->eof) {
            ssize_t got = stream_fill(ts);
            if (got < 0)
                return -1;
            ts->eof = got == 0;
        }
        z->next_in = (Bytef *)ts->in + ts->in_at;
        z->avail_in = (uInt)(ts->in_len - ts->in_at);
        z->next_out = (Bytef *)buf;
        z->avail_out = (uInt)(size > (size_t)1 << 30 ? (size_t)1 << 30 : size);
        uInt before = z->avail_out;
        int ret = inflate(z, Z_NO_FLUSH);
        ts->in_at = ts->in_len - z->avail_in;
        size_t made = before - z->avail_out;
        if (ret == Z_STREAM_END) { /* the end, or another member; any other byte is an error */
            while (ts->in_len - ts->in_at < 2 && !ts->eof) {
                ssize_t got = stream_fill(ts);
                if (got < 0)
                    return -1;
                ts->eof = got == 0;
            }
            if (ts->in_len - ts->in_at >= 2 && (unsigned char)ts->in[ts->in_at] == 0x1F &&
                (unsigned char)ts->in[ts->in_at + 1] == 0x8B)
                inflateReset(z);
            else if (ts->in_at < ts->in_len)
                return stream_fail(ts, "bytes after the last gzip member are not gzip data (something appended to "
                                       "the file, or a damaged copy?)");
            else
                ts->mode = STREAM_DONE;
        } else if (ret == Z_DATA_ERROR || ret == Z_NEED_DICT || ret == Z_STREAM_ERROR) {
            char what[200];
            snprintf(what, sizeof what, "corrupt gzip stream: %s", z->msg ? z->msg : "bad compressed data");
            return stream_fail(ts, what);
        } else if (ret == Z_MEM_ERROR) {
            return stream_fail(ts, "out of memory");
        } else if (made == 0 && ts->eof && ts->in_at == ts->in_len) {
            return stream_fail(ts, "truncated gzip stream (it ends before its end marker: an incomplete download "
                                   "or copy?)");
        }
        if (made > 0 || ts->mode == STREAM_DONE)
            return (ssize_t)made;
    }
}

static ssize_t cookie_read(void *cookie, char *buf, size_t size)
{
    qkv_text_stream *ts = cookie;
    if (ts->failed)
        return -1;
    while (ts->mode == STREAM_UNKNOWN) { /* the first two bytes decide */
        if (ts->in_len >= 2 || ts->eof) {
            bool gz = ts->in_len >= 2 && (unsigned char)ts->in[0] == 0x1F && (unsigned char)ts->in[1] == 0x8B;
            if (gz && (!(ts->z = calloc(1, sizeof(z_stream))) || inflateInit2(ts->z, 16 + MAX_WBITS) != Z_OK))
                return stream_fail(ts, "out of memory");
            ts->mode = gz ? STREAM_GZIP : STREAM_PLAIN;
            ts->any = ts->in_len > 0;
            break;
        }
        ssize_t got = stream_fill(ts);
        if (got < 0)
            return -1;
        ts->eof = got == 0;
    }
    if (ts->mode == STREAM_GZIP)
        return gzip_read(ts, buf, size);
    if (ts->mode == STREAM_DONE)
        return 0;
    if (ts->in_at < ts->in_len) { /* the bytes read to decide */
        size_t n = ts->in_len - ts->in_at < size ? ts->in_len - ts->in_at : size;
        memcpy(buf, ts->in + ts->in_at, n);
        ts->in_at += n;
        return (ssize_t)n;
    }
    ssize_t got;
    do
        got = read(ts->fd, buf, size);
    while (got < 0 && errno == EINTR);
    if (got < 0) {
        char what[160];
        snprintf(what, sizeof what, "read error: %s", strerror(errno));
        return stream_fail(ts, what);
    }
    return got;
}

int qkv_text_stream_open(qkv_text_stream *ts, const char *path, const char *name, qkv_error *err)
{
    int fd = path ? open(path, O_RDONLY | O_CLOEXEC) : 0;
    if (fd < 0) {
        memset(ts, 0, sizeof *ts);
        return qkv_fail(err, "%.200s: cannot open: %s", name, strerror(errno));
    }
    return stream_open_fd(ts, fd, path != NULL, name, err);
}

/* ts reading fd (closed by qkv_text_stream_close when own_fd, and here on an error). */
static int stream_open_fd(qkv_text_stream *ts, int fd, bool own_fd, const char *name, qkv_error *err)
{
    memset(ts, 0, sizeof *ts);
    snprintf(ts->name, sizeof ts->name, "%s", name);
    ts->fd = fd;
    ts->own_fd = own_fd;
    ts->file = fopencookie(ts, "r", (cookie_io_functions_t){.read = cookie_read});
    if (!ts->file) {
        if (ts->own_fd)
            close(ts->fd);
        return qkv_fail(err, "%.200s: out of memory", name);
    }
    return QKV_OK;
}

int qkv_text_stream_close(qkv_text_stream *ts, qkv_error *err)
{
    int status = QKV_OK;
    if (ts->failed)
        status = qkv_fail(err, "%s", ts->err.msg);
    else if (ends_with_gz(ts->name) && ts->mode != STREAM_GZIP && ts->mode != STREAM_DONE)
        status = qkv_fail(err, "%.200s: not a gzip stream (the name ends in .gz, but the file %s)", ts->name,
                          ts->any ? "does not begin with the gzip bytes 1F 8B" : "is empty");
    if (ts->file)
        fclose(ts->file);
    if (ts->z) {
        inflateEnd(ts->z);
        free(ts->z);
    }
    if (ts->own_fd)
        close(ts->fd);
    memset(ts, 0, sizeof *ts);
    return status;
}

long qkv_text_getline(char **line, size_t *cap, FILE *in, size_t max)
{
    size_t n = 0;
    int ch = EOF;
    while (n <= max && (ch = getc_unlocked(in)) != EOF) {
        if (n + 2 > *cap) {
            size_t room = *cap ? *cap : 256;
            while (room < n + 2)
                room *= 2;
            if (room > max + 2)
                room = max + 2;
            char *p = realloc(*line, room);
            if (!p)
                return -3;
            *line = p;
            *cap = room;
        }
        (*line)[n++] = (char)ch;
        if (ch == '\n')
            break;
    }
    if (n == 0)
        return -1;
    (*line)[n] = '\0';
    return n > max && (*line)[n - 1] != '\n' ? -2 : (long)n;
}
