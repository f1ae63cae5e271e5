/* data/spans: chunks by conlleval's rules (invalid sequences included), scheme conversion,
 * scheme detection and entity-level counts, on hand-made sentences. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "data/corpus.h"
#include "data/spans.h"

enum { MAX = 16 };

/* Splits a space-separated tag sequence into parts (pointing into buf). */
static int parse(const char *seq, char *buf, qkv_tag_part *parts)
{
    strcpy(buf, seq);
    int n = 0;
    for (char *t = strtok(buf, " "); t; t = strtok(NULL, " "))
        parts[n++] = qkv_tag_split(t, strlen(t));
    return n;
}

/* The chunks of seq written "start-end:type" (end exclusive), space-separated. */
static void assert_chunks(const char *seq, const char *expected)
{
    char buf[256], out[256] = "";
    qkv_tag_part parts[MAX];
    qkv_chunk ch[MAX];
    int n = parse(seq, buf, parts), k = qkv_chunks_read(parts, n, ch);
    for (int i = 0; i < k; i++)
        snprintf(out + strlen(out), sizeof out - strlen(out), "%s%d-%d:%.*s", i ? " " : "", ch[i].start, ch[i].end,
                 ch[i].type_len, ch[i].type);
    if (strcmp(out, expected))
        fail_msg("%s: chunks \"%s\", expected \"%s\"", seq, out, expected);
}

static void assert_convert(const char *seq, qkv_tag_scheme scheme, const char *expected)
{
    char buf[256], out[256] = "", tag[64];
    qkv_tag_part parts[MAX];
    qkv_chunk scratch[MAX];
    int n = parse(seq, buf, parts);
    qkv_tags_convert(parts, n, scheme, scratch);
    for (int i = 0; i < n; i++) {
        qkv_tag_part_format(&parts[i], tag, sizeof tag);
        snprintf(out + strlen(out), sizeof out - strlen(out), "%s%s", i ? " " : "", tag);
    }
    if (strcmp(out, expected))
        fail_msg("%s as %s: \"%s\", expected \"%s\"", seq, QKV_TAG_SCHEME_NAMES[scheme], out, expected);
}

static void test_split(void **state)
{
    (void)state;
    qkv_tag_part p = qkv_tag_split("B-creative-work", 15);
    assert_int_equal(p.kind, 'B');
    assert_int_equal(p.type_len, 13);
    assert_memory_equal(p.type, "creative-work", 13);
    p = qkv_tag_split("O", 1);
    assert_int_equal(p.kind, 'O');
    assert_int_equal(p.type_len, 0);
    assert_int_equal(qkv_tag_split("NN", 2).kind, '?');
    assert_int_equal(qkv_tag_split("PRP-S", 5).kind, '?');
    assert_true(qkv_tag_is_span("O", 1));
    assert_true(qkv_tag_is_span("S-x", 3));
    assert_true(qkv_tag_is_span("B-creative-work", 15));
    assert_false(qkv_tag_is_span("B-", 2));
    assert_false(qkv_tag_is_span("B", 1));
    assert_false(qkv_tag_is_span("NN", 2));
    assert_false(qkv_tag_is_span("OO", 2));
    char buf[8];
    p = qkv_tag_split("I-location", 10);
    assert_int_equal(qkv_tag_part_format(&p, buf, sizeof buf), 10);
    assert_string_equal(buf, "I-locat"); /* truncated to fit */
}

/* conlleval's rules, invalid sequences included. */
static void test_chunks(void **state)
{
    (void)state;
    assert_chunks("B-PER I-PER O B-LOC", "0-2:PER 3-4:LOC");
    assert_chunks("O O O", "");
    assert_chunks("I-PER", "0-1:PER");                 /* I- at a sentence's start starts a chunk */
    assert_chunks("O I-PER I-PER O", "1-3:PER");       /* I- after O starts a chunk */
    assert_chunks("B-LOC I-PER", "0-1:LOC 1-2:PER");   /* I-x after B-y: a new chunk */
    assert_chunks("I-LOC I-PER I-PER", "0-1:LOC 1-3:PER");
    assert_chunks("B-PER B-PER", "0-1:PER 1-2:PER");   /* adjacent chunks of one type */
    assert_chunks("I-PER B-PER I-PER", "0-1:PER 1-3:PER"); /* IOB1 */
    assert_chunks("B-PER I-PER I-PER", "0-3:PER");
    assert_chunks("B-creative-work I-creative-work O", "0-2:creative-work");
    /* BIOES */
    assert_chunks("S-PER S-PER", "0-1:PER 1-2:PER");
    assert_chunks("B-PER E-PER S-PER B-LOC I-LOC E-LOC", "0-2:PER 2-3:PER 3-6:LOC");
    assert_chunks("B-PER I-PER", "0-2:PER");           /* no E-: ends at the sentence's end */
    assert_chunks("E-PER E-PER", "0-1:PER 1-2:PER");
    assert_chunks("O E-PER", "1-2:PER");
    assert_chunks("S-PER I-PER", "0-1:PER 1-2:PER");
    assert_chunks("B-PER E-LOC", "0-1:PER 1-2:LOC");
}

static void test_convert(void **state)
{
    (void)state;
    const char *bio = "B-PER I-PER O B-LOC B-LOC I-LOC O B-PER";
    assert_convert(bio, QKV_TAG_SCHEME_BIOES, "B-PER E-PER O S-LOC B-LOC E-LOC O S-PER");
    assert_convert(bio, QKV_TAG_SCHEME_IOB1, "I-PER I-PER O I-LOC B-LOC I-LOC O I-PER");
    assert_convert(bio, QKV_TAG_SCHEME_BIO, bio);
    assert_convert("I-PER I-PER O I-LOC B-LOC I-LOC O I-PER", QKV_TAG_SCHEME_BIO, bio);
    assert_convert("B-PER E-PER O S-LOC B-LOC E-LOC O S-PER", QKV_TAG_SCHEME_BIO, bio);
    assert_convert("B-PER E-PER O S-LOC B-LOC E-LOC O S-PER", QKV_TAG_SCHEME_IOB1,
                   "I-PER I-PER O I-LOC B-LOC I-LOC O I-PER");
    /* an invalid BIO sequence: conlleval's chunks, written validly */
    assert_convert("O I-PER I-PER B-LOC I-PER", QKV_TAG_SCHEME_BIO, "O B-PER I-PER B-LOC B-PER");
    assert_convert("O I-PER I-PER B-LOC I-PER", QKV_TAG_SCHEME_BIOES, "O B-PER E-PER S-LOC S-PER");
    /* IOB1: B- only between adjacent chunks of one type */
    assert_convert("B-PER B-LOC B-LOC", QKV_TAG_SCHEME_IOB1, "I-PER I-LOC B-LOC");
    assert_convert("O", QKV_TAG_SCHEME_BIOES, "O");
}

static qkv_tag_scheme detect(const char *seq)
{
    char buf[256];
    qkv_tag_part parts[MAX];
    qkv_scheme_vote v = QKV_SCHEME_VOTE_INIT;
    qkv_scheme_vote_add(&v, parts, parse(seq, buf, parts), 0);
    return qkv_scheme_vote_result(&v);
}

static void test_detect(void **state)
{
    (void)state;
    assert_int_equal(detect("B-PER I-PER O B-LOC"), QKV_TAG_SCHEME_BIO);
    assert_int_equal(detect("B-PER I-PER O I-LOC B-LOC"), QKV_TAG_SCHEME_BIO);  /* 2 B- starts, 1 I- start */
    assert_int_equal(detect("I-PER I-PER O I-LOC B-LOC"), QKV_TAG_SCHEME_IOB1); /* 2 I- starts, 1 B- start */
    assert_int_equal(detect("B-PER E-PER O"), QKV_TAG_SCHEME_BIOES);
    assert_int_equal(detect("O S-PER"), QKV_TAG_SCHEME_BIOES);
    assert_int_equal(detect("O O"), QKV_TAG_SCHEME_BIO);
}

/* Whether seq's chunks mix BIOES's ends (E-, S-) with BIO's (B-, I-): the word of the first end of
 * the fewer kind (E-/S- on a tie), and whether it is BIOES's; -1 when they do not mix. */
static long mixed(const char *seq, int *bioes)
{
    char buf[256];
    qkv_tag_part parts[MAX];
    qkv_scheme_vote v = QKV_SCHEME_VOTE_INIT;
    qkv_scheme_vote_add(&v, parts, parse(seq, buf, parts), 10);
    long w = -1;
    return qkv_scheme_vote_mixed(&v, &w, bioes) ? w : -1;
}

static void test_mixed(void **state)
{
    (void)state;
    int bioes = -1;
    assert_int_equal(mixed("B-PER I-PER O B-LOC", &bioes), -1);
    assert_int_equal(mixed("I-PER I-PER O I-LOC B-LOC", &bioes), -1); /* IOB1 */
    assert_int_equal(mixed("B-PER E-PER O S-LOC O B-ORG I-ORG E-ORG", &bioes), -1);
    assert_int_equal(mixed("NN VB DT . NN", &bioes), -1); /* no span tags */
    /* one stray S- among BIO chunks: the S- (word 10 + 4) */
    assert_int_equal(mixed("B-PER I-PER O B-LOC S-ORG O B-LOC", &bioes), 14);
    assert_true(bioes);
    /* one chunk ending with B- among BIOES chunks: that B- (word 10 + 3) */
    assert_int_equal(mixed("B-PER E-PER O B-LOC O S-ORG", &bioes), 13);
    assert_false(bioes);
    assert_int_equal(mixed("B-PER O E-LOC", &bioes), 12); /* a tie: the E- */
    assert_true(bioes);
}

/* Adds gold and predicted sequences (one sentence each, |-separated) to counts. */
static void add(qkv_span_counts *c, const char *gold, const char *pred)
{
    char gb[256], pb[256];
    qkv_tag_part g[MAX], p[MAX];
    qkv_chunk scratch[2 * MAX];
    qkv_error err;
    int n = parse(gold, gb, g);
    assert_int_equal(parse(pred, pb, p), n);
    assert_int_equal(qkv_span_counts_add(c, g, p, n, scratch, &err), QKV_OK);
}

static int type_of(const qkv_span_counts *c, const char *type)
{
    for (int k = 0; k < c->n_types; k++)
        if (!strcmp(c->types[k], type))
            return k;
    fail_msg("no type %s", type);
    return -1;
}

static void assert_type(const qkv_span_counts *c, const char *type, long gold, long pred, long correct)
{
    int k = type_of(c, type);
    assert_int_equal(c->type_gold[k], gold);
    assert_int_equal(c->type_pred[k], pred);
    assert_int_equal(c->type_correct[k], correct);
}

static void test_counts(void **state)
{
    (void)state;
    qkv_span_counts c = {0};
    add(&c, "B-PER I-PER O B-LOC", "B-PER I-PER O B-LOC"); /* both right */
    assert_int_equal(c.correct, 2);
    add(&c, "B-PER I-PER O", "B-PER O O");                 /* right end missed */
    add(&c, "O B-PER I-PER", "B-PER I-PER I-PER");         /* left end too early */
    add(&c, "B-LOC O", "B-ORG O");                         /* type mismatch */
    add(&c, "B-PER B-PER", "B-PER I-PER");                 /* adjacent gold, one predicted over both */
    add(&c, "B-PER I-PER", "B-PER B-PER");                 /* one gold, two predicted inside it */
    add(&c, "O I-PER I-PER", "O B-PER I-PER");             /* I- after O: conlleval's chunk 1-3 */
    add(&c, "B-LOC I-LOC", "I-LOC I-LOC");                 /* I- at the start: the same chunk */
    add(&c, "B-MISC O", "O O");                            /* nothing predicted */
    assert_int_equal(c.gold, 2 + 1 + 1 + 1 + 2 + 1 + 1 + 1 + 1);
    assert_int_equal(c.pred, 2 + 1 + 1 + 1 + 1 + 2 + 1 + 1 + 0);
    assert_int_equal(c.correct, 2 + 2);
    assert_type(&c, "PER", 7, 7, 2);
    assert_type(&c, "LOC", 3, 2, 2);
    assert_type(&c, "ORG", 0, 1, 0);
    assert_type(&c, "MISC", 1, 0, 0);
    assert_string_equal(c.types[0], "PER"); /* order of first appearance */
    double p, r, f;
    qkv_span_prf(c.correct, c.gold, c.pred, &p, &r, &f);
    assert_float_equal(p, 4.0 / 10, 1e-12);
    assert_float_equal(r, 4.0 / 11, 1e-12);
    assert_float_equal(f, 2 * 4.0 / (10 + 11), 1e-12);
    qkv_span_counts_free(&c);

    /* empty predictions: precision undefined, reported 0 as conlleval does; so is F1 */
    qkv_span_counts e = {0};
    add(&e, "B-PER I-PER O", "O O O");
    assert_int_equal(e.pred, 0);
    qkv_span_prf(e.correct, e.gold, e.pred, &p, &r, &f);
    assert_float_equal(p, 0, 0);
    assert_float_equal(r, 0, 0);
    assert_float_equal(f, 0, 0);
    qkv_span_prf(3, 4, 3, &p, &r, &f);
    assert_float_equal(p, 1, 0);
    assert_float_equal(r, 0.75, 1e-12);
    assert_float_equal(f, 2 * 0.75 / 1.75, 1e-12);
    qkv_span_counts_free(&e);
}

/* data.tag_scheme on reading: the corpus's tags converted (invalid I- after O as conlleval reads
 * it, "_" kept), the file's scheme detected, predictions converted back into it, the file's
 * bytes untouched; POS tags refused with the line. */
static void test_corpus_scheme(void **state)
{
    (void)state;
    const char *text = "a\tI-PER\nb\tI-PER\nc\tO\nd\t_\n\ne\tI-LOC\nf\tB-LOC\ng\tI-LOC\n";
    qkv_read_opts o = QKV_READ_DEFAULTS;
    o.scheme = QKV_TAG_SCHEME_BIOES;
    qkv_corpus c;
    qkv_error err;
    if (qkv_corpus_read_mem(&c, text, strlen(text), "iob1.tsv", &o, &err) != QKV_OK)
        fail_msg("%s", err.msg);
    assert_int_equal(c.file_scheme, QKV_TAG_SCHEME_IOB1); /* 3 chunks start with I-, 1 with B- */
    const char *want[] = {"B-PER", "E-PER", "O", "_", "S-LOC", "B-LOC", "E-LOC"};
    for (int w = 0; w < 7; w++) {
        size_t len;
        const char *tag = qkv_corpus_tag(&c, w, &len);
        if (len != strlen(want[w]) || memcmp(tag, want[w], len))
            fail_msg("word %d: \"%.*s\", expected %s", w, (int)len, tag, want[w]);
    }
    assert_true(qkv_corpus_untagged(&c, 3));
    const char *pred[] = {"S-PER", "S-PER", "O", "O", "S-LOC", "B-LOC", "E-LOC"}; /* d: "_" in gold, O here */
    char *buf;
    const char **out;
    assert_int_equal(qkv_corpus_tags_as_file(&c, pred, &buf, &out, &err), QKV_OK);
    const char *iob1[] = {"I-PER", "B-PER", "O", "O", "I-LOC", "B-LOC", "I-LOC"};
    for (int w = 0; w < 7; w++)
        assert_string_equal(out[w], iob1[w]);
    char *written = NULL;
    size_t written_len = 0;
    FILE *f = open_memstream(&written, &written_len);
    assert_int_equal(qkv_corpus_write(&c, f, NULL, &err), QKV_OK);
    fclose(f);
    assert_string_equal(written, text); /* the file's own tags, as read */
    free(written);
    free(buf);
    free(out);
    qkv_corpus_free(&c);

    /* without conversion: nothing to convert back */
    assert_int_equal(qkv_corpus_read_mem(&c, text, strlen(text), "iob1.tsv", NULL, &err), QKV_OK);
    assert_int_equal(qkv_corpus_tags_as_file(&c, pred, &buf, &out, &err), QKV_OK);
    assert_null(out);
    qkv_corpus_free(&c);

    assert_int_equal(qkv_corpus_read_mem(&c, "a\tO\nb\tNN\n", 9, "pos.tsv", &o, &err), QKV_ERR);
    assert_string_equal(err.msg, "pos.tsv:2: data.tag_scheme bioes needs span tags (O, B-, I-, E-, S- and a type), "
                                 "found \"NN\"");

    /* a BIO file with one stray S-: an error naming it, converted or not */
    const char *mix = "a\tB-PER\nb\tO\n\nc\tB-LOC\nd\tI-LOC\n\ne\tS-ORG\n";
    const char *want_mix = "mix.tsv:7: tag \"S-ORG\" ends a chunk as only BIOES ends one (E- or S-), but 2 chunks "
                           "of this file end with B- or I- (BIO, IOB1), which BIOES forbids: a file's span tags are "
                           "in one scheme (BIO, IOB1 or BIOES), so this tag or those are wrong";
    assert_int_equal(qkv_corpus_read_mem(&c, mix, strlen(mix), "mix.tsv", &o, &err), QKV_ERR);
    assert_string_equal(err.msg, want_mix);
    assert_int_equal(qkv_corpus_read_mem(&c, mix, strlen(mix), "mix.tsv", NULL, &err), QKV_OK);
    qkv_tag_scheme own;
    assert_int_equal(qkv_corpus_own_scheme(&c, &own, &err), QKV_ERR);
    assert_string_equal(err.msg, want_mix);
    qkv_corpus_free(&c);

    /* a column of other values (lemmas) with "S-Bahn" and "B-Movie" among them holds no chunks */
    const char *lemmas = "a\tdie\nb\tS-Bahn\nc\tfahren\n\nd\tein\ne\tB-Movie\nf\tsein\ng\tgut\nh\tund\n";
    assert_int_equal(qkv_corpus_read_mem(&c, lemmas, strlen(lemmas), "lemma.tsv", NULL, &err), QKV_OK);
    assert_int_equal(qkv_corpus_own_scheme(&c, &own, &err), QKV_OK);
    qkv_corpus_free(&c);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_split),   cmocka_unit_test(test_chunks), cmocka_unit_test(test_convert),
        cmocka_unit_test(test_detect),  cmocka_unit_test(test_mixed), cmocka_unit_test(test_counts),
        cmocka_unit_test(test_corpus_scheme),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
