/* The probe tasks of data/synth_tasks.h, checked against their definitions from the written
 * CoNLL-U: ends tags every word by its position from the start or the end; reach has one key
 * and one tagged probe per sentence, exactly "# distance" words apart, with every distance
 * equally often, on both sides; both read back as valid corpora; bad lengths are errors naming
 * the option; the grammar task is qkv_synth_write's corpus. */
#include "testutil.h"

#include "data/corpus.h"
#include "data/synth_tasks.h"
#include "data/synthetic.h"

static char *write_task(qkv_synth_task task, int min_len, int max_len, int min_dist, int max_dist, int n_sent,
                        uint64_t seed, size_t *len)
{
    qkv_synth_task_opts o = {task, min_len, max_len, min_dist, max_dist};
    char *buf = NULL;
    FILE *f = open_memstream(&buf, len);
    qkv_error err;
    if (qkv_synth_task_write(f, n_sent, seed, &o, &err) != QKV_OK)
        fail_msg("%s", err.msg);
    fclose(f);
    return buf;
}

/* Reads text as a corpus (fails the test on an error). */
static void read_back(qkv_corpus *c, const char *text, size_t len)
{
    qkv_read_opts o = QKV_READ_DEFAULTS;
    o.format = QKV_FORMAT_CONLLU;
    qkv_error err;
    if (qkv_corpus_read_mem(c, text, len, "task", &o, &err) != QKV_OK)
        fail_msg("%s", err.msg);
}

static int span_is(const qkv_corpus *c, qkv_span sp, const char *s)
{
    return sp.len == strlen(s) && !memcmp(c->text + sp.off, s, sp.len);
}

static void test_ends_tags_are_positions(void **state)
{
    (void)state;
    size_t len;
    char *text = write_task(QKV_SYNTH_ENDS, 8, 30, 0, 0, 2000, 5, &len);
    qkv_corpus c;
    read_back(&c, text, len);
    assert_int_equal(c.n_sent, 2000);
    int seen_len[31] = {0};
    for (int s = 0; s < c.n_sent; s++) {
        int n = qkv_corpus_sent_len(&c, s);
        assert_true(n >= 8 && n <= 30);
        seen_len[n] = 1;
        for (int i = 0; i < n; i++) {
            int w = c.sent_start[s] + i;
            char want[12];
            if (i < 4)
                snprintf(want, sizeof want, "S%d", i + 1);
            else if (n - i <= 4)
                snprintf(want, sizeof want, "E%d", n - i);
            else
                snprintf(want, sizeof want, "M");
            if (!span_is(&c, c.tags[w], want))
                fail_msg("sentence %d word %d of %d: tag %.*s, expected %s", s, i, n, (int)c.tags[w].len,
                         c.text + c.tags[w].off, want);
            assert_int_equal(c.forms[w].len, 3); /* a filler w00..w49 */
            assert_int_equal(c.text[c.forms[w].off], 'w');
        }
    }
    for (int n = 8; n <= 30; n++)
        assert_true(seen_len[n]);
    qkv_corpus_free(&c);
    /* the same arguments, the same bytes; another seed, others */
    size_t len2, len3;
    char *again = write_task(QKV_SYNTH_ENDS, 8, 30, 0, 0, 2000, 5, &len2);
    char *other = write_task(QKV_SYNTH_ENDS, 8, 30, 0, 0, 2000, 6, &len3);
    assert_int_equal(len, len2);
    assert_memory_equal(text, again, len);
    assert_true(len != len3 || memcmp(text, other, len) != 0);
    free(text);
    free(again);
    free(other);
}

/* Parses the reach corpus line by line: per sentence, its distance comment, key and probe. */
static void test_reach_probe_sees_key_at_distance(void **state)
{
    (void)state;
    enum { N_SENT = 960, MAX_D = 32 };
    size_t len;
    char *text = write_task(QKV_SYNTH_REACH, 40, 48, 1, MAX_D, N_SENT, 9, &len);
    qkv_corpus c;
    read_back(&c, text, len);
    assert_int_equal(c.n_sent, N_SENT);
    qkv_corpus_free(&c);
    int per_d[MAX_D + 1] = {0}, right = 0, left = 0, sent = -1, dist = 0, key = -1, probe = -1, n_keys = 0,
        n_probes = 0, words = 0;
    char key_form[16] = "", probe_tag[16] = "";
    char *save = NULL;
    for (char *line = strtok_r(text, "\n", &save);; line = strtok_r(NULL, "\n", &save)) {
        int id;
        char form[16], tag[16];
        if (!line || !strncmp(line, "# sent_id", 9)) { /* close the sentence before */
            if (sent >= 0) {
                assert_int_equal(n_keys, 1);
                assert_int_equal(n_probes, 1);
                assert_true(words >= 40 && words <= 48);
                assert_int_equal(abs(key - probe), dist);
                assert_int_equal(dist, 1 + sent % MAX_D);
                assert_int_equal(probe_tag[0], "ABCD"[key_form[1] - '1']);
                per_d[dist]++;
                right += probe > key;
                left += probe < key;
            }
            if (!line)
                break;
            sent++;
            n_keys = n_probes = words = 0;
            continue;
        }
        if (sscanf(line, "# distance = %d", &dist) == 1 || line[0] == '#')
            continue;
        assert_int_equal(sscanf(line, "%d\t%15s\t_\t%15s\t", &id, form, tag), 3);
        words++;
        if (form[0] == 'K') {
            n_keys++;
            key = id;
            snprintf(key_form, sizeof key_form, "%s", form);
            assert_string_equal(tag, "_");
        } else if (!strcmp(form, "q")) {
            n_probes++;
            probe = id;
            snprintf(probe_tag, sizeof probe_tag, "%s", tag);
        } else {
            assert_int_equal(form[0], 'w');
            assert_string_equal(tag, "_");
        }
    }
    assert_int_equal(sent + 1, N_SENT);
    for (int d = 1; d <= MAX_D; d++)
        assert_int_equal(per_d[d], N_SENT / MAX_D);
    assert_true(left > N_SENT / 3 && right > N_SENT / 3);
    free(text);
}

static void test_bad_options(void **state)
{
    (void)state;
    qkv_error err;
    qkv_synth_task_opts o = {QKV_SYNTH_ENDS, 7, 20, 0, 0};
    assert_int_equal(qkv_synth_task_check(&o, &err), QKV_ERR);
    assert_string_equal(err.msg, "synthetic task ends: min_len must be at least 8 (the words tagged from the start "
                                 "and from the end must not meet), got 7");
    o = (qkv_synth_task_opts){QKV_SYNTH_ENDS, 10, 9, 0, 0};
    assert_int_equal(qkv_synth_task_check(&o, &err), QKV_ERR);
    assert_string_equal(err.msg, "synthetic task ends: max_len must be between min_len 10 and 100000, got 9");
    o = (qkv_synth_task_opts){QKV_SYNTH_REACH, 32, 40, 1, 32};
    assert_int_equal(qkv_synth_task_check(&o, &err), QKV_ERR);
    assert_string_equal(err.msg, "synthetic task reach: max_dist 32 must be below min_len 32 (a key and a probe "
                                 "max_dist words apart must fit in every sentence)");
    o = (qkv_synth_task_opts){QKV_SYNTH_REACH, 40, 40, 0, 32};
    assert_int_equal(qkv_synth_task_check(&o, &err), QKV_ERR);
    assert_string_equal(err.msg, "synthetic task reach: min_dist must be between 1 and max_dist 32, got 0");
    /* nothing written for bad options */
    size_t len;
    char *buf = NULL;
    FILE *f = open_memstream(&buf, &len);
    assert_int_equal(qkv_synth_task_write(f, 3, 1, &o, &err), QKV_ERR);
    fclose(f);
    assert_int_equal(len, 0);
    free(buf);
}

static void test_grammar_is_the_synthetic_corpus(void **state)
{
    (void)state;
    size_t la, lb;
    char *a = write_task(QKV_SYNTH_GRAMMAR, 0, 0, 0, 0, 50, 3, &la), *b = NULL;
    FILE *f = open_memstream(&b, &lb);
    qkv_error err;
    assert_int_equal(qkv_synth_write(f, 50, 3, &err), QKV_OK);
    fclose(f);
    assert_int_equal(la, lb);
    assert_memory_equal(a, b, la);
    assert_true(strstr(a, "# sent_id = synth-1\n# text = ") == a); /* the comment lines kept their order */
    free(a);
    free(b);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_ends_tags_are_positions),
        cmocka_unit_test(test_reach_probe_sees_key_at_distance),
        cmocka_unit_test(test_bad_options),
        cmocka_unit_test(test_grammar_is_the_synthetic_corpus),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
