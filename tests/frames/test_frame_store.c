/* The speech frame corpus: labels of hand-made events (data/frames.h) and its HDF5 file
 * (api/speech_store.h): round trip, bad files, nothing written on failure, utterances without
 * frames and features that are not finite refused. */
#include "testutil.h"

#include <stdarg.h>
#include <unistd.h>

#include "api/speech_store.h"
#include "frames_fixture.h"

static void test_labels_from_events(void **state)
{
    (void)state;
    qkv_frame_corpus fc;
    fx_corpus(&fc);
    assert_int_equal(fc.n_utt, 3);
    assert_int_equal(fc.n_frames, 29);
    /* centres 10, 20, ..., 120: phoneme events at 0 (_), 25 a1, 55 a2, 85 b1, 115 (_:) */
    const char *want_phone[12] = {"sil", "sil", "a1", "a1", "a1", "a2", "a2", "a2", "b1", "b1", "b1", "sil"};
    const int want_word[12] = {-1, -1, 0, 0, 0, 0, 0, 0, 1, 1, 1, -1};
    const char *want_upos[12] = {"sil", "sil", "DET", "DET", "DET", "DET", "DET", "DET", "NOUN", "NOUN", "NOUN", "sil"};
    for (int t = 0; t < 12; t++) {
        assert_string_equal(fc.phones.names[fc.phone[t]], want_phone[t]);
        assert_int_equal(fc.word[t], want_word[t]);
        assert_string_equal(fc.upos_names.names[fc.upos[t]], want_upos[t]);
    }
    assert_string_equal(fc.phones.names[0], "sil");
    assert_int_equal(fc.seq_start[1], 3); /* a1 a2 b1: pauses left out */
    assert_string_equal(fc.phones.names[fc.phone_seq[2]], "b1");
    assert_int_equal(fc.seq_start[3], 7);
    qkv_frame_corpus_free(&fc);
}

/* Makes a file from the mkstemp template path (its XXXXXX replaced in place) holding text. */
static void temp_file(char *path, const char *text)
{
    int fd = mkstemp(path);
    assert_true(fd >= 0);
    size_t n = strlen(text);
    assert_int_equal(write(fd, text, n), (ssize_t)n);
    close(fd);
}

/* Loading path fails with an error that names the file and holds the text of want_fmt (printf),
 * leaving the corpus empty. */
static void expect_refused(const char *path, const char *want_fmt, ...)
{
    char want[128];
    va_list ap;
    va_start(ap, want_fmt);
    vsnprintf(want, sizeof want, want_fmt, ap);
    va_end(ap);
    qkv_frame_corpus back;
    qkv_error err;
    assert_int_equal(qkv_frame_corpus_load(&back, path, &err), QKV_ERR);
    if (!strstr(err.msg, want) || !strstr(err.msg, path))
        fail_msg("expected '%s' and the file in '%s'", want, err.msg);
    assert_null(back.features);
}

static void assert_same(const qkv_frame_corpus *a, const qkv_frame_corpus *b)
{
    assert_int_equal(a->n_utt, b->n_utt);
    assert_int_equal(a->n_frames, b->n_frames);
    assert_int_equal(a->n_mels, b->n_mels);
    assert_int_equal(a->hop, b->hop);
    assert_int_equal(a->win, b->win);
    assert_int_equal(a->sample_rate, b->sample_rate);
    assert_memory_equal(a->features, b->features, (size_t)a->n_frames * a->n_mels * sizeof(float));
    assert_memory_equal(a->phone, b->phone, (size_t)a->n_frames * sizeof(int32_t));
    assert_memory_equal(a->upos, b->upos, (size_t)a->n_frames * sizeof(int32_t));
    assert_memory_equal(a->word, b->word, (size_t)a->n_frames * sizeof(int32_t));
    assert_memory_equal(a->utt_start, b->utt_start, ((size_t)a->n_utt + 1) * sizeof(int64_t));
    assert_memory_equal(a->seq_start, b->seq_start, ((size_t)a->n_utt + 1) * sizeof(int64_t));
    assert_memory_equal(a->phone_seq, b->phone_seq, (size_t)a->seq_start[a->n_utt] * sizeof(int32_t));
    assert_int_equal(a->phones.n, b->phones.n);
    for (int i = 0; i < a->phones.n; i++)
        assert_string_equal(a->phones.names[i], b->phones.names[i]);
    assert_int_equal(a->upos_names.n, b->upos_names.n);
    for (int i = 0; i < a->upos_names.n; i++)
        assert_string_equal(a->upos_names.names[i], b->upos_names.names[i]);
    for (int u = 0; u < a->n_utt; u++) {
        assert_string_equal(a->text[u], b->text[u]);
        assert_string_equal(a->voice[u], b->voice[u]);
        assert_int_equal(a->rate[u], b->rate[u]);
        assert_int_equal(a->pitch[u], b->pitch[u]);
        assert_int_equal(a->sentence[u], b->sentence[u]);
    }
}

static void test_round_trip(void **state)
{
    (void)state;
    char path[] = "/tmp/qkv-frames-XXXXXX";
    temp_file(path, "");
    qkv_frame_corpus a, b;
    qkv_error err;
    fx_corpus(&a);
    if (qkv_frame_corpus_save(&a, path, &err) || qkv_frame_corpus_load(&b, path, &err))
        fail_msg("%s", err.msg);
    assert_same(&a, &b);
    /* what was read writes the same file again, and reads the same */
    qkv_frame_corpus c;
    if (qkv_frame_corpus_save(&b, path, &err) || qkv_frame_corpus_load(&c, path, &err))
        fail_msg("%s", err.msg);
    assert_same(&a, &c);
    qkv_frame_corpus_free(&a);
    qkv_frame_corpus_free(&b);
    qkv_frame_corpus_free(&c);
    unlink(path);
}

static void test_bad_files(void **state)
{
    (void)state;
    qkv_frame_corpus fc;
    qkv_error err;
    assert_int_equal(qkv_frame_corpus_load(&fc, "/nonexistent/x.h5", &err), QKV_ERR);
    assert_non_null(strstr(err.msg, "/nonexistent/x.h5"));
    qkv_frame_corpus_free(&fc); /* safe after a failed load */
    char path[] = "/tmp/qkv-frames-bad-XXXXXX";
    temp_file(path, "not hdf5 at all\n");
    expect_refused(path, "not an HDF5 file");
    /* a truncated corpus is refused */
    qkv_frame_corpus a;
    fx_corpus(&a);
    assert_int_equal(qkv_frame_corpus_save(&a, path, &err), QKV_OK);
    assert_int_equal(truncate(path, 2000), 0);
    expect_refused(path, "truncated");
    /* a save into a missing folder fails and writes nothing */
    assert_int_equal(qkv_frame_corpus_save(&a, "/nonexistent/dir/c.h5", &err), QKV_ERR);
    qkv_frame_corpus_free(&a);
    unlink(path);
}

/* Every utterance has a frame: the writer refuses one without, and so does the reader (a file
 * that declares one once made the dataset read the label before its first frame). */
static void test_zero_frame_utterance(void **state)
{
    (void)state;
    char path[] = "/tmp/qkv-frames-zero-XXXXXX";
    temp_file(path, "");
    qkv_frame_corpus fc;
    qkv_error err;
    fx_corpus(&fc);
    qkv_spoken empty = {.text = "", .voice = "v1", .rate = 150, .pitch = 50, .n_frames = 0};
    assert_int_equal(qkv_frame_corpus_add(&fc, &empty, &err), QKV_ERR);
    assert_non_null(strstr(err.msg, "utterance 4"));
    for (int u = 0; u < fc.n_utt; u++) { /* each utterance in turn without frames */
        int64_t keep = fc.utt_start[u + 1];
        fc.utt_start[u + 1] = fc.utt_start[u];
        if (u + 1 == fc.n_utt) /* the last: its frames go to the one before */
            fc.utt_start[u] = fc.utt_start[u + 1] = keep;
        assert_int_equal(qkv_frame_corpus_save(&fc, path, &err), QKV_OK);
        expect_refused(path, "utterance %d has no frame", u + 1);
        qkv_frame_corpus_free(&fc);
        fx_corpus(&fc);
    }
    qkv_frame_corpus_free(&fc);
    unlink(path);
}

/* A feature that is not finite is refused, naming its frame and utterance: NaN and both
 * infinities, in the first utterance and in the last. */
static void test_nonfinite_feature(void **state)
{
    (void)state;
    char path[] = "/tmp/qkv-frames-nan-XXXXXX";
    temp_file(path, "");
    const float bad[] = {NAN, INFINITY, -INFINITY};
    const struct {
        int frame, band, utt;
    } at[] = {{0, 0, 1}, {28, 3, 3}, {13, 1, 2}};
    for (int k = 0; k < 3; k++) {
        qkv_frame_corpus fc;
        qkv_error err;
        fx_corpus(&fc);
        fc.features[at[k].frame * fc.n_mels + at[k].band] = bad[k];
        assert_int_equal(qkv_frame_corpus_save(&fc, path, &err), QKV_OK);
        expect_refused(path, "band %d of frame %d (utterance %d) is ", at[k].band, at[k].frame, at[k].utt);
        qkv_frame_corpus_free(&fc);
    }
    unlink(path);
}

/* A frame's word index must be below its utterance's frame count (an utterance says fewer words
 * than it has frames): one equal to the count is refused at load, naming the file, the frame,
 * the utterance and both numbers; one below it, the largest allowed, loads. */
static void test_word_beyond_frames(void **state)
{
    (void)state;
    char path[] = "/tmp/qkv-frames-word-XXXXXX";
    temp_file(path, "");
    qkv_frame_corpus fc, back;
    qkv_error err;
    fx_corpus(&fc);
    int64_t n0 = fc.utt_start[1] - fc.utt_start[0];
    fc.word[0] = (int32_t)n0;
    assert_int_equal(qkv_frame_corpus_save(&fc, path, &err), QKV_OK);
    expect_refused(path, "frame 0 (utterance 1) names word %d of an utterance of %d frames", (int)n0, (int)n0);
    fc.word[0] = (int32_t)n0 - 1; /* the largest index allowed */
    assert_int_equal(qkv_frame_corpus_save(&fc, path, &err), QKV_OK);
    assert_int_equal(qkv_frame_corpus_load(&back, path, &err), QKV_OK);
    qkv_frame_corpus_free(&back);
    qkv_frame_corpus_free(&fc);
    unlink(path);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_labels_from_events),
        cmocka_unit_test(test_round_trip),
        cmocka_unit_test(test_bad_files),
        cmocka_unit_test(test_zero_frame_utterance),
        cmocka_unit_test(test_nonfinite_feature),
        cmocka_unit_test(test_word_beyond_frames),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
