/* A frame corpus as a dataset (data/frames.h: qkv_dataset_from_frames): the held-out voice
 * left out or kept, per-utterance normalisation, stacking k frames with the middle frame's
 * label, labels by name, the scores' references; and a batch of it (data/batch.h). */
#include "testutil.h"

#include "data/batch.h"
#include "frames_fixture.h"

static void featurizer(qkv_featurizer *fz, const qkv_label_names *l)
{
    qkv_error err;
    if (qkv_featurizer_init(fz, &QKV_FEATURE_DEFAULTS, &err) ||
        qkv_featurizer_set_tags(fz, (const char *const *)l->names, l->n, &err))
        fail_msg("%s", err.msg);
}

static void test_voices_and_normalisation(void **state)
{
    (void)state;
    qkv_frame_corpus fc;
    fx_corpus(&fc);
    qkv_featurizer fz;
    featurizer(&fz, &fc.phones);
    qkv_dataset ds;
    qkv_frame_refs refs;
    qkv_error err;
    qkv_frame_select sel = {QKV_FRAME_PHONEME, "v2", 0, 1};
    if (qkv_dataset_from_frames(&ds, &refs, &fz, &fc, "fx", &sel, &err))
        fail_msg("%s", err.msg);
    assert_int_equal(ds.n_sent, 2); /* utterances 0 and 2: v2 left out */
    assert_int_equal(ds.n_words, 17);
    assert_int_equal(ds.d_input, 4);
    assert_int_equal(ds.sent_start[1], 12);
    assert_int_equal(ds.max_sent_len, 12);
    assert_int_equal(ds.n_features, 0);
    /* band b of utterance 0 is t + 0.1 b: zero mean, unit variance after normalisation */
    for (int b = 0; b < 4; b++) {
        double sum = 0, sq = 0;
        for (int t = 0; t < 12; t++) {
            sum += ds.dense[t * 4 + b];
            sq += ds.dense[t * 4 + b] * ds.dense[t * 4 + b];
        }
        tu_assert_close(sum / 12, 0, 1e-6);
        tu_assert_close(sq / 12, 1, 1e-5);
        /* (t - 5.5) / sd(0..11) */
        tu_assert_close(ds.dense[0 * 4 + b], -5.5 / sqrt(143.0 / 12), 1e-5);
    }
    assert_string_equal(qkv_featurizer_tag(&fz, ds.tags[2]), "a1");
    assert_string_equal(qkv_featurizer_tag(&fz, ds.tags[0]), "sil");
    assert_int_equal(refs.silence, 0);
    assert_int_equal(refs.seq_start[1], 3);
    assert_int_equal(refs.seq_start[2], 4);
    assert_string_equal(qkv_featurizer_tag(&fz, refs.seq[3]), "c1");
    assert_int_equal(refs.word[9], 1);
    qkv_dataset_free(&ds);
    qkv_frame_refs_free(&refs);
    /* only the held-out voice */
    sel.keep_voice = 1;
    if (qkv_dataset_from_frames(&ds, &refs, &fz, &fc, "fx", &sel, &err))
        fail_msg("%s", err.msg);
    assert_int_equal(ds.n_sent, 1);
    assert_int_equal(ds.n_words, 12);
    qkv_dataset_free(&ds);
    qkv_frame_refs_free(&refs);
    sel.voice = "v9";
    assert_int_equal(qkv_dataset_from_frames(&ds, &refs, &fz, &fc, "fx", &sel, &err), QKV_ERR);
    assert_non_null(strstr(err.msg, "fx: no utterance of voice \"v9\""));
    qkv_featurizer_free(&fz);
    qkv_frame_corpus_free(&fc);
}

static void test_stacking_and_upos(void **state)
{
    (void)state;
    qkv_frame_corpus fc;
    fx_corpus(&fc);
    qkv_featurizer fz;
    /* tags of another order and without VERB: looked up by name, VERB unseen */
    const char *tags[] = {"NOUN", "sil", "DET"};
    qkv_error err;
    if (qkv_featurizer_init(&fz, &QKV_FEATURE_DEFAULTS, &err) || qkv_featurizer_set_tags(&fz, tags, 3, &err))
        fail_msg("%s", err.msg);
    qkv_dataset ds;
    qkv_frame_refs refs;
    qkv_frame_select sel = {QKV_FRAME_UPOS, "", 0, 3};
    if (qkv_dataset_from_frames(&ds, &refs, &fz, &fc, "fx", &sel, &err))
        fail_msg("%s", err.msg);
    /* 12 frames -> 4 tokens, 12 -> 4, 5 -> 1 (the incomplete group dropped) */
    assert_int_equal(ds.n_sent, 3);
    assert_int_equal(ds.n_words, 9);
    assert_int_equal(ds.d_input, 12);
    /* token j holds frames 3j .. 3j+2 end to end and is labelled by frame 3j+1:
     * utterance 0: sil(1) DET(4) DET(7) NOUN(10) */
    const int32_t want[4] = {1, 2, 2, 0};
    assert_memory_equal(ds.tags, want, sizeof want);
    assert_int_equal(ds.tags[8], QKV_TAG_UNSEEN); /* VERB */
    assert_int_equal(ds.n_unknown_tags, 1);
    /* the second frame of token 1 is frame 4: its band 0 equals frame 4's normalised value */
    double sd = sqrt(143.0 / 12);
    tu_assert_close(ds.dense[1 * 12 + 1 * 4 + 0], (4 - 5.5) / sd, 1e-5);
    assert_int_equal(refs.word[1], 0);
    assert_int_equal(refs.word[3], 1);
    /* a batch of all of it carries the dense rows */
    qkv_batch_plan plan;
    qkv_batch b;
    if (qkv_batch_plan_make(&plan, &ds, 100, NULL, &err) ||
        qkv_batch_alloc(&b, 0, false, plan.max_sent, plan.max_tokens, &err) ||
        qkv_batch_alloc_dense(&b, ds.d_input, &err) || qkv_batch_fill(&b, &ds, &plan, 0, &err))
        fail_msg("%s", err.msg);
    assert_int_equal(b.n_tokens, 9);
    for (int t = 0; t < b.n_tokens; t++) {
        int s = 0;
        while (t >= b.offsets[s + 1])
            s++;
        int w = ds.sent_start[b.sent_ids[s]] + t - b.offsets[s];
        assert_memory_equal(b.dense + t * 12, ds.dense + w * 12, 12 * sizeof(float));
        assert_int_equal(b.tags[t], ds.tags[w]);
    }
    qkv_batch_free(&b);
    qkv_batch_alloc(&b, 0, false, plan.max_sent, plan.max_tokens, &err);
    assert_int_equal(qkv_batch_fill(&b, &ds, &plan, 0, &err), QKV_ERR); /* no room for the dense rows */
    assert_non_null(strstr(err.msg, "dense"));
    qkv_batch_free(&b);
    qkv_batch_plan_free(&plan);
    qkv_dataset_free(&ds);
    qkv_frame_refs_free(&refs);
    qkv_featurizer_free(&fz);
    qkv_frame_corpus_free(&fc);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_voices_and_normalisation),
        cmocka_unit_test(test_stacking_and_upos),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
