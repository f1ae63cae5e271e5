/* UD English-EWT dev from its gold character labels (data/segment.h): every sentence's # text,
 * every token's FORM and SpaceAfter=No, and every word come back from the labels exactly. The
 * expected values are read independently: # text and token lines by a scan of the file here,
 * words by the corpus reader. Without QKV_EWT_DIR the program exits 77 (ctest: skipped). */
#include "testutil.h"

#include "data/segment.h"

typedef struct gold_token {
    const char *form;
    size_t len;
    bool no_space;
} gold_token;

static bool field_has(const char *s, size_t len, const char *item)
{
    size_t k = strlen(item);
    for (size_t i = 0; i + k <= len; i++)
        if (!memcmp(s + i, item, k) && (i == 0 || s[i - 1] == '|') && (i + k == len || s[i + k] == '|' ||
                                                                       s[i + k] == '\n'))
            return true;
    return false;
}

static void test_ewt_dev_gold_labels(void **state)
{
    (void)state;
    char path[4096];
    snprintf(path, sizeof path, "%s/en_ewt-ud-dev.conllu", getenv("QKV_EWT_DIR"));
    qkv_error err = {0};
    qkv_seg_text st;
    if (qkv_seg_read(&st, path, &err))
        fail_msg("%s", err.msg);
    qkv_corpus gold;
    if (qkv_corpus_read(&gold, path, &QKV_READ_DEFAULTS, &err))
        fail_msg("%s", err.msg);
    assert_int_equal(st.n_sent, 2001);
    assert_int_equal(st.n_words, 25147);
    assert_int_equal(st.n_unsplit, 0);
    assert_true(st.n_par > 700); /* # newpar of dev */

    /* # text lines and tokens, scanned from the file's bytes */
    int n_text = 0, n_tok = 0;
    const char **texts = malloc(4000 * sizeof *texts);
    size_t *text_lens = malloc(4000 * sizeof *text_lens);
    gold_token *toks = malloc(40000 * sizeof *toks);
    int mwt_last = 0;
    for (const char *p = gold.text, *end = gold.text + gold.text_len; p < end;) {
        const char *nl = memchr(p, '\n', (size_t)(end - p));
        size_t n = nl ? (size_t)(nl - p) : (size_t)(end - p);
        if (n > 9 && !memcmp(p, "# text = ", 9)) {
            texts[n_text] = p + 9;
            text_lens[n_text++] = n - 9;
        } else if (n > 0 && p[0] >= '1' && p[0] <= '9') {
            const char *tab = memchr(p, '\t', n), *form = tab + 1, *tab2 = memchr(form, '\t', n - (size_t)(form - p));
            const char *misc = p + n;
            while (misc[-1] != '\t')
                misc--;
            int a = atoi(p);
            const char *dash = memchr(p, '-', (size_t)(tab - p)), *dot = memchr(p, '.', (size_t)(tab - p));
            if (dot) {
            } else if (dash) {
                mwt_last = atoi(dash + 1);
                toks[n_tok++] = (gold_token){form, (size_t)(tab2 - form), field_has(misc, (size_t)(p + n - misc), "SpaceAfter=No")};
            } else if (mwt_last && a <= mwt_last) {
                if (a == mwt_last)
                    mwt_last = 0;
            } else {
                toks[n_tok++] = (gold_token){form, (size_t)(tab2 - form), field_has(misc, (size_t)(p + n - misc), "SpaceAfter=No")};
            }
        }
        p += n + 1;
    }
    assert_int_equal(n_text, 2001);

    qkv_segmentation seg;
    memset(&seg, 0, sizeof seg);
    for (int p = 0; p < st.n_par; p++)
        assert_int_equal(qkv_seg_decode(&st, p, NULL, &seg, &err), QKV_OK);
    assert_int_equal(seg.n_sent, 2001);
    assert_int_equal(seg.n_tokens, n_tok);
    assert_int_equal(seg.n_words, gold.n_words);
    int n_multiword = 0;
    for (int s = 0; s < seg.n_sent; s++) {
        int t0 = seg.sent_start[s], t1 = seg.sent_start[s + 1];
        uint32_t b = st.char_off[seg.tok_start[t0]], e = st.char_off[seg.tok_end[t1 - 1]];
        if (e - b != text_lens[s] || memcmp(st.text + b, texts[s], e - b))
            fail_msg("sentence %d: \"%.*s\", expected \"%.*s\"", s + 1, (int)(e - b), st.text + b,
                     (int)text_lens[s], texts[s]);
        bool par_end = s + 1 == seg.n_sent || seg.sent_par[s + 1] != seg.sent_par[s];
        for (int t = t0; t < t1; t++) {
            uint32_t tb = st.char_off[seg.tok_start[t]], te = st.char_off[seg.tok_end[t]];
            if (te - tb != toks[t].len || memcmp(st.text + tb, toks[t].form, te - tb))
                fail_msg("token %d: \"%.*s\", expected \"%.*s\"", t, (int)(te - tb), st.text + tb, (int)toks[t].len,
                         toks[t].form);
            if (!(t + 1 == t1 && par_end) && !seg.space_after[t] != toks[t].no_space)
                fail_msg("token %d \"%.*s\" of sentence %d: SpaceAfter=No %d, expected %d", t, (int)toks[t].len,
                         toks[t].form, s + 1, !seg.space_after[t], toks[t].no_space);
            n_multiword += seg.tok_word[t + 1] - seg.tok_word[t] > 1;
        }
    }
    assert_int_equal(n_multiword, gold.n_multiword);
    for (int w = 0; w < seg.n_words; w++) {
        size_t len;
        const char *form = qkv_corpus_form(&gold, w, &len);
        uint32_t b = st.char_off[seg.word_start[w]], e = st.char_off[seg.word_end[w]];
        if (e - b != len || memcmp(st.text + b, form, len))
            fail_msg("word %d: \"%.*s\", expected \"%.*s\"", w, (int)(e - b), st.text + b, (int)len, form);
    }
    free(texts);
    free(text_lens);
    free(toks);
    qkv_segmentation_free(&seg);
    qkv_corpus_free(&gold);
    qkv_seg_free(&st);
}

int main(void)
{
    const char *dir = getenv("QKV_EWT_DIR");
    if (!dir || !*dir) {
        printf("skipped: QKV_EWT_DIR is not set (the UD English-EWT folder)\n");
        return 77;
    }
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_ewt_dev_gold_labels),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
