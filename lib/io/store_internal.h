/* Internals shared by lib/io/store.c (writer), lib/io/store_image.c (the writer's
 * in-memory file), lib/io/store_read.c, lib/io/store_strings.c and lib/io/store_params.c
 * (reader) and lib/io/store_file.c (header, CRC-32, path checks, HDF5 error text).
 * Not part of the public API; only these files (and the checkpoint tests) include it. */
#ifndef QKV_IO_STORE_INTERNAL_H
#define QKV_IO_STORE_INTERNAL_H

#include <hdf5.h>

#include "lib/io/store.h"
#include "lib/io/utf8.h"

/* The writer's in-memory HDF5 file (lib/io/store_image.c). */
typedef struct {
    unsigned char *mem; /* the file's bytes from offset 0 (the user block included) */
    size_t cap;         /* bytes allocated at mem */
    bool closed;        /* HDF5 closed the file and handed mem over */
} qkv_store_image;

struct qkv_store_writer {
    hid_t file;
    int fd;               /* the temporary file, written at commit */
    qkv_store_image image;
    char *final_path;
    const char *what;     /* "checkpoint", "frame corpus": what messages call the file */
    char *tmp_path;
    bool failed;          /* an item write failed: commit refuses */
    bool float16;         /* qkv_store_write_real stores binary16 (qkv_store_set_float16) */
    qkv_error first_err;  /* the first failure, repeated by commit */
};

struct qkv_store_reader {
    hid_t file;
    char *path;
    const char *what; /* "checkpoint", "frame corpus": what messages call the file */
    int64_t format_version;
    char qkv_version[64];
};

/* Variable-length strings (HDF5 string datasets, lib/io/store_strings.c) read by one H5Dread. */
#define QKV_STORE_VLEN_BLOCK 4096

/* CRC-32/IEEE through zlib (what zlib.crc32 computes); start with crc = 0, chain over pieces. */
uint32_t qkv_store_crc32(uint32_t crc, const void *data, size_t n);

/* Fills the QKV_STORE_HEADER_SIZE-byte header for a file of `size` bytes whose bytes
 * [QKV_STORE_HEADER_SIZE, size) have CRC-32 `crc` (NUL-padded text). */
void qkv_store_header_format(char *buf, uint64_t size, uint32_t crc);
/* Parses a header; returns false when it is not an intact qkv header. */
bool qkv_store_header_parse(const char *buf, uint64_t *size, uint32_t *crc);

/* NULL when path is a valid absolute item path ("/a/b.c"), else what is wrong with it. */
const char *qkv_store_path_problem(const char *path);

/* The innermost message on HDF5's default error stack (what actually failed, e.g. an errno
 * text), or "unknown HDF5 error". Writes into buf and returns it. */
const char *qkv_store_h5_msg(char *buf, size_t len);
/* Switches off HDF5's automatic error printing (lib/ never prints). */
void qkv_store_h5_silence(void);

/* ---- the in-memory file of a writer (lib/io/store_image.c) ---- */
/* Makes fapl keep the file in memory, allocated through img (zeroed here). */
int qkv_store_image_fapl(hid_t fapl, qkv_store_image *img);
/* After H5Fclose: puts the qkv header (length, CRC-32) into the image and writes the whole
 * file to fd. QKV_ERR with *why (e.g. strerror's "No space left on device") on failure. */
int qkv_store_image_write(qkv_store_image *img, int fd, const char **why);
/* Frees the image once HDF5 has let go of it; leaves img empty. */
void qkv_store_image_release(qkv_store_image *img);

/* ---- reader helpers (lib/io/store_read.c) ---- */
enum qkv_store_kind { KIND_FLOAT, KIND_INT, KIND_UINT, KIND_STRING, KIND_ANY };

/* Fills err with "checkpoint <file>: <path>: <what>"; returns QKV_ERR. */
int qkv_store_read_fail(const qkv_store_reader *r, qkv_error *err, const char *path, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
/* "[2, 3]", or "a scalar" for rank 0. */
const char *qkv_store_dims_str(int rank, const hsize_t *dims, char *buf, size_t len);
/* Opens the dataset at path after checking it exists, is a dataset of the given class and
 * has rank <= QKV_MAX_RANK; gives its rank and dims. H5I_INVALID_HID with err set on failure;
 * close the result with H5Dclose. */
hid_t qkv_store_open_dataset(const qkv_store_reader *r, const char *path, enum qkv_store_kind kind, int *rank,
                            hsize_t dims[QKV_MAX_RANK], qkv_error *err);

#endif
