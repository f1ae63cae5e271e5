/* Checkpoint reader: verifies the qkv header (size, CRC-32) before HDF5 sees the file, then
 * the format version; typed readers check each dataset's class and shape. See lib/io/store.h. */
#include "lib/io/store_internal.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <stdarg.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* ---- opening ---- */

static ssize_t read_full(int fd, void *buf, size_t n, off_t pos)
{
    size_t done = 0;
    while (done < n) {
        ssize_t got = pread(fd, (char *)buf + done, n - done, pos + (off_t)done);
        if (got < 0 && errno == EINTR)
            continue;
        if (got < 0)
            return -1;
        if (got == 0)
            break;
        done += (size_t)got;
    }
    return (ssize_t)done;
}

/* For a name "<checkpoint>.tmp-<pid>" (the writer's temporary file), what it is. */
static const char *temp_hint(const char *path)
{
    const char *slash = strrchr(path, '/'), *tmp = strstr(slash ? slash : path, ".tmp-");
    if (!tmp || !tmp[5])
        return "";
    for (const char *p = tmp + 5; *p; p++)
        if (*p < '0' || *p > '9')
            return "";
    return " (an unfinished temporary file of an interrupted save)";
}

/* Everything that can be checked without HDF5: existence, header, length, CRC-32. */
static int verify_file(const char *path, const char *what, qkv_error *err)
{
    static const char hdf5_signature[8] = "\211HDF\r\n\032\n";
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return qkv_fail(err, "%s %s: cannot open: %s", what, path, strerror(errno));
    struct stat st;
    if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
        close(fd);
        return qkv_fail(err, "%s %s: not a regular file", what, path);
    }
    char header[QKV_STORE_HEADER_SIZE] = {0}, at_block[8] = {0};
    ssize_t got = read_full(fd, header, sizeof header, 0);
    ssize_t got_block = read_full(fd, at_block, sizeof at_block, QKV_STORE_HEADER_SIZE);
    int status = QKV_ERR;
    uint64_t size = 0;
    uint32_t crc = 0;
    if (got < 0 || got_block < 0) {
        qkv_fail(err, "%s %s: cannot read: %s", what, path, strerror(errno));
    } else if (st.st_size == 0) {
        qkv_fail(err, "%s %s: the file is empty%s", what, path, temp_hint(path));
    } else if (got >= 8 && memcmp(header, hdf5_signature, 8) == 0) {
        qkv_fail(err, "%s %s: an HDF5 file, but not a qkv %s (no qkv header)", what, path, what);
    } else if (got < 20 || memcmp(header, "qkv-checkpoint\nsize=", 20) != 0) {
        if (got_block == 8 && memcmp(at_block, hdf5_signature, 8) == 0)
            qkv_fail(err, "%s %s: an HDF5 file without a valid qkv header (an unfinished "
                          "temporary file of an interrupted save, or a damaged header)", what, path);
        else
            qkv_fail(err, "%s %s: not an HDF5 file (neither a qkv nor an HDF5 signature)", what, path);
    } else if (got < QKV_STORE_HEADER_SIZE) {
        qkv_fail(err, "%s %s: truncated: %lld bytes, shorter than its %d-byte header", what, path,
                 (long long)st.st_size, QKV_STORE_HEADER_SIZE);
    } else if (!qkv_store_header_parse(header, &size, &crc)) {
        qkv_fail(err, "%s %s: corrupted: its qkv header is damaged", what, path);
    } else if ((uint64_t)st.st_size < size) {
        qkv_fail(err, "%s %s: truncated: %lld bytes, the header says %" PRIu64 "%s", what, path,
                 (long long)st.st_size, size, temp_hint(path));
    } else if ((uint64_t)st.st_size > size) {
        qkv_fail(err, "%s %s: %lld bytes, the header says %" PRIu64 " (data appended after saving?)",
                 what, path, (long long)st.st_size, size);
    } else {
        static const size_t chunk = 1 << 16;
        unsigned char *buf = malloc(chunk);
        uint32_t actual = 0;
        off_t pos = QKV_STORE_HEADER_SIZE;
        ssize_t n = 0;
        while (buf && pos < st.st_size && (n = read_full(fd, buf, chunk, pos)) > 0) {
            actual = qkv_store_crc32(actual, buf, (size_t)n);
            pos += n;
        }
        free(buf);
        if (!buf)
            qkv_fail(err, "%s %s: out of memory", what, path);
        else if (pos != st.st_size)
            qkv_fail(err, "%s %s: cannot read: %s", what, path, n < 0 ? strerror(errno) : "file shrank");
        else if (actual != crc)
            qkv_fail(err, "%s %s: corrupted or modified after saving: CRC-32 of its contents is "
                          "%08" PRIx32 ", the header says %08" PRIx32, what, path, actual, crc);
        else
            status = QKV_OK;
    }
    close(fd);
    return status;
}

static int read_root_attributes(qkv_store_reader *r, qkv_error *err)
{
    htri_t has = H5Aexists(r->file, "format_version");
    if (has <= 0)
        return qkv_fail(err, "%s %s: not a qkv %s: root attribute format_version is missing", r->what,
                         r->path, r->what);
    int status = QKV_ERR;
    hid_t a = H5Aopen(r->file, "format_version", H5P_DEFAULT);
    hid_t type = a >= 0 ? H5Aget_type(a) : H5I_INVALID_HID;
    hid_t space = a >= 0 ? H5Aget_space(a) : H5I_INVALID_HID;
    int64_t v = 0;
    if (type < 0 || space < 0 || H5Tget_class(type) != H5T_INTEGER || H5Sget_simple_extent_npoints(space) != 1 ||
        H5Aread(a, H5T_NATIVE_INT64, &v) < 0)
        qkv_fail(err, "%s %s: root attribute format_version is not one integer", r->what, r->path);
    else if (v > QKV_STORE_FORMAT_VERSION)
        qkv_fail(err, "%s %s: written by a newer qkv (format_version %" PRId64 "; this qkv reads %d to %d)",
                 r->what, r->path, v, QKV_STORE_FORMAT_OLDEST, QKV_STORE_FORMAT_VERSION);
    else if (v < QKV_STORE_FORMAT_OLDEST)
        qkv_fail(err, "%s %s: format_version %" PRId64 " is not supported (this qkv reads %d to %d)",
                 r->what, r->path, v, QKV_STORE_FORMAT_OLDEST, QKV_STORE_FORMAT_VERSION);
    else
        status = QKV_OK;
    r->format_version = v;
    if (space >= 0)
        H5Sclose(space);
    if (type >= 0)
        H5Tclose(type);
    if (a >= 0)
        H5Aclose(a);
    if (status != QKV_OK || H5Aexists(r->file, "qkv_version") <= 0)
        return status;
    /* qkv_version is informative: read it when it is a short fixed-length string
     * (variable-length ones live in the global heap, which this reader never follows). */
    a = H5Aopen(r->file, "qkv_version", H5P_DEFAULT);
    type = a >= 0 ? H5Aget_type(a) : H5I_INVALID_HID;
    space = a >= 0 ? H5Aget_space(a) : H5I_INVALID_HID;
    char buf[sizeof r->qkv_version] = {0};
    if (type >= 0 && space >= 0 && H5Tget_class(type) == H5T_STRING && H5Tis_variable_str(type) == 0 &&
        H5Tget_size(type) < sizeof buf && H5Sget_simple_extent_npoints(space) == 1 && H5Aread(a, type, buf) >= 0 &&
        qkv_utf8_check(buf, strlen(buf)) == strlen(buf))
        memcpy(r->qkv_version, buf, sizeof buf);
    if (space >= 0)
        H5Sclose(space);
    if (type >= 0)
        H5Tclose(type);
    if (a >= 0)
        H5Aclose(a);
    return QKV_OK;
}

int qkv_store_open(const char *path, qkv_store_reader **out, qkv_error *err)
{
    return qkv_store_open_as(path, "checkpoint", out, err);
}

int qkv_store_open_as(const char *path, const char *what, qkv_store_reader **out, qkv_error *err)
{
    *out = NULL;
    qkv_store_h5_silence();
    if (!path || !path[0])
        return qkv_fail(err, "%s: empty file name", what);
    if (verify_file(path, what, err) != QKV_OK)
        return QKV_ERR;
    qkv_store_reader *r = calloc(1, sizeof *r);
    if (r)
        r->what = what;
    if (!r || !(r->path = strdup(path))) {
        free(r);
        return qkv_fail(err, "%s %s: out of memory", what, path);
    }
    hid_t fapl = H5Pcreate(H5P_FILE_ACCESS);
    r->file = H5I_INVALID_HID;
    if (fapl >= 0 && H5Pset_fclose_degree(fapl, H5F_CLOSE_STRONG) >= 0)
        r->file = H5Fopen(path, H5F_ACC_RDONLY, fapl);
    char msg[512];
    if (r->file < 0)
        qkv_store_h5_msg(msg, sizeof msg); /* now: H5Pclose clears HDF5's error stack */
    if (fapl >= 0)
        H5Pclose(fapl);
    if (r->file < 0) {
        qkv_fail(err, "%s %s: HDF5 cannot open it: %s", what, path, msg);
        qkv_store_close(r);
        return QKV_ERR;
    }
    if (read_root_attributes(r, err) != QKV_OK) {
        qkv_store_close(r);
        return QKV_ERR;
    }
    *out = r;
    return QKV_OK;
}

void qkv_store_close(qkv_store_reader *r)
{
    if (!r)
        return;
    if (r->file >= 0)
        H5Fclose(r->file);
    free(r->path);
    free(r);
}

int64_t qkv_store_format_version(const qkv_store_reader *r) { return r->format_version; }
const char *qkv_store_qkv_version(const qkv_store_reader *r) { return r->qkv_version; }
int64_t qkv_store_reader_hid(const qkv_store_reader *r) { return r->file; }

bool qkv_store_has(const qkv_store_reader *r, const char *path)
{
    if (qkv_store_path_problem(path))
        return false;
    /* H5Lexists needs every earlier component to exist: check prefix by prefix. */
    char buf[1024];
    snprintf(buf, sizeof buf, "%s", path);
    for (char *p = buf + 1;; p++) {
        if (*p == '/' || *p == '\0') {
            char saved = *p;
            *p = '\0';
            htri_t e = H5Lexists(r->file, buf, H5P_DEFAULT);
            *p = saved;
            if (e <= 0)
                return false;
            if (saved == '\0')
                return true;
        }
    }
}

/* ---- datasets ---- */

static const char *const kind_names[] = {"floating-point", "signed integer", "unsigned integer", "string"};

int qkv_store_read_fail(const qkv_store_reader *r, qkv_error *err, const char *path, const char *fmt, ...)
{
    char what[800];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(what, sizeof what, fmt, ap);
    va_end(ap);
    return qkv_fail(err, "%s %s: %s: %s", r->what, r->path, path ? path : "(null)", what);
}

const char *qkv_store_dims_str(int rank, const hsize_t *dims, char *buf, size_t len)
{
    if (rank == 0) {
        snprintf(buf, len, "a scalar");
        return buf;
    }
    size_t used = (size_t)snprintf(buf, len, "[");
    for (int i = 0; i < rank && used < len; i++)
        used += (size_t)snprintf(buf + used, len - used, i ? ", %llu" : "%llu", (unsigned long long)dims[i]);
    if (used < len)
        snprintf(buf + used, len - used, "]");
    return buf;
}

static const char *class_name(hid_t type)
{
    switch (H5Tget_class(type)) {
    case H5T_INTEGER:
        return H5Tget_sign(type) == H5T_SGN_NONE ? kind_names[KIND_UINT] : kind_names[KIND_INT];
    case H5T_FLOAT:
        return kind_names[KIND_FLOAT];
    case H5T_STRING:
        return kind_names[KIND_STRING];
    default:
        return "compound or other";
    }
}

static bool is_kind(hid_t type, enum qkv_store_kind kind)
{
    H5T_class_t c = H5Tget_class(type);
    switch (kind) {
    case KIND_FLOAT:
        return c == H5T_FLOAT;
    case KIND_INT:
        return c == H5T_INTEGER && H5Tget_sign(type) == H5T_SGN_2;
    case KIND_UINT:
        return c == H5T_INTEGER && H5Tget_sign(type) == H5T_SGN_NONE;
    case KIND_STRING:
        return c == H5T_STRING;
    case KIND_ANY:
        return true;
    }
    return false;
}

/* Opens the dataset at path and checks its class; gets its rank and dims. */
/* A dataset's declared size bounds what a reader allocates for it, so it must be backed by the
 * file: the bytes its shape and type declare are at most what the file stores for it times
 * QKV_STORE_MAX_RATIO (deflate's best ratio is about 1032:1) plus 64 KiB. A dataset declared
 * larger (HDF5 allocates late: a 23 KB file can declare 3e9 bytes) is an error before any
 * allocation. A variable-length element (a string, a sequence) is stored as a global-heap
 * reference of QKV_STORE_VL_REF bytes (its length, the heap's address and an index), its data
 * elsewhere in the heap: its declared bytes are those references (the data is bounded when it
 * is read, in lib/io/store_strings.c). */
#define QKV_STORE_MAX_RATIO 1100
#define QKV_STORE_VL_REF 16
static bool stored_enough(const qkv_store_reader *r, const char *path, hid_t obj, hid_t type, int rank,
                          const hsize_t *dims, qkv_error *err)
{
    bool vl = H5Tget_class(type) == H5T_VLEN || H5Tis_variable_str(type) > 0;
    size_t size = vl ? QKV_STORE_VL_REF : H5Tget_size(type);
    hsize_t n = size, stored = H5Dget_storage_size(obj);
    for (int k = 0; k < rank; k++) {
        if (dims[k] && n > UINT64_MAX / dims[k]) {
            n = UINT64_MAX;
            break;
        }
        n *= dims[k];
    }
    if (n <= 65536 || stored > (UINT64_MAX - 65536) / QKV_STORE_MAX_RATIO ||
        n <= stored * QKV_STORE_MAX_RATIO + 65536)
        return true;
    qkv_store_read_fail(r, err, path, "declares %llu bytes but the file stores %llu for it: not read",
                        (unsigned long long)n, (unsigned long long)stored);
    return false;
}

hid_t qkv_store_open_dataset(const qkv_store_reader *r, const char *path, enum qkv_store_kind kind, int *rank,
                          hsize_t dims[QKV_MAX_RANK], qkv_error *err)
{
    const char *problem = qkv_store_path_problem(path);
    if (problem) {
        qkv_store_read_fail(r, err, path, "%s", problem);
        return H5I_INVALID_HID;
    }
    if (!qkv_store_has(r, path)) {
        qkv_store_read_fail(r, err, path, "missing");
        return H5I_INVALID_HID;
    }
    hid_t obj = H5Oopen(r->file, path, H5P_DEFAULT);
    char msg[512];
    if (obj < 0) {
        qkv_store_read_fail(r, err, path, "HDF5 cannot open it: %s", qkv_store_h5_msg(msg, sizeof msg));
        return H5I_INVALID_HID;
    }
    if (H5Iget_type(obj) != H5I_DATASET) {
        qkv_store_read_fail(r, err, path, "a group, not a dataset");
        H5Oclose(obj);
        return H5I_INVALID_HID;
    }
    hid_t type = H5Dget_type(obj);
    hid_t space = type >= 0 ? H5Dget_space(obj) : H5I_INVALID_HID;
    bool ok = false;
    if (type < 0 || space < 0) {
        qkv_store_read_fail(r, err, path, "HDF5 cannot read its type: %s", qkv_store_h5_msg(msg, sizeof msg));
    } else if (!is_kind(type, kind)) {
        qkv_store_read_fail(r, err, path, "%s data, expected %s", class_name(type), kind_names[kind]);
    } else {
        H5S_class_t sc = H5Sget_simple_extent_type(space);
        int nd = H5Sget_simple_extent_ndims(space);
        if (sc == H5S_SCALAR) {
            *rank = 0;
            ok = true;
        } else if (sc != H5S_SIMPLE || nd < 0) {
            qkv_store_read_fail(r, err, path, "an empty dataspace");
        } else if (nd > QKV_MAX_RANK) {
            qkv_store_read_fail(r, err, path, "rank %d, at most %d is supported", nd, QKV_MAX_RANK);
        } else if (H5Sget_simple_extent_dims(space, dims, NULL) < 0) {
            qkv_store_read_fail(r, err, path, "HDF5 cannot read its shape: %s", qkv_store_h5_msg(msg, sizeof msg));
        } else {
            *rank = nd;
            ok = true;
        }
    }
    if (ok)
        ok = stored_enough(r, path, obj, type, *rank, dims, err);
    if (space >= 0)
        H5Sclose(space);
    if (type >= 0)
        H5Tclose(type);
    if (!ok) {
        H5Dclose(obj);
        return H5I_INVALID_HID;
    }
    return obj;
}

int qkv_store_shape(const qkv_store_reader *r, const char *path, int *rank, int shape[QKV_MAX_RANK], qkv_error *err)
{
    hsize_t dims[QKV_MAX_RANK];
    hid_t d = qkv_store_open_dataset(r, path, KIND_ANY, rank, dims, err);
    if (d < 0)
        return QKV_ERR;
    H5Dclose(d);
    for (int i = 0; i < *rank; i++) {
        if (dims[i] > INT_MAX)
            return qkv_store_read_fail(r, err, path, "dimension %d is %llu, larger than supported", i,
                             (unsigned long long)dims[i]);
        shape[i] = (int)dims[i];
    }
    return QKV_OK;
}

/* Reads a numeric dataset that must have exactly the given rank and dims. */
static int read_numeric(const qkv_store_reader *r, const char *path, enum qkv_store_kind kind, hid_t mem_type, int want_rank,
                        const hsize_t *want, void *buf, qkv_error *err)
{
    int rank;
    hsize_t dims[QKV_MAX_RANK];
    hid_t d = qkv_store_open_dataset(r, path, kind, &rank, dims, err);
    if (d < 0)
        return QKV_ERR;
    bool same = rank == want_rank;
    hsize_t n = 1;
    for (int i = 0; same && i < rank; i++) {
        same = dims[i] == want[i];
        n *= dims[i];
    }
    int status = QKV_OK;
    char a[128], b[128], msg[512];
    if (!same)
        status = qkv_store_read_fail(r, err, path, "%s in the checkpoint, expected %s", qkv_store_dims_str(rank, dims, a, sizeof a),
                           qkv_store_dims_str(want_rank, want, b, sizeof b));
    else if (n > 0 && H5Dread(d, mem_type, H5S_ALL, H5S_ALL, H5P_DEFAULT, buf) < 0)
        status = qkv_store_read_fail(r, err, path, "HDF5 cannot read it: %s", qkv_store_h5_msg(msg, sizeof msg));
    H5Dclose(d);
    return status;
}

#if QKV_REAL_IS_DOUBLE
#define NATIVE_REAL H5T_NATIVE_DOUBLE
#else
#define NATIVE_REAL H5T_NATIVE_FLOAT
#endif

int qkv_store_read_real(const qkv_store_reader *r, const char *path, int rank, const int *shape, qkv_real *data,
                       qkv_error *err)
{
    if (rank < 0 || rank > QKV_MAX_RANK)
        return qkv_store_read_fail(r, err, path, "expected rank %d is outside 0..%d", rank, QKV_MAX_RANK);
    hsize_t want[QKV_MAX_RANK];
    for (int i = 0; i < rank; i++)
        want[i] = (hsize_t)(shape[i] < 0 ? 0 : shape[i]);
    return read_numeric(r, path, KIND_FLOAT, NATIVE_REAL, rank, want, data, err);
}

int qkv_store_read_tensor(const qkv_store_reader *r, const char *path, qkv_tensor *t, qkv_error *err)
{
    return qkv_store_read_real(r, path, t->rank, t->shape, t->data, err);
}

int qkv_store_read_i64(const qkv_store_reader *r, const char *path, int64_t *value, qkv_error *err)
{
    return read_numeric(r, path, KIND_INT, H5T_NATIVE_INT64, 0, NULL, value, err);
}

int qkv_store_read_u64(const qkv_store_reader *r, const char *path, uint64_t *value, qkv_error *err)
{
    return read_numeric(r, path, KIND_UINT, H5T_NATIVE_UINT64, 0, NULL, value, err);
}

int qkv_store_read_f64(const qkv_store_reader *r, const char *path, double *value, qkv_error *err)
{
    return read_numeric(r, path, KIND_FLOAT, H5T_NATIVE_DOUBLE, 0, NULL, value, err);
}

int qkv_store_read_i64_array(const qkv_store_reader *r, const char *path, size_t n, int64_t *values, qkv_error *err)
{
    hsize_t want[1] = {(hsize_t)n};
    return read_numeric(r, path, KIND_INT, H5T_NATIVE_INT64, 1, want, values, err);
}

int qkv_store_read_u64_array(const qkv_store_reader *r, const char *path, size_t n, uint64_t *values, qkv_error *err)
{
    hsize_t want[1] = {(hsize_t)n};
    return read_numeric(r, path, KIND_UINT, H5T_NATIVE_UINT64, 1, want, values, err);
}

int qkv_store_read_f64_array(const qkv_store_reader *r, const char *path, size_t n, double *values, qkv_error *err)
{
    hsize_t want[1] = {(hsize_t)n};
    return read_numeric(r, path, KIND_FLOAT, H5T_NATIVE_DOUBLE, 1, want, values, err);
}
