/* FEATS in UD's order (features sorted by name, the values of a feature sorted, both
 * case-insensitively): qkv_feats_canonical on every kind of bundle (one feature, permuted, names
 * that differ only in case order, layered features, several values of a feature, "_"), a corpus
 * whose bundles are permutations of each other (of features or of one feature's values) giving
 * one class for them in the vocabulary and the dataset, and the writer putting predicted bundles
 * in UD's order. */
#include "testutil.h"

#include "data/columns.h"
#include "data/dataset.h"

static void test_canonical(void **state)
{
    (void)state;
    static const char *const CASES[][2] = {
        {"_", "_"},
        {"Number=Plur", "Number=Plur"},
        {"Person=3|Number=Sing", "Number=Sing|Person=3"},
        {"VerbForm=Fin|Tense=Pres|Person=3|Number=Sing|Mood=Ind", "Mood=Ind|Number=Sing|Person=3|Tense=Pres|VerbForm=Fin"},
        /* by name case-insensitively: "number" < "numtype" (bytes would put "NumType" first) */
        {"NumType=Card|Number=Sing", "Number=Sing|NumType=Card"},
        {"abbr=Yes|Case=Nom", "abbr=Yes|Case=Nom"},
        {"Case=Nom|abbr=Yes", "abbr=Yes|Case=Nom"},
        /* a layered feature after the plain one of the same name */
        {"Number[psor]=Sing|Number=Plur|Case=Gen", "Case=Gen|Number=Plur|Number[psor]=Sing"},
        /* the values of one feature, sorted as UD has them */
        {"Case=Nom,Acc", "Case=Acc,Nom"},
        {"Case=Acc,Nom", "Case=Acc,Nom"},
        {"Person=3,1,2", "Person=1,2,3"},
        {"PronType=Rel,Int|Case=Nom,Acc|Number=Sing", "Case=Acc,Nom|Number=Sing|PronType=Int,Rel"},
        /* case-insensitively (bytes would put "B" first) */
        {"Xx=B,a", "Xx=a,B"},
        {"Xx=a,B", "Xx=a,B"},
        /* a value that begins another */
        {"Xx=Ab,A", "Xx=A,Ab"},
    };
    char out[256];
    for (size_t i = 0; i < sizeof CASES / sizeof CASES[0]; i++) {
        size_t n = qkv_feats_canonical(CASES[i][0], strlen(CASES[i][0]), out);
        out[n] = '\0';
        if (strcmp(out, CASES[i][1]))
            fail_msg("%s gave %s, expected %s", CASES[i][0], out, CASES[i][1]);
    }
}

static const char TEXT[] = "1\tShe\tshe\tPRON\tPRP\tPerson=3|Case=Nom|Number=Sing\t_\t_\t_\t_\n"
                           "2\truns\trun\tVERB\tVBZ\tVerbForm=Fin|Number=Sing|Person=3\t_\t_\t_\t_\n\n"
                           "1\tHe\the\tPRON\tPRP\tCase=Nom|Number=Sing|Person=3\t_\t_\t_\t_\n"
                           "2\tsits\tsit\tVERB\tVBZ\tNumber=Sing|Person=3|VerbForm=Fin\t_\t_\t_\t_\n\n";

/* text read with columns [0, n) of cols (FEATS among them), its featurizer and dataset built
 * as training builds them (every word kept). */
typedef struct {
    qkv_corpus c;
    qkv_featurizer fz;
    qkv_dataset ds;
} encoded;

static void encode(encoded *e, const char *text, size_t len, int n, const qkv_tag_field *cols)
{
    qkv_error err = {0};
    qkv_read_opts opts = QKV_READ_DEFAULTS;
    opts.n_columns = n;
    memcpy(opts.columns, cols, (size_t)n * sizeof *cols);
    opts.tag_field = cols[0];
    assert_int_equal(qkv_corpus_read_mem(&e->c, text, len, "f.conllu", &opts, &err), QKV_OK);
    qkv_feature_config fc = QKV_FEATURE_DEFAULTS;
    fc.word_min_count = 1;
    fc.n_columns = n;
    memcpy(fc.columns, opts.columns, sizeof fc.columns);
    assert_int_equal(qkv_featurizer_build(&e->fz, &fc, &e->c, &err), QKV_OK);
    assert_int_equal(qkv_dataset_encode(&e->ds, &e->fz, &e->c, NULL, &err), QKV_OK);
}

static void encoded_free(encoded *e)
{
    qkv_dataset_free(&e->ds);
    qkv_featurizer_free(&e->fz);
    qkv_corpus_free(&e->c);
}

/* feats as the only column (head 0) and as a further column: one class per bundle either way */
static void test_permuted_bundles_one_class(void **state)
{
    (void)state;
    for (int layout = 0; layout < 2; layout++) {
        encoded e;
        int col = layout ? 1 : 0;
        encode(&e, TEXT, sizeof TEXT - 1, col + 1, layout ? (qkv_tag_field[]){QKV_TAG_UPOS, QKV_TAG_FEATS}
                                                          : (qkv_tag_field[]){QKV_TAG_FEATS});
        assert_int_equal(qkv_featurizer_n_classes(&e.fz, col), 2);
        const int32_t *t = col ? qkv_dataset_column_tags(&e.ds, col) : e.ds.tags;
        assert_int_equal(t[0], t[2]);
        assert_int_equal(t[1], t[3]);
        assert_string_equal(qkv_featurizer_class(&e.fz, col, t[0]), "Case=Nom|Number=Sing|Person=3");
        assert_string_equal(qkv_featurizer_class(&e.fz, col, t[1]), "Number=Sing|Person=3|VerbForm=Fin");
        encoded_free(&e);
    }
}

static const char VALUES[] = "1\twho\twho\tPRON\tWP\tPronType=Rel,Int|Case=Nom,Acc\t_\t_\t_\t_\n\n"
                             "1\twho\twho\tPRON\tWP\tCase=Acc,Nom|PronType=Int,Rel\t_\t_\t_\t_\n"
                             "2\tit\tit\tPRON\tPRP\tCase=Acc,Nom|Number=Sing\t_\t_\t_\t_\n\n"
                             "1\tit\tit\tPRON\tPRP\tNumber=Sing|Case=Nom,Acc\t_\t_\t_\t_\n\n";

/* a feature's values in two orders: one class, named in UD's order */
static void test_permuted_values_one_class(void **state)
{
    (void)state;
    encoded e;
    encode(&e, VALUES, sizeof VALUES - 1, 1, (qkv_tag_field[]){QKV_TAG_FEATS});
    assert_int_equal(qkv_featurizer_n_classes(&e.fz, 0), 2);
    assert_int_equal(e.ds.tags[0], e.ds.tags[1]);
    assert_int_equal(e.ds.tags[2], e.ds.tags[3]);
    assert_string_equal(qkv_featurizer_class(&e.fz, 0, e.ds.tags[0]), "Case=Acc,Nom|PronType=Int,Rel");
    assert_string_equal(qkv_featurizer_class(&e.fz, 0, e.ds.tags[2]), "Case=Acc,Nom|Number=Sing");
    encoded_free(&e);
}

/* what a model predicts is written in UD's order, whatever the order of its class */
static void test_writer_order(void **state)
{
    (void)state;
    qkv_error err = {0};
    qkv_read_opts opts = QKV_READ_DEFAULTS;
    opts.n_columns = 1;
    opts.columns[0] = opts.tag_field = QKV_TAG_FEATS;
    qkv_corpus c;
    assert_int_equal(qkv_corpus_read_mem(&c, TEXT, sizeof TEXT - 1, "p.conllu", &opts, &err), QKV_OK);
    const char *feats[] = {"Person=3|Case=Nom", "_", "Number=Sing|Case=Nom,Acc", "Tense=Pres|Mood=Ind"};
    const char *const *values[QKV_TAG_FIELD_COUNT] = {0};
    values[QKV_TAG_FEATS] = feats;
    char *out = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&out, &len);
    assert_int_equal(qkv_corpus_write_fields(&c, f, values, &err), QKV_OK);
    fclose(f);
    assert_non_null(strstr(out, "\tCase=Nom|Person=3\t"));
    assert_non_null(strstr(out, "\tCase=Acc,Nom|Number=Sing\t"));
    assert_non_null(strstr(out, "\tMood=Ind|Tense=Pres\t"));
    free(out);
    qkv_corpus_free(&c);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_canonical),
        cmocka_unit_test(test_permuted_bundles_one_class),
        cmocka_unit_test(test_permuted_values_one_class),
        cmocka_unit_test(test_writer_order),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
