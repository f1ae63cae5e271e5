/* segment_windows and segment_max (the character CNN pieces): forward values worked out by
 * hand, backward of max routed to the first maximal row, double-precision gradient checks over
 * several segmentations (1x1 and odd sizes, empty segments for windows) and of the composition
 * windows -> linear -> relu -> max that the word encoder uses, tape errors, and inputs large
 * enough for the OpenMP path against a plain implementation written here from the definition. */
#include "optest.h"

#include <omp.h>

#include "lib/parallel.h" /* QKV_PARALLEL_MIN: the large case must take the threaded loops */

/* ---- fixtures --------------------------------------------------------------------------- */

typedef struct {
    qkv_tensor *x, *w, *b;
    int32_t off[64];
    int n_seg, width;
} fixture;

static qkv_tensor *windows_fn(qkv_tape *tp, void *user)
{
    fixture *f = user;
    return qkv_packed_windows(tp, f->x, (qkv_packed){f->n_seg, f->off}, f->width);
}

static qkv_tensor *max_fn(qkv_tape *tp, void *user)
{
    fixture *f = user;
    return qkv_packed_max(tp, f->x, (qkv_packed){f->n_seg, f->off});
}

/* The character CNN of a word encoder: conv (windows + linear), relu, max over each word. */
static qkv_tensor *char_cnn_fn(qkv_tape *tp, void *user)
{
    fixture *f = user;
    qkv_tensor *win = qkv_packed_windows(tp, f->x, (qkv_packed){f->n_seg, f->off}, f->width);
    return qkv_packed_max(tp, qkv_relu(tp, qkv_linear(tp, win, f->w, f->b)), (qkv_packed){f->n_seg, f->off});
}

/* offsets from segment lengths; returns the number of rows */
static int set_offsets(fixture *f, int n_seg, const int *lengths)
{
    assert_true(n_seg < 64);
    f->n_seg = n_seg;
    f->off[0] = 0;
    for (int s = 0; s < n_seg; s++)
        f->off[s + 1] = f->off[s] + lengths[s];
    return f->off[n_seg];
}

static void assert_values(const qkv_tensor *y, int rows, int cols, const double *want)
{
    assert_non_null(y);
    assert_int_equal(y->rank, 2);
    assert_int_equal(y->shape[0], rows);
    assert_int_equal(y->shape[1], cols);
    for (int i = 0; i < rows * cols; i++)
        if (y->data[i] != want[i])
            fail_msg("element %d (row %d, col %d) = %g, expected %g", i, i / cols, i % cols, (double)y->data[i],
                     want[i]);
}

/* ---- forward values --------------------------------------------------------------------- */

static void test_windows_single_row(void **state)
{
    (void)state;
    ot_env e;
    ot_init(&e, 1);
    qkv_tensor *x = ot_values(&e, "x", 2, (int[]){1, 2}, (double[]){1.5, -2});
    const int32_t off[] = {0, 1};
    assert_values(qkv_packed_windows(&e.tp, x, (qkv_packed){1, off}, 3), 1, 6, (double[]){0, 0, 1.5, -2, 0, 0});
    assert_values(qkv_packed_windows(&e.tp, x, (qkv_packed){1, off}, 1), 1, 2, (double[]){1.5, -2});
    /* backward: only the middle slot of dy reaches x, added to the gradient already there */
    qkv_tensor *y = qkv_packed_windows(&e.tp, x, (qkv_packed){1, off}, 3);
    assert_non_null(y);
    x->grad[0] = 0.25;
    assert_int_equal(qkv_backward_from(&e.tp, y, (qkv_real[]){1, 2, 3, 4, 5, 6}), QKV_OK);
    tu_assert_close(x->grad[0], 3.25, 0);
    tu_assert_close(x->grad[1], 4, 0);
    ot_free(&e);
}

/* Segments of lengths 1, 2, 4 (and an empty one between the first two), D = 2, width 3;
 * x row r = [r + 1, 10 (r + 1)]. */
static void test_windows_segments(void **state)
{
    (void)state;
    ot_env e;
    ot_init(&e, 1);
    double xv[14];
    for (int r = 0; r < 7; r++) {
        xv[2 * r] = r + 1;
        xv[2 * r + 1] = 10 * (r + 1);
    }
    qkv_tensor *x = ot_values(&e, "x", 2, (int[]){7, 2}, xv);
    const double want[7 * 6] = {
        0, 0,  1, 10, 0, 0,   /* segment 0: row 0 alone */
        0, 0,  2, 20, 3, 30,  /* segment 1: rows 1, 2 */
        2, 20, 3, 30, 0, 0,
        0, 0,  4, 40, 5, 50,  /* segment 2: rows 3 .. 6 */
        4, 40, 5, 50, 6, 60,
        5, 50, 6, 60, 7, 70,
        6, 60, 7, 70, 0, 0,
    };
    const int32_t off[] = {0, 1, 3, 7}, with_empty[] = {0, 1, 1, 3, 7, 7};
    assert_values(qkv_packed_windows(&e.tp, x, (qkv_packed){3, off}, 3), 7, 6, want);
    assert_values(qkv_packed_windows(&e.tp, x, (qkv_packed){5, with_empty}, 3), 7, 6, want);
    /* one segment of all seven rows: row 1's window now reaches row 0, row 3's reaches row 2 */
    qkv_tensor *y = qkv_packed_windows(&e.tp, x, (qkv_packed){1, (int32_t[]){0, 7}}, 3);
    assert_non_null(y);
    tu_assert_close(y->data[6 + 0], 1, 0);
    tu_assert_close(y->data[3 * 6 + 1], 30, 0);
    assert_false(e.tp.failed);
    ot_free(&e);
}

/* Width 5, D = 1: segments [1, 2, 3] and [4]; and width 1 is the identity. */
static void test_windows_width_5_and_1(void **state)
{
    (void)state;
    ot_env e;
    ot_init(&e, 1);
    qkv_tensor *x = ot_values(&e, "x", 2, (int[]){4, 1}, (double[]){1, 2, 3, 4});
    const int32_t off[] = {0, 3, 4};
    const double want[4 * 5] = {
        0, 0, 1, 2, 3,
        0, 1, 2, 3, 0,
        1, 2, 3, 0, 0,
        0, 0, 4, 0, 0,
    };
    assert_values(qkv_packed_windows(&e.tp, x, (qkv_packed){2, off}, 5), 4, 5, want);
    qkv_tensor *r = ot_param2(&e, "r", 5, 3);
    qkv_tensor *id = qkv_packed_windows(&e.tp, r, (qkv_packed){3, (int32_t[]){0, 2, 3, 5}}, 1);
    assert_non_null(id);
    assert_int_equal(id->shape[1], 3);
    for (size_t i = 0; i < r->size; i++)
        tu_assert_close(id->data[i], r->data[i], 0);
    ot_free(&e);
}

/* x [6, 3]: segment 0 = row 0 alone, segment 1 = rows 1..3 (a tie in column 1), segment 2 =
 * rows 4..5 (a tie in column 2), all with negative values. */
static void test_max_values_and_routing(void **state)
{
    (void)state;
    ot_env e;
    ot_init(&e, 1);
    const double xv[] = {
        -1, -2, 0.5,  /* segment 0 */
        -3, 5, -7,    /* segment 1 */
        -1, 5, -9,
        -2, 4, -8,
        -4, -4, -4,   /* segment 2 */
        -5, -3, -4,
    };
    qkv_tensor *x = ot_values(&e, "x", 2, (int[]){6, 3}, xv);
    int32_t off[] = {0, 1, 4, 6};
    qkv_tensor *y = qkv_packed_max(&e.tp, x, (qkv_packed){3, off});
    assert_values(y, 3, 3, (double[]){-1, -2, 0.5, -1, 5, -7, -4, -3, -4});
    off[1] = 5; /* the op kept its own copy */
    const qkv_real dy[9] = {1, 2, 3, 4, 5, 6, 7, 8, 9};
    x->grad[0] = 0.25;  /* gradients already there are added to, not overwritten */
    x->grad[3] = -0.5;  /* (row 1 col 0: not a maximum, stays) */
    assert_int_equal(qkv_backward_from(&e.tp, y, dy), QKV_OK);
    /* each dy goes to the first row holding the maximum: row 2 col 0, row 1 col 1 (tie with
     * row 2), row 1 col 2; row 4 col 0, row 5 col 1, row 4 col 2 (tie with row 5) */
    const double want[18] = {1.25, 2, 3, -0.5, 5, 6, 4, 0, 0, 0, 0, 0, 7, 0, 9, 0, 8, 0};
    for (int i = 0; i < 18; i++)
        tu_assert_close(x->grad[i], want[i], 0);
    ot_free(&e);
}

/* A NaN in a segment is its maximum (as torch.max), wherever it stands. */
static void test_max_nan_propagates(void **state)
{
    (void)state;
    ot_env e;
    ot_init(&e, 1);
    qkv_tensor *x = ot_values(&e, "x", 2, (int[]){3, 2}, (double[]){1, 2, 3, 4, 5, 6});
    x->data[2] = (qkv_real)NAN; /* row 1, column 0 */
    x->data[1] = (qkv_real)NAN; /* row 0, column 1 */
    qkv_tensor *y = qkv_packed_max(&e.tp, x, (qkv_packed){1, (int32_t[]){0, 3}});
    assert_non_null(y);
    assert_true(isnan((double)y->data[0]));
    assert_true(isnan((double)y->data[1]));
    ot_free(&e);
}

/* ---- errors ----------------------------------------------------------------------------- */

static void expect_error(ot_env *e, qkv_tensor *y, const char *part)
{
    assert_null(y);
    assert_true(e->tp.failed);
    if (!strstr(e->tp.err.msg, part))
        fail_msg("message \"%s\" does not contain \"%s\"", e->tp.err.msg, part);
    qkv_tape_reset(&e->tp);
}

static void test_errors(void **state)
{
    (void)state;
    ot_env e;
    ot_init(&e, 1);
    qkv_tensor *x = ot_param2(&e, "x", 5, 3);
    const int32_t off[] = {0, 2, 5}, short_off[] = {0, 2, 4}, empty[] = {0, 2, 2, 5}, decreasing[] = {0, 3, 2, 5},
                  late_start[] = {1, 2, 5};
    expect_error(&e, qkv_packed_windows(&e.tp, x, (qkv_packed){2, off}, 2), "width 2 must be odd");
    expect_error(&e, qkv_packed_windows(&e.tp, x, (qkv_packed){2, off}, 0), "width 0 must be odd and >= 1");
    expect_error(&e, qkv_packed_windows(&e.tp, x, (qkv_packed){2, off}, -3), "width -3");
    expect_error(&e, qkv_packed_windows(&e.tp, x, (qkv_packed){2, short_off}, 3), "offsets[2] = 4");
    expect_error(&e, qkv_packed_windows(&e.tp, x, (qkv_packed){2, late_start}, 3), "offsets[0] = 1");
    expect_error(&e, qkv_packed_windows(&e.tp, x, (qkv_packed){3, decreasing}, 3), "offsets decrease at segment 1");
    expect_error(&e, qkv_packed_windows(&e.tp, x, (qkv_packed){0, off}, 3), "0 segments");
    expect_error(&e, qkv_packed_windows(&e.tp, x, (qkv_packed){2, NULL}, 3), "NULL");
    qkv_tensor *vec = ot_param(&e, "vec", 1, (int[]){5});
    expect_error(&e, qkv_packed_windows(&e.tp, vec, (qkv_packed){2, off}, 3),
                 "matrix [C, D] with at least one row, got [5]");
    expect_error(&e, qkv_packed_max(&e.tp, x, (qkv_packed){3, empty}), "segment 1 is empty");
    expect_error(&e, qkv_packed_max(&e.tp, x, (qkv_packed){2, short_off}), "rows of the input [5, 3] (5)");
    expect_error(&e, qkv_packed_max(&e.tp, x, (qkv_packed){3, decreasing}), "offsets decrease");
    expect_error(&e, qkv_packed_max(&e.tp, vec, (qkv_packed){2, off}), "got [5]");
    /* sticky: a failed tape makes both ops return NULL at once */
    assert_null(qkv_packed_windows(&e.tp, x, (qkv_packed){2, off}, 2));
    assert_null(qkv_packed_max(&e.tp, x, (qkv_packed){2, off}));
    assert_null(qkv_packed_windows(&e.tp, x, (qkv_packed){2, off}, 3));
    qkv_tape_reset(&e.tp);
    assert_non_null(qkv_packed_max(&e.tp, x, (qkv_packed){2, off}));
    ot_free(&e);
}

/* ---- gradient checks -------------------------------------------------------------------- */

static void check_windows(int n_seg, const int *lengths, int d, int width)
{
    ot_env e;
    ot_init(&e, (uint64_t)(100 * n_seg + 10 * d + width));
    fixture f = {0};
    f.width = width;
    int rows = set_offsets(&f, n_seg, lengths);
    f.x = ot_param2(&e, "x", rows, d);
    const char *names[] = {"x"};
    tu_assert_gradcheck(&e.tp, windows_fn, &f, 1, &f.x, names);
    ot_free(&e);
}

static void check_max(int n_seg, const int *lengths, int cols)
{
    ot_env e;
    ot_init(&e, (uint64_t)(100 * n_seg + cols));
    fixture f = {0};
    int rows = set_offsets(&f, n_seg, lengths);
    f.x = ot_param2(&e, "x", rows, cols); /* N(0, 1): no ties, so finite differences hold */
    const char *names[] = {"x"};
    tu_assert_gradcheck(&e.tp, max_fn, &f, 1, &f.x, names);
    ot_free(&e);
}

static void test_gradcheck_windows(void **state)
{
    (void)state;
    check_windows(1, (int[]){1}, 1, 1);
    check_windows(1, (int[]){1}, 1, 3);
    check_windows(3, (int[]){1, 2, 4}, 2, 3);
    check_windows(3, (int[]){3, 0, 5}, 3, 5);
    check_windows(1, (int[]){7}, 1, 7);
    check_windows(2, (int[]){2, 3}, 1, 9); /* window wider than every segment */
    check_windows(4, (int[]){2, 1, 1, 3}, 5, 3);
}

static void test_gradcheck_max(void **state)
{
    (void)state;
    check_max(1, (int[]){1}, 1);
    check_max(3, (int[]){1, 2, 4}, 3);
    check_max(1, (int[]){5}, 7);
    check_max(4, (int[]){3, 1, 2, 6}, 5);
    check_max(5, (int[]){1, 1, 1, 1, 1}, 2); /* every segment one row: the identity */
}

/* windows -> linear -> relu -> max over characters, gradients of x, w and b. */
static void check_char_cnn(int n_seg, const int *lengths, int d, int width, int filters)
{
    ot_env e;
    ot_init(&e, (uint64_t)(1000 + 100 * n_seg + 10 * d + width));
    fixture f = {0};
    f.width = width;
    int rows = set_offsets(&f, n_seg, lengths);
    f.x = ot_param2(&e, "x", rows, d);
    f.w = ot_param2(&e, "w", filters, width * d);
    f.b = ot_param(&e, "b", 1, (int[]){filters});
    qkv_tensor *ts[] = {f.x, f.w, f.b};
    const char *names[] = {"x", "w", "b"};
    tu_assert_gradcheck(&e.tp, char_cnn_fn, &f, 3, ts, names);
    ot_free(&e);
}

static void test_gradcheck_char_cnn(void **state)
{
    (void)state;
    check_char_cnn(1, (int[]){1}, 1, 1, 1);
    check_char_cnn(4, (int[]){1, 3, 6, 2}, 3, 3, 4);
    check_char_cnn(3, (int[]){5, 1, 4}, 2, 5, 3);
}

static void test_gradcheck_catches_one_percent(void **state)
{
    (void)state;
    ot_env e;
    ot_init(&e, 3);
    fixture f = {0};
    f.width = 3;
    int rows = set_offsets(&f, 3, (int[]){1, 3, 2});
    f.x = ot_param2(&e, "x", rows, 3);
    const char *names[] = {"x"};
    ot_assert_gradcheck_catches(&e.tp, "segment_windows", windows_fn, &f, 1, &f.x, names);
    ot_assert_gradcheck_catches(&e.tp, "segment_max", max_fn, &f, 1, &f.x, names);
    f.w = ot_param2(&e, "w", 2, 9);
    f.b = ot_param(&e, "b", 1, (int[]){2});
    qkv_tensor *ts[] = {f.x, f.w, f.b};
    const char *cnn_names[] = {"x", "w", "b"};
    ot_assert_gradcheck_catches(&e.tp, "segment_windows", char_cnn_fn, &f, 3, ts, cnn_names);
    ot_assert_gradcheck_catches(&e.tp, "segment_max", char_cnn_fn, &f, 3, ts, cnn_names);
    ot_free(&e);
}

/* ---- the OpenMP path -------------------------------------------------------------------- */

enum { BIG_SEG = 400, BIG_D = 16, BIG_WIDTH = 5 };

/* Random word lengths 1..12 (about 2600 rows of D = 16: rows * D * width and rows * D both exceed
 * QKV_PARALLEL_MIN). */
static int big_offsets(qkv_rng *rng, int32_t *off)
{
    off[0] = 0;
    for (int s = 0; s < BIG_SEG; s++)
        off[s + 1] = off[s] + 1 + (int32_t)qkv_rng_below(rng, 12);
    return off[BIG_SEG];
}

/* Forward and x's gradient for dy of the given values, on threads threads. */
static void run_big(int threads, qkv_tensor *x, const int32_t *off, bool windows, const qkv_real *dy,
                    qkv_real *y_out, qkv_real *dx_out)
{
    int saved = omp_get_max_threads();
    omp_set_num_threads(threads);
    qkv_tape tp;
    assert_int_equal(qkv_tape_init(&tp, 0), 0);
    memset(x->grad, 0, x->size * sizeof *x->grad);
    qkv_packed seg = {BIG_SEG, off};
    qkv_tensor *y = windows ? qkv_packed_windows(&tp, x, seg, BIG_WIDTH) : qkv_packed_max(&tp, x, seg);
    assert_non_null(y);
    memcpy(y_out, y->data, y->size * sizeof *y_out);
    assert_int_equal(qkv_backward_from(&tp, y, dy), QKV_OK);
    memcpy(dx_out, x->grad, x->size * sizeof *dx_out);
    qkv_tape_free(&tp);
    omp_set_num_threads(saved);
}

static void test_parallel_matches_definition(void **state)
{
    (void)state;
    ot_env e;
    ot_init(&e, 42);
    int32_t off[BIG_SEG + 1];
    const int rows = big_offsets(&e.rng, off), d = BIG_D, width = BIG_WIDTH, h = width / 2, yc = width * d;
    assert_true((size_t)rows * d >= QKV_PARALLEL_MIN);
    qkv_tensor *x = ot_param2(&e, "x", rows, d);
    int32_t *seg = malloc((size_t)rows * sizeof *seg); /* the segment of each row */
    qkv_real *dy = malloc((size_t)rows * yc * sizeof *dy), *y1 = malloc((size_t)rows * yc * sizeof *y1),
             *y2 = malloc((size_t)rows * yc * sizeof *y2), *dx1 = malloc(x->size * sizeof *dx1),
             *dx2 = malloc(x->size * sizeof *dx2);
    double *ref_dx = calloc(x->size, sizeof *ref_dx);
    assert_true(seg && dy && y1 && y2 && dx1 && dx2 && ref_dx);
    for (int s = 0; s < BIG_SEG; s++)
        for (int r = off[s]; r < off[s + 1]; r++)
            seg[r] = s;
    for (int i = 0; i < rows * yc; i++)
        dy[i] = (qkv_real)qkv_rng_normal(&e.rng);

    /* windows: y[c, j d + k] = x[c - h + j, k] when that row is in c's segment; dx by scatter */
    run_big(1, x, off, true, dy, y1, dx1);
    run_big(2, x, off, true, dy, y2, dx2);
    for (int c = 0; c < rows; c++)
        for (int j = 0; j < width; j++) {
            int src = c - h + j;
            bool in = src >= 0 && src < rows && seg[src] == seg[c];
            for (int k = 0; k < d; k++) {
                size_t at = (size_t)c * yc + (size_t)j * d + k;
                tu_assert_close(y1[at], in ? x->data[(size_t)src * d + k] : 0, 0);
                if (in)
                    ref_dx[(size_t)src * d + k] += dy[at];
            }
        }
    for (size_t i = 0; i < x->size; i++)
        tu_assert_close(dx1[i], ref_dx[i], 1e-12);
    assert_memory_equal(y1, y2, (size_t)rows * yc * sizeof *y1);
    assert_memory_equal(dx1, dx2, x->size * sizeof *dx1);

    /* max: y[s, k] = max over the segment's rows, dy[s, k] to that row */
    run_big(1, x, off, false, dy, y1, dx1);
    run_big(2, x, off, false, dy, y2, dx2);
    for (int s = 0; s < BIG_SEG; s++)
        for (int k = 0; k < d; k++) {
            int best = off[s];
            for (int r = off[s] + 1; r < off[s + 1]; r++)
                if (x->data[(size_t)r * d + k] > x->data[(size_t)best * d + k])
                    best = r;
            tu_assert_close(y1[(size_t)s * d + k], x->data[(size_t)best * d + k], 0);
            for (int r = off[s]; r < off[s + 1]; r++)
                tu_assert_close(dx1[(size_t)r * d + k], r == best ? dy[(size_t)s * d + k] : 0, 0);
        }
    assert_memory_equal(y1, y2, (size_t)BIG_SEG * d * sizeof *y1);
    assert_memory_equal(dx1, dx2, x->size * sizeof *dx1);

    /* and a sampled gradient check of both on the threaded path */
    fixture *f = calloc(1, sizeof *f);
    assert_non_null(f);
    const char *names[] = {"x"};
    int lens[] = {700, 900, 1, 1000}; /* 2601 rows of 13 columns */
    set_offsets(f, 4, lens);
    f->width = 3;
    f->x = ot_param2(&e, "x_big", f->off[4], 13);
    ot_assert_gradcheck_sampled(&e.tp, windows_fn, f, 1, &f->x, names, 16);
    ot_assert_gradcheck_sampled(&e.tp, max_fn, f, 1, &f->x, names, 16);
    free(f);
    free(seg);
    free(dy);
    free(y1);
    free(y2);
    free(dx1);
    free(dx2);
    free(ref_dx);
    ot_free(&e);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_windows_single_row),
        cmocka_unit_test(test_windows_segments),
        cmocka_unit_test(test_windows_width_5_and_1),
        cmocka_unit_test(test_max_values_and_routing),
        cmocka_unit_test(test_max_nan_propagates),
        cmocka_unit_test(test_errors),
        cmocka_unit_test(test_gradcheck_windows),
        cmocka_unit_test(test_gradcheck_max),
        cmocka_unit_test(test_gradcheck_char_cnn),
        cmocka_unit_test(test_gradcheck_catches_one_percent),
        cmocka_unit_test(test_parallel_matches_definition),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
