/* Shared by the checkpoint tests: a scratch folder, a sample model and a sample checkpoint
 * holding every item type, and a check that reads the sample back and compares exactly. */
#ifndef QKV_STORE_FIXTURE_H
#define QKV_STORE_FIXTURE_H

#include "testutil.h"

#include <hdf5.h>
#include <limits.h>
#include <stdint.h>
#include <sys/stat.h>
#include <unistd.h>

#include "lib/io/store.h"

/* A variable-length UTF-8 string type, as h5py writes a str (close with H5Tclose). */
static inline hid_t fx_vl_string(void)
{
    hid_t t = H5Tcopy(H5T_C_S1);
    assert_true(t >= 0 && H5Tset_size(t, H5T_VARIABLE) >= 0 && H5Tset_cset(t, H5T_CSET_UTF8) >= 0);
    return t;
}

/* A checkpoint at p whose /vocab/words holds the n variable-length UTF-8 strings words (what
 * h5py writes for a list of str). Returns the file offset of the dataset's references
 * (contiguous, 16 bytes each). */
static inline size_t fx_write_vl_words(const char *p, const char *const *words, hsize_t n)
{
    qkv_store_writer *w;
    qkv_error err;
    assert_int_equal(qkv_store_create(p, &w, &err), QKV_OK);
    hid_t str = fx_vl_string(), space = H5Screate_simple(1, &n, NULL), lcpl = H5Pcreate(H5P_LINK_CREATE);
    assert_true(H5Pset_create_intermediate_group(lcpl, 1) >= 0);
    hid_t d = H5Dcreate2((hid_t)qkv_store_writer_hid(w), "/vocab/words", str, space, lcpl, H5P_DEFAULT, H5P_DEFAULT);
    assert_true(d >= 0 && H5Dwrite(d, str, H5S_ALL, H5S_ALL, H5P_DEFAULT, words) >= 0);
    haddr_t at = H5Dget_offset(d);
    assert_true(at != HADDR_UNDEF);
    H5Dclose(d);
    H5Pclose(lcpl);
    H5Tclose(str);
    H5Sclose(space);
    if (qkv_store_commit(w, &err))
        fail_msg("%s", err.msg);
    return (size_t)at;
}

/* A fresh folder under /tmp; removed by fx_rmdir. */
static inline void fx_mkdir(char *dir, size_t len)
{
    snprintf(dir, len, "/tmp/qkv-ckpt-test-XXXXXX");
    assert_non_null(mkdtemp(dir));
}

static inline void fx_rmdir(const char *dir)
{
    char cmd[PATH_MAX + 32];
    snprintf(cmd, sizeof cmd, "chmod -R u+rwx '%s' 2>/dev/null; rm -rf '%s'", dir, dir);
    assert_int_equal(system(cmd), 0);
}

/* Value k of a tensor: exactly representable in float32 (a multiple of 1/64 in [-8, 8)),
 * different for each seed, so float and double builds must round-trip it bit for bit. */
static inline qkv_real fx_value(int seed, size_t k) { return (qkv_real)((double)((seed * 131 + (int)k * 37) % 1024 - 512) / 64.0); }

/* A model's parameter set: dotted names, ranks 1..4, 1x1 and odd sizes. `variant` 1 changes
 * one shape, drops one parameter and adds another (for mismatch tests). */
static inline void fx_model(qkv_params *ps, int variant)
{
    qkv_error err;
    qkv_params_init(ps);
    assert_non_null(qkv_params_add(ps, &err, 2, (int[]){7, 5}, "embed.words"));
    assert_non_null(qkv_params_add(ps, &err, 2, variant ? (int[]){3, 4} : (int[]){4, 3}, "encoder.layers.0.attn.w_q"));
    assert_non_null(qkv_params_add(ps, &err, 1, (int[]){3}, "encoder.layers.0.attn.b_q"));
    assert_non_null(qkv_params_add(ps, &err, 2, (int[]){1, 1}, "encoder.layers.0.scale"));
    assert_non_null(qkv_params_add(ps, &err, 4, (int[]){2, 3, 1, 5}, "encoder.layers.0.odd4d"));
    if (!variant)
        assert_non_null(qkv_params_add(ps, &err, 3, (int[]){3, 1, 2}, "classifier.w"));
    else
        assert_non_null(qkv_params_add(ps, &err, 1, (int[]){9}, "classifier.extra"));
    for (int i = 0; i < ps->n; i++)
        for (size_t k = 0; k < ps->items[i]->t.size; k++)
            ps->items[i]->t.data[k] = fx_value(i + 1, k);
}

static const char *const fx_words[] = {"<pad>", "<unk>", "the", "naïve", "café", "日本語", "", "x y\tz"};
#define FX_N_WORDS (sizeof fx_words / sizeof fx_words[0])
static const char fx_config[] = "model:\n  d_model: 64   # größe\n  n_heads: 4\ntrain:\n  lr: 0.001\n";
static const uint64_t fx_rng[4] = {0x0123456789abcdefULL, UINT64_MAX, 0, 42};
static const int64_t fx_order[5] = {4, 0, 3, 1, INT64_MIN};
static const double fx_f64[3] = {0.1, -0.0, 1e300};

/* Writes the sample checkpoint (every item type) to path and commits it. */
static inline void fx_write_sample(const char *path)
{
    qkv_params ps;
    fx_model(&ps, 0);
    qkv_store_writer *w;
    qkv_error err = {0};
    if (qkv_store_create(path, &w, &err) != QKV_OK)
        fail_msg("%s", err.msg);
    int rc = qkv_store_write_params(w, "/params", &ps, &err);
    char name[256];
    for (int i = 0; rc == QKV_OK && i < ps.n; i++) {
        qkv_tensor m = ps.items[i]->t;
        snprintf(name, sizeof name, "/optim/m/%s", ps.items[i]->name);
        for (size_t k = 0; k < m.size; k++)
            m.data[k] = -m.data[k]; /* the moment is the negated parameter */
        rc = qkv_store_write_tensor(w, name, &m, &err);
        for (size_t k = 0; k < m.size; k++)
            m.data[k] = -m.data[k];
    }
    if (rc == QKV_OK)
        rc = qkv_store_write_i64(w, "/train/step", 123456789012LL, &err);
    if (rc == QKV_OK)
        rc = qkv_store_write_i64(w, "/train/epoch", -3, &err);
    if (rc == QKV_OK)
        rc = qkv_store_write_u64(w, "/train/seed", UINT64_MAX, &err);
    if (rc == QKV_OK)
        rc = qkv_store_write_f64(w, "/optim/lr", 0.001, &err);
    if (rc == QKV_OK)
        rc = qkv_store_write_u64_array(w, "/rng/state", 4, fx_rng, &err);
    if (rc == QKV_OK)
        rc = qkv_store_write_i64_array(w, "/train/order", 5, fx_order, &err);
    if (rc == QKV_OK)
        rc = qkv_store_write_i64_array(w, "/train/empty", 0, NULL, &err);
    if (rc == QKV_OK)
        rc = qkv_store_write_f64_array(w, "/optim/history", 3, fx_f64, &err);
    if (rc == QKV_OK)
        rc = qkv_store_write_strings(w, "/vocab/words", FX_N_WORDS, fx_words, &err);
    if (rc == QKV_OK)
        rc = qkv_store_write_strings(w, "/vocab/none", 0, NULL, &err);
    if (rc == QKV_OK)
        rc = qkv_store_write_text(w, "/config", fx_config, &err);
    if (rc != QKV_OK) {
        qkv_store_abort(w);
        fail_msg("%s", err.msg);
    }
    if (qkv_store_commit(w, &err) != QKV_OK)
        fail_msg("%s", err.msg);
    qkv_params_free(&ps);
}

/* Reads every item of the sample back from an open reader; returns QKV_OK when everything
 * is present and exactly equal, else QKV_ERR with err saying what differs. */
static inline int fx_check_sample(const qkv_store_reader *r, qkv_error *err)
{
    qkv_params want, got;
    fx_model(&want, 0);
    fx_model(&got, 0);
    for (int i = 0; i < got.n; i++)
        qkv_init_constant(&got.items[i]->t, 99);
    int rc = qkv_store_read_params(r, "/params", &got, err);
    for (int i = 0; rc == QKV_OK && i < got.n; i++) {
        qkv_tensor *g = &got.items[i]->t, *e = &want.items[i]->t;
        if (memcmp(g->data, e->data, g->size * sizeof(qkv_real)) != 0)
            rc = qkv_fail(err, "parameter %s differs", got.items[i]->name);
        char name[256];
        snprintf(name, sizeof name, "/optim/m/%s", got.items[i]->name);
        if (rc == QKV_OK)
            rc = qkv_store_read_tensor(r, name, g, err);
        for (size_t k = 0; rc == QKV_OK && k < g->size; k++)
            if (g->data[k] != -e->data[k])
                rc = qkv_fail(err, "%s[%zu] differs", name, k);
    }
    qkv_params_free(&want);
    qkv_params_free(&got);
    if (rc != QKV_OK)
        return rc;
    int64_t i64;
    uint64_t u64, rng[4];
    double f64, hist[3];
    int64_t order[5];
    if (qkv_store_read_i64(r, "/train/step", &i64, err) || i64 != 123456789012LL)
        return qkv_fail_prefix(err, "/train/step");
    if (qkv_store_read_i64(r, "/train/epoch", &i64, err) || i64 != -3)
        return qkv_fail_prefix(err, "/train/epoch");
    if (qkv_store_read_u64(r, "/train/seed", &u64, err) || u64 != UINT64_MAX)
        return qkv_fail_prefix(err, "/train/seed");
    if (qkv_store_read_f64(r, "/optim/lr", &f64, err) || f64 != 0.001)
        return qkv_fail_prefix(err, "/optim/lr");
    if (qkv_store_read_u64_array(r, "/rng/state", 4, rng, err) || memcmp(rng, fx_rng, sizeof rng))
        return qkv_fail_prefix(err, "/rng/state");
    if (qkv_store_read_i64_array(r, "/train/order", 5, order, err) || memcmp(order, fx_order, sizeof order))
        return qkv_fail_prefix(err, "/train/order");
    if (qkv_store_read_i64_array(r, "/train/empty", 0, order, err))
        return qkv_fail_prefix(err, "/train/empty");
    if (qkv_store_read_f64_array(r, "/optim/history", 3, hist, err) || memcmp(hist, fx_f64, sizeof hist))
        return qkv_fail_prefix(err, "/optim/history");
    size_t n;
    char **words;
    if (qkv_store_read_strings(r, "/vocab/words", &n, &words, err))
        return QKV_ERR;
    rc = n == FX_N_WORDS && words[n] == NULL ? QKV_OK : qkv_fail(err, "/vocab/words: %zu strings", n);
    for (size_t i = 0; rc == QKV_OK && i < n; i++)
        if (strcmp(words[i], fx_words[i]) != 0)
            rc = qkv_fail(err, "/vocab/words[%zu] = '%s', expected '%s'", i, words[i], fx_words[i]);
    free(words);
    if (rc != QKV_OK)
        return rc;
    if (qkv_store_read_strings(r, "/vocab/none", &n, &words, err))
        return QKV_ERR;
    free(words);
    if (n != 0)
        return qkv_fail(err, "/vocab/none: %zu strings", n);
    char *text;
    if (qkv_store_read_text(r, "/config", &text, err))
        return QKV_ERR;
    rc = strcmp(text, fx_config) == 0 ? QKV_OK : qkv_fail(err, "/config differs: '%s'", text);
    free(text);
    return rc;
}

/* Whole file into a malloc'd buffer. */
static inline unsigned char *fx_slurp(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    assert_non_null(f);
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    unsigned char *buf = malloc((size_t)n + 1);
    assert_non_null(buf);
    assert_int_equal(fread(buf, 1, (size_t)n, f), (size_t)n);
    fclose(f);
    *len = (size_t)n;
    return buf;
}

static inline void fx_spit(const char *path, const void *buf, size_t len)
{
    FILE *f = fopen(path, "wb");
    assert_non_null(f);
    assert_int_equal(fwrite(buf, 1, len, f), len);
    assert_int_equal(fclose(f), 0);
}

/* Each test gets a fresh folder `dir` and a checkpoint path `path` inside it (cmocka setup and
 * teardown; one copy per test program, which includes this header once). */
__attribute__((unused)) static char dir[64];
__attribute__((unused)) static char path[128];

__attribute__((unused)) static int setup(void **state)
{
    (void)state;
    fx_mkdir(dir, sizeof dir);
    snprintf(path, sizeof path, "%s/ckpt.h5", dir);
    return 0;
}

__attribute__((unused)) static int teardown(void **state)
{
    (void)state;
    fx_rmdir(dir);
    return 0;
}

/* err.msg contains needle. */
#define assert_msg_has(err, needle)                                                         \
    do {                                                                                    \
        if (!strstr((err).msg, (needle)))                                                   \
            fail_msg("error message lacks \"%s\": %s", (needle), (err).msg);                \
    } while (0)

#endif
