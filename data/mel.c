/* Log-mel filterbank frames through FFTW (data/mel.h). */
#include "data/mel.h"

#include <fftw3.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

double qkv_hz_to_mel(double hz) { return 2595.0 * log10(1.0 + hz / 700.0); }
double qkv_mel_to_hz(double mel) { return 700.0 * (pow(10.0, mel / 2595.0) - 1.0); }

static double band_edge_hz(const qkv_mel *m, int i)
{
    double top = qkv_hz_to_mel(0.5 * m->sample_rate);
    return qkv_mel_to_hz(top * (double)i / (double)(m->n_mels + 1));
}

double qkv_mel_band_hz(const qkv_mel *m, int b) { return band_edge_hz(m, b + 1); }

/* H_b[k]: the triangle over f_b .. f_{b+1} .. f_{b+2} at bin frequency k·sr/n_fft. */
static void fill_fbank(qkv_mel *m)
{
    for (int b = 0; b < m->n_mels; b++) {
        double lo = band_edge_hz(m, b), mid = band_edge_hz(m, b + 1), hi = band_edge_hz(m, b + 2);
        for (int k = 0; k < m->n_bins; k++) {
            double f = (double)k * m->sample_rate / m->n_fft, h = 0;
            if (f > lo && f <= mid)
                h = (f - lo) / (mid - lo);
            else if (f > mid && f < hi)
                h = (hi - f) / (hi - mid);
            m->fbank[(size_t)b * m->n_bins + k] = (float)h;
        }
    }
}

int qkv_mel_init(qkv_mel *m, int sample_rate, int n_mels, qkv_error *err)
{
    memset(m, 0, sizeof *m);
    if (sample_rate < 8000 || sample_rate > 192000)
        return qkv_fail(err, "mel filterbank: sample rate %d Hz is not in 8000 .. 192000", sample_rate);
    if (n_mels < QKV_MEL_MIN_BANDS || n_mels > QKV_MEL_MAX_BANDS)
        return qkv_fail(err, "mel filterbank: %d bands is not in %d .. %d", n_mels, QKV_MEL_MIN_BANDS,
                        QKV_MEL_MAX_BANDS);
    m->sample_rate = sample_rate;
    m->n_mels = n_mels;
    m->win = (int)lround(0.025 * sample_rate);
    m->hop = (int)lround(0.010 * sample_rate);
    for (m->n_fft = 1; m->n_fft < m->win; m->n_fft *= 2)
        ;
    m->n_bins = m->n_fft / 2 + 1;
    m->window = malloc((size_t)m->win * sizeof *m->window);
    m->fbank = malloc((size_t)n_mels * m->n_bins * sizeof *m->fbank);
    m->power = malloc((size_t)m->n_bins * sizeof *m->power);
    m->frame = fftwf_alloc_real((size_t)m->n_fft);
    m->spectrum = fftwf_alloc_complex((size_t)m->n_bins);
    if (!m->window || !m->fbank || !m->power || !m->frame || !m->spectrum) {
        qkv_mel_free(m);
        return qkv_fail(err, "mel filterbank: out of memory");
    }
    for (int n = 0; n < m->win; n++)
        m->window[n] = (float)(0.5 - 0.5 * cos(2.0 * M_PI * n / (m->win - 1)));
    fill_fbank(m);
    m->plan = fftwf_plan_dft_r2c_1d(m->n_fft, m->frame, m->spectrum, FFTW_ESTIMATE);
    if (!m->plan) {
        qkv_mel_free(m);
        return qkv_fail(err, "mel filterbank: FFTW could not plan a real DFT of %d points", m->n_fft);
    }
    return QKV_OK;
}

void qkv_mel_free(qkv_mel *m)
{
    if (m->plan)
        fftwf_destroy_plan(m->plan);
    free(m->window);
    free(m->fbank);
    free(m->power);
    fftwf_free(m->frame);
    fftwf_free(m->spectrum);
    memset(m, 0, sizeof *m);
}

long qkv_mel_n_frames(const qkv_mel *m, long n_samples)
{
    return n_samples >= m->win ? 1 + (n_samples - m->win) / m->hop : 1;
}

void qkv_mel_frames(qkv_mel *m, const float *samples, long n, float *out)
{
    long n_frames = qkv_mel_n_frames(m, n);
    const fftwf_complex *X = m->spectrum;
    double *power = m->power;
    for (long t = 0; t < n_frames; t++) {
        memset(m->frame, 0, (size_t)m->n_fft * sizeof *m->frame);
        for (int i = 0; i < m->win; i++) {
            long s = t * m->hop + i;
            m->frame[i] = s < n ? m->window[i] * samples[s] : 0.0f;
        }
        fftwf_execute(m->plan);
        for (int k = 0; k < m->n_bins; k++)
            power[k] = (double)X[k][0] * X[k][0] + (double)X[k][1] * X[k][1];
        for (int b = 0; b < m->n_mels; b++) {
            const float *h = m->fbank + (size_t)b * m->n_bins;
            double e = 0;
            for (int k = 0; k < m->n_bins; k++)
                e += h[k] * power[k];
            out[t * m->n_mels + b] = (float)log(e > QKV_MEL_LOG_FLOOR ? e : QKV_MEL_LOG_FLOOR);
        }
    }
}
