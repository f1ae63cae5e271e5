/* Checkpoint helpers: the qkv header in the HDF5 user block, CRC-32, item path
 * checks, and HDF5 error text. See lib/io/store.h for the file layout. */
#include "lib/io/store_internal.h"

#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <zlib.h>

uint32_t qkv_store_crc32(uint32_t crc, const void *data, size_t n)
{
    /* zlib's crc32: reflected CRC-32, polynomial 0xEDB88320, initial and final value
     * 0xFFFFFFFF (ISO 3309 / IEEE 802.3), what Python's zlib.crc32 computes. zlib takes
     * lengths as uInt: larger buffers go in pieces. */
    const unsigned char *p = data;
    uLong c = crc;
    while (n > 0) {
        uInt piece = n > (size_t)UINT_MAX ? UINT_MAX : (uInt)n;
        c = crc32(c, p, piece);
        p += piece;
        n -= piece;
    }
    return (uint32_t)c;
}

#define HEADER_TEXT                                                                              \
    "qkv-checkpoint\nsize=%020" PRIu64 "\ncrc32=%08" PRIx32 "\n"                                 \
    "This is an HDF5 file (open it with h5py) with a 512-byte qkv header (the HDF5 user block).\n" \
    "size is the file length in bytes; crc32 is zlib.crc32 of bytes 512 to size-1.\n"

void qkv_store_header_format(char *buf, uint64_t size, uint32_t crc)
{
    memset(buf, 0, QKV_STORE_HEADER_SIZE);
    snprintf(buf, QKV_STORE_HEADER_SIZE, HEADER_TEXT, size, crc);
}

bool qkv_store_header_parse(const char *buf, uint64_t *size, uint32_t *crc)
{
    /* Fixed layout: "qkv-checkpoint\nsize=" (20 bytes), 20 digits, "\ncrc32=" (7 bytes),
     * 8 lowercase hex digits, then text. The whole text must equal what the writer produces
     * for these values; the NUL padding after it is ignored. */
    static const char magic[] = "qkv-checkpoint\nsize=";
    if (memcmp(buf, magic, sizeof magic - 1) != 0)
        return false;
    uint64_t s = 0;
    for (int i = 20; i < 40; i++) {
        if (buf[i] < '0' || buf[i] > '9' || s > (UINT64_MAX - 9) / 10)
            return false;
        s = s * 10 + (uint64_t)(buf[i] - '0');
    }
    if (memcmp(buf + 40, "\ncrc32=", 7) != 0)
        return false;
    uint32_t c = 0;
    for (int i = 47; i < 55; i++) {
        char ch = buf[i];
        int v = ch >= '0' && ch <= '9' ? ch - '0' : ch >= 'a' && ch <= 'f' ? ch - 'a' + 10 : -1;
        if (v < 0)
            return false;
        c = (c << 4) | (uint32_t)v;
    }
    char expect[QKV_STORE_HEADER_SIZE];
    qkv_store_header_format(expect, s, c);
    if (memcmp(buf, expect, strlen(expect) + 1) != 0)
        return false;
    *size = s;
    *crc = c;
    return true;
}

const char *qkv_store_path_problem(const char *path)
{
    if (!path || path[0] != '/')
        return "an item path must start with '/'";
    if (strlen(path) > 1000)
        return "an item path must be at most 1000 characters";
    if (path[1] == '\0')
        return "the root '/' is not an item";
    const char *p = path + 1;
    for (;;) {
        const char *end = strchr(p, '/');
        size_t len = end ? (size_t)(end - p) : strlen(p);
        if (len == 0)
            return "empty component ('//' or a trailing '/')";
        if ((len == 1 && p[0] == '.') || (len == 2 && p[0] == '.' && p[1] == '.'))
            return "a component is '.' or '..'";
        if (!end)
            return NULL;
        p = end + 1;
    }
}


typedef struct {
    char *buf;
    size_t len;
    bool found;
} h5_walk;

static herr_t h5_walk_cb(unsigned n, const H5E_error2_t *e, void *data)
{
    h5_walk *w = data;
    (void)n;
    if (w->found)
        return 0;
    const char *desc = e->desc && e->desc[0] ? e->desc : NULL;
    char minor[128] = "";
    if (!desc && H5Eget_msg(e->min_num, NULL, minor, sizeof minor) > 0)
        desc = minor;
    if (desc) {
        /* HDF5's I/O messages are long ("file write failed: time = ..., errno = 28, error
         * message = 'No space left on device', buf = ..."): keep the summary before the
         * first ':' and the errno text. */
        const char *colon = strchr(desc, ':'), *em = strstr(desc, "error message = '");
        if (colon && em) {
            em += strlen("error message = '");
            const char *end = strchr(em, '\'');
            snprintf(w->buf, w->len, "%.*s: %.*s", (int)(colon - desc), desc, (int)(end ? end - em : 200), em);
        } else {
            snprintf(w->buf, w->len, "%s", desc);
        }
        for (char *p = w->buf; *p; p++)
            if (*p == '\n' || *p == '\r')
                *p = ' ';
        w->found = true;
    }
    return 0;
}

const char *qkv_store_h5_msg(char *buf, size_t len)
{
    h5_walk w = {buf, len, false};
    snprintf(buf, len, "unknown HDF5 error");
    /* Upward = from the function where the error was detected (the most specific). */
    H5Ewalk2(H5E_DEFAULT, H5E_WALK_UPWARD, h5_walk_cb, &w);
    return buf;
}

void qkv_store_h5_silence(void) { H5Eset_auto2(H5E_DEFAULT, NULL, NULL); }
