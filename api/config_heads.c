/* The heads of data.tags (run_config.h: qkv_run_config_derive_heads) and the parser's tag inputs
 * among them (qkv_run_config_check_tag_inputs). */
#include "api/run_config.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* The column named s[0..len) (a choice of data.tags, checked at loading). */
static int column_of(const char *s, size_t len)
{
    for (int c = 0; c < QKV_TAG_FIELD_COUNT; c++)
        if (strlen(QKV_TAG_FIELD_NAMES[c]) == len && !memcmp(QKV_TAG_FIELD_NAMES[c], s, len))
            return c;
    return -1;
}

/* The heads model.parser_tag_inputs names (qkv_heads_section.tag_input), counted into the model;
 * a name of no tagging column is skipped here and refused by qkv_run_config_check_tag_inputs. */
static void derive_tag_inputs(qkv_run_config *cfg)
{
    qkv_heads_section *h = &cfg->heads;
    h->n_tag_inputs = 0;
    for (const char *p = h->tag_inputs; *p && h->n_tag_inputs < QKV_NETWORK_MAX_TAG_INPUTS;) {
        size_t len = strcspn(p, ",");
        int col = column_of(p, len);
        for (int i = 1; i < h->n; i++)
            if ((int)cfg->data.read.columns[i] == col)
                h->tag_input[h->n_tag_inputs++] = i;
        p += len + (p[len] == ',');
    }
    cfg->model.n_tag_inputs = h->n_tag_inputs;
}

int qkv_run_config_derive_heads(qkv_run_config *cfg, const char *where, qkv_error *err)
{
    qkv_heads_section *h = &cfg->heads;
    qkv_read_opts *r = &cfg->data.read;
    h->n = 0;
    for (const char *p = h->tags; *p && h->n < QKV_MAX_COLUMNS;) {
        size_t len = strcspn(p, ",");
        r->columns[h->n] = (qkv_tag_field)column_of(p, len);
        h->weight[h->n] = 1;
        h->selected[h->n++] = !h->select[0];
        p += len + (p[len] == ',');
    }
    if (h->n == 0)
        return qkv_fail(err, "%s: data.tags names no column", where);
    r->tag_field = r->columns[0];
    r->n_columns = h->n;
    cfg->data.features.n_columns = h->n;
    memcpy(cfg->data.features.columns, r->columns, sizeof r->columns);
    int n_weights = 0;
    for (const char *p = h->weights; *p; n_weights++) {
        char *end;
        double v = strtod(p, &end);
        if (end == p || (*end && *end != ',') || !(v >= 0) || !isfinite(v))
            return qkv_fail(err, "%s: model.head_weights must be numbers >= 0, got '%s'", where, h->weights);
        if (n_weights < h->n)
            h->weight[n_weights] = v;
        p = *end ? end + 1 : end;
    }
    if (n_weights && n_weights != h->n)
        return qkv_fail(err, "%s: model.head_weights has %d weights, data.tags %d columns", where, n_weights, h->n);
    derive_tag_inputs(cfg);
    for (const char *p = h->select; *p;) {
        size_t len = strcspn(p, ",");
        int c = column_of(p, len), found = 0;
        for (int i = 0; i < h->n; i++)
            if ((int)r->columns[i] == c)
                found = h->selected[i] = true;
        if (!found)
            return qkv_fail(err, "%s: train.select_columns names %.*s, which data.tags does not list", where,
                            (int)len, p);
        p += len + (p[len] == ',');
    }
    return QKV_OK;
}

int qkv_run_config_check_tag_inputs(const qkv_run_config *cfg, const char *where, qkv_error *err)
{
    const qkv_heads_section *h = &cfg->heads;
    if (!h->tag_inputs[0])
        return QKV_OK;
    if (cfg->model.output != QKV_OUTPUT_BIAFFINE)
        return qkv_fail(err, "%s: model.parser_tag_inputs = [%s] needs model.output = biaffine (they are a parser's "
                        "inputs), got %s", where, h->tag_inputs, QKV_OUTPUT_NAMES[cfg->model.output]);
    for (const char *p = h->tag_inputs; *p;) {
        size_t len = strcspn(p, ",");
        int col = column_of(p, len), head = 0; /* the list loader refuses a name given twice */
        for (int i = 1; i < h->n; i++)
            head = (int)cfg->data.read.columns[i] == col ? i : head;
        if (!head)
            return qkv_fail(err, "%s: model.parser_tag_inputs names %.*s, which is not a tagging column of data.tags "
                            "(%s; the first is the parser's own)", where, (int)len, p, h->tags);
        p += len + (p[len] == ',');
    }
    return QKV_OK;
}
