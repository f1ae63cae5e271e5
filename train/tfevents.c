#include "train/tfevents.h"

#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>

#include "train/crc32c.h"

/* A protobuf being written (protobuf wire format: varints, fixed64 and fixed32 little-endian,
 * length-delimited fields); full is set when it did not fit in cap. */
typedef struct pb {
    unsigned char *p;
    size_t n, cap;
    bool full;
} pb;

static void pb_bytes(pb *b, const void *data, size_t n)
{
    if (b->full || n > b->cap - b->n) {
        b->full = true;
        return;
    }
    memcpy(b->p + b->n, data, n);
    b->n += n;
}

static void pb_varint(pb *b, uint64_t v)
{
    unsigned char tmp[10];
    size_t k = 0;
    do {
        tmp[k++] = (unsigned char)((v & 0x7f) | (v > 0x7f ? 0x80 : 0));
        v >>= 7;
    } while (v);
    pb_bytes(b, tmp, k);
}

static void pb_fixed(pb *b, uint64_t v, int n_bytes)
{
    unsigned char tmp[8];
    for (int k = 0; k < n_bytes; k++)
        tmp[k] = (unsigned char)(v >> (8 * k));
    pb_bytes(b, tmp, (size_t)n_bytes);
}

/* field number f with wire type w: 0 varint, 1 fixed64, 2 length-delimited, 5 fixed32 */
static void pb_key(pb *b, int f, int w) { pb_varint(b, (uint64_t)(f << 3 | w)); }

static void pb_len_field(pb *b, int f, const void *data, size_t n)
{
    pb_key(b, f, 2);
    pb_varint(b, n);
    pb_bytes(b, data, n);
}

static size_t varint_len(uint64_t v)
{
    size_t k = 1;
    while (v > 0x7f)
        v >>= 7, k++;
    return k;
}

/* Event fields 1 and 2: wall_time (double), step (int64). */
static void event_head(pb *b, double wall_time, long step)
{
    uint64_t bits;
    memcpy(&bits, &wall_time, sizeof bits);
    pb_key(b, 1, 1);
    pb_fixed(b, bits, 8);
    pb_key(b, 2, 0);
    pb_varint(b, (uint64_t)(int64_t)step);
}

/* The bytes of a length-delimited field of n bytes with a field number below 16 (a 1-byte key). */
static size_t len_field_n(size_t n) { return 1 + varint_len(n) + n; }

/* An Event holding a Summary of one Value, up to the Value's tag: wall_time, step, Event.summary,
 * Summary.value and Value.tag; the Value's other fields (rest_n bytes) are to follow. */
static void summary_value_head(pb *b, double wall_time, long step, const char *tag, size_t rest_n)
{
    size_t tag_n = strlen(tag);
    size_t value_n = len_field_n(tag_n) + rest_n;
    event_head(b, wall_time, step);
    pb_key(b, 5, 2); /* Event.summary */
    pb_varint(b, len_field_n(value_n));
    pb_key(b, 1, 2); /* Summary.value */
    pb_varint(b, value_n);
    pb_len_field(b, 1, tag, tag_n); /* Value.tag */
}

size_t qkv_tfevents_encode_scalar(double wall_time, long step, const char *tag, float value, unsigned char *out,
                                  size_t cap)
{
    pb b = {out, 0, cap, false};
    summary_value_head(&b, wall_time, step, tag, 1 + 4);
    uint32_t bits;
    memcpy(&bits, &value, sizeof bits);
    pb_key(&b, 2, 5); /* Value.simple_value */
    pb_fixed(&b, bits, 4);
    return b.full ? 0 : b.n;
}

size_t qkv_tfevents_encode_image(double wall_time, long step, const char *tag, const qkv_png_info *info,
                                 const void *png, size_t n, unsigned char *out, size_t cap)
{
    pb b = {out, 0, cap, false};
    uint64_t h = (uint64_t)info->height, w = (uint64_t)info->width, cs = (uint64_t)info->colorspace;
    size_t image_n = 3 + varint_len(h) + varint_len(w) + varint_len(cs) + len_field_n(n);
    summary_value_head(&b, wall_time, step, tag, len_field_n(image_n));
    pb_key(&b, 4, 2); /* Value.image */
    pb_varint(&b, image_n);
    pb_key(&b, 1, 0); /* Image.height */
    pb_varint(&b, h);
    pb_key(&b, 2, 0); /* Image.width */
    pb_varint(&b, w);
    pb_key(&b, 3, 0); /* Image.colorspace */
    pb_varint(&b, cs);
    pb_len_field(&b, 4, png, n); /* Image.encoded_image_string */
    return b.full ? 0 : b.n;
}

void qkv_tfrecord_frame(const void *data, size_t n, unsigned char *out)
{
    for (int k = 0; k < 8; k++)
        out[k] = (unsigned char)((uint64_t)n >> (8 * k));
    uint32_t len_crc = qkv_crc32c_masked(out, 8), data_crc = qkv_crc32c_masked(data, n);
    for (int k = 0; k < 4; k++)
        out[8 + k] = (unsigned char)(len_crc >> (8 * k));
    memcpy(out + 12, data, n);
    for (int k = 0; k < 4; k++)
        out[12 + n + k] = (unsigned char)(data_crc >> (8 * k));
}

static double wall_now(void)
{
    struct timeval tv;
    gettimeofday(&tv, NULL);
    return (double)tv.tv_sec + 1e-6 * (double)tv.tv_usec;
}

/* One record of data to the file. */
static void write_record(qkv_tfevents *tb, const unsigned char *data, size_t n)
{
    if (!tb->f || tb->failed)
        return;
    unsigned char *rec = malloc(n + 16);
    if (!rec || (qkv_tfrecord_frame(data, n, rec), fwrite(rec, 1, n + 16, tb->f) != n + 16))
        tb->failed = errno ? errno : ENOMEM;
    free(rec);
}

int qkv_tfevents_open(qkv_tfevents *tb, const char *dir, long resume_step, qkv_error *err)
{
    char host[256] = "localhost";
    if (gethostname(host, sizeof host) != 0)
        snprintf(host, sizeof host, "localhost");
    host[sizeof host - 1] = '\0';
    double now = wall_now();
    tb->failed = 0;
    tb->f = NULL;
    /* never over another file: a run resumed within the same second gets ".1", ".2", ... */
    for (int k = 0; !tb->f && k < 100; k++) {
        int n = snprintf(tb->path, sizeof tb->path, "%s/" QKV_TFEVENTS_PREFIX "%lld.%s", dir, (long long)now, host);
        if (k && n > 0 && (size_t)n < sizeof tb->path)
            snprintf(tb->path + n, sizeof tb->path - (size_t)n, ".%d", k);
        int fd = open(tb->path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
        if (fd < 0 && errno != EEXIST)
            break;
        tb->f = fd < 0 ? NULL : fdopen(fd, "wb");
    }
    if (!tb->f)
        return qkv_fail(err, "%s: cannot write: %s", tb->path, strerror(errno));
    unsigned char buf[64];
    pb b = {buf, 0, sizeof buf, false};
    event_head(&b, now, 0);
    pb_len_field(&b, 3, "brain.Event:2", 13); /* Event.file_version */
    write_record(tb, buf, b.n);
    if (resume_step >= 0) {
        b = (pb){buf, 0, sizeof buf, false};
        event_head(&b, now, resume_step + 1);
        static const unsigned char start[] = {0x08, 1}; /* SessionLog.status (1, varint): START */
        pb_len_field(&b, 6, start, sizeof start);      /* Event.session_log */
        write_record(tb, buf, b.n);
    }
    qkv_tfevents_flush(tb);
    if (tb->failed) {
        int e = tb->failed;
        fclose(tb->f);
        tb->f = NULL;
        return qkv_fail(err, "%s: cannot write: %s", tb->path, strerror(e));
    }
    return QKV_OK;
}

void qkv_tfevents_scalar(qkv_tfevents *tb, const char *tag, long step, double value)
{
    if (!tb || value != value) /* nan: not measured, no point */
        return;
    unsigned char buf[512];
    size_t n = qkv_tfevents_encode_scalar(wall_now(), step, tag, (float)value, buf, sizeof buf);
    if (n)
        write_record(tb, buf, n);
}

/* The whole file at path (malloc'd, *n bytes); NULL with err set when it cannot be read. */
static unsigned char *read_file(const char *path, size_t *n, qkv_error *err)
{
    FILE *f = fopen(path, "rb");
    struct stat st;
    if (!f || fstat(fileno(f), &st) != 0) {
        qkv_fail(err, "%s: cannot read: %s", path, strerror(errno));
        if (f)
            fclose(f);
        return NULL;
    }
    if (st.st_size > QKV_TFEVENTS_MAX_IMAGE) {
        fclose(f);
        qkv_fail(err, "%s: %lld bytes, more than an image summary holds (%d)", path, (long long)st.st_size,
                 QKV_TFEVENTS_MAX_IMAGE);
        return NULL;
    }
    unsigned char *data = malloc((size_t)st.st_size + 1);
    *n = data ? fread(data, 1, (size_t)st.st_size, f) : 0;
    bool read_error = data && ferror(f);
    fclose(f);
    if (!data || read_error) {
        qkv_fail(err, "%s: cannot read%s", path, data ? "" : ": out of memory");
        free(data);
        return NULL;
    }
    return data;
}

int qkv_tfevents_image(qkv_tfevents *tb, const char *tag, long step, const char *path, qkv_error *err)
{
    size_t n;
    qkv_png_info info;
    unsigned char *png = read_file(path, &n, err);
    if (!png)
        return QKV_ERR;
    if (qkv_png_info_read(png, n, path, &info, err)) {
        free(png);
        return QKV_ERR;
    }
    size_t cap = n + strlen(tag) + 128;
    unsigned char *buf = malloc(cap);
    size_t len = buf ? qkv_tfevents_encode_image(wall_now(), step, tag, &info, png, n, buf, cap) : 0;
    if (len)
        write_record(tb, buf, len);
    free(buf);
    free(png);
    if (!len)
        return qkv_fail(err, "%s: out of memory", path);
    qkv_tfevents_flush(tb);
    return QKV_OK;
}

void qkv_tfevents_flush(qkv_tfevents *tb)
{
    if (tb && tb->f && fflush(tb->f) != 0 && !tb->failed)
        tb->failed = errno;
}

int qkv_tfevents_close(qkv_tfevents *tb, qkv_error *err)
{
    if (!tb->f)
        return QKV_OK;
    int failed = tb->failed;
    if (fclose(tb->f) != 0 && !failed)
        failed = errno;
    tb->f = NULL;
    if (failed)
        return qkv_fail(err, "%s: writing the TensorBoard events: %s", tb->path, strerror(failed));
    return QKV_OK;
}
