/* The speech frame corpus as HDF5 (api/speech_store.h). */
#include "api/speech_store.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "lib/io/store.h"

/* An int32 array as an int64 dataset. */
static int write_i32(qkv_store_writer *w, const char *path, int64_t n, const int32_t *v, qkv_error *err)
{
    int64_t *tmp = malloc((size_t)(n ? n : 1) * sizeof *tmp);
    if (!tmp)
        return qkv_fail(err, "out of memory writing %s", path);
    for (int64_t i = 0; i < n; i++)
        tmp[i] = v[i];
    int st = qkv_store_write_i64_array(w, path, (size_t)n, tmp, err);
    free(tmp);
    return st;
}

static int write_features(qkv_store_writer *w, const qkv_frame_corpus *fc, qkv_error *err)
{
    int shape[2] = {(int)fc->n_frames, fc->n_mels};
#ifdef QKV_REAL_DOUBLE
    size_t n = (size_t)fc->n_frames * fc->n_mels;
    qkv_real *tmp = malloc((n ? n : 1) * sizeof *tmp);
    if (!tmp)
        return qkv_fail(err, "out of memory writing the features");
    for (size_t i = 0; i < n; i++)
        tmp[i] = fc->features[i];
    int st = qkv_store_write_real(w, "/speech/features", 2, shape, tmp, err);
    free(tmp);
    return st;
#else
    return qkv_store_write_real(w, "/speech/features", 2, shape, fc->features, err);
#endif
}

static int write_items(qkv_store_writer *w, const qkv_frame_corpus *fc, qkv_error *err)
{
    size_t nu = (size_t)fc->n_utt;
    if (fc->n_frames > 0x7fffffff)
        return qkv_fail(err, "%lld frames: at most %d in one file", (long long)fc->n_frames, 0x7fffffff);
    if (qkv_store_write_text(w, "/speech/kind", QKV_SPEECH_KIND, err) ||
        qkv_store_write_i64(w, "/speech/sample_rate", fc->sample_rate, err) ||
        qkv_store_write_i64(w, "/speech/win", fc->win, err) || qkv_store_write_i64(w, "/speech/hop", fc->hop, err) ||
        qkv_store_write_i64(w, "/speech/n_mels", fc->n_mels, err) || write_features(w, fc, err) ||
        qkv_store_write_i64_array(w, "/speech/utt_offsets", nu + 1, fc->utt_start, err) ||
        write_i32(w, "/speech/phone", fc->n_frames, fc->phone, err) ||
        write_i32(w, "/speech/upos", fc->n_frames, fc->upos, err) ||
        write_i32(w, "/speech/word", fc->n_frames, fc->word, err) ||
        qkv_store_write_strings(w, "/speech/phone_names", (size_t)fc->phones.n, (const char *const *)fc->phones.names,
                                err) ||
        qkv_store_write_strings(w, "/speech/upos_names", (size_t)fc->upos_names.n,
                                (const char *const *)fc->upos_names.names, err) ||
        qkv_store_write_i64_array(w, "/speech/phone_seq_offsets", nu + 1, fc->seq_start, err) ||
        write_i32(w, "/speech/phone_seq", fc->seq_start[nu], fc->phone_seq, err) ||
        qkv_store_write_strings(w, "/speech/text", nu, (const char *const *)fc->text, err) ||
        qkv_store_write_strings(w, "/speech/voice", nu, (const char *const *)fc->voice, err) ||
        write_i32(w, "/speech/rate", fc->n_utt, fc->rate, err) || write_i32(w, "/speech/pitch", fc->n_utt, fc->pitch, err) ||
        write_i32(w, "/speech/sentence", fc->n_utt, fc->sentence, err))
        return QKV_ERR;
    return QKV_OK;
}

int qkv_frame_corpus_save(const qkv_frame_corpus *fc, const char *path, qkv_error *err)
{
    qkv_store_writer *w;
    if (qkv_store_create_as(path, "frame corpus", &w, err))
        return QKV_ERR;
    if (write_items(w, fc, err)) {
        qkv_store_abort(w);
        return QKV_ERR;
    }
    return qkv_store_commit(w, err);
}

/* The length of the 1-D dataset at path. */
static int length_of(qkv_store_reader *r, const char *file, const char *path, int64_t *n, qkv_error *err)
{
    int rank, shape[QKV_MAX_RANK];
    if (qkv_store_shape(r, path, &rank, shape, err))
        return QKV_ERR;
    if (rank != 1)
        return qkv_fail(err, "%s: %s has rank %d, not 1", file, path, rank);
    *n = shape[0];
    return QKV_OK;
}

/* An int64 dataset of exactly n values into int32 v, each in [lo, hi). */
static int read_i32(qkv_store_reader *r, const char *file, const char *path, int64_t n, int32_t *v, int64_t lo,
                    int64_t hi, qkv_error *err)
{
    int64_t len = 0;
    if (length_of(r, file, path, &len, err))
        return QKV_ERR;
    if (len != n)
        return qkv_fail(err, "%s: %s holds %lld values, not %lld", file, path, (long long)len, (long long)n);
    int64_t *tmp = malloc((size_t)(n ? n : 1) * sizeof *tmp);
    if (!tmp)
        return qkv_fail(err, "%s: out of memory reading %s", file, path);
    int st = qkv_store_read_i64_array(r, path, (size_t)n, tmp, err);
    for (int64_t i = 0; st == QKV_OK && i < n; i++) {
        if (tmp[i] < lo || tmp[i] >= hi)
            st = qkv_fail(err, "%s: %s[%lld] = %lld is not in %lld .. %lld", file, path, (long long)i,
                          (long long)tmp[i], (long long)lo, (long long)hi - 1);
        else
            v[i] = (int32_t)tmp[i];
    }
    free(tmp);
    return st;
}

/* Offsets [n + 1]: from 0, non-decreasing (increasing when what names the items, which must not
 * be empty: "utterance"), ending at total (or any end when total < 0). */
static int read_offsets(qkv_store_reader *r, const char *file, const char *path, const char *what, int n,
                        int64_t total, int64_t *v, qkv_error *err)
{
    if (qkv_store_read_i64_array(r, path, (size_t)n + 1, v, err))
        return QKV_ERR;
    for (int i = 0; i < n; i++)
        if (v[i + 1] < v[i])
            return qkv_fail(err, "%s: %s decreases at %d", file, path, i + 1);
        else if (what && v[i + 1] == v[i])
            return qkv_fail(err, "%s: %s %d has no frame (%s[%d] = %s[%d] = %lld)", file, what, i + 1, path, i, path,
                            i + 1, (long long)v[i]);
    if (v[0] != 0 || (total >= 0 && v[n] != total))
        return qkv_fail(err, "%s: %s must run from 0 to %lld", file, path, (long long)total);
    return QKV_OK;
}

static int read_names(qkv_store_reader *r, const char *file, const char *path, qkv_label_names *l, qkv_error *err)
{
    size_t n;
    char **s;
    if (qkv_store_read_strings(r, path, &n, &s, err))
        return QKV_ERR;
    int st = n > 0 && !strcmp(s[0], QKV_FRAME_SILENCE)
                 ? QKV_OK
                 : qkv_fail(err, "%s: %s must begin with \"%s\"", file, path, QKV_FRAME_SILENCE);
    for (size_t i = 1; st == QKV_OK && i < n; i++) {
        int32_t id;
        st = qkv_label_id(l, s[i], &id, err);
        if (st == QKV_OK && id != (int32_t)i)
            st = qkv_fail(err, "%s: %s names \"%s\" twice", file, path, s[i]);
    }
    free(s);
    return st;
}

/* A list of exactly n strings, each copied into out[i]. */
static int read_texts(qkv_store_reader *r, const char *file, const char *path, int n, char **out, qkv_error *err)
{
    size_t got;
    char **s;
    if (qkv_store_read_strings(r, path, &got, &s, err))
        return QKV_ERR;
    int st = got == (size_t)n ? QKV_OK : qkv_fail(err, "%s: %s holds %zu strings, not %d", file, path, got, n);
    for (int i = 0; st == QKV_OK && i < n; i++)
        if (!(out[i] = strdup(s[i])))
            st = qkv_fail(err, "%s: out of memory", file);
    free(s);
    return st;
}

static int read_geometry(qkv_store_reader *r, const char *file, qkv_frame_corpus *fc, int64_t *n_utt, qkv_error *err)
{
    char *kind = NULL;
    int64_t sr, win, hop, n_mels;
    if (!qkv_store_has(r, "/speech/kind") || qkv_store_read_text(r, "/speech/kind", &kind, err) ||
        strcmp(kind, QKV_SPEECH_KIND)) {
        free(kind);
        return qkv_fail(err, "%s: not a speech frame corpus (qkv speech makes one)", file);
    }
    free(kind);
    if (qkv_store_read_i64(r, "/speech/sample_rate", &sr, err) || qkv_store_read_i64(r, "/speech/win", &win, err) ||
        qkv_store_read_i64(r, "/speech/hop", &hop, err) || qkv_store_read_i64(r, "/speech/n_mels", &n_mels, err))
        return QKV_ERR;
    if (n_mels < 1 || n_mels > 4096 || win < 1 || hop < 1 || sr < 1 || sr > 1000000 || win > sr || hop > sr)
        return qkv_fail(err, "%s: bad frame geometry (n_mels %lld, window %lld, hop %lld, rate %lld)", file,
                        (long long)n_mels, (long long)win, (long long)hop, (long long)sr);
    if (qkv_frame_corpus_init(fc, (int)n_mels, (int)sr, (int)win, (int)hop, err))
        return QKV_ERR;
    if (length_of(r, file, "/speech/utt_offsets", n_utt, err))
        return QKV_ERR;
    if (*n_utt < 1 || *n_utt - 1 > 0x7fffffff)
        return qkv_fail(err, "%s: /speech/utt_offsets is empty", file);
    int rank, shape[QKV_MAX_RANK];
    if (qkv_store_shape(r, "/speech/features", &rank, shape, err))
        return QKV_ERR;
    if (rank != 2 || shape[1] != n_mels)
        return qkv_fail(err, "%s: /speech/features is not [frames, %lld]", file, (long long)n_mels);
    fc->n_frames = shape[0];
    return QKV_OK;
}

static int alloc_arrays(qkv_frame_corpus *fc, int n, int64_t n_seq)
{
    size_t nf = (size_t)(fc->n_frames ? fc->n_frames : 1), nu = (size_t)n + 1;
    free(fc->utt_start);
    free(fc->seq_start);
    fc->utt_start = malloc(nu * sizeof(int64_t));
    fc->seq_start = malloc(nu * sizeof(int64_t));
    fc->features = malloc(nf * fc->n_mels * sizeof(float));
    fc->phone = malloc(nf * sizeof(int32_t));
    fc->upos = malloc(nf * sizeof(int32_t));
    fc->word = malloc(nf * sizeof(int32_t));
    fc->phone_seq = malloc((size_t)(n_seq ? n_seq : 1) * sizeof(int32_t));
    fc->text = calloc(nu, sizeof(char *));
    fc->voice = calloc(nu, sizeof(char *));
    fc->rate = malloc(nu * sizeof(int32_t));
    fc->pitch = malloc(nu * sizeof(int32_t));
    fc->sentence = malloc(nu * sizeof(int32_t));
    return fc->utt_start && fc->seq_start && fc->features && fc->phone && fc->upos && fc->word && fc->phone_seq &&
                   fc->text && fc->voice && fc->rate && fc->pitch && fc->sentence
               ? QKV_OK
               : QKV_ERR;
}

static int read_features(qkv_store_reader *r, qkv_frame_corpus *fc, qkv_error *err)
{
    int shape[2] = {(int)fc->n_frames, fc->n_mels};
#ifdef QKV_REAL_DOUBLE
    size_t n = (size_t)fc->n_frames * fc->n_mels;
    qkv_real *tmp = malloc((n ? n : 1) * sizeof *tmp);
    if (!tmp)
        return qkv_fail(err, "out of memory reading the features");
    int st = qkv_store_read_real(r, "/speech/features", 2, shape, tmp, err);
    for (size_t i = 0; st == QKV_OK && i < n; i++)
        fc->features[i] = (float)tmp[i];
    free(tmp);
    return st;
#else
    return qkv_store_read_real(r, "/speech/features", 2, shape, fc->features, err);
#endif
}

/* Every feature finite (a NaN or an infinity would reach training as NaN losses: the
 * per-utterance normalisation spreads it over the utterance's frames), and each frame's word
 * index below its utterance's frame count (an utterance says fewer words than it has 10 ms
 * frames). */
static int check_frames(const qkv_frame_corpus *fc, const char *file, qkv_error *err)
{
    int u = 0;
    for (int64_t t = 0; t < fc->n_frames; t++) {
        while (fc->utt_start[u + 1] <= t)
            u++;
        int64_t n_frames = fc->utt_start[u + 1] - fc->utt_start[u];
        if (fc->word[t] >= n_frames)
            return qkv_fail(err, "%s: /speech/word: frame %lld (utterance %d) names word %d of an utterance of "
                                 "%lld frames: a word index must be below its utterance's frame count",
                            file, (long long)t, u + 1, fc->word[t], (long long)n_frames);
        for (int b = 0; b < fc->n_mels; b++)
            if (!isfinite(fc->features[t * fc->n_mels + b]))
                return qkv_fail(err, "%s: /speech/features: band %d of frame %lld (utterance %d) is %g: features "
                                     "must be finite", file, b, (long long)t, u + 1,
                                (double)fc->features[t * fc->n_mels + b]);
    }
    return QKV_OK;
}

static int read_items(qkv_store_reader *r, const char *file, qkv_frame_corpus *fc, qkv_error *err)
{
    int64_t n_utt1 = 0, n_seq = 0;
    if (read_geometry(r, file, fc, &n_utt1, err) || length_of(r, file, "/speech/phone_seq", &n_seq, err))
        return QKV_ERR;
    int n = (int)(n_utt1 - 1);
    if (alloc_arrays(fc, n, n_seq))
        return qkv_fail(err, "%s: out of memory for %lld frames", file, (long long)fc->n_frames);
    fc->n_utt = n; /* the texts are NULL until read: safe to free */
    if (read_names(r, file, "/speech/phone_names", &fc->phones, err) ||
        read_names(r, file, "/speech/upos_names", &fc->upos_names, err) || read_features(r, fc, err) ||
        read_offsets(r, file, "/speech/utt_offsets", "utterance", n, fc->n_frames, fc->utt_start, err) ||
        read_offsets(r, file, "/speech/phone_seq_offsets", NULL, n, n_seq, fc->seq_start, err) ||
        read_i32(r, file, "/speech/phone", fc->n_frames, fc->phone, 0, fc->phones.n, err) ||
        read_i32(r, file, "/speech/upos", fc->n_frames, fc->upos, 0, fc->upos_names.n, err) ||
        read_i32(r, file, "/speech/word", fc->n_frames, fc->word, -1, INT32_MAX, err) ||
        read_i32(r, file, "/speech/phone_seq", n_seq, fc->phone_seq, 0, fc->phones.n, err) ||
        read_texts(r, file, "/speech/text", n, fc->text, err) || read_texts(r, file, "/speech/voice", n, fc->voice, err) ||
        read_i32(r, file, "/speech/rate", n, fc->rate, 0, INT32_MAX, err) ||
        read_i32(r, file, "/speech/pitch", n, fc->pitch, 0, INT32_MAX, err) ||
        read_i32(r, file, "/speech/sentence", n, fc->sentence, 0, INT32_MAX, err) || check_frames(fc, file, err))
        return QKV_ERR;
    fc->cap_features = fc->n_frames * fc->n_mels;
    fc->cap_frames = fc->n_frames;
    fc->cap_seq = n_seq;
    fc->cap_utt = n + 1;
    return QKV_OK;
}

int qkv_frame_corpus_load(qkv_frame_corpus *fc, const char *path, qkv_error *err)
{
    memset(fc, 0, sizeof *fc);
    qkv_store_reader *r;
    if (qkv_store_open_as(path, "frame corpus", &r, err))
        return QKV_ERR;
    int st = read_items(r, path, fc, err);
    qkv_store_close(r);
    if (st)
        qkv_frame_corpus_free(fc);
    return st;
}
