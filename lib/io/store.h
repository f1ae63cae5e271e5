/* Checkpoints: a generic HDF5 container for model parameters, optimizer state, counters,
 * RNG state, vocabularies and the config text. What goes in a checkpoint is decided by
 * train/; this layer only writes and reads typed items safely.
 *
 * FILE LAYOUT (readable with h5py and no qkv code)
 *   bytes 0..511   a qkv header in the HDF5 "user block" (HDF5 and h5py skip it):
 *                    "qkv-checkpoint\nsize=<20 decimal digits>\ncrc32=<8 hex digits>\n..."
 *                  size is the file length in bytes; crc32 is zlib.crc32 (CRC-32/IEEE) of
 *                  bytes 512..size-1. The reader checks both before HDF5 parses a single byte,
 *                  so a truncated or corrupted file is a clear error, never a crash inside HDF5
 *                  (which, in 1.10, can crash on some damaged structures).
 *                  A file changed by another tool (e.g. h5py in "r+" mode) fails the check too;
 *                  such a tool can re-seal it by rewriting the header the same way.
 *   /              attributes format_version (int64, QKV_STORE_FORMAT_VERSION) and
 *                  qkv_version (UTF-8 string, the version of the qkv that wrote the file).
 *   items          datasets at absolute HDF5 paths chosen by the caller, e.g.
 *                    /params/encoder.layers.0.attn.w_q   float32 [out, in] (PyTorch's Linear layout)
 *                    /optim/m/<name>                     float32, same shape as the parameter
 *                    /train/step                         int64 scalar
 *                    /rng/state                          uint64 [4]
 *                    /vocab/words                        uint8 [bytes]: n UTF-8 strings, each ended by NUL
 *                    /config                             UTF-8 string scalar (the resolved YAML)
 *                  A path is '/'-separated; each component is one HDF5 link name, so a dotted
 *                  parameter name is ONE dataset name. Missing groups are created.
 *   types on disk  fixed-width little-endian only: float32 = H5T_IEEE_F32LE (converted from
 *                  qkv_real, float or double), int64 = H5T_STD_I64LE, uint64 = H5T_STD_U64LE,
 *                  float64 = H5T_IEEE_F64LE, a list of strings = H5T_STD_U8LE bytes, the UTF-8
 *                  strings end to end, each ended by a NUL (h5py: bytes(ds[()]).split(b"\0")[:-1];
 *                  the file grows with the text, not with n times the longest string), a text =
 *                  a fixed-length UTF-8 string of its length. Both are stored inline: no
 *                  variable-length strings, no heap references to follow. Datasets are contiguous and
 *                  uncompressed. HDF5 1.8 file format (superblock and object headers carry
 *                  checksums; readable by any HDF5 >= 1.8). No timestamps: the same content
 *                  always gives the same bytes, so checkpoints can be compared with cmp.
 *
 * ATOMIC SAVE
 *   qkv_store_create() creates "<final>.tmp-<pid>" in the final path's folder (so a missing
 *   folder or a missing permission is reported at once) and builds the HDF5 file in memory
 *   (HDF5's core driver): a save holds the whole checkpoint in memory until its commit.
 *   qkv_store_commit() closes the HDF5 file, writes it with its header into the temporary file,
 *   fsyncs it, renames it onto the final path and fsyncs the folder. HDF5 never writes to disk
 *   itself, so a full disk is a plain write error of the commit, after which no HDF5 object is
 *   left open (HDF5 1.10 cannot close a file whose metadata flush failed, and then crashes at
 *   process exit). A crash or a failed save (disk full, no permission) leaves the previous
 *   file at the final path untouched and, except after a crash, no temporary file; an
 *   unfinished temporary file is never accepted by qkv_store_open().
 *
 * ERRORS  Every function returning int gives QKV_OK or QKV_ERR with err filled with one line
 *   naming the file, the item path and what is wrong (HDF5's own diagnostic included where it
 *   has one). HDF5's automatic error printing is switched off (process-wide, H5E_DEFAULT):
 *   lib/ never prints.
 * THREADS  HDF5 here is the serial, non-thread-safe build: use checkpoints from one thread. */
#ifndef QKV_IO_STORE_H
#define QKV_IO_STORE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "lib/error.h"
#include "lib/param.h"
#include "lib/tensor.h"

/* The container version written to /@format_version; the reader accepts QKV_STORE_FORMAT_OLDEST
 * to QKV_STORE_FORMAT_VERSION. Bump it when the meaning or the storage of existing items changes.
 *   1  string lists as fixed-length strings, each padded to the longest one
 *   2  string lists as NUL-ended UTF-8 bytes (qkv_store_write_strings); 1 is still read */
#define QKV_STORE_FORMAT_VERSION 2
#define QKV_STORE_FORMAT_OLDEST 1
/* Size of the qkv header (the HDF5 user block) at the start of the file, in bytes. */
#define QKV_STORE_HEADER_SIZE 512

typedef struct qkv_store_writer qkv_store_writer;
typedef struct qkv_store_reader qkv_store_reader;

/* ---------------------------------------------------------------- writing ---- */

/* Starts a checkpoint that will replace final_path on commit. Creates the temporary file
 * "<final_path>.tmp-<pid>" (truncating a stale one of the same name) and writes the root
 * attributes. Errors: folder missing or not writable, final_path exists and is not a
 * regular file, HDF5 failure. On success *out must be passed to qkv_store_commit() or
 * qkv_store_abort(). */
int qkv_store_create(const char *final_path, qkv_store_writer **out, qkv_error *err);
/* The same for a file that is not a checkpoint: what ("frame corpus", a static string) names it
 * in every message. */
int qkv_store_create_as(const char *final_path, const char *what, qkv_store_writer **out, qkv_error *err);

/* Closes the (in-memory) HDF5 file, writes it with its header (size, CRC-32) into the
 * temporary file, fsyncs it, renames it onto the final path and fsyncs the folder. Always
 * frees w and leaves no HDF5 object of it open. Errors name errno's reason ("No space left
 * on device"). On any failure before the rename the
 * temporary file is removed and the final path is unchanged. Also fails (and discards the
 * file) when an earlier write on w failed, so a partial checkpoint can never be committed.
 * If only the final fsync of the folder fails, the new file is in place and QKV_ERR says so. */
int qkv_store_commit(qkv_store_writer *w, qkv_error *err);

/* Discards an uncommitted checkpoint: closes and removes the temporary file, frees w.
 * w may be NULL. */
void qkv_store_abort(qkv_store_writer *w);

/* Removes the temporary files "<final_path>.tmp-<pid>" that saves interrupted by a crash or a
 * kill left behind: those whose process no longer exists (kill(pid, 0) fails with ESRCH); a
 * save still running in another process is left alone. *removed (may be NULL) receives how
 * many were removed. Errors: the folder cannot be read, a stale file cannot be removed. */
int qkv_store_remove_stale(const char *final_path, int *removed, qkv_error *err);

/* The temporary file's path (valid until commit/abort); for messages and tests. */
const char *qkv_store_temp_path(const qkv_store_writer *w);

/* Every parameter of ps as a float32 dataset "<group>/<name>" with the tensor's shape
 * (e.g. group "/params"). Errors: a name containing '/', or that is "." or "..". */
int qkv_store_write_params(qkv_store_writer *w, const char *group, const qkv_params *ps, qkv_error *err);

/* A float32 dataset at path with the given shape (rank 0..4; rank 0 = scalar), converted
 * from qkv_real by C's rounding to nearest float (values outside float's range become inf). */
int qkv_store_write_real(qkv_store_writer *w, const char *path, int rank, const int *shape,
                        const qkv_real *data, qkv_error *err);
/* From this call on, qkv_store_write_real (and so write_tensor and write_params) stores IEEE
 * binary16 (2 bytes a value, rounded to nearest even: lib/io/store_half.h) when on, float32
 * when off (the default). qkv_store_read_real reads either, converting to qkv_real exactly. */
void qkv_store_set_float16(qkv_store_writer *w, bool on);
/* qkv_store_write_real() with t's shape and data (e.g. an optimizer moment at /optim/m/<name>). */
int qkv_store_write_tensor(qkv_store_writer *w, const char *path, const qkv_tensor *t, qkv_error *err);

/* Scalars (rank-0 datasets) and 1-D arrays of n values (n may be 0). */
int qkv_store_write_i64(qkv_store_writer *w, const char *path, int64_t value, qkv_error *err);
int qkv_store_write_u64(qkv_store_writer *w, const char *path, uint64_t value, qkv_error *err);
int qkv_store_write_f64(qkv_store_writer *w, const char *path, double value, qkv_error *err);
int qkv_store_write_i64_array(qkv_store_writer *w, const char *path, size_t n, const int64_t *values, qkv_error *err);
int qkv_store_write_u64_array(qkv_store_writer *w, const char *path, size_t n, const uint64_t *values, qkv_error *err);
int qkv_store_write_f64_array(qkv_store_writer *w, const char *path, size_t n, const double *values, qkv_error *err);

/* A list of n UTF-8 strings (a vocabulary; n may be 0) as a 1-D uint8 dataset of their bytes,
 * each string followed by a NUL (see FILE LAYOUT; n strings take their lengths + n bytes).
 * Errors: a NULL string, or one that is not valid UTF-8 (its index is named). */
int qkv_store_write_strings(qkv_store_writer *w, const char *path, size_t n, const char *const *strings,
                           qkv_error *err);
/* A scalar UTF-8 string dataset of the text's length (e.g. the resolved config YAML). */
int qkv_store_write_text(qkv_store_writer *w, const char *path, const char *text, qkv_error *err);

/* ---------------------------------------------------------------- reading ---- */

/* Opens a checkpoint read-only after checking, in this order: the file exists and is a
 * regular file; it has the qkv header (else: "not an HDF5 file", or "an HDF5 file but not a
 * qkv checkpoint"); its length matches the header (else: truncated / trailing bytes); the
 * CRC-32 matches (else: corrupted or modified); HDF5 opens it; /@format_version exists, is an
 * integer and lies in QKV_STORE_FORMAT_OLDEST..QKV_STORE_FORMAT_VERSION. On success *out must be closed with
 * qkv_store_close(). */
int qkv_store_open(const char *path, qkv_store_reader **out, qkv_error *err);
/* The same for a file the store holds that is not a checkpoint: what ("frame corpus", a static
 * string) names it in every message ("frame corpus FILE: not an HDF5 file ..."). */
int qkv_store_open_as(const char *path, const char *what, qkv_store_reader **out, qkv_error *err);
void qkv_store_close(qkv_store_reader *r);

int64_t qkv_store_format_version(const qkv_store_reader *r);
/* /@qkv_version, or "" when the file has none. */
const char *qkv_store_qkv_version(const qkv_store_reader *r);

/* True when a dataset or group exists at path (a malformed path gives false). */
bool qkv_store_has(const qkv_store_reader *r, const char *path);

/* The dataset's rank (0 for a scalar) and shape. Errors: no such dataset, rank > 4, a
 * dimension > INT_MAX. */
int qkv_store_shape(const qkv_store_reader *r, const char *path, int *rank, int shape[QKV_MAX_RANK],
                   qkv_error *err);

/* The number of scalar values the datasets of group hold by their shapes (e.g. group "/params":
 * how many parameter values a model file stores), into *n; 0 when there is no such group. Each
 * dataset's dims are read without its data, bounded as every reader bounds a dataset by what
 * the file stores for it; a name longer than a parameter's (QKV_PARAM_NAME_MAX) counts 0.
 * A model built for the file needs no more values (qkv_params: max_values), so a file cannot
 * make its reader allocate more than its parameters could fill. Errors: group is not a group,
 * an item of it that is not a floating-point dataset, or declares more than the file stores. */
int qkv_store_count_values(const qkv_store_reader *r, const char *group, size_t *n, qkv_error *err);

/* Loads every parameter of ps from "<group>/<name>". Checks everything before changing any
 * value: each parameter must exist as a floating-point dataset of exactly the parameter's
 * shape, and the group must hold nothing else. The error lists the shape mismatches (dataset
 * and both shapes), the missing parameters and the extra datasets (those not in the model). */
int qkv_store_read_params(const qkv_store_reader *r, const char *group, qkv_params *ps, qkv_error *err);

/* A floating-point dataset of exactly this shape into data (converted to qkv_real).
 * Errors: missing, not floating point, a different shape (both shapes named). */
int qkv_store_read_real(const qkv_store_reader *r, const char *path, int rank, const int *shape,
                       qkv_real *data, qkv_error *err);
int qkv_store_read_tensor(const qkv_store_reader *r, const char *path, qkv_tensor *t, qkv_error *err);

/* Scalars (rank 0) and 1-D arrays of exactly n values. The dataset's class must match:
 * signed integer for i64, unsigned integer for u64, floating point for f64 (narrower widths
 * are converted; use qkv_store_shape() first for an array of unknown length). */
int qkv_store_read_i64(const qkv_store_reader *r, const char *path, int64_t *value, qkv_error *err);
int qkv_store_read_u64(const qkv_store_reader *r, const char *path, uint64_t *value, qkv_error *err);
int qkv_store_read_f64(const qkv_store_reader *r, const char *path, double *value, qkv_error *err);
int qkv_store_read_i64_array(const qkv_store_reader *r, const char *path, size_t n, int64_t *values, qkv_error *err);
int qkv_store_read_u64_array(const qkv_store_reader *r, const char *path, size_t n, uint64_t *values, qkv_error *err);
int qkv_store_read_f64_array(const qkv_store_reader *r, const char *path, size_t n, double *values, qkv_error *err);

/* A list of strings as *n strings and a terminating NULL pointer, all in ONE allocation:
 * free(*strings) frees the array and the strings. Reads what qkv_store_write_strings writes
 * (uint8 bytes, each string NUL-ended), and 1-D HDF5 string datasets (format_version 1's
 * fixed-length strings, or variable-length ones as other tools may write them; ASCII or UTF-8;
 * fixed-length strings end at their first NUL, space-padded ones also lose trailing spaces).
 * Errors: neither form, bytes not ending in NUL, invalid UTF-8, out of memory, a dataset that
 * declares more than the file stores (a variable-length string counts the 16-byte heap
 * reference the dataset stores for it), variable-length strings that would take more bytes
 * than the whole file plus one a string (refused before they are allocated). */
int qkv_store_read_strings(const qkv_store_reader *r, const char *path, size_t *n, char ***strings,
                          qkv_error *err);
/* A scalar string dataset as one malloc'd string (free it); errors as qkv_store_read_strings. */
int qkv_store_read_text(const qkv_store_reader *r, const char *path, char **text, qkv_error *err);

/* ------------------------------------------------------------- escape hatch ---- */

/* The underlying HDF5 file id (a hid_t) for items this API does not cover. Do not close it.
 * Anything written through it is sealed by the commit like every other item. */
int64_t qkv_store_writer_hid(const qkv_store_writer *w);
int64_t qkv_store_reader_hid(const qkv_store_reader *r);

#endif
