/* Checkpoint writer: typed items into an HDF5 file in memory, then at commit the file with
 * its header (size and CRC-32) into a temporary file in the final folder, fsync, rename,
 * fsync the folder. See lib/io/store.h. */
#include "lib/io/store_internal.h"
#include "lib/io/store_half.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdint.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

_Static_assert(sizeof(hid_t) == sizeof(int64_t), "hid_t is expected to be 64-bit (HDF5 >= 1.10)");

static char *dup_printf(const char *fmt, const char *a, long b)
{
    int len = snprintf(NULL, 0, fmt, a, b);
    char *s = len >= 0 ? malloc((size_t)len + 1) : NULL;
    if (s)
        snprintf(s, (size_t)len + 1, fmt, a, b);
    return s;
}

int qkv_store_remove_stale(const char *final_path, int *removed, qkv_error *err)
{
    if (removed)
        *removed = 0;
    const char *slash = strrchr(final_path, '/');
    const char *base = slash ? slash + 1 : final_path;
    char folder[4096], prefix[512], stale[4096 + 512];
    if (!slash)
        snprintf(folder, sizeof folder, ".");
    else if (slash == final_path)
        snprintf(folder, sizeof folder, "/");
    else
        snprintf(folder, sizeof folder, "%.*s", (int)(slash - final_path), final_path);
    snprintf(prefix, sizeof prefix, "%s.tmp-", base);
    size_t plen = strlen(prefix);
    DIR *d = opendir(folder);
    if (!d)
        return qkv_fail(err, "checkpoint %s: cannot read the folder %s: %s", final_path, folder, strerror(errno));
    int status = QKV_OK;
    struct dirent *e;
    while (status == QKV_OK && (e = readdir(d))) {
        if (strncmp(e->d_name, prefix, plen) != 0)
            continue;
        char *end;
        long pid = strtol(e->d_name + plen, &end, 10);
        if (end == e->d_name + plen || *end || pid <= 0)
            continue;
        if (kill((pid_t)pid, 0) == 0 || errno != ESRCH)
            continue; /* that process still runs (or is not ours to judge) */
        snprintf(stale, sizeof stale, "%s/%s", folder, e->d_name);
        if (unlink(stale) != 0)
            status = qkv_fail(err, "checkpoint %s: cannot remove the stale temporary file %s: %s", final_path, stale,
                              strerror(errno));
        else if (removed)
            (*removed)++;
    }
    closedir(d);
    return status;
}

static void writer_free(qkv_store_writer *w)
{
    free(w->final_path);
    free(w->tmp_path);
    free(w);
}

/* Records the first failure so that commit refuses a partial checkpoint. */
static int writer_fail(qkv_store_writer *w, qkv_error *err, const char *path, const char *what)
{
    qkv_error e;
    qkv_fail(&e, "%s %s: cannot write %s: %s", w->what, w->final_path, path, what);
    if (!w->failed) {
        w->failed = true;
        w->first_err = e;
    }
    if (err)
        *err = e;
    return QKV_ERR;
}

static int writer_fail_h5(qkv_store_writer *w, qkv_error *err, const char *path)
{
    char msg[512], what[600];
    snprintf(what, sizeof what, "HDF5: %s", qkv_store_h5_msg(msg, sizeof msg));
    return writer_fail(w, err, path, what);
}

static int write_root_attributes(qkv_store_writer *w, qkv_error *err)
{
    int status = QKV_ERR;
    hid_t space = H5Screate(H5S_SCALAR), str = H5Tcopy(H5T_C_S1), a1 = H5I_INVALID_HID, a2 = H5I_INVALID_HID;
    int64_t version = QKV_STORE_FORMAT_VERSION;
    const char *qkv_version = QKV_VERSION;
    if (space < 0 || str < 0 || H5Tset_size(str, strlen(qkv_version)) < 0 ||
        H5Tset_strpad(str, H5T_STR_NULLPAD) < 0 || H5Tset_cset(str, H5T_CSET_UTF8) < 0)
        goto done;
    a1 = H5Acreate2(w->file, "format_version", H5T_STD_I64LE, space, H5P_DEFAULT, H5P_DEFAULT);
    if (a1 < 0 || H5Awrite(a1, H5T_NATIVE_INT64, &version) < 0)
        goto done;
    a2 = H5Acreate2(w->file, "qkv_version", str, space, H5P_DEFAULT, H5P_DEFAULT);
    if (a2 < 0 || H5Awrite(a2, str, qkv_version) < 0)
        goto done;
    status = QKV_OK;
done:
    if (status != QKV_OK)
        writer_fail_h5(w, err, "root attributes");
    if (a2 >= 0)
        H5Aclose(a2);
    if (a1 >= 0)
        H5Aclose(a1);
    if (str >= 0)
        H5Tclose(str);
    if (space >= 0)
        H5Sclose(space);
    return status;
}

int qkv_store_create(const char *final_path, qkv_store_writer **out, qkv_error *err)
{
    return qkv_store_create_as(final_path, "checkpoint", out, err);
}

int qkv_store_create_as(const char *final_path, const char *what, qkv_store_writer **out, qkv_error *err)
{
    *out = NULL;
    qkv_store_h5_silence();
    if (!final_path || !final_path[0])
        return qkv_fail(err, "%s: empty file name", what);
    struct stat st;
    if (stat(final_path, &st) == 0 && !S_ISREG(st.st_mode))
        return qkv_fail(err, "%s %s: exists and is not a regular file", what, final_path);
    qkv_store_writer *w = calloc(1, sizeof *w);
    if (!w)
        return qkv_fail(err, "%s %s: out of memory", what, final_path);
    w->what = what;
    w->file = H5I_INVALID_HID;
    w->fd = -1;
    w->final_path = strdup(final_path);
    w->tmp_path = dup_printf("%s.tmp-%ld", final_path, (long)getpid());
    if (!w->final_path || !w->tmp_path) {
        writer_free(w);
        return qkv_fail(err, "%s %s: out of memory", what, final_path);
    }
    /* Create the file ourselves first: errno gives a plain reason (missing folder, no
     * permission, a path component that is a file) before any work is done. HDF5 builds the
     * file in memory; commit writes it here. */
    w->fd = open(w->tmp_path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    if (w->fd < 0) {
        qkv_fail(err, "%s %s: cannot create temporary file %s: %s", what, final_path, w->tmp_path,
                 strerror(errno));
        writer_free(w);
        return QKV_ERR;
    }
    hid_t fcpl = H5Pcreate(H5P_FILE_CREATE), fapl = H5Pcreate(H5P_FILE_ACCESS);
    /* File format of HDF5 1.8 (readable by every HDF5 >= 1.8, h5py included): its
     * superblock and object headers carry checksums, a second line of defence behind ours. */
    char msg[512] = "unknown HDF5 error";
    if (fcpl >= 0 && fapl >= 0 && H5Pset_userblock(fcpl, QKV_STORE_HEADER_SIZE) >= 0 &&
        H5Pset_fclose_degree(fapl, H5F_CLOSE_STRONG) >= 0 && qkv_store_image_fapl(fapl, &w->image) == QKV_OK &&
        H5Pset_libver_bounds(fapl, H5F_LIBVER_V18, H5F_LIBVER_V18) >= 0 && H5Pset_obj_track_times(fcpl, 0) >= 0)
        w->file = H5Fcreate(w->tmp_path, H5F_ACC_TRUNC, fcpl, fapl);
    if (w->file < 0)
        qkv_store_h5_msg(msg, sizeof msg); /* before the next HDF5 call clears the error stack */
    if (fcpl >= 0)
        H5Pclose(fcpl);
    if (fapl >= 0)
        H5Pclose(fapl);
    if (w->file < 0)
        qkv_fail(err, "%s %s: HDF5 cannot create %s: %s", what, final_path, w->tmp_path, msg);
    if (w->file < 0 || write_root_attributes(w, err) != QKV_OK) {
        qkv_store_abort(w);
        return QKV_ERR;
    }
    *out = w;
    return QKV_OK;
}

/* Closes the in-memory HDF5 file (HDF5 writes nothing to disk, so this fails only for lack of
 * memory) and forgets its ID: HDF5 1.10 cannot close a file whose H5Fclose failed. */
static int close_h5(qkv_store_writer *w, char *msg, size_t len)
{
    hid_t file = w->file;
    w->file = H5I_INVALID_HID;
    if (file < 0 || H5Fclose(file) >= 0)
        return QKV_OK;
    qkv_store_h5_msg(msg, len);
    return QKV_ERR;
}

void qkv_store_abort(qkv_store_writer *w)
{
    if (!w)
        return;
    char msg[512];
    close_h5(w, msg, sizeof msg);
    qkv_store_image_release(&w->image);
    if (w->fd >= 0)
        close(w->fd);
    unlink(w->tmp_path);
    writer_free(w);
}

const char *qkv_store_temp_path(const qkv_store_writer *w) { return w->tmp_path; }
int64_t qkv_store_writer_hid(const qkv_store_writer *w) { return w->file; }

/* fsync of the folder that holds path, so that the rename itself is durable. */
static int sync_folder(const char *path)
{
    const char *slash = strrchr(path, '/');
    char *dir = slash ? malloc((size_t)(slash - path) + 2) : NULL;
    if (slash && !dir)
        return -1;
    if (dir) {
        size_t len = slash == path ? 1 : (size_t)(slash - path);
        memcpy(dir, path, len);
        dir[len] = '\0';
    }
    int fd = open(dir ? dir : ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    free(dir);
    if (fd < 0)
        return -1;
    /* Some file systems cannot fsync a folder (EINVAL): nothing more can be done there. */
    int rc = fsync(fd) == 0 || errno == EINVAL ? 0 : -1;
    int saved = errno;
    close(fd);
    errno = saved;
    return rc;
}

int qkv_store_commit(qkv_store_writer *w, qkv_error *err)
{
    if (w->failed) {
        if (err)
            *err = w->first_err;
        qkv_fail_prefix(err, "not saved, an earlier write failed");
        qkv_store_abort(w);
        return QKV_ERR;
    }
    char msg[512];
    if (close_h5(w, msg, sizeof msg) != QKV_OK) {
        qkv_fail(err, "%s %s: not saved: HDF5 cannot finish %s: %s", w->what, w->final_path, w->tmp_path, msg);
        qkv_store_abort(w);
        return QKV_ERR;
    }
    /* the HDF5 file is closed and nothing of it is left open: now our own plain I/O */
    int fd = w->fd;
    w->fd = -1;
    const char *what = "cannot write", *why = NULL;
    int status = qkv_store_image_write(&w->image, fd, &why);
    qkv_store_image_release(&w->image);
    if (status == QKV_OK && fsync(fd) != 0)
        status = QKV_ERR, what = "cannot fsync", why = strerror(errno);
    if (close(fd) != 0 && status == QKV_OK)
        status = QKV_ERR, what = "cannot close", why = strerror(errno);
    if (status != QKV_OK) {
        qkv_fail(err, "%s %s: not saved: %s %s: %s", w->what, w->final_path, what, w->tmp_path, why);
        qkv_store_abort(w);
        return QKV_ERR;
    }
    if (rename(w->tmp_path, w->final_path) != 0) {
        int saved = errno;
        int removed = unlink(w->tmp_path);
        qkv_fail(err, "%s %s: not saved: cannot rename %s onto it: %s%s", w->what, w->final_path,
                 w->tmp_path, strerror(saved),
                 removed == 0 ? "" : " (and the temporary file could not be removed)");
        writer_free(w);
        return QKV_ERR;
    }
    status = QKV_OK;
    if (sync_folder(w->final_path) != 0)
        status = qkv_fail(err, "%s %s: saved, but fsync of its folder failed (%s): it may not "
                               "survive a power loss", w->what, w->final_path, strerror(errno));
    writer_free(w);
    return status;
}

/* ---- items ---- */

/* Creates the missing groups on the way to path (not path itself), without timestamps. On
 * failure puts HDF5's reason into msg. */
static int make_groups(qkv_store_writer *w, const char *path, char *msg, size_t len)
{
    char buf[1024];
    snprintf(buf, sizeof buf, "%s", path);
    int status = QKV_OK;
    hid_t gcpl = H5Pcreate(H5P_GROUP_CREATE);
    if (gcpl < 0 || H5Pset_obj_track_times(gcpl, 0) < 0)
        status = QKV_ERR;
    for (char *p = strchr(buf + 1, '/'); p && status == QKV_OK; p = strchr(p + 1, '/')) {
        *p = '\0';
        htri_t e = H5Lexists(w->file, buf, H5P_DEFAULT);
        if (e < 0)
            status = QKV_ERR;
        if (e == 0) {
            hid_t g = H5Gcreate2(w->file, buf, H5P_DEFAULT, gcpl, H5P_DEFAULT);
            if (g < 0 || H5Gclose(g) < 0)
                status = QKV_ERR;
        }
        *p = '/';
    }
    if (status != QKV_OK)
        qkv_store_h5_msg(msg, len); /* before H5Pclose clears HDF5's error stack */
    if (gcpl >= 0)
        H5Pclose(gcpl);
    return status;
}

/* Creates the dataset at path (groups on the way included) and writes n elements. */
static int write_dataset(qkv_store_writer *w, qkv_error *err, const char *path, hid_t file_type,
                         hid_t mem_type, int rank, const hsize_t *dims, const void *buf)
{
    if (w->failed) {
        if (err)
            *err = w->first_err;
        return qkv_fail_prefix(err, "not written (%s), an earlier write failed", path ? path : "(null)");
    }
    const char *problem = qkv_store_path_problem(path);
    if (problem)
        return writer_fail(w, err, path ? path : "(null)", problem);
    hsize_t n = 1;
    for (int i = 0; i < rank; i++)
        n *= dims[i];
    int status = QKV_ERR;
    char msg[512] = "unknown HDF5 error";
    bool duplicate = false;
    hid_t space = rank == 0 ? H5Screate(H5S_SCALAR) : H5Screate_simple(rank, dims, NULL);
    hid_t dcpl = space >= 0 ? H5Pcreate(H5P_DATASET_CREATE) : H5I_INVALID_HID, dset = H5I_INVALID_HID;
    /* No modification times in object headers: the same content gives the same bytes.
     * HDF5's reason is taken right where a call fails: the next HDF5 call clears it. */
    if (space < 0 || dcpl < 0 || H5Pset_obj_track_times(dcpl, 0) < 0) {
        qkv_store_h5_msg(msg, sizeof msg);
        goto done;
    }
    if (make_groups(w, path, msg, sizeof msg) != QKV_OK)
        goto done;
    dset = H5Dcreate2(w->file, path, file_type, space, H5P_DEFAULT, dcpl, H5P_DEFAULT);
    if (dset < 0) {
        /* HDF5 says "name already exists" for a duplicate: say it plainly. */
        duplicate = strstr(qkv_store_h5_msg(msg, sizeof msg), "already exists") != NULL;
        goto done;
    }
    if (n > 0 && H5Dwrite(dset, mem_type, H5S_ALL, H5S_ALL, H5P_DEFAULT, buf) < 0) {
        qkv_store_h5_msg(msg, sizeof msg);
        goto done;
    }
    status = QKV_OK;
done:
    if (status != QKV_OK) {
        char what[600];
        if (duplicate)
            snprintf(what, sizeof what, "an item with this path was already written");
        else
            snprintf(what, sizeof what, "HDF5: %s", msg);
        writer_fail(w, err, path, what);
    }
    if (dset >= 0 && H5Dclose(dset) < 0 && status == QKV_OK)
        status = writer_fail_h5(w, err, path);
    if (dcpl >= 0)
        H5Pclose(dcpl);
    if (space >= 0)
        H5Sclose(space);
    return status;
}

void qkv_store_set_float16(qkv_store_writer *w, bool on) { w->float16 = on; }

/* n values of data as binary16 at path. */
static int write_half(qkv_store_writer *w, const char *path, int rank, const hsize_t *dims, size_t n,
                      const qkv_real *data, qkv_error *err)
{
    uint16_t *buf = malloc((n ? n : 1) * sizeof *buf);
    hid_t type = buf ? (hid_t)qkv_half_h5_type() : H5I_INVALID_HID;
    int status = !buf ? writer_fail(w, err, path, "out of memory")
                 : type < 0 ? writer_fail_h5(w, err, path) : QKV_OK;
    for (size_t i = 0; status == QKV_OK && i < n; i++) {
        buf[i] = qkv_half_from_float((float)data[i]);
        if ((buf[i] & 0x7c00u) == 0x7c00u && isfinite(data[i])) {
            char what[160];
            snprintf(what, sizeof what, "element %zu is %g, beyond float16's range (largest 65504); store it "
                     "as float32 (without --float16)", i, (double)data[i]);
            status = writer_fail(w, err, path, what);
        }
    }
    if (status == QKV_OK)
        status = write_dataset(w, err, path, type, type, rank, dims, buf);
    if (type >= 0)
        H5Tclose(type);
    free(buf);
    return status;
}

int qkv_store_write_real(qkv_store_writer *w, const char *path, int rank, const int *shape,
                        const qkv_real *data, qkv_error *err)
{
    if (rank < 0 || rank > QKV_MAX_RANK)
        return writer_fail(w, err, path ? path : "(null)", "rank outside 0..4");
    hsize_t dims[QKV_MAX_RANK];
    size_t n = 1;
    for (int i = 0; i < rank; i++) {
        if (shape[i] < 0)
            return writer_fail(w, err, path ? path : "(null)", "negative dimension");
        dims[i] = (hsize_t)shape[i];
        n *= (size_t)shape[i];
    }
    if (w->float16)
        return write_half(w, path, rank, dims, n, data, err);
#if QKV_REAL_IS_DOUBLE
    float *buf = malloc((n ? n : 1) * sizeof *buf);
    if (!buf)
        return writer_fail(w, err, path ? path : "(null)", "out of memory");
    for (size_t i = 0; i < n; i++)
        buf[i] = (float)data[i];
    int status = write_dataset(w, err, path, H5T_IEEE_F32LE, H5T_NATIVE_FLOAT, rank, dims, buf);
    free(buf);
    return status;
#else
    (void)n;
    return write_dataset(w, err, path, H5T_IEEE_F32LE, H5T_NATIVE_FLOAT, rank, dims, data);
#endif
}

int qkv_store_write_tensor(qkv_store_writer *w, const char *path, const qkv_tensor *t, qkv_error *err)
{
    return qkv_store_write_real(w, path, t->rank, t->shape, t->data, err);
}

int qkv_store_write_params(qkv_store_writer *w, const char *group, const qkv_params *ps, qkv_error *err)
{
    for (int i = 0; i < ps->n; i++) {
        const qkv_param *p = ps->items[i];
        char path[1200];
        snprintf(path, sizeof path, "%s/%s", group ? group : "(null)", p->name);
        if (strchr(p->name, '/') || strcmp(p->name, ".") == 0 || strcmp(p->name, "..") == 0 || !p->name[0])
            return writer_fail(w, err, path, "a parameter name must not be empty, '.', '..' or contain '/'");
        size_t bad = qkv_tensor_first_nonfinite(&p->t);
        if (bad < p->t.size) {
            char what[120];
            snprintf(what, sizeof what, "element %zu is %g: a model's weights must be finite", bad, (double)p->t.data[bad]);
            return writer_fail(w, err, path, what);
        }
        if (qkv_store_write_tensor(w, path, &p->t, err) != QKV_OK)
            return QKV_ERR;
    }
    return QKV_OK;
}

static int write_1d(qkv_store_writer *w, const char *path, hid_t file_type, hid_t mem_type, size_t n,
                    const void *values, qkv_error *err)
{
    hsize_t dims[1] = {(hsize_t)n};
    return write_dataset(w, err, path, file_type, mem_type, 1, dims, values);
}

int qkv_store_write_i64(qkv_store_writer *w, const char *path, int64_t value, qkv_error *err)
{
    return write_dataset(w, err, path, H5T_STD_I64LE, H5T_NATIVE_INT64, 0, NULL, &value);
}

int qkv_store_write_u64(qkv_store_writer *w, const char *path, uint64_t value, qkv_error *err)
{
    return write_dataset(w, err, path, H5T_STD_U64LE, H5T_NATIVE_UINT64, 0, NULL, &value);
}

int qkv_store_write_f64(qkv_store_writer *w, const char *path, double value, qkv_error *err)
{
    return write_dataset(w, err, path, H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE, 0, NULL, &value);
}

int qkv_store_write_i64_array(qkv_store_writer *w, const char *path, size_t n, const int64_t *values, qkv_error *err)
{
    return write_1d(w, path, H5T_STD_I64LE, H5T_NATIVE_INT64, n, values, err);
}

int qkv_store_write_u64_array(qkv_store_writer *w, const char *path, size_t n, const uint64_t *values, qkv_error *err)
{
    return write_1d(w, path, H5T_STD_U64LE, H5T_NATIVE_UINT64, n, values, err);
}

int qkv_store_write_f64_array(qkv_store_writer *w, const char *path, size_t n, const double *values, qkv_error *err)
{
    return write_1d(w, path, H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE, n, values, err);
}

/* Every string must be non-NULL, valid UTF-8. */
static int check_utf8(qkv_store_writer *w, const char *path, size_t n, const char *const *strings, qkv_error *err)
{
    for (size_t i = 0; i < n; i++) {
        char what[128];
        if (!strings[i]) {
            snprintf(what, sizeof what, "string %zu is NULL", i);
            return writer_fail(w, err, path ? path : "(null)", what);
        }
        if (qkv_utf8_check(strings[i], strlen(strings[i])) != strlen(strings[i])) {
            snprintf(what, sizeof what, "string %zu is not valid UTF-8", i);
            return writer_fail(w, err, path ? path : "(null)", what);
        }
    }
    return QKV_OK;
}

int qkv_store_write_strings(qkv_store_writer *w, const char *path, size_t n, const char *const *strings,
                           qkv_error *err)
{
    if (check_utf8(w, path, n, strings, err) != QKV_OK)
        return QKV_ERR;
    /* The strings' bytes end to end, each ended by a NUL, as one uint8 array: stored inline
     * (no global heap, where variable-length strings live and where HDF5 1.10 crashes on a
     * damaged reference), and as large as the text, not n times its longest string. */
    size_t total = 0;
    for (size_t i = 0; i < n; i++) {
        size_t len = strlen(strings[i]);
        if (len >= SIZE_MAX - total)
            return writer_fail(w, err, path ? path : "(null)", "strings too large");
        total += len + 1;
    }
    unsigned char *buf = malloc(total ? total : 1);
    if (!buf)
        return writer_fail(w, err, path ? path : "(null)", "out of memory");
    size_t at = 0;
    for (size_t i = 0; i < n; i++) {
        size_t len = strlen(strings[i]) + 1;
        memcpy(buf + at, strings[i], len);
        at += len;
    }
    int status = write_1d(w, path, H5T_STD_U8LE, H5T_NATIVE_UCHAR, total, buf, err);
    free(buf);
    return status;
}

int qkv_store_write_text(qkv_store_writer *w, const char *path, const char *text, qkv_error *err)
{
    if (check_utf8(w, path, 1, &text, err) != QKV_OK)
        return QKV_ERR;
    /* A fixed-length string of the text's length (stored inline, no heap). */
    size_t width = strlen(text) ? strlen(text) : 1;
    hid_t str = H5Tcopy(H5T_C_S1);
    int status;
    if (str < 0 || H5Tset_size(str, width) < 0 || H5Tset_strpad(str, H5T_STR_NULLPAD) < 0 ||
        H5Tset_cset(str, H5T_CSET_UTF8) < 0) {
        status = writer_fail_h5(w, err, path ? path : "(null)");
    } else {
        status = write_dataset(w, err, path, str, str, 0, NULL, text); /* width bytes, or the NUL of "" */
    }
    if (str >= 0)
        H5Tclose(str);
    return status;
}
