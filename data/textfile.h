/* Reading a whole text file into memory, gzip-compressed or not.
 *
 * Every corpus qkv reads goes through here, so that `train.conllu.gz` reads exactly like
 * `train.conllu`. zlib decides from the first bytes: a gzip stream (one member or several in a
 * row, as `cat a.gz b.gz` makes) is decompressed, anything else is read as it is. A name ending
 * in ".gz" must hold a gzip stream. A stream that is truncated or corrupt (bad compressed data,
 * a CRC or length that does not match) is an error; no partial text is ever returned. Bytes
 * after a complete member that do not begin another member (appended text, zero padding, a
 * damaged member header) are an error too, where `gzip -d` ignores them with a warning. */
#ifndef QKV_DATA_TEXTFILE_H
#define QKV_DATA_TEXTFILE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "lib/error.h"

/* Reads the file at path into *text (malloc'd, NUL-terminated; the caller frees it) and its
 * length in bytes (the NUL not counted) into *len; at most 4 GiB - 2 bytes of text.
 * Errors (*text NULL, *len 0): "PATH: cannot open: <reason>", "PATH: read error: <reason>",
 * "PATH: not a gzip stream ...", "PATH: truncated gzip stream ...", "PATH: corrupt gzip
 * stream: <zlib's reason>", "PATH: bytes after the last gzip member are not gzip data ...",
 * "PATH: text too large ...", "PATH: out of memory". */
int qkv_text_read(const char *path, char **text, size_t *len, qkv_error *err);

/* The same for an open file descriptor (e.g. 0, standard input), which stays open; name is
 * used in messages (e.g. "<stdin>"). */
int qkv_text_read_fd(int fd, const char *name, char **text, size_t *len, qkv_error *err);

/* A text file read as a stream, gzip-compressed or not as above (for input read a line at a
 * time, such as raw text for a segmenter): file is an ordinary FILE * of the decompressed
 * bytes, handed on as they arrive (a pipe's first paragraph before its last is written). A read of a truncated or corrupt stream fails (ferror(file), errno EIO) and keeps
 * its message for qkv_text_stream_close. */
typedef struct qkv_text_stream {
    FILE *file;
    int fd, mode;
    bool own_fd, eof, failed, any;
    void *z;               /* z_stream while inflating */
    char in[1 << 16];      /* input bytes read, in_at .. in_len-1 not yet used */
    size_t in_at, in_len;
    char name[256];
    qkv_error err;
} qkv_text_stream;

/* Opens path (NULL: standard input, which stays open); name is used in messages. Errors:
 * "NAME: cannot open: <reason>", out of memory. */
int qkv_text_stream_open(qkv_text_stream *ts, const char *path, const char *name, qkv_error *err);
/* Closes the stream; QKV_ERR with the stream's error (truncated, corrupt, read error, a .gz
 * name without gzip) when one happened, so that a caller whose reading stopped at a failed read
 * reports that and not a bare read error. */
int qkv_text_stream_close(qkv_text_stream *ts, qkv_error *err);

/* Reads one line of in into *line (realloc'd as getline does; *cap its room), its '\n' kept.
 * Returns the line's length in bytes; -1 at the end of the input or on a read error (ferror
 * says which); -2 when the line is longer than max bytes ('\n' not counted): then max + 1 of its bytes have been
 * read and the memory used stays within max + 2 bytes, whatever the input; -3 out of memory. */
long qkv_text_getline(char **line, size_t *cap, FILE *in, size_t max);

#endif
