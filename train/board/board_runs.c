/* The runs under qkv board's folders, their pictures and configs, and the paths the server may
 * read (board.h). */
#include <dirent.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "train/board/board.h"

#define MAX_NAMES 4096

static bool is_dir(const char *p)
{
    struct stat st;
    return stat(p, &st) == 0 && S_ISDIR(st.st_mode);
}

static bool has_file(const char *dir, const char *name)
{
    char p[8300];
    struct stat st;
    snprintf(p, sizeof p, "%s/%s", dir, name);
    return stat(p, &st) == 0 && S_ISREG(st.st_mode);
}

/* A run folder holds its metrics.tsv or its config.yaml. */
static bool is_run(const char *dir) { return has_file(dir, "metrics.tsv") || has_file(dir, "config.yaml"); }

/* Whether real path p is inside (or is) folder root. */
static bool inside(const char *root, const char *p)
{
    size_t n = strlen(root);
    return strncmp(p, root, n) == 0 && (p[n] == '/' || p[n] == 0 || (n == 1 && root[0] == '/'));
}

static int cmp_names(const void *a, const void *b) { return strcmp(*(char *const *)a, *(char *const *)b); }

/* The names of dir's entries (not hidden), sorted; *n of them, each malloc'd. */
static char **list_dir(const char *dir, int *n)
{
    *n = 0;
    DIR *d = opendir(dir);
    if (!d)
        return NULL;
    char **names = malloc(MAX_NAMES * sizeof *names);
    struct dirent *e;
    while (names && (e = readdir(d)) && *n < MAX_NAMES)
        if (e->d_name[0] != '.' && (names[*n] = strdup(e->d_name)))
            (*n)++;
    closedir(d);
    if (names)
        qsort(names, (size_t)*n, sizeof *names, cmp_names);
    return names;
}

static void free_names(char **names, int n)
{
    for (int i = 0; i < n; i++)
        free(names[i]);
    free(names);
}

/* The pictures (*.png) of folder dir/rel and below it (3 levels), as JSON objects. */
static void pngs_json(const char *dir, const char *rel, int depth, bool *first, qkv_buf *out)
{
    char path[4096];
    snprintf(path, sizeof path, "%s%s%s", dir, *rel ? "/" : "", rel);
    int n;
    char **names = list_dir(path, &n);
    for (int i = 0; i < n; i++) {
        char r[2048], p[4096];
        struct stat st;
        snprintf(r, sizeof r, "%s%s%s", rel, *rel ? "/" : "", names[i]);
        snprintf(p, sizeof p, "%s/%s", dir, r);
        if (lstat(p, &st) != 0)
            continue;
        size_t len = strlen(names[i]);
        if (S_ISDIR(st.st_mode) && depth < 3 && strcmp(names[i], "checkpoints") != 0) {
            pngs_json(dir, r, depth + 1, first, out);
        } else if (S_ISREG(st.st_mode) && len > 4 && strcmp(names[i] + len - 4, ".png") == 0) {
            qkv_buf_adds(out, *first ? "" : ", ");
            *first = false;
            qkv_buf_adds(out, "{\"name\": ");
            qkv_buf_json_string(out, r, strlen(r));
            qkv_buf_addf(out, ", \"size\": %lld, \"mtime\": %lld}", (long long)st.st_size, (long long)st.st_mtime);
        }
    }
    free_names(names, n);
}

/* One run's object: its id, name, folder, metrics.tsv's size and time, its pictures. */
static void run_json(const char *id, const char *name, const char *dir, bool *first, qkv_buf *out)
{
    char p[4096];
    struct stat st = {0};
    snprintf(p, sizeof p, "%s/metrics.tsv", dir);
    bool has_metrics = stat(p, &st) == 0;
    qkv_buf_adds(out, *first ? "\n  {\"id\": " : ",\n  {\"id\": ");
    *first = false;
    qkv_buf_json_string(out, id, strlen(id));
    qkv_buf_adds(out, ", \"name\": ");
    qkv_buf_json_string(out, name, strlen(name));
    qkv_buf_adds(out, ", \"path\": ");
    qkv_buf_json_string(out, dir, strlen(dir));
    qkv_buf_addf(out, ", \"metrics_size\": %lld, \"metrics_mtime\": %lld, \"pngs\": [",
                 has_metrics ? (long long)st.st_size : -1LL, (long long)st.st_mtime);
    bool f = true;
    pngs_json(dir, "", 0, &f, out);
    qkv_buf_adds(out, "]}");
}

static void skipped_json(const char *dir, const char *why, bool *first, qkv_buf *out)
{
    qkv_buf_adds(out, *first ? "\n  {\"path\": " : ",\n  {\"path\": ");
    *first = false;
    qkv_buf_json_string(out, dir, strlen(dir));
    qkv_buf_adds(out, ", \"why\": ");
    qkv_buf_json_string(out, why, strlen(why));
    qkv_buf_adds(out, "}");
}

void board_runs_json(const board_ctx *b, qkv_buf *out)
{
    bool first_run = true, first_skip = true;
    qkv_buf skipped = {0};
    qkv_buf_adds(out, "{\"runs\": [");
    for (int r = 0; r < b->n_roots; r++) {
        const char *root = b->roots[r];
        char id[4200], dir[4200];
        snprintf(id, sizeof id, "%d", r);
        if (!is_dir(root)) {
            skipped_json(root, "not a folder (any more)", &first_skip, &skipped);
            continue;
        }
        if (is_run(root)) {
            const char *slash = strrchr(root, '/');
            run_json(id, slash && slash[1] ? slash + 1 : root, root, &first_run, out);
            continue;
        }
        int n, found = 0;
        char **names = list_dir(root, &n);
        for (int i = 0; i < n; i++) {
            char real[PATH_MAX];
            snprintf(dir, sizeof dir, "%s/%s", root, names[i]);
            if (!is_dir(dir))
                continue;
            if (!realpath(dir, real) || !inside(root, real)) {
                skipped_json(dir, "a link out of the folder given", &first_skip, &skipped);
                continue;
            }
            if (is_run(dir)) {
                snprintf(id, sizeof id, "%d/%s", r, names[i]);
                run_json(id, names[i], dir, &first_run, out);
                found++;
            } else {
                skipped_json(dir, "not a run: no metrics.tsv or config.yaml", &first_skip, &skipped);
            }
        }
        free_names(names, n);
        if (!found)
            skipped_json(root, "no run folder in it", &first_skip, &skipped);
    }
    qkv_buf_adds(out, "\n], \"skipped\": [");
    if (skipped.len)
        qkv_buf_add(out, skipped.data, skipped.len);
    out->failed |= skipped.failed;
    qkv_buf_free(&skipped);
    qkv_buf_adds(out, "\n]}\n");
}

/* A name that is one plain path component. */
static bool plain_name(const char *s) { return *s && *s != '.' && !strchr(s, '/') && strlen(s) < 1024; }

bool board_run_path(const board_ctx *b, const char *id, char *path, size_t len)
{
    char *end;
    long r = strtol(id, &end, 10);
    if (end == id || *id == '-' || *id == '+' || r < 0 || r >= b->n_roots || (*end && *end != '/'))
        return false;
    const char *root = b->roots[r];
    char dir[4200], real[PATH_MAX];
    if (*end && !plain_name(end + 1))
        return false;
    snprintf(dir, sizeof dir, "%s%s", root, end);
    if (!realpath(dir, real) || !inside(root, real) || !is_dir(real) || !is_run(real))
        return false;
    if (!*end && strcmp(real, root) != 0)
        return false;
    snprintf(path, len, "%s", real);
    return true;
}

/* A relative path of plain components ending in .png. */
static bool plain_png(const char *name)
{
    size_t n = strlen(name);
    if (n < 5 || n > 2000 || strcmp(name + n - 4, ".png") != 0 || name[0] == '/')
        return false;
    for (const char *c = name; *c;) {
        const char *slash = strchr(c, '/');
        size_t len = slash ? (size_t)(slash - c) : strlen(c);
        if (len == 0 || c[0] == '.')
            return false;
        c += len + (slash ? 1 : 0);
        if (slash && !*c)
            return false;
    }
    return true;
}

bool board_file_path(const board_ctx *b, const char *id, const char *name, char *path, size_t len)
{
    char run[PATH_MAX], p[PATH_MAX + 2048], real[PATH_MAX];
    struct stat st;
    if (!plain_png(name) || !board_run_path(b, id, run, sizeof run))
        return false;
    snprintf(p, sizeof p, "%s/%s", run, name);
    if (!realpath(p, real) || !inside(run, real) || stat(real, &st) != 0 || !S_ISREG(st.st_mode))
        return false;
    snprintf(path, len, "%s", real);
    return true;
}

/* Appends the pair [key, value] for one "key: value" line of YAML under the section sec. */
static void config_pair(const char *sec, const char *line, bool *first, qkv_buf *out)
{
    const char *colon = strstr(line, ": ");
    if (!colon)
        return;
    char key[512];
    snprintf(key, sizeof key, "%s%s%.*s", sec, *sec ? "." : "", (int)(colon - line), line);
    const char *v = colon + 2;
    size_t n = strlen(v);
    while (n && (v[n - 1] == '\n' || v[n - 1] == '\r' || v[n - 1] == ' '))
        n--;
    qkv_buf_adds(out, *first ? "[" : ", [");
    *first = false;
    qkv_buf_json_string(out, key, strlen(key));
    qkv_buf_adds(out, ", ");
    qkv_buf_json_string(out, v, n);
    qkv_buf_adds(out, "]");
}

bool board_config_json(const char *run, qkv_buf *out)
{
    char p[PATH_MAX + 16], line[4096], sec[256] = "";
    snprintf(p, sizeof p, "%s/config.yaml", run);
    FILE *f = fopen(p, "r");
    if (!f)
        return false;
    bool first = true;
    qkv_buf_adds(out, "{\"config\": [");
    while (fgets(line, sizeof line, f)) {
        if (line[0] == '#' || line[0] == '\n')
            continue;
        if (line[0] != ' ') {
            char *colon = strchr(line, ':');
            if (colon && (colon[1] == '\n' || colon[1] == 0)) {
                snprintf(sec, sizeof sec, "%.*s", (int)(colon - line), line);
                continue;
            }
            sec[0] = 0;
            config_pair("", line, &first, out);
        } else {
            config_pair(sec, line + strspn(line, " "), &first, out);
        }
    }
    fclose(f);
    qkv_buf_adds(out, "]}\n");
    return true;
}
