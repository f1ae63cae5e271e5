/* Log-mel filterbank frames of a waveform (the features of the speech corpus, data/frames.h).
 *
 * Frame t covers samples [t·hop, t·hop + win) of the signal (win = round(0.025·sample_rate),
 * 25 ms; hop = round(0.010·sample_rate), 10 ms); a signal shorter than win is one frame, zero
 * padded. Each frame is multiplied by the symmetric Hann window w[n] = 0.5 − 0.5·cos(2πn/(win−1)),
 * zero padded to n_fft (the smallest power of two >= win) and transformed by FFTW's real-to-
 * complex DFT X[k] = Σ_n x[n]·e^(−2πi·kn/n_fft), k = 0 .. n_fft/2; the power spectrum is
 * P[k] = |X[k]|². Band m (0 .. n_mels−1) is the triangular filter of the HTK mel scale
 * mel(f) = 2595·log10(1 + f/700) (O'Shaughnessy 1987; Young et al., The HTK Book): n_mels + 2
 * points f_0 .. f_{n_mels+1} equally spaced in mel from 0 Hz to sample_rate/2, and filter m rises
 * linearly in Hz from f_m to f_{m+1} and falls to f_{m+2}, evaluated at the bin frequencies
 * k·sample_rate/n_fft (no area normalisation). The feature is ln(max(Σ_k H_m[k]·P[k], 1e-10)).
 * No pre-emphasis, no dithering: the same samples always give the same features. */
#ifndef QKV_DATA_MEL_H
#define QKV_DATA_MEL_H

#include <stddef.h>

#include "lib/error.h"

#define QKV_MEL_MIN_BANDS 1
#define QKV_MEL_MAX_BANDS 128
#define QKV_MEL_LOG_FLOOR 1e-10

typedef struct qkv_mel {
    int sample_rate, n_mels;
    int win, hop, n_fft, n_bins; /* n_bins = n_fft/2 + 1 */
    float *window;               /* [win] Hann */
    float *fbank;                /* [n_mels, n_bins] filter weights H_m[k] */
    double *power;               /* [n_bins] scratch: the power spectrum of a frame */
    float *frame;                /* [n_fft] FFTW input */
    void *spectrum;              /* [n_bins] fftwf_complex output */
    void *plan;                  /* fftwf_plan (FFTW_ESTIMATE: deterministic) */
} qkv_mel;

/* The mel scale and its inverse (HTK): mel(f) = 2595·log10(1 + f/700). */
double qkv_hz_to_mel(double hz);
double qkv_mel_to_hz(double mel);

/* A filterbank for sample_rate (Hz, 8000 .. 192000) and n_mels bands (QKV_MEL_MIN_BANDS ..
 * QKV_MEL_MAX_BANDS). Errors: a value out of range, out of memory, FFTW planning. */
int qkv_mel_init(qkv_mel *m, int sample_rate, int n_mels, qkv_error *err);
void qkv_mel_free(qkv_mel *m);

/* Frames of a signal of n samples: 1 + (n − win)/hop when n >= win, else 1 (n >= 1). */
long qkv_mel_n_frames(const qkv_mel *m, long n_samples);
/* The sample at the centre of frame t: t·hop + win/2 (the time a frame's label is read at). */
static inline long qkv_mel_frame_center(const qkv_mel *m, long t) { return t * m->hop + m->win / 2; }
/* The centre frequency f_{m+1} of band b, in Hz. */
double qkv_mel_band_hz(const qkv_mel *m, int b);

/* out [qkv_mel_n_frames(n), n_mels] row-major: the log-mel features of samples [n] (any scale:
 * the features shift by 2·ln(scale)). */
void qkv_mel_frames(qkv_mel *m, const float *samples, long n, float *out);

#endif
