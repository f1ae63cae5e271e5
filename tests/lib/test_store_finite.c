/* A model's weights are finite wherever they cross the file: every parameter tensor of a model
 * is checked when it is written (float32 and float16) and when it is read, for every kind of
 * value that is not a finite float16 or float32 (NaN, +inf, -inf, and with float16 a finite
 * value beyond 65504 that would be stored as inf). Each error names the file, the item and the
 * element, and nothing is saved. */
#include "store_fixture.h"

#include <math.h>

/* The values that must not reach a file, and whether only float16 refuses them. */
static const struct {
    double v;
    bool only_half;
} BAD[] = {{NAN, false}, {INFINITY, false}, {-INFINITY, false}, {70000.0, true}, {-65520.0, true}};
#define N_BAD (sizeof BAD / sizeof BAD[0])

/* Writes ps as a model's parameters; returns the status, err the message. */
static int save(const qkv_params *ps, bool float16, qkv_error *err)
{
    qkv_store_writer *w;
    assert_int_equal(qkv_store_create(path, &w, err), QKV_OK);
    qkv_store_set_float16(w, float16);
    if (qkv_store_write_params(w, "/params", ps, err) != QKV_OK) {
        qkv_store_abort(w);
        return QKV_ERR;
    }
    return qkv_store_commit(w, err);
}

static void test_write_refuses_every_bad_value_in_every_tensor(void **state)
{
    (void)state;
    qkv_params ps;
    fx_model(&ps, 0);
    for (int half = 0; half <= 1; half++)
        for (int i = 0; i < ps.n; i++)
            for (size_t b = 0; b < N_BAD; b++) {
                qkv_tensor *t = &ps.items[i]->t;
                size_t k = t->size - 1;
                qkv_real keep = t->data[k];
                t->data[k] = (qkv_real)BAD[b].v;
                qkv_error err = {0};
                unlink(path);
                int rc = save(&ps, half, &err);
                t->data[k] = keep;
                if (BAD[b].only_half && !half) {
                    assert_int_equal(rc, QKV_OK); /* float32 holds 70000 */
                    continue;
                }
                if (rc == QKV_OK)
                    fail_msg("%s = %g saved (float16 %d)", ps.items[i]->name, BAD[b].v, half);
                assert_msg_has(err, path);
                assert_msg_has(err, ps.items[i]->name);
                char elem[40];
                snprintf(elem, sizeof elem, "element %zu", k);
                assert_msg_has(err, elem);
                assert_int_not_equal(access(path, F_OK), 0); /* nothing saved */
            }
    assert_int_equal(save(&ps, true, &(qkv_error){0}), QKV_OK); /* 65504 and below are fine */
    qkv_params_free(&ps);
}

static void test_read_refuses_every_bad_value_in_every_tensor(void **state)
{
    (void)state;
    qkv_params ps, into;
    fx_model(&ps, 0);
    fx_model(&into, 0);
    for (int i = 0; i < ps.n; i++)
        for (size_t b = 0; b < N_BAD; b++) {
            if (BAD[b].only_half)
                continue;
            /* written item by item (write_params refuses it), then read as a model */
            qkv_store_writer *w;
            qkv_error err = {0};
            assert_int_equal(qkv_store_create(path, &w, &err), QKV_OK);
            for (int j = 0; j < ps.n; j++) {
                qkv_tensor *t = &ps.items[j]->t;
                qkv_real keep = t->data[0];
                if (j == i)
                    t->data[0] = (qkv_real)BAD[b].v;
                char item[200];
                snprintf(item, sizeof item, "/params/%s", ps.items[j]->name);
                assert_int_equal(qkv_store_write_tensor(w, item, t, &err), QKV_OK);
                t->data[0] = keep;
            }
            assert_int_equal(qkv_store_commit(w, &err), QKV_OK);
            qkv_store_reader *r;
            assert_int_equal(qkv_store_open(path, &r, &err), QKV_OK);
            if (qkv_store_read_params(r, "/params", &into, &err) == QKV_OK)
                fail_msg("%s = %g loaded", ps.items[i]->name, BAD[b].v);
            assert_msg_has(err, path);
            assert_msg_has(err, ps.items[i]->name);
            assert_msg_has(err, "element 0");
            qkv_store_close(r);
            unlink(path);
        }
    qkv_params_free(&ps);
    qkv_params_free(&into);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_write_refuses_every_bad_value_in_every_tensor, setup, teardown),
        cmocka_unit_test_setup_teardown(test_read_refuses_every_bad_value_in_every_tensor, setup, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
