/* Checkpoint reader for strings: vocabularies (1-D) stored as NUL-ended UTF-8 bytes (format
 * version 2) or as HDF5 string datasets (version 1, and other tools), and text blobs (scalar
 * strings). See lib/io/store.h. */
#include "lib/io/store_internal.h"

#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* Frees n strings of read_vlen and their array. */
static void free_vlen(char **vlen, size_t n)
{
    for (size_t i = 0; vlen && i < n; i++)
        free(vlen[i]);
    free(vlen);
}

/* What HDF5 may still allocate for variable-length strings (H5Pset_vlen_mem_manager), and the
 * strings the H5Dread in progress has allocated (one a string, in order). */
typedef struct {
    hsize_t left;  /* bytes */
    bool refused;  /* a string asked for more */
    void **made;   /* [cap] */
    size_t n_made, cap;
} vl_budget;

static void *vl_alloc(size_t size, void *info)
{
    vl_budget *b = info;
    if (size > b->left) {
        b->refused = true;
        return NULL;
    }
    void *p = b->n_made < b->cap ? malloc(size) : NULL;
    if (p) {
        b->left -= size;
        b->made[b->n_made++] = p;
    }
    return p;
}

static void vl_free(void *p, void *info)
{
    vl_budget *b = info;
    for (size_t i = b->n_made; p && i-- > 0;)
        if (b->made[i] == p) {
            memmove(b->made + i, b->made + i + 1, (b->n_made - i - 1) * sizeof *b->made);
            b->n_made--;
            break;
        }
    free(p);
}

/* A read of variable-length strings: the dataset d, its memory type, the file's selection and
 * the memory's (H5I_INVALID_HID: a scalar, read whole), the transfer list with the budget. */
typedef struct {
    const qkv_store_reader *r;
    const char *path;
    hid_t d, mem, fspace, mspace, dxpl;
    hsize_t file_size;
    vl_budget budget;
} vl_read;

/* Frees the strings the H5Dread in progress has allocated. */
static void free_made(vl_budget *b)
{
    while (b->n_made > 0)
        free(b->made[--b->n_made]);
}

/* Selects the strings [i0, i0 + count) of the file into the first count of the memory's. */
static bool select_strings(const vl_read *v, size_t i0, hsize_t count)
{
    hsize_t start = i0, zero = 0;
    return H5Sselect_hyperslab(v->fspace, H5S_SELECT_SET, &start, NULL, &count, NULL) >= 0 &&
           H5Sselect_hyperslab(v->mspace, H5S_SELECT_SET, &zero, NULL, &count, NULL) >= 0;
}

/* The position of the string the budget refused in a read of the strings [i0, i0 + count) that
 * began with `left` bytes to spend (the read's allocations are freed). A NULL string takes no
 * allocation, so the allocations before the refusal do not give it: the strings are read again
 * one at a time from the same budget, up to the one refused. `guess` when that read fails. */
static size_t refused_position(vl_read *v, size_t i0, hsize_t count, hsize_t left, size_t guess)
{
    v->budget.left = left;
    v->budget.refused = false;
    for (size_t i = i0; i < i0 + (size_t)count; i++) {
        char *one = NULL;
        bool ok = select_strings(v, i, 1) && H5Dread(v->d, v->mem, v->mspace, v->fspace, v->dxpl, &one) >= 0;
        free_made(&v->budget);
        if (v->budget.refused)
            return i;
        if (!ok)
            break;
    }
    return guess;
}

/* One H5Dread of the strings [i0, i0 + count) into buf + i0. On failure every string it
 * allocated is freed and set to NULL in buf, and the error names the string the budget refused
 * (by its position in the dataset) or HDF5's message. */
static int read_vlen_block(vl_read *v, size_t i0, hsize_t count, char **buf, qkv_error *err)
{
    char msg[512];
    v->budget.n_made = 0;
    bool whole = v->mspace < 0;
    if (!whole && !select_strings(v, i0, count))
        return qkv_store_read_fail(v->r, err, v->path, "HDF5 cannot select strings %zu to %zu", i0,
                                  i0 + (size_t)count - 1);
    hsize_t left = v->budget.left;
    if (H5Dread(v->d, v->mem, whole ? H5S_ALL : v->mspace, whole ? H5S_ALL : v->fspace, v->dxpl, buf + i0) >= 0)
        return QKV_OK;
    size_t refused = i0 + v->budget.n_made; /* when no string before it is NULL */
    free_made(&v->budget);
    memset(buf + i0, 0, (size_t)count * sizeof *buf);
    if (!v->budget.refused)
        return qkv_store_read_fail(v->r, err, v->path, "HDF5 cannot read it: %s", qkv_store_h5_msg(msg, sizeof msg));
    if (!whole)
        refused = refused_position(v, i0, count, left, refused);
    return qkv_store_read_fail(v->r, err, v->path,
                               "its strings hold more than the whole file (%llu bytes) by string %zu: not read",
                               (unsigned long long)v->file_size, refused);
}

/* Reads n variable-length strings (n 1 for a scalar) into *vlen, n malloc'd strings. Each is a
 * global-heap reference holding the string's length, and HDF5 allocates that length before it
 * reads the heap object; many references can name one object. The allocations go through a
 * budget of the file's size plus a NUL per string (what separate strings take at most): a
 * string past it is refused before it is allocated, and the error names it by its position.
 * QKV_STORE_VLEN_BLOCK strings are read at a time; a refused read frees what it allocated, so
 * that it leaves nothing behind. */
static int read_vlen(const qkv_store_reader *r, const char *path, hid_t d, hid_t mem, size_t n, char ***vlen,
                     qkv_error *err)
{
    hsize_t block = n < QKV_STORE_VLEN_BLOCK ? (n ? n : 1) : QKV_STORE_VLEN_BLOCK;
    vl_read v = {r, path, d, mem, H5Dget_space(d), H5I_INVALID_HID, H5Pcreate(H5P_DATASET_XFER), 0,
                 {0, false, calloc(block, sizeof(void *)), 0, block}};
    char msg[512], **buf = calloc(n ? n : 1, sizeof *buf);
    bool scalar = v.fspace >= 0 && H5Sget_simple_extent_ndims(v.fspace) == 0;
    v.mspace = scalar ? H5I_INVALID_HID : H5Screate_simple(1, &block, NULL);
    int status = QKV_OK;
    if (!buf || !v.budget.made)
        status = qkv_store_read_fail(r, err, path, "out of memory for %zu strings", n);
    else if (v.fspace < 0 || (!scalar && v.mspace < 0) || v.dxpl < 0 || H5Fget_filesize(r->file, &v.file_size) < 0 ||
             H5Pset_vlen_mem_manager(v.dxpl, vl_alloc, &v.budget, vl_free, &v.budget) < 0)
        status = qkv_store_read_fail(r, err, path, "HDF5 cannot read it: %s", qkv_store_h5_msg(msg, sizeof msg));
    v.budget.left = v.file_size + n;
    for (size_t i0 = 0; i0 < n && status == QKV_OK; i0 += block)
        status = read_vlen_block(&v, i0, n - i0 < block ? n - i0 : block, buf, err);
    if (v.dxpl >= 0)
        H5Pclose(v.dxpl);
    if (v.mspace >= 0)
        H5Sclose(v.mspace);
    if (v.fspace >= 0)
        H5Sclose(v.fspace);
    free(v.budget.made);
    if (status != QKV_OK) {
        free_vlen(buf, n);
        return QKV_ERR;
    }
    *vlen = buf;
    return QKV_OK;
}

/* Reads n strings as raw pieces: for variable-length ones an array of n malloc'd strings
 * (*vlen), for fixed-length ones n * *width bytes (*fixed). */
static int read_raw(const qkv_store_reader *r, const char *path, hid_t d, size_t n, char ***vlen, char **fixed,
                    size_t *width, H5T_str_t *pad, qkv_error *err)
{
    hid_t type = H5Dget_type(d);
    hid_t mem = type >= 0 ? H5Tget_native_type(type, H5T_DIR_ASCEND) : H5I_INVALID_HID;
    char msg[512];
    int status = QKV_ERR;
    if (mem < 0) {
        qkv_store_read_fail(r, err, path, "HDF5 cannot read its type: %s", qkv_store_h5_msg(msg, sizeof msg));
        goto done;
    }
    htri_t var = H5Tis_variable_str(mem);
    size_t size = H5Tget_size(mem);
    *pad = H5Tget_strpad(mem);
    if (var < 0 || size == 0) {
        qkv_store_read_fail(r, err, path, "unreadable string type");
        goto done;
    }
    *width = size;
    if (var) {
        status = read_vlen(r, path, d, mem, n, vlen, err);
        goto done;
    }
    if (n > SIZE_MAX / size - 1) {
        qkv_store_read_fail(r, err, path, "too many strings (%zu)", n);
        goto done;
    }
    void *buf = calloc(n ? n : 1, size);
    if (!buf) {
        qkv_store_read_fail(r, err, path, "out of memory for %zu strings", n);
        goto done;
    }
    if (n > 0 && H5Dread(d, mem, H5S_ALL, H5S_ALL, H5P_DEFAULT, buf) < 0) {
        qkv_store_read_fail(r, err, path, "HDF5 cannot read it: %s", qkv_store_h5_msg(msg, sizeof msg));
        free(buf);
        goto done;
    }
    *fixed = buf;
    status = QKV_OK;
done:
    if (mem >= 0)
        H5Tclose(mem);
    if (type >= 0)
        H5Tclose(type);
    return status;
}

/* Length of fixed-length string i: up to its first NUL; space padding is dropped. */
static size_t fixed_len(const char *s, size_t width, H5T_str_t pad)
{
    const char *nul = memchr(s, '\0', width);
    size_t len = nul ? (size_t)(nul - s) : width;
    if (pad == H5T_STR_SPACEPAD)
        while (len > 0 && s[len - 1] == ' ')
            len--;
    return len;
}

/* n strings of a dataset of the wanted rank (1 = list, 0 = scalar) in one allocation. */
static int read_strings(const qkv_store_reader *r, const char *path, int want_rank, size_t *n_out, char ***out,
                        qkv_error *err)
{
    *out = NULL;
    *n_out = 0;
    int rank;
    hsize_t dims[QKV_MAX_RANK];
    hid_t d = qkv_store_open_dataset(r, path, KIND_STRING, &rank, dims, err);
    if (d < 0)
        return QKV_ERR;
    if (rank != want_rank) {
        char a[128];
        H5Dclose(d);
        return qkv_store_read_fail(r, err, path, "%s of strings, expected %s", qkv_store_dims_str(rank, dims, a, sizeof a),
                                  want_rank ? "a 1-D list" : "a scalar");
    }
    size_t n = rank ? (size_t)dims[0] : 1, width = 0;
    if (rank && dims[0] != (hsize_t)n) {
        H5Dclose(d);
        return qkv_store_read_fail(r, err, path, "too many strings");
    }
    char **vlen = NULL, *fixed = NULL;
    H5T_str_t pad = H5T_STR_NULLTERM;
    int status = read_raw(r, path, d, n, &vlen, &fixed, &width, &pad, err);
    H5Dclose(d);
    if (status != QKV_OK)
        return QKV_ERR;
    /* one block: n pointers, then the strings with their NULs */
    size_t total = (n + 1) * sizeof(char *);
    for (size_t i = 0; i < n && status == QKV_OK; i++) {
        const char *s = vlen ? (vlen[i] ? vlen[i] : "") : fixed + i * width;
        size_t len = vlen ? strlen(s) : fixed_len(s, width, pad);
        if (qkv_utf8_check(s, len) != len)
            status = qkv_store_read_fail(r, err, path, "string %zu is not valid UTF-8", i);
        else if (total > SIZE_MAX - len - 1)
            status = qkv_store_read_fail(r, err, path, "strings too large");
        total += len + 1;
    }
    char **block = status == QKV_OK ? malloc(total) : NULL;
    if (status == QKV_OK && !block)
        status = qkv_store_read_fail(r, err, path, "out of memory (%zu bytes)", total);
    if (block) {
        char *dst = (char *)(block + n + 1);
        for (size_t i = 0; i < n; i++) {
            const char *s = vlen ? (vlen[i] ? vlen[i] : "") : fixed + i * width;
            size_t len = vlen ? strlen(s) : fixed_len(s, width, pad);
            memcpy(dst, s, len);
            dst[len] = '\0';
            block[i] = dst;
            dst += len + 1;
        }
        block[n] = NULL;
    }
    free_vlen(vlen, n);
    free(fixed);
    if (status != QKV_OK)
        return QKV_ERR;
    *out = block;
    *n_out = n;
    return QKV_OK;
}

/* A uint8 array of NUL-ended UTF-8 strings (what qkv_store_write_strings writes) as one block:
 * n + 1 pointers, then the bytes. */
static int read_packed(const qkv_store_reader *r, const char *path, hid_t d, int rank, const hsize_t *dims,
                       size_t *n_out, char ***out, qkv_error *err)
{
    char msg[512];
    if (rank != 1)
        return qkv_store_read_fail(r, err, path, "%s of bytes, expected a 1-D list of NUL-ended strings",
                                  qkv_store_dims_str(rank, dims, msg, sizeof msg));
    size_t total = (size_t)dims[0];
    if (dims[0] != (hsize_t)total || total > SIZE_MAX / 2 - sizeof(char *))
        return qkv_store_read_fail(r, err, path, "too many bytes");
    unsigned char *bytes = malloc(total ? total : 1);
    if (!bytes)
        return qkv_store_read_fail(r, err, path, "out of memory (%zu bytes)", total);
    if (total && H5Dread(d, H5T_NATIVE_UCHAR, H5S_ALL, H5S_ALL, H5P_DEFAULT, bytes) < 0) {
        free(bytes);
        return qkv_store_read_fail(r, err, path, "HDF5 cannot read it: %s", qkv_store_h5_msg(msg, sizeof msg));
    }
    size_t n = 0;
    for (size_t i = 0; i < total; i++)
        n += bytes[i] == 0;
    int status = QKV_OK;
    if (total && bytes[total - 1] != 0)
        status = qkv_store_read_fail(r, err, path, "the last string has no terminating NUL byte");
    for (size_t i = 0, s = 0, k = 0; status == QKV_OK && i < total; i++)
        if (bytes[i] == 0) {
            if (qkv_utf8_check((const char *)bytes + s, i - s) != i - s)
                status = qkv_store_read_fail(r, err, path, "string %zu is not valid UTF-8", k);
            s = i + 1;
            k++;
        }
    char **block = NULL;
    if (status == QKV_OK && n > (SIZE_MAX - total) / sizeof(char *) - 1)
        status = qkv_store_read_fail(r, err, path, "too many strings");
    if (status == QKV_OK && !(block = malloc((n + 1) * sizeof(char *) + total)))
        status = qkv_store_read_fail(r, err, path, "out of memory (%zu bytes)", total);
    if (status == QKV_OK) {
        char *dst = (char *)(block + n + 1);
        memcpy(dst, bytes, total);
        for (size_t i = 0, s = 0, k = 0; i < total; i++)
            if (dst[i] == 0) {
                block[k++] = dst + s;
                s = i + 1;
            }
        block[n] = NULL;
        *out = block;
        *n_out = n;
    }
    free(bytes);
    return status;
}

int qkv_store_read_strings(const qkv_store_reader *r, const char *path, size_t *n, char ***strings, qkv_error *err)
{
    *strings = NULL;
    *n = 0;
    int rank;
    hsize_t dims[QKV_MAX_RANK];
    hid_t d = qkv_store_open_dataset(r, path, KIND_ANY, &rank, dims, err);
    if (d < 0)
        return QKV_ERR;
    hid_t type = H5Dget_type(d);
    H5T_class_t cls = type >= 0 ? H5Tget_class(type) : H5T_NO_CLASS;
    bool bytes = cls == H5T_INTEGER && H5Tget_size(type) == 1 && H5Tget_sign(type) == H5T_SGN_NONE;
    if (type >= 0)
        H5Tclose(type);
    int status;
    if (bytes) {
        status = read_packed(r, path, d, rank, dims, n, strings, err);
        H5Dclose(d);
        return status;
    }
    H5Dclose(d);
    if (cls == H5T_STRING) /* format version 1, or another tool */
        return read_strings(r, path, 1, n, strings, err);
    return qkv_store_read_fail(r, err, path, "%s data, expected strings (NUL-ended UTF-8 bytes, uint8)",
                              cls == H5T_INTEGER ? "integer" : cls == H5T_FLOAT ? "floating-point" : "other");
}

int qkv_store_read_text(const qkv_store_reader *r, const char *path, char **text, qkv_error *err)
{
    *text = NULL;
    size_t n;
    char **strs;
    if (read_strings(r, path, 0, &n, &strs, err) != QKV_OK)
        return QKV_ERR;
    *text = strdup(strs[0]);
    free(strs);
    if (!*text)
        return qkv_store_read_fail(r, err, path, "out of memory");
    return QKV_OK;
}
