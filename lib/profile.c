#include "lib/profile.h"

#include <string.h>
#include <time.h>

#define MAX_DEPTH 64

bool qkv_profile_on = false;

static double (*clock_fn)(void);
static qkv_profile_row table[QKV_PROFILE_MAX_ROWS + 1]; /* [0] is "other" */
static int n_rows;
static double span_start, span_end;

/* The open regions: frame 0 is the span itself (row "other"). */
static struct frame {
    int row;         /* index into table */
    double start;    /* when it was opened */
    double children; /* time of the regions closed inside it */
} stack[MAX_DEPTH];
static int depth;    /* open frames */
static int whole_at; /* depth of the open QKV_PROF_WHOLE frame + 1; 0: none */

double qkv_profile_clock(void)
{
    if (clock_fn)
        return clock_fn();
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

void qkv_profile_set_clock(double (*clock)(void))
{
    clock_fn = clock;
}

void qkv_profile_start(void)
{
    memset(table, 0, sizeof table);
    table[0] = (qkv_profile_row){"other", QKV_PROF_OTHER, 0, 1};
    n_rows = 1;
    span_start = span_end = qkv_profile_clock();
    stack[0] = (struct frame){0, span_start, 0};
    depth = 1;
    whole_at = 0;
    qkv_profile_on = true;
}

void qkv_profile_stop(void)
{
    if (!qkv_profile_on)
        return;
    qkv_profile_end_(0);
    span_end = stack[0].start; /* qkv_profile_end_(0) left the closing time there */
    qkv_profile_on = false;
}

double qkv_profile_span(void)
{
    return (qkv_profile_on ? qkv_profile_clock() : span_end) - span_start;
}

static int row_of(const char *name, qkv_profile_kind kind)
{
    for (int i = 1; i < n_rows; i++) /* a pointer match first: names are mostly literals */
        if (table[i].kind == kind && (table[i].name == name || !strcmp(table[i].name, name)))
            return i;
    if (n_rows > QKV_PROFILE_MAX_ROWS)
        return 0;
    table[n_rows] = (qkv_profile_row){name, kind, 0, 0};
    return n_rows++;
}

int qkv_profile_begin_(const char *name, qkv_profile_kind kind)
{
    if (whole_at || depth == MAX_DEPTH)
        return -1;
    int row = row_of(name, kind);
    table[row].calls++;
    stack[depth] = (struct frame){row, qkv_profile_clock(), 0};
    if (kind == QKV_PROF_WHOLE)
        whole_at = depth + 1;
    return depth++;
}

void qkv_profile_end_(int token)
{
    if (token >= depth)
        return; /* already closed (by an outer region's end) */
    double now = qkv_profile_clock();
    while (depth > token) {
        struct frame *f = &stack[--depth];
        double elapsed = now - f->start;
        table[f->row].seconds += elapsed - f->children;
        if (depth > 0)
            stack[depth - 1].children += elapsed;
        if (whole_at == depth + 1)
            whole_at = 0;
    }
    if (token == 0)
        stack[0].start = now;
}

static int by_seconds(const qkv_profile_row *a, const qkv_profile_row *b)
{
    if (a->seconds != b->seconds)
        return a->seconds > b->seconds ? -1 : 1;
    int c = strcmp(a->name, b->name);
    return c ? c : (int)a->kind - (int)b->kind;
}

int qkv_profile_rows(qkv_profile_row *rows, int max)
{
    int n = 0;
    for (int i = 0; i < n_rows && n < max; i++)
        if (table[i].calls > 0)
            rows[n++] = table[i];
    for (int i = 1; i < n; i++) /* insertion sort: a few dozen rows */
        for (int j = i; j > 0 && by_seconds(&rows[j], &rows[j - 1]) < 0; j--) {
            qkv_profile_row t = rows[j];
            rows[j] = rows[j - 1];
            rows[j - 1] = t;
        }
    return n;
}
