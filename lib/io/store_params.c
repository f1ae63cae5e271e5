/* Checkpoint reader for a model's parameters: the values a group of datasets holds (read from
 * their shapes) and the loading of a parameter set. See lib/io/store.h. */
#include "lib/io/store_internal.h"

#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

/* A bounded message under construction: items are appended while they fit, then counted. */
typedef struct {
    char text[900];
    size_t used;
    int dropped;
} list_msg;

static void list_add(list_msg *m, const char *sep, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static void list_add(list_msg *m, const char *sep, const char *fmt, ...)
{
    char item[700];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(item, sizeof item, fmt, ap);
    va_end(ap);
    size_t need = strlen(sep) + strlen(item);
    if (m->dropped || m->used + need + 40 >= sizeof m->text) {
        m->dropped++;
        return;
    }
    m->used += (size_t)snprintf(m->text + m->used, sizeof m->text - m->used, "%s%s", sep, item);
}

/* Opens the group `group` of r into *g with its info (its links' count); an error naming it when
 * it is not a group. */
static int open_group(const qkv_store_reader *r, const char *group, hid_t *g, H5G_info_t *info, qkv_error *err)
{
    *g = H5Gopen2(r->file, group, H5P_DEFAULT);
    if (*g >= 0 && H5Gget_info(*g, info) >= 0)
        return QKV_OK;
    if (*g >= 0)
        H5Gclose(*g);
    return qkv_store_read_fail(r, err, group, "not a group");
}

int qkv_store_read_params(const qkv_store_reader *r, const char *group, qkv_params *ps, qkv_error *err)
{
    const char *problem = qkv_store_path_problem(group);
    if (problem)
        return qkv_store_read_fail(r, err, group, "%s", problem);
    list_msg m = {{0}, 0, 0};
    int n_bad = 0;
    char path[1200], a[128], b[128];
    /* 1. every parameter exists with the model's shape */
    for (int i = 0; i < ps->n; i++) {
        const qkv_param *p = ps->items[i];
        snprintf(path, sizeof path, "%s/%s", group, p->name);
        if (!qkv_store_has(r, path)) {
            list_add(&m, n_bad++ ? "; " : "", "%s is missing", path);
            continue;
        }
        int rank;
        hsize_t dims[QKV_MAX_RANK], want[QKV_MAX_RANK];
        qkv_error e;
        hid_t d = qkv_store_open_dataset(r, path, KIND_FLOAT, &rank, dims, &e);
        if (d < 0) {
            const char *what = strstr(e.msg, path);
            list_add(&m, n_bad++ ? "; " : "", "%s", what ? what : e.msg);
            continue;
        }
        H5Dclose(d);
        bool same = rank == p->t.rank;
        for (int k = 0; k < p->t.rank; k++) {
            want[k] = (hsize_t)p->t.shape[k];
            same = same && dims[k] == want[k];
        }
        if (!same)
            list_add(&m, n_bad++ ? "; " : "", "%s is %s in the checkpoint but %s in the model", path,
                     qkv_store_dims_str(rank, dims, a, sizeof a), qkv_store_dims_str(p->t.rank, want, b, sizeof b));
    }
    /* 2. the group holds nothing the model does not have */
    if (qkv_store_has(r, group)) {
        hid_t g;
        H5G_info_t info;
        if (open_group(r, group, &g, &info, err))
            return QKV_ERR;
        int n_extra = 0;
        for (hsize_t i = 0; i < info.nlinks; i++) {
            char name[QKV_PARAM_NAME_MAX + 1];
            ssize_t len = H5Lget_name_by_idx(g, ".", H5_INDEX_NAME, H5_ITER_INC, i, name, sizeof name, H5P_DEFAULT);
            if (len < 0)
                continue;
            if (len >= (ssize_t)sizeof name || !qkv_params_find(ps, name)) {
                list_add(&m, n_extra++ ? ", " : n_bad ? "; not in the model: " : "not in the model: ", "%s%s",
                         name, len >= (ssize_t)sizeof name ? "..." : "");
                n_bad++;
            }
        }
        H5Gclose(g);
    }
    if (n_bad) {
        if (m.dropped)
            snprintf(m.text + m.used, sizeof m.text - m.used, " (and %d more)", m.dropped);
        return qkv_fail(err, "%s %s does not match the model: %s", r->what, r->path, m.text);
    }
    /* 3. load */
    for (int i = 0; i < ps->n; i++) {
        snprintf(path, sizeof path, "%s/%s", group, ps->items[i]->name);
        const qkv_tensor *t = &ps->items[i]->t;
        if (qkv_store_read_tensor(r, path, &ps->items[i]->t, err) != QKV_OK)
            return QKV_ERR;
        size_t bad = qkv_tensor_first_nonfinite(t);
        if (bad < t->size)
            return qkv_store_read_fail(r, err, path, "element %zu is %g: a model's weights must be finite", bad,
                                       (double)t->data[bad]);
    }
    return QKV_OK;
}

/* The values of the dataset NAME of group g (open as r's group `group`) into *n; a name too
 * long for a parameter counts 0 (no parameter can be loaded from it). */
static int count_dataset(const qkv_store_reader *r, const char *group, hid_t g, hsize_t i, size_t *n, qkv_error *err)
{
    char name[QKV_PARAM_NAME_MAX + 1], path[1200];
    ssize_t len = H5Lget_name_by_idx(g, ".", H5_INDEX_NAME, H5_ITER_INC, i, name, sizeof name, H5P_DEFAULT);
    *n = 0;
    if (len < 0)
        return qkv_store_read_fail(r, err, group, "HDF5 cannot read the name of item %llu", (unsigned long long)i);
    if (len >= (ssize_t)sizeof name)
        return QKV_OK;
    snprintf(path, sizeof path, "%s/%s", group, name);
    int rank;
    hsize_t dims[QKV_MAX_RANK];
    hid_t d = qkv_store_open_dataset(r, path, KIND_FLOAT, &rank, dims, err);
    if (d < 0)
        return QKV_ERR;
    H5Dclose(d);
    size_t values = 1;
    for (int k = 0; k < rank; k++)
        values = dims[k] && values > SIZE_MAX / dims[k] ? SIZE_MAX : values * (size_t)dims[k];
    *n = values;
    return QKV_OK;
}

int qkv_store_count_values(const qkv_store_reader *r, const char *group, size_t *n, qkv_error *err)
{
    *n = 0;
    const char *problem = qkv_store_path_problem(group);
    if (problem)
        return qkv_store_read_fail(r, err, group, "%s", problem);
    if (!qkv_store_has(r, group))
        return QKV_OK;
    hid_t g;
    H5G_info_t info;
    if (open_group(r, group, &g, &info, err))
        return QKV_ERR;
    int status = QKV_OK;
    for (hsize_t i = 0; status == QKV_OK && i < info.nlinks; i++) {
        size_t values;
        status = count_dataset(r, group, g, i, &values, err);
        *n = values > SIZE_MAX - *n ? SIZE_MAX : *n + values;
    }
    H5Gclose(g);
    return status;
}
