/* Checkpoint reader for strings: vocabularies (1-D) and text blobs (scalar), stored as
 * variable- or fixed-length HDF5 strings. See lib/checkpoint.h. */
#include "lib/io/checkpoint_internal.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* Reads n strings as raw pieces: for variable-length ones an array of n HDF5-allocated
 * pointers (*vlen), for fixed-length ones n * *width bytes (*fixed). */
static int read_raw(const qkv_ckpt_reader *r, const char *path, hid_t d, size_t n, char ***vlen, char **fixed,
                    size_t *width, H5T_str_t *pad, qkv_error *err)
{
    hid_t type = H5Dget_type(d);
    hid_t mem = type >= 0 ? H5Tget_native_type(type, H5T_DIR_ASCEND) : H5I_INVALID_HID;
    char msg[512];
    int status = QKV_ERR;
    if (mem < 0) {
        qkv_ckpt_read_fail(r, err, path, "HDF5 cannot read its type: %s", qkv_ckpt_h5_msg(msg, sizeof msg));
        goto done;
    }
    htri_t var = H5Tis_variable_str(mem);
    size_t size = H5Tget_size(mem);
    *pad = H5Tget_strpad(mem);
    if (var < 0 || size == 0) {
        qkv_ckpt_read_fail(r, err, path, "unreadable string type");
        goto done;
    }
    size_t elem = var ? sizeof(char *) : size;
    if (n > SIZE_MAX / elem - 1) {
        qkv_ckpt_read_fail(r, err, path, "too many strings (%zu)", n);
        goto done;
    }
    void *buf = calloc(n ? n : 1, elem);
    if (!buf) {
        qkv_ckpt_read_fail(r, err, path, "out of memory for %zu strings", n);
        goto done;
    }
    if (n > 0 && H5Dread(d, mem, H5S_ALL, H5S_ALL, H5P_DEFAULT, buf) < 0) {
        qkv_ckpt_read_fail(r, err, path, "HDF5 cannot read it: %s", qkv_ckpt_h5_msg(msg, sizeof msg));
        free(buf);
        goto done;
    }
    if (var)
        *vlen = buf;
    else
        *fixed = buf;
    *width = size;
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
static int read_strings(const qkv_ckpt_reader *r, const char *path, int want_rank, size_t *n_out, char ***out,
                        qkv_error *err)
{
    *out = NULL;
    *n_out = 0;
    int rank;
    hsize_t dims[QKV_MAX_RANK];
    hid_t d = qkv_ckpt_open_dataset(r, path, KIND_STRING, &rank, dims, err);
    if (d < 0)
        return QKV_ERR;
    if (rank != want_rank) {
        char a[128];
        H5Dclose(d);
        return qkv_ckpt_read_fail(r, err, path, "%s of strings, expected %s", qkv_ckpt_dims_str(rank, dims, a, sizeof a),
                                  want_rank ? "a 1-D list" : "a scalar");
    }
    size_t n = rank ? (size_t)dims[0] : 1, width = 0;
    if (rank && dims[0] != (hsize_t)n) {
        H5Dclose(d);
        return qkv_ckpt_read_fail(r, err, path, "too many strings");
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
        if (!qkv_ckpt_utf8_valid(s, len))
            status = qkv_ckpt_read_fail(r, err, path, "string %zu is not valid UTF-8", i);
        else if (total > SIZE_MAX - len - 1)
            status = qkv_ckpt_read_fail(r, err, path, "strings too large");
        total += len + 1;
    }
    char **block = status == QKV_OK ? malloc(total) : NULL;
    if (status == QKV_OK && !block)
        status = qkv_ckpt_read_fail(r, err, path, "out of memory (%zu bytes)", total);
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
    if (vlen)
        for (size_t i = 0; i < n; i++)
            if (vlen[i])
                H5free_memory(vlen[i]);
    free(vlen);
    free(fixed);
    if (status != QKV_OK)
        return QKV_ERR;
    *out = block;
    *n_out = n;
    return QKV_OK;
}

int qkv_ckpt_read_strings(const qkv_ckpt_reader *r, const char *path, size_t *n, char ***strings, qkv_error *err)
{
    return read_strings(r, path, 1, n, strings, err);
}

int qkv_ckpt_read_text(const qkv_ckpt_reader *r, const char *path, char **text, qkv_error *err)
{
    *text = NULL;
    size_t n;
    char **strs;
    if (read_strings(r, path, 0, &n, &strs, err) != QKV_OK)
        return QKV_ERR;
    *text = strdup(strs[0]);
    free(strs);
    if (!*text)
        return qkv_ckpt_read_fail(r, err, path, "out of memory");
    return QKV_OK;
}
