/* The log-mel filterbank (data/mel.h) against a direct double-precision computation of the
 * same formulas (a DFT by its definition, the HTK triangles written out here), and analytic
 * sine inputs: the energy lies in the band whose centre is nearest the sine's frequency. */
#include "testutil.h"

#include "data/mel.h"
#include "lib/rng.h"

/* ln(mel energy) of frame t of x by the definitions, in double. */
static void direct_frame(const float *x, long n, int sr, int n_mels, long t, double *out)
{
    int win = (int)lround(0.025 * sr), hop = (int)lround(0.010 * sr), n_fft = 1;
    while (n_fft < win)
        n_fft *= 2;
    int n_bins = n_fft / 2 + 1;
    double *p = calloc((size_t)n_bins, sizeof *p);
    for (int k = 0; k < n_bins; k++) {
        double re = 0, im = 0;
        for (int i = 0; i < win; i++) {
            long s = t * hop + i;
            double v = s < n ? x[s] * (0.5 - 0.5 * cos(2 * M_PI * i / (win - 1))) : 0;
            re += v * cos(2 * M_PI * k * i / n_fft);
            im -= v * sin(2 * M_PI * k * i / n_fft);
        }
        p[k] = re * re + im * im;
    }
    double top = 2595 * log10(1 + sr / 2.0 / 700);
    for (int b = 0; b < n_mels; b++) {
        double edge[3];
        for (int j = 0; j < 3; j++)
            edge[j] = 700 * (pow(10, top * (b + j) / (n_mels + 1) / 2595) - 1);
        double e = 0;
        for (int k = 0; k < n_bins; k++) {
            double f = (double)k * sr / n_fft;
            double h = f > edge[0] && f <= edge[1] ? (f - edge[0]) / (edge[1] - edge[0])
                       : f > edge[1] && f < edge[2] ? (edge[2] - f) / (edge[2] - edge[1]) : 0;
            e += h * p[k];
        }
        out[b] = log(e > 1e-10 ? e : 1e-10);
    }
    free(p);
}

static void test_matches_direct_dft(void **state)
{
    (void)state;
    const int sr = 22050, n_mels = 40;
    qkv_mel m;
    qkv_error err;
    assert_int_equal(qkv_mel_init(&m, sr, n_mels, &err), QKV_OK);
    assert_int_equal(m.win, 551);
    assert_int_equal(m.hop, 221);
    assert_int_equal(m.n_fft, 1024);
    long n = 3000;
    float *x = malloc((size_t)n * sizeof *x);
    qkv_rng rng;
    qkv_rng_seed(&rng, 3);
    for (long i = 0; i < n; i++)
        x[i] = (float)(0.3 * qkv_rng_normal(&rng) + 0.5 * sin(2 * M_PI * 440.0 * i / sr));
    long T = qkv_mel_n_frames(&m, n);
    assert_int_equal(T, 1 + (3000 - 551) / 221);
    float *got = malloc((size_t)T * n_mels * sizeof *got);
    qkv_mel_frames(&m, x, n, got);
    double want[40];
    for (long t = 0; t < T; t += 4) {
        direct_frame(x, n, sr, n_mels, t, want);
        for (int b = 0; b < n_mels; b++)
            tu_assert_close(got[t * n_mels + b], want[b], 1e-3 * (1 + fabs(want[b])));
    }
    free(got);
    free(x);
    qkv_mel_free(&m);
}

static void test_sine_energy_in_its_band(void **state)
{
    (void)state;
    const int sr = 16000, n_mels = 64;
    qkv_mel m;
    qkv_error err;
    assert_int_equal(qkv_mel_init(&m, sr, n_mels, &err), QKV_OK);
    const double freqs[] = {300, 1000, 2500, 6000};
    long n = sr / 2;
    float *x = malloc((size_t)n * sizeof *x);
    float *f = malloc((size_t)qkv_mel_n_frames(&m, n) * n_mels * sizeof *f);
    for (int q = 0; q < 4; q++) {
        for (long i = 0; i < n; i++)
            x[i] = (float)sin(2 * M_PI * freqs[q] * i / sr);
        qkv_mel_frames(&m, x, n, f);
        const float *row = f + 10 * n_mels;
        int best = 0;
        for (int b = 1; b < n_mels; b++)
            if (row[b] > row[best])
                best = b;
        int nearest = 0;
        for (int b = 1; b < n_mels; b++)
            if (fabs(qkv_mel_band_hz(&m, b) - freqs[q]) < fabs(qkv_mel_band_hz(&m, nearest) - freqs[q]))
                nearest = b;
        if (abs(best - nearest) > 1)
            fail_msg("a %g Hz sine peaks in band %d (%.0f Hz), nearest centre is band %d (%.0f Hz)", freqs[q], best,
                     qkv_mel_band_hz(&m, best), nearest, qkv_mel_band_hz(&m, nearest));
        /* far bands hold almost nothing: 1e4 times less energy (ln 1e4 = 9.2) */
        int far = nearest > n_mels / 2 ? 2 : n_mels - 3;
        assert_true(row[best] - row[far] > 9.2);
    }
    free(f);
    free(x);
    qkv_mel_free(&m);
}

static void test_scale_and_short_signal(void **state)
{
    (void)state;
    qkv_mel m;
    qkv_error err;
    assert_int_equal(qkv_mel_init(&m, 22050, 40, &err), QKV_OK);
    float x[300], y[300], a[40], b[40];
    for (int i = 0; i < 300; i++) {
        x[i] = (float)sin(0.1 * i);
        y[i] = 2 * x[i];
    }
    assert_int_equal(qkv_mel_n_frames(&m, 300), 1); /* shorter than a window: one padded frame */
    qkv_mel_frames(&m, x, 300, a);
    qkv_mel_frames(&m, y, 300, b);
    for (int k = 0; k < 40; k++)
        if (a[k] > -20) /* above the floor, twice the signal is 4 times the power */
            tu_assert_close(b[k] - a[k], 2 * log(2.0), 1e-4);
    tu_assert_close(qkv_hz_to_mel(qkv_mel_to_hz(1234.5)), 1234.5, 1e-9);
    tu_assert_close(qkv_hz_to_mel(700), 2595 * log10(2.0), 1e-9);
    qkv_mel_free(&m);
}

static void test_bad_arguments(void **state)
{
    (void)state;
    qkv_mel m;
    qkv_error err;
    assert_int_equal(qkv_mel_init(&m, 100, 40, &err), QKV_ERR);
    assert_non_null(strstr(err.msg, "sample rate 100"));
    assert_int_equal(qkv_mel_init(&m, 16000, 0, &err), QKV_ERR);
    assert_non_null(strstr(err.msg, "0 bands"));
    qkv_mel_free(&m); /* safe on a failed init */
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_matches_direct_dft),
        cmocka_unit_test(test_sine_energy_in_its_band),
        cmocka_unit_test(test_scale_and_short_signal),
        cmocka_unit_test(test_bad_arguments),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
