/* The input of the fuzz targets of qkv's HDF5 files (fuzz_checkpoint.c, fuzz_frames.c), header
 * only. HDF5 1.10 does not survive every crafted file: link names in a group's fractal heap
 * carry no checksum, and a file whose bytes were changed there (and its qkv header made to
 * match) crashes HDF5 itself, h5py as much as qkv. The CRC of the qkv header (lib/io/store.h)
 * keeps damaged files away from HDF5; what qkv must check itself is everything a well-formed
 * HDF5 file may hold. So an input is either
 *   a file as it is (it begins with "qkv-checkpoint\n"): the header's checks run, and HDF5 sees
 *     only files whose CRC matches; or
 *   a list of items that HDF5 itself writes into a sealed file (qkv_store_create and commit):
 *     datasets of any path, class, width, byte order, rank, shape and contents, declared larger
 *     than what is stored (HDF5 allocates late), compressed, groups, and the root attributes.
 * An item, little-endian:
 *   kind u8 | path length u8 | path | rank u8 (modulo 8) | rank sizes u32 | width u32 | flags u8 |
 *   data length u32 | data
 * kind: 0 float32, 1 float16 (qkv's binary16), 2 float64, 3 int64, 4 uint64, 5 int32, 6 uint8,
 * 7 int8, 8 fixed-length strings of width bytes (1 .. 65536), 9 variable-length strings (the data's
 * NUL-separated pieces), 10 a group, 11 the root attribute format_version (int64 from 8 data
 * bytes, else a string of them), 12 the root attribute qkv_version (a string). The data gives the
 * values when it holds them all; else the dataset is declared only (no storage). flags: bits 0-1
 * string padding (NUL-terminated, NUL-padded, space-padded), bit 2 ASCII (else UTF-8), bit 3
 * big-endian numbers, bit 4 chunked and deflate-compressed. tests/data/fuzz_items.py turns an
 * HDF5 file into such a list (the seeds). */
#ifndef QKV_TEST_FUZZ_STORE_H
#define QKV_TEST_FUZZ_STORE_H

#include "fuzz_common.h"

#include "lib/io/store_half.h"
#include "lib/io/store_internal.h"

#define FUZZ_ITEMS_MAX 256

typedef struct fuzz_item {
    int kind, rank, width, flags;
    char path[256];
    hsize_t dims[8];
    const uint8_t *data;
    size_t data_len;
} fuzz_item;

static inline uint32_t fuzz_le32(const uint8_t *p)
{
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

/* The next item of data[*at ..); false at the end or when the rest is no whole item. */
static inline bool fuzz_item_next(const uint8_t *data, size_t size, size_t *at, fuzz_item *it)
{
    size_t p = *at;
    if (size - p < 2 || size - p - 2 < data[p + 1] + 1u)
        return false;
    it->kind = data[p];
    size_t path_len = data[p + 1];
    memcpy(it->path, data + p + 2, path_len);
    it->path[path_len] = '\0';
    p += 2 + path_len;
    it->rank = data[p++] % 8;
    if (size - p < 4 * (size_t)it->rank + 9)
        return false;
    for (int k = 0; k < it->rank; k++, p += 4)
        it->dims[k] = fuzz_le32(data + p);
    uint32_t width = fuzz_le32(data + p);
    it->width = width == 0 ? 1 : width > 65536 ? 65536 : (int)width;
    it->flags = data[p + 4];
    it->data_len = fuzz_le32(data + p + 5);
    p += 9;
    if (it->data_len > size - p)
        return false;
    it->data = data + p;
    *at = p + it->data_len;
    return true;
}

/* The HDF5 type of numeric kind 0 .. 7 (1: qkv's binary16) in the byte order of big. */
static inline hid_t fuzz_number_type(int kind, bool big)
{
    switch (kind) {
    case 0: return H5Tcopy(big ? H5T_IEEE_F32BE : H5T_IEEE_F32LE);
    case 1: return (hid_t)qkv_half_h5_type();
    case 2: return H5Tcopy(big ? H5T_IEEE_F64BE : H5T_IEEE_F64LE);
    case 3: return H5Tcopy(big ? H5T_STD_I64BE : H5T_STD_I64LE);
    case 4: return H5Tcopy(big ? H5T_STD_U64BE : H5T_STD_U64LE);
    case 5: return H5Tcopy(big ? H5T_STD_I32BE : H5T_STD_I32LE);
    case 6: return H5Tcopy(big ? H5T_STD_U8BE : H5T_STD_U8LE);
    default: return H5Tcopy(big ? H5T_STD_I8BE : H5T_STD_I8LE);
    }
}

/* The HDF5 file type of a dataset item (close it), and its element size. */
static inline hid_t fuzz_item_type(const fuzz_item *it, size_t *elem)
{
    hid_t t;
    if (it->kind < 8) {
        t = fuzz_number_type(it->kind, it->flags & 8);
    } else {
        t = H5Tcopy(H5T_C_S1);
        H5Tset_size(t, it->kind == 9 ? H5T_VARIABLE : (size_t)it->width);
        H5Tset_strpad(t, (it->flags & 3) == 3 ? H5T_STR_NULLTERM : (H5T_str_t)(it->flags & 3));
        H5Tset_cset(t, it->flags & 4 ? H5T_CSET_ASCII : H5T_CSET_UTF8);
    }
    *elem = it->kind == 9 ? sizeof(char *) : H5Tget_size(t);
    return t;
}

/* Variable-length strings: the data's NUL-separated pieces, "" for the missing ones. */
static inline char **fuzz_item_vlen(const fuzz_item *it, size_t n, char **copy)
{
    char **s = calloc(n ? n : 1, sizeof *s);
    *copy = malloc(it->data_len + 1);
    fuzz_check(s && *copy, "malloc");
    memcpy(*copy, it->data, it->data_len);
    (*copy)[it->data_len] = '\0';
    size_t k = 0;
    for (char *p = *copy; k < n && p <= *copy + it->data_len; p += strlen(p) + 1)
        s[k++] = p;
    for (; k < n; k++)
        s[k] = "";
    return s;
}

/* A dataset item: written when its data holds every value, else declared only. */
static inline void fuzz_item_dataset(hid_t file, hid_t lcpl, const fuzz_item *it)
{
    hsize_t n = 1, chunk[8], max[8];
    for (int k = 0; k < it->rank; k++) {
        n = it->dims[k] && n > ((hsize_t)1 << 40) / it->dims[k] ? (hsize_t)1 << 41 : n * it->dims[k];
        chunk[k] = it->dims[k] < 16 ? (it->dims[k] ? it->dims[k] : 1) : 16;
        max[k] = H5S_UNLIMITED;
    }
    size_t elem;
    hid_t type = fuzz_item_type(it, &elem);
    bool written = it->kind == 9 ? n <= 4096 : n <= it->data_len / elem;
    bool chunked = it->rank > 0 && (!written || (it->flags & 16));
    hid_t space = it->rank ? H5Screate_simple(it->rank, it->dims, chunked ? max : NULL) : H5Screate(H5S_SCALAR);
    hid_t dcpl = H5Pcreate(H5P_DATASET_CREATE);
    if (chunked && H5Pset_chunk(dcpl, it->rank, chunk) >= 0 && (it->flags & 16))
        H5Pset_deflate(dcpl, 6);
    hid_t d = H5Dcreate2(file, it->path, type, space, lcpl, dcpl, H5P_DEFAULT);
    if (d >= 0 && written && n > 0) {
        char *copy = NULL, **vlen = it->kind == 9 ? fuzz_item_vlen(it, (size_t)n, &copy) : NULL;
        H5Dwrite(d, type, H5S_ALL, H5S_ALL, H5P_DEFAULT, vlen ? (const void *)vlen : (const void *)it->data);
        free(vlen);
        free(copy);
    }
    if (d >= 0)
        H5Dclose(d);
    H5Pclose(dcpl);
    H5Sclose(space);
    H5Tclose(type);
}

/* A root attribute item: format_version (kind 11) or qkv_version (12), replacing the writer's. */
static inline void fuzz_item_attribute(hid_t file, const fuzz_item *it)
{
    const char *name = it->kind == 11 ? "format_version" : "qkv_version";
    if (H5Aexists(file, name) > 0)
        H5Adelete(file, name);
    bool number = it->kind == 11 && it->data_len >= 8;
    hid_t type = number ? H5Tcopy(H5T_STD_I64LE) : H5Tcopy(H5T_C_S1);
    if (!number)
        H5Tset_size(type, it->data_len ? it->data_len : 1);
    hid_t space = H5Screate(H5S_SCALAR), a = H5Acreate2(file, name, type, space, H5P_DEFAULT, H5P_DEFAULT);
    uint8_t zero[8] = {0};
    if (a >= 0) {
        H5Awrite(a, type, it->data_len ? it->data : zero);
        H5Aclose(a);
    }
    H5Sclose(space);
    H5Tclose(type);
}

/* The items of data written by HDF5 into a sealed file at path (a path a writer may replace).
 * False when the file could not be made (then nothing is to be read). */
static inline bool fuzz_store_items(const uint8_t *data, size_t size, const char *path)
{
    qkv_store_writer *w;
    qkv_error err;
    fuzz_check(qkv_store_create(path, &w, &err) == QKV_OK, "a store is created");
    hid_t file = (hid_t)qkv_store_writer_hid(w), lcpl = H5Pcreate(H5P_LINK_CREATE);
    H5Pset_create_intermediate_group(lcpl, 1);
    fuzz_item it;
    size_t at = 0;
    for (int k = 0; k < FUZZ_ITEMS_MAX && fuzz_item_next(data, size, &at, &it); k++) {
        if (it.kind <= 9) {
            fuzz_item_dataset(file, lcpl, &it);
        } else if (it.kind == 10) {
            hid_t g = H5Gcreate2(file, it.path, lcpl, H5P_DEFAULT, H5P_DEFAULT);
            if (g >= 0)
                H5Gclose(g);
        } else if (it.kind <= 12) {
            fuzz_item_attribute(file, &it);
        }
    }
    H5Pclose(lcpl);
    H5Eclear2(H5E_DEFAULT);
    return qkv_store_commit(w, &err) == QKV_OK;
}

/* The input as the file at fuzz_file's path: as it is, or its items written (see above). */
static inline const char *fuzz_store_file(const uint8_t *data, size_t size)
{
    static const char magic[] = "qkv-checkpoint\n";
    if (size >= sizeof magic - 1 && !memcmp(data, magic, sizeof magic - 1))
        return fuzz_file(data, size, ".h5");
    const char *path = fuzz_file(NULL, 0, ".h5");
    return fuzz_store_items(data, size, path) ? path : NULL;
}

#endif
