/* eSpeak NG synthesis (data/speech_synth.h) and the corpus maker (data/speech_corpus.h): events
 * in order and covering the audio, frame labels, bad voices and texts. eSpeak NG's output
 * depends on what the process spoke before (its waveform phase carries over), so determinism is
 * tested on whole runs of qkv speech (test_speech_cmd.sh). */
#include "testutil.h"

#include "data/frames.h"
#include "data/speech_corpus.h"
#include "data/speech_synth.h"

static void test_events_monotone_and_cover_audio(void **state)
{
    (void)state;
    qkv_utterance u = {0};
    qkv_error err;
    qkv_voice_opts o = {"en-us", 175, 50};
    const char *text = "The quick brown fox jumps over the lazy dog";
    if (qkv_speech_say(text, &o, &u, &err))
        fail_msg("%s", err.msg);
    assert_int_equal(u.sample_rate, 22050);
    assert_true(u.n_samples > u.sample_rate); /* over a second */
    assert_true(u.n_words >= 8);
    assert_true(u.n_phones >= 25);
    for (int i = 1; i < u.n_words; i++) {
        assert_true(u.words[i].sample >= u.words[i - 1].sample);
        assert_true(u.words[i].char_pos > u.words[i - 1].char_pos);
    }
    assert_int_equal(u.words[0].char_pos, 0);
    assert_int_equal(u.words[1].char_pos, 4); /* "quick" */
    for (int i = 1; i < u.n_phones; i++)
        assert_true(u.phones[i].sample >= u.phones[i - 1].sample);
    /* the phonemes start near the beginning and the last ends the audio */
    assert_true(u.phones[0].sample < u.sample_rate / 10);
    assert_true(u.phones[u.n_phones - 1].sample <= u.n_samples);
    assert_true(u.phones[u.n_phones - 1].sample > u.n_samples - u.sample_rate / 2);
    /* speech has energy where phonemes are */
    double e = 0;
    for (long i = 0; i < u.n_samples; i++)
        e += (double)u.samples[i] * u.samples[i];
    assert_true(e / (double)u.n_samples > 1e-4);
    /* a slower rate gives a longer utterance */
    long fast = u.n_samples;
    o.rate = 100;
    assert_int_equal(qkv_speech_say(text, &o, &u, &err), QKV_OK);
    assert_true(u.n_samples > fast * 3 / 2);
    qkv_utterance_free(&u);
}

static void test_bad_voice_and_text(void **state)
{
    (void)state;
    qkv_utterance u = {0};
    qkv_error err;
    qkv_voice_opts o = {"xx-no-such-voice", 175, 50};
    assert_int_equal(qkv_speech_say("hello", &o, &u, &err), QKV_ERR);
    assert_non_null(strstr(err.msg, "no eSpeak NG voice named \"xx-no-such-voice\""));
    o.voice = "en-us";
    assert_int_equal(qkv_speech_say("", &o, &u, &err), QKV_ERR);
    assert_non_null(strstr(err.msg, "cannot speak"));
    assert_true(u.unspeakable);
    o.rate = 20;
    assert_int_equal(qkv_speech_say("hello", &o, &u, &err), QKV_ERR);
    assert_non_null(strstr(err.msg, "rate 20"));
    qkv_utterance_free(&u);
}

static const char CONLLU[] = "1\tThe\t_\tDET\t_\t_\t_\t_\t_\t_\n2\tcat\t_\tNOUN\t_\t_\t_\t_\t_\t_\n"
                             "3\tsleeps\t_\tVERB\t_\t_\t_\t_\t_\t_\n4\t.\t_\tPUNCT\t_\t_\t_\t_\t_\t_\n\n"
                             "1\tDogs\t_\tNOUN\t_\t_\t_\t_\t_\t_\n2\tbark\t_\tVERB\t_\t_\t_\t_\t_\t_\n\n";

static void make(qkv_frame_corpus *fc, const qkv_corpus *c, uint64_t seed, double snr)
{
    qkv_error err;
    qkv_speech_opts o = {.n_voices = 2, .voices = {"en-us", "en-gb-x-rp"}, .n_rates = 2, .rates = {150, 200},
                         .n_pitches = 1, .pitches = {50}, .snr_db = snr, .n_mels = 40, .seed = seed};
    qkv_speech_skipped sk;
    if (qkv_speech_make(fc, c, &o, &sk, &err))
        fail_msg("%s", err.msg);
}

static void test_corpus_labels_and_determinism(void **state)
{
    (void)state;
    qkv_corpus c;
    qkv_error err;
    assert_int_equal(qkv_corpus_read_mem(&c, CONLLU, sizeof CONLLU - 1, "t.conllu", &QKV_READ_DEFAULTS, &err), QKV_OK);
    qkv_frame_corpus a;
    make(&a, &c, 5, NAN);
    assert_int_equal(a.n_utt, 4);
    assert_string_equal(a.voice[1], "en-gb-x-rp");
    assert_string_equal(a.text[0], "The cat sleeps .");
    for (int u = 0; u < a.n_utt; u++) {
        int64_t f0 = a.utt_start[u], f1 = a.utt_start[u + 1];
        int last_word = -1, speech = 0;
        for (int64_t t = f0; t < f1; t++) {
            assert_true((a.phone[t] == 0) == (a.word[t] < 0)); /* silent frames have no word */
            assert_true((a.upos[t] == 0) == (a.word[t] < 0));
            if (a.word[t] >= 0) {
                assert_true(a.word[t] >= last_word); /* words in order */
                last_word = a.word[t];
                speech++;
            }
        }
        assert_true(speech > (f1 - f0) / 2);
        assert_true(a.seq_start[u + 1] - a.seq_start[u] >= 5);
    }
    /* "cat" (word 1 of the first sentence) is a NOUN; "." is never spoken */
    int found = 0;
    for (int64_t t = a.utt_start[0]; t < a.utt_start[1]; t++) {
        if (a.word[t] == 1) {
            assert_string_equal(a.upos_names.names[a.upos[t]], "NOUN");
            found = 1;
        }
        assert_true(a.word[t] != 3);
    }
    assert_true(found);
    qkv_frame_corpus_free(&a);
    qkv_corpus_free(&c);
}

static void test_make_refuses_bad_voice_first(void **state)
{
    (void)state;
    qkv_corpus c;
    qkv_error err;
    assert_int_equal(qkv_corpus_read_mem(&c, CONLLU, sizeof CONLLU - 1, "t.conllu", &QKV_READ_DEFAULTS, &err), QKV_OK);
    qkv_frame_corpus fc;
    qkv_speech_opts o = {.n_voices = 2, .voices = {"en-us", "nope"}, .n_rates = 1, .rates = {150}, .n_pitches = 1,
                         .pitches = {50}, .snr_db = NAN, .n_mels = 40};
    qkv_speech_skipped sk;
    assert_int_equal(qkv_speech_make(&fc, &c, &o, &sk, &err), QKV_ERR);
    assert_non_null(strstr(err.msg, "\"nope\""));
    o.voices[1] = "en-us";
    assert_int_equal(qkv_speech_make(&fc, &c, &o, &sk, &err), QKV_ERR);
    assert_non_null(strstr(err.msg, "twice"));
    qkv_corpus_free(&c);
}

static void test_unspeakable_sentence_left_out(void **state)
{
    (void)state;
    static const char TEXT[] = "1\t...\t_\tSYM\t_\t_\t_\t_\t_\t_\n\n1\tYes\t_\tINTJ\t_\t_\t_\t_\t_\t_\n\n";
    qkv_corpus c;
    qkv_error err;
    assert_int_equal(qkv_corpus_read_mem(&c, TEXT, sizeof TEXT - 1, "u.conllu", &QKV_READ_DEFAULTS, &err), QKV_OK);
    qkv_frame_corpus fc;
    qkv_speech_opts o = {.n_voices = 2, .voices = {"en-us", "en-029"}, .n_rates = 1, .rates = {150}, .n_pitches = 1,
                         .pitches = {50}, .snr_db = NAN, .n_mels = 40};
    qkv_speech_skipped sk;
    if (qkv_speech_make(&fc, &c, &o, &sk, &err))
        fail_msg("%s", err.msg);
    assert_int_equal(sk.n, 1);
    assert_int_equal(sk.first_line, 1);
    assert_string_equal(sk.first, "...");
    assert_int_equal(fc.n_utt, 2); /* "Yes" in both voices */
    assert_int_equal(fc.sentence[0], 1);
    qkv_frame_corpus_free(&fc);
    qkv_corpus_free(&c);
    /* nothing speakable at all is an error */
    assert_int_equal(qkv_corpus_read_mem(&c, TEXT, 25, "u.conllu", &QKV_READ_DEFAULTS, &err), QKV_OK);
    assert_int_equal(qkv_speech_make(&fc, &c, &o, &sk, &err), QKV_ERR);
    assert_non_null(strstr(err.msg, "cannot speak any"));
    qkv_corpus_free(&c);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_events_monotone_and_cover_audio),
        cmocka_unit_test(test_bad_voice_and_text),
        cmocka_unit_test(test_corpus_labels_and_determinism),
        cmocka_unit_test(test_make_refuses_bad_voice_first),
        cmocka_unit_test(test_unspeakable_sentence_left_out),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
