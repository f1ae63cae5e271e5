/* The writer's HDF5 file lives in memory (HDF5's core driver without a backing store) and is
 * written to disk by qkv itself once HDF5 has closed it.
 *
 * Why: HDF5 1.10 writing to disk (the sec2 driver) flushes its metadata inside H5Fclose; when
 * that flush fails (disk full, file size limit, I/O error) H5Fclose fails, the file's ID is
 * left pointing at freed memory, and HDF5's own shutdown at process exit crashes on it
 * (SIGSEGV). In memory, H5Fclose cannot fail for lack of space; every disk error is a plain
 * write(2) error of ours, after which nothing of HDF5 is left open.
 *
 * HDF5 allocates the image through the callbacks below, so the buffer HDF5 frees at close is
 * kept (not copied): a save holds the whole file in memory once, until it is written. */
#include "lib/io/store_internal.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* Growth step of the in-memory file (HDF5 reallocates it in steps of this many bytes). */
#define IMAGE_INCREMENT ((size_t)4 << 20)

static void *image_malloc(size_t size, H5FD_file_image_op_t op, void *udata)
{
    (void)op;
    qkv_store_image *img = udata;
    void *p = malloc(size);
    if (p) {
        img->mem = p;
        img->cap = size;
    }
    return p;
}

static void *image_memcpy(void *dst, const void *src, size_t size, H5FD_file_image_op_t op, void *udata)
{
    (void)op, (void)udata;
    return memcpy(dst, src, size);
}

static void *image_realloc(void *ptr, size_t size, H5FD_file_image_op_t op, void *udata)
{
    (void)op;
    qkv_store_image *img = udata;
    void *p = realloc(ptr, size);
    if (p) {
        img->mem = p;
        img->cap = size;
    }
    return p;
}

static herr_t image_free(void *ptr, H5FD_file_image_op_t op, void *udata)
{
    qkv_store_image *img = udata;
    if (ptr && ptr == img->mem && op == H5FD_FILE_IMAGE_OP_FILE_CLOSE) {
        img->closed = true; /* the finished file: qkv_store_image_release() frees it */
        return 0;
    }
    if (ptr == img->mem) {
        img->mem = NULL;
        img->cap = 0;
    }
    free(ptr);
    return 0;
}

/* The callbacks' user data is the writer's qkv_store_image, which outlives the file: the
 * property lists and the driver share it without copies. */
static void *udata_copy(void *udata) { return udata; }
static herr_t udata_free(void *udata)
{
    (void)udata;
    return 0;
}

int qkv_store_image_fapl(hid_t fapl, qkv_store_image *img)
{
    memset(img, 0, sizeof *img);
    H5FD_file_image_callbacks_t cb = {image_malloc, image_memcpy, image_realloc, image_free,
                                      udata_copy,   udata_free,   img};
    if (H5Pset_fapl_core(fapl, IMAGE_INCREMENT, 0) < 0 || H5Pset_file_image_callbacks(fapl, &cb) < 0)
        return QKV_ERR;
    return QKV_OK;
}

void qkv_store_image_release(qkv_store_image *img)
{
    /* Only a buffer HDF5 has let go of is ours to free; one still owned by an open (or
     * failed-to-close) file is left to HDF5. */
    if (img->closed)
        free(img->mem);
    memset(img, 0, sizeof *img);
}

/* Little-endian unsigned integer of n bytes at p. */
static uint64_t get_le(const unsigned char *p, int n)
{
    uint64_t v = 0;
    for (int i = n - 1; i >= 0; i--)
        v = (v << 8) | p[i];
    return v;
}

/* The closed file's length: the "end of file address" of its superblock (HDF5 file format,
 * superblock version 2 or 3, which the HDF5 1.8 format bounds of the writer produce), right
 * after the user block. Up to it the file is what HDF5 would have left on disk after
 * truncating it to that length at close. */
static const char *image_length(const qkv_store_image *img, uint64_t *len)
{
    static const unsigned char signature[8] = {0x89, 'H', 'D', 'F', '\r', '\n', 0x1a, '\n'};
    const size_t at = QKV_STORE_HEADER_SIZE;
    const unsigned char *sb = img->mem + at;
    if (!img->closed || !img->mem || img->cap < at + 48 || memcmp(sb, signature, 8) != 0)
        return "HDF5 left no file image";
    if ((sb[8] != 2 && sb[8] != 3) || sb[9] != 8)
        return "unexpected HDF5 superblock (version or address size)";
    if (get_le(sb + 12, 8) != at)
        return "unexpected HDF5 base address";
    *len = get_le(sb + 28, 8);
    if (*len <= at + 48 || *len > (uint64_t)SIZE_MAX)
        return "unexpected HDF5 end-of-file address";
    return NULL;
}

int qkv_store_image_write(qkv_store_image *img, int fd, const char **why)
{
    uint64_t len = 0;
    if ((*why = image_length(img, &len)) != NULL)
        return QKV_ERR;
    if (len > img->cap) {
        /* space HDF5 allocated at the end without writing it: zeros, as on disk */
        unsigned char *p = realloc(img->mem, (size_t)len);
        if (!p) {
            *why = "out of memory";
            return QKV_ERR;
        }
        memset(p + img->cap, 0, (size_t)len - img->cap);
        img->mem = p;
        img->cap = (size_t)len;
    }
    const size_t at = QKV_STORE_HEADER_SIZE;
    qkv_store_header_format((char *)img->mem, len, qkv_store_crc32(0, img->mem + at, (size_t)len - at));
    size_t done = 0;
    while (done < len) {
        ssize_t n = write(fd, img->mem + done, (size_t)len - done);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0) {
            *why = n < 0 ? strerror(errno) : "nothing written";
            return QKV_ERR;
        }
        done += (size_t)n;
    }
    return QKV_OK;
}
