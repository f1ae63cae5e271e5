/* A profile of where a command's time goes: named timed regions ("linear" forward, "linear"
 * backward, "optimizer step" ...) summed over a run, the way torch.profiler's table reads.
 *
 * Off (the default) every hook costs one branch on qkv_profile_on. On, a region is timed on
 * the monotonic clock from qkv_profile_begin() to qkv_profile_end(). Regions nest and time is
 * EXCLUSIVE: a region's seconds are its own, minus the regions opened inside it (an op calling
 * another op, a phase running ops); the time inside the profile's span that no region covers
 * is the row "other". So the rows add up exactly to the span from qkv_profile_start() to
 * qkv_profile_stop(). A region opened with QKV_PROF_WHOLE instead keeps everything inside it
 * (nested begins are not timed apart), e.g. a dev evaluation counted as one row.
 * OpenMP regions inside an op are inside its time. Not thread-safe: regions are opened and
 * closed by the thread that runs the ops (the ops parallelise inside).
 *
 * The library only counts: qkv_profile_rows() returns the table; train/ prints it. */
#ifndef QKV_PROFILE_H
#define QKV_PROFILE_H

#include <stdbool.h>

typedef enum {
    QKV_PROF_FWD,   /* an op's forward (lib/ops): row "NAME fwd" */
    QKV_PROF_BWD,   /* an op's backward (lib/tape.c runs it): row "NAME bwd" */
    QKV_PROF_PHASE, /* a phase of a command (optimizer step, data ...): row "NAME"; exclusive */
    QKV_PROF_WHOLE, /* a phase that keeps the time of everything inside it: row "NAME" */
    QKV_PROF_OTHER, /* the row of time in no region (made by qkv_profile_start) */
} qkv_profile_kind;

/* Most distinct (name, kind) rows; regions past it count as "other". */
#define QKV_PROFILE_MAX_ROWS 64

typedef struct qkv_profile_row {
    const char *name;      /* as given to qkv_profile_begin (a string that outlives the profile) */
    qkv_profile_kind kind;
    double seconds;        /* exclusive time */
    long calls;            /* times the region was entered */
} qkv_profile_row;

/* True between qkv_profile_start() and qkv_profile_stop(). */
extern bool qkv_profile_on;

/* Clears the table and starts timing (the span begins now). */
void qkv_profile_start(void);
/* Closes regions left open and the span, and stops timing; the table stays readable. */
void qkv_profile_stop(void);
/* The rows with calls > 0 (at most max, QKV_PROFILE_MAX_ROWS + 1 fits all), sorted by seconds,
 * largest first (ties: by name). Returns their number. Their seconds add up to
 * qkv_profile_span() (up to rounding). */
int qkv_profile_rows(qkv_profile_row *rows, int max);
/* Seconds from qkv_profile_start() to qkv_profile_stop() (or to now while on). */
double qkv_profile_span(void);

/* Seconds on the monotonic clock (an arbitrary origin). */
double qkv_profile_clock(void);
/* Testing: a clock to use instead of the monotonic one (NULL: back to it). */
void qkv_profile_set_clock(double (*clock)(void));

/* Opens a region; returns a token for qkv_profile_end (-1 when not timed: profile off, or
 * inside a QKV_PROF_WHOLE region). name must outlive the profile (a string literal); rows are
 * told apart by (name's text, kind). */
int qkv_profile_begin_(const char *name, qkv_profile_kind kind);
void qkv_profile_end_(int token);

static inline int qkv_profile_begin(const char *name, qkv_profile_kind kind)
{
    return qkv_profile_on ? qkv_profile_begin_(name, kind) : -1;
}
/* Closes the region of the token (and any left open inside it); -1 does nothing. */
static inline void qkv_profile_end(int token)
{
    if (token >= 0)
        qkv_profile_end_(token);
}
static inline void qkv_profile_end_scope_(int *token)
{
    qkv_profile_end(*token);
}

/* Times the rest of the enclosing block (every return included) as a region, e.g. the first
 * line of an op: QKV_PROFILE_SCOPE("linear", QKV_PROF_FWD); */
#define QKV_PROFILE_SCOPE(name, kind)                                                               \
    int qkv_profile_token_ __attribute__((cleanup(qkv_profile_end_scope_))) = qkv_profile_begin(name, kind)

#endif
