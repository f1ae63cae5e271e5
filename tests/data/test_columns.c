/* Several tag columns from the reader to the batch: a hand-made CoNLL-U read with [upos, lemma,
 * feats] gives one class vocabulary per column (lemmas as edit scripts written out by hand,
 * FEATS "_" a class, LEMMA "_" no class), the dataset's and a batch's gold classes of each
 * column, the vocabularies' checkpoint names, and the writer substituting every column. */
#include "testutil.h"

#include "data/batch.h"
#include "data/columns.h"

static const char TEXT[] = "1\tCats\tcat\tNOUN\tNNS\tNumber=Plur\t_\t_\t_\t_\n"
                           "2\tsleep\tsleep\tVERB\tVBP\t_\t_\t_\t_\t_\n"
                           "3\there\t_\tADV\tRB\t_\t_\t_\t_\t_\n\n";

static void test_columns_to_batches(void **state)
{
    (void)state;
    qkv_error err = {0};
    qkv_read_opts opts = QKV_READ_DEFAULTS;
    opts.n_columns = 3;
    opts.columns[0] = QKV_TAG_UPOS, opts.columns[1] = QKV_TAG_LEMMA, opts.columns[2] = QKV_TAG_FEATS;
    qkv_corpus c;
    assert_int_equal(qkv_corpus_read_mem(&c, TEXT, sizeof TEXT - 1, "c.conllu", &opts, &err), QKV_OK);
    qkv_feature_config fc = QKV_FEATURE_DEFAULTS;
    fc.word_min_count = 1;
    fc.n_columns = 3;
    memcpy(fc.columns, opts.columns, sizeof fc.columns);
    qkv_featurizer fz;
    assert_int_equal(qkv_featurizer_build(&fz, &fc, &c, &err), QKV_OK);
    assert_int_equal(qkv_featurizer_n_columns(&fz), 3);
    assert_int_equal(qkv_featurizer_n_classes(&fz, 0), 3);
    assert_int_equal(qkv_featurizer_n_classes(&fz, 1), 2); /* Cats -> cat, sleep -> sleep */
    assert_int_equal(qkv_featurizer_n_classes(&fz, 2), 2); /* Number=Plur and _ */
    int v = qkv_featurizer_n_vocabs(&fz);
    assert_string_equal(qkv_featurizer_vocab_name(&fz, v - 2), "tags.lemma");
    assert_string_equal(qkv_featurizer_vocab_name(&fz, v - 1), "tags.feats");

    qkv_dataset ds;
    assert_int_equal(qkv_dataset_encode(&ds, &fz, &c, NULL, &err), QKV_OK);
    assert_int_equal(qkv_dataset_n_columns(&ds), 3);
    const int32_t *lemma = qkv_dataset_column_tags(&ds, 1), *feats = qkv_dataset_column_tags(&ds, 2);
    /* "cat" all lower; "cats" lowercased keeps "cat" and cuts 1 at the end */
    assert_string_equal(qkv_featurizer_class(&fz, 1, lemma[0]), "L0;-0+;-1+");
    assert_string_equal(qkv_featurizer_class(&fz, 1, lemma[1]), "L0;-0+;-0+");
    assert_int_equal(lemma[2], QKV_TAG_NONE);                                    /* "_": no lemma */
    assert_string_equal(qkv_featurizer_class(&fz, 2, feats[0]), "Number=Plur");
    assert_string_equal(qkv_featurizer_class(&fz, 2, feats[2]), "_");          /* "_": the empty bundle */
    assert_int_equal(ds.form_chars[0], 4);

    qkv_batch_plan plan;
    qkv_batch b;
    assert_int_equal(qkv_batch_plan_make(&plan, &ds, 100, NULL, &err), QKV_OK);
    assert_int_equal(qkv_batch_alloc(&b, ds.n_features, false, 4, 8, &err), QKV_OK);
    assert_int_equal(qkv_batch_fill(&b, &ds, &plan, 0, &err), QKV_ERR); /* no room for the columns yet */
    assert_int_equal(qkv_batch_alloc_columns(&b, 3, &err), QKV_OK);
    assert_int_equal(qkv_batch_fill(&b, &ds, &plan, 0, &err), QKV_OK);
    for (int i = 0; i < 3; i++)
        for (int w = 0; w < 3; w++)
            assert_int_equal(qkv_batch_column_tags(&b, i)[w], qkv_dataset_column_tags(&ds, i)[w]);

    const char *upos[] = {"X", "Y", "Z"}, *lemmas[] = {"a", NULL, "c"};
    const char *const *values[QKV_TAG_FIELD_COUNT] = {0};
    values[QKV_TAG_UPOS] = upos, values[QKV_TAG_LEMMA] = lemmas;
    char *out = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&out, &len);
    assert_int_equal(qkv_corpus_write_fields(&c, f, values, &err), QKV_OK);
    fclose(f);
    assert_string_equal(out, "1\tCats\ta\tX\tNNS\tNumber=Plur\t_\t_\t_\t_\n"
                             "2\tsleep\tsleep\tY\tVBP\t_\t_\t_\t_\t_\n"
                             "3\there\tc\tZ\tRB\t_\t_\t_\t_\t_\n\n");
    free(out);
    qkv_batch_free(&b);
    qkv_batch_plan_free(&plan);
    qkv_dataset_free(&ds);
    qkv_featurizer_free(&fz);
    qkv_corpus_free(&c);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_columns_to_batches),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
