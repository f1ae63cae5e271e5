/* metrics.tsv as JSON for qkv board, from a byte offset on (board.h). */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "train/board/board.h"

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

/* The tab-separated fields of line[0..n) as a JSON array of strings (header) or of fields. */
static void line_json(const char *line, size_t n, bool header, qkv_buf *out)
{
    qkv_buf_adds(out, "[");
    size_t start = 0;
    for (size_t i = 0; i <= n; i++) {
        if (i < n && line[i] != '\t')
            continue;
        size_t len = i - start;
        if (len && line[start + len - 1] == '\r')
            len--;
        if (start)
            qkv_buf_adds(out, ",");
        if (header)
            qkv_buf_json_string(out, line + start, len);
        else
            field_json(line + start, len, out);
        start = i + 1;
    }
    qkv_buf_adds(out, "]");
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
    size_t n = 0;
    char *data = read_from(f, offset, (long long)st.st_size, &n);
    fclose(f);
    size_t end = n; /* just after the last newline: a line being written is left for later */
    while (end > 0 && data[end - 1] != '\n')
        end--;
    qkv_buf_addf(out, "{\"ino\": %llu, \"reset\": %s, \"size\": %lld, ", (unsigned long long)st.st_ino,
                 reset ? "true" : "false", (long long)st.st_size);
    size_t pos = 0;
    if (offset == 0) {
        qkv_buf_adds(out, "\"columns\": ");
        const char *nl = end ? memchr(data, '\n', end) : NULL;
        if (nl) {
            line_json(data, (size_t)(nl - data), true, out);
            pos = (size_t)(nl - data) + 1;
        } else {
            qkv_buf_adds(out, "null");
            end = 0; /* no whole header yet: nothing read */
        }
        qkv_buf_adds(out, ", ");
    }
    qkv_buf_adds(out, "\"rows\": [");
    for (bool first = true; pos < end; first = false) {
        const char *nl = memchr(data + pos, '\n', end - pos);
        size_t len = (size_t)(nl - (data + pos));
        qkv_buf_adds(out, first ? "\n" : ",\n");
        line_json(data + pos, len, false, out);
        pos += len + 1;
    }
    qkv_buf_addf(out, "], \"offset\": %lld}\n", offset + (long long)end);
    free(data);
    return true;
}
