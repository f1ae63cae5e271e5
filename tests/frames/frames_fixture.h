/* A hand-made speech frame corpus for the tests of tests/frames/ (no synthesis needed). */
#ifndef QKV_TEST_FRAMES_FIXTURE_H
#define QKV_TEST_FRAMES_FIXTURE_H

#include "data/frames.h"

/* Two utterances of one sentence "a b" (voices v1, v2) and one of "c" (v1): 4 mel bands,
 * hop 10 and window 20 samples; phonemes at given samples. Feature (t, b) = t + 0.1·b + u. */
static inline void fx_corpus(qkv_frame_corpus *fc)
{
    qkv_error err;
    if (qkv_frame_corpus_init(fc, 4, 1000, 20, 10, &err))
        fail_msg("%s", err.msg);
    float feats[12 * 4];
    const char *voices[3] = {"v1", "v2", "v1"};
    for (int u = 0; u < 3; u++) {
        int nf = u == 2 ? 5 : 12;
        for (int t = 0; t < nf; t++)
            for (int b = 0; b < 4; b++)
                feats[t * 4 + b] = (float)(t + 0.1 * b + u + (u == 1 ? (t % 3) : 0));
        /* frame t's centre is 10t + 10 */
        long ps[] = {0, 25, 55, 85, 115};
        const char *pn[] = {"_", "a1", "a2", "b1", "_:"};
        long ws[] = {25, 85};
        int wc[] = {0, 2};
        int starts[] = {0, 2};
        const char *upos_ab[] = {"DET", "NOUN"}, *upos_c[] = {"VERB"};
        long ps_c[] = {0, 15};
        const char *pn_c[] = {"_", "c1"};
        long ws_c[] = {15};
        int wc_c[] = {0};
        qkv_spoken sp = {.text = u == 2 ? "c" : "a b", .voice = voices[u], .rate = 150 + u, .pitch = 50,
                         .sentence = u == 2, .n_frames = nf, .features = feats, .n_samples = nf * 10 + 10};
        if (u < 2) {
            sp.n_word_events = 2, sp.word_sample = ws, sp.word_char = wc;
            sp.n_phone_events = 5, sp.phone_sample = ps, sp.phone_name = pn;
            sp.n_words = 2, sp.word_start = starts, sp.word_upos = upos_ab;
        } else {
            sp.n_word_events = 1, sp.word_sample = ws_c, sp.word_char = wc_c;
            sp.n_phone_events = 2, sp.phone_sample = ps_c, sp.phone_name = pn_c;
            sp.n_words = 1, sp.word_start = starts, sp.word_upos = upos_c;
        }
        if (qkv_frame_corpus_add(fc, &sp, &err))
            fail_msg("%s", err.msg);
    }
}

#endif
