/* `qkv positions` on a model over a 2-D grid (train/positions.c): rel2d and quadratic2d draw
 * layer 0's score bias of the centre query over the grid, each head side by side and their
 * mean, computed here from the parameters by the formulas of lib/ops/grid_bias.h; rope2d its
 * mean over pairs of cos(angle difference), 1 at the centre. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <string.h>

#include "train/positions.h"

enum { H = 2, ROWS = 3, COLS = 4 };

static void make(qkv_network *m, qkv_pos_kind kind)
{
    qkv_network_config cfg;
    memset(&cfg, 0, sizeof cfg);
    cfg.n_features = 1;
    cfg.feature_names[0] = "word";
    cfg.vocab_sizes[0] = 5;
    cfg.n_tags = 2;
    cfg.n_layers = 1;
    cfg.encoder = (qkv_encoder_opts){.d_model = 8, .d_ff = 8, .attn = {.n_heads = H}, .ln_eps = 1e-5};
    cfg.positional = kind;
    cfg.rope_base = 10;
    cfg.rel2d_clip = 1;
    cfg.grid = (qkv_grid){.rows = ROWS, .cols = COLS, .n_prefix = 1};
    qkv_rng rng;
    qkv_rng_seed(&rng, 1);
    qkv_error err;
    if (qkv_network_init(m, &cfg, &rng, &err))
        fail_msg("%s", err.msg);
}

/* The bias of the key at (r, c) for the query at (1, 2), head h. */
static double expected(const qkv_network *m, qkv_pos_kind kind, int h, int r, int c)
{
    const qkv_tensor *p = qkv_network_block(m, 0)->attn.pos_param;
    int dy = r - 1, dx = c - 2;
    if (kind == QKV_POS_REL2D) {
        dx = dx < -1 ? -1 : dx > 1 ? 1 : dx;
        return p->data[h * 10 + (dy + 1) * 3 + dx + 1];
    }
    double ey = dy - p->data[h * 3], ex = dx - p->data[h * 3 + 1];
    return -p->data[h * 3 + 2] * (ey * ey + ex * ex);
}

static void test_score_biases(void **state)
{
    (void)state;
    const qkv_pos_kind kinds[2] = {QKV_POS_REL2D, QKV_POS_QUADRATIC2D};
    for (int k = 0; k < 2; k++) {
        qkv_network m;
        make(&m, kinds[k]);
        qkv_tensor *p = qkv_network_block(&m, 0)->attn.pos_param;
        for (size_t i = 0; i < p->size; i++)
            p->data[i] = (qkv_real)(0.1 * ((int)(i * 7 % 11) - 5));
        qkv_position_pictures pp;
        qkv_error err;
        if (qkv_position_pictures_make(&m, 50, &pp, &err))
            fail_msg("%s", err.msg);
        assert_int_equal(pp.n_panels, 2);
        assert_int_equal(pp.panels[0].rows, ROWS);
        assert_int_equal(pp.panels[0].cols, H * COLS);
        assert_int_equal(pp.panels[1].cols, COLS);
        for (int r = 0; r < ROWS; r++)
            for (int c = 0; c < COLS; c++) {
                double mean = 0;
                for (int h = 0; h < H; h++) {
                    double want = expected(&m, kinds[k], h, r, c);
                    mean += want / H;
                    assert_true(fabs(pp.panels[0].data[r * H * COLS + h * COLS + c] - want) < 1e-5);
                }
                assert_true(fabs(pp.panels[1].data[r * COLS + c] - mean) < 1e-5);
            }
        qkv_position_pictures_free(&pp);
        qkv_network_free(&m);
    }
}

/* rope2d, d_head 4: one pair by the row, one by the column, θ = 1: (cos dy + cos dx) / 2. */
static void test_rotation(void **state)
{
    (void)state;
    qkv_network m;
    make(&m, QKV_POS_ROPE2D);
    qkv_position_pictures pp;
    qkv_error err;
    if (qkv_position_pictures_make(&m, 50, &pp, &err))
        fail_msg("%s", err.msg);
    assert_int_equal(pp.n_panels, 2);
    for (int r = 0; r < ROWS; r++)
        for (int c = 0; c < COLS; c++)
            assert_true(fabs(pp.panels[1].data[r * COLS + c] - (cos(r - 1) + cos(c - 2)) / 2) < 1e-6);
    qkv_position_pictures_free(&pp);
    qkv_network_free(&m);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_score_biases),
        cmocka_unit_test(test_rotation),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
