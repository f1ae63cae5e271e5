/* metrics.tsv as JSON for qkv board, from a byte offset on (board.h). */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "train/board/board.h"
#include "train/metrics.h"

#define MAX_READ (256LL << 20)

/* A field of a row: a JSON number when it is one as written, null for nan, inf or empty, a
 * string otherwise (the split column). */
static void field_json(const char *s, size_t n, qkv_buf *out)
{
    size_t i = 0;
    if (i < n && s[i] == '-')
        i++;
    bool number = i < n && s[i] >= '0' && s[i] <= '9';
    for (size_t j = i; number && j < n; j++)
        number = strchr("0123456789.eE+-", s[j]) != NULL;
    if (number) {
        char tmp[64], *end;
        snprintf(tmp, sizeof tmp, "%.*s", (int)(n < 63 ? n : 63), s);
        strtod(tmp, &end);
        number = n < 63 && *end == 0 && (end[-1] >= '0' && end[-1] <= '9') && !strstr(tmp, ".e") &&
                 !(tmp[i] == '0' && tmp[i + 1] >= '0' && tmp[i + 1] <= '9');
    }
    if (number)
        qkv_buf_add(out, s, n);
    else if (n == 0 || strncmp(s, "nan", n) == 0 || strncmp(s, "-nan", n) == 0 || strncmp(s, "inf", n) == 0 ||
             strncmp(s, "-inf", n) == 0)
        qkv_buf_adds(out, "null");
    else
        qkv_buf_json_string(out, s, n);
}

/* The tab-separated fields of line[0..n): their count, and each field's start and length in
 * at[] (up to max of them). */
static int split_fields(const char *line, size_t n, size_t at[][2], int max)
{
    int k = 0;
    size_t start = 0;
    for (size_t i = 0; i <= n; i++) {
        if (i < n && line[i] != '\t')
            continue;
        size_t len = i - start;
        if (len && line[start + len - 1] == '\r')
            len--;
        if (k < max)
            at[k][0] = start, at[k][1] = len;
        k++;
        start = i + 1;
    }
    return k;
}

/* The rows of data[pos..end) with exactly n_cols fields, as one JSON array per column. */
static void columns_json(const char *data, size_t pos, size_t end, int n_cols, qkv_buf *out)
{
    qkv_buf *cols = calloc((size_t)n_cols, sizeof *cols);
    size_t(*at)[2] = malloc((size_t)n_cols * sizeof *at);
    int rows = 0;
    for (; cols && at && pos < end;) {
        const char *nl = memchr(data + pos, '\n', end - pos);
        size_t len = (size_t)(nl - (data + pos));
        if (split_fields(data + pos, len, at, n_cols) == n_cols) {
            for (int c = 0; c < n_cols; c++) {
                qkv_buf_adds(&cols[c], rows ? "," : "");
                field_json(data + pos + at[c][0], at[c][1], &cols[c]);
            }
            rows++;
        }
        pos += len + 1;
    }
    qkv_buf_addf(out, "\"n\": %d, \"data\": [", rows);
    for (int c = 0; cols && c < n_cols; c++) {
        qkv_buf_adds(out, c ? "],\n[" : "\n[");
        if (cols[c].len)
            qkv_buf_add(out, cols[c].data, cols[c].len);
        out->failed |= cols[c].failed;
        qkv_buf_free(&cols[c]);
    }
    qkv_buf_adds(out, n_cols ? "]]" : "]");
    out->failed |= !cols || !at;
    free(cols);
    free(at);
}

/* The header of f (its first line, whole): its columns as a JSON array into out, then
 * ", \"labels\": " and their display names (qkv_metrics_label: "las" -> "LAS"); their count, or
 * 0 when the header is not whole yet. */
static int header(FILE *f, qkv_buf *out)
{
    char line[8192];
    size_t at[256][2];
    if (!fgets(line, sizeof line, f) || !strchr(line, '\n'))
        return 0;
    size_t n = strcspn(line, "\n");
    int k = split_fields(line, n, at, 256);
    if (k > 256)
        return 0;
    for (int pass = 0; pass < 2; pass++) {
        qkv_buf_adds(out, pass ? ", \"labels\": [" : "[");
        for (int c = 0; c < k; c++) {
            char name[256], label[256];
            qkv_buf_adds(out, c ? ", " : "");
            if (!pass) {
                qkv_buf_json_string(out, line + at[c][0], at[c][1]);
                continue;
            }
            snprintf(name, sizeof name, "%.*s", (int)at[c][1], line + at[c][0]);
            qkv_metrics_label(name, label, sizeof label);
            qkv_buf_json_string(out, label, strlen(label));
        }
        qkv_buf_adds(out, "]");
    }
    return k;
}

/* The bytes of f from offset to its end (at most MAX_READ), malloc'd; *n of them. */
static char *read_from(FILE *f, long long offset, long long size, size_t *n)
{
    long long want = size - offset;
    if (want > MAX_READ)
        want = MAX_READ;
    char *data = malloc((size_t)want + 1);
    if (!data || fseeko(f, (off_t)offset, SEEK_SET) != 0) {
        free(data);
        return NULL;
    }
    *n = fread(data, 1, (size_t)want, f);
    return data;
}

bool board_metrics_json(const char *run, long long offset, unsigned long long ino, qkv_buf *out)
{
    char p[PATH_MAX + 16];
    snprintf(p, sizeof p, "%s/metrics.tsv", run);
    FILE *f = fopen(p, "rb");
    if (!f)
        return false;
    struct stat st;
    if (fstat(fileno(f), &st) != 0) {
        fclose(f);
        return false;
    }
    bool reset = offset < 0 || offset > (long long)st.st_size || (ino && ino != (unsigned long long)st.st_ino);
    if (reset)
        offset = 0;
    qkv_buf head = {0};
    int n_cols = header(f, &head);
    size_t n = 0;
    char *data = n_cols ? read_from(f, offset, (long long)st.st_size, &n) : NULL;
    fclose(f);
    size_t end = n; /* just after the last newline: a line being written is left for later */
    while (end > 0 && data[end - 1] != '\n')
        end--;
    size_t pos = 0;
    if (offset == 0 && end) /* the header's line */
        pos = (size_t)((char *)memchr(data, '\n', end) - data) + 1;
    qkv_buf_addf(out, "{\"ino\": %llu, \"reset\": %s, \"size\": %lld, ", (unsigned long long)st.st_ino,
                 reset ? "true" : "false", (long long)st.st_size);
    if (offset == 0) {
        qkv_buf_adds(out, "\"columns\": ");
        qkv_buf_adds(out, n_cols && head.data ? head.data : "null, \"labels\": null");
        qkv_buf_adds(out, ", ");
    }
    out->failed |= head.failed;
    qkv_buf_free(&head);
    if (n_cols)
        columns_json(data, pos, end, n_cols, out);
    else
        qkv_buf_adds(out, "\"n\": 0, \"data\": []");
    qkv_buf_addf(out, ", \"offset\": %lld}\n", offset + (long long)end);
    free(data);
    return true;
}
