/* The whole UD English-EWT train and dev files, from the folder named by QKV_EWT_DIR: exact
 * counts, the byte-for-byte round trip of dev (as read, and read back from a gzip-compressed
 * copy), one epoch's batch plan of train, the features of dev. Without QKV_EWT_DIR the program
 * says so and exits 77 (ctest: skipped); a set QKV_EWT_DIR without the files fails. */
#include "testutil.h"

#include <unistd.h>

#include "corpus_checks.h"

static const char *ewt_path(char *buf, size_t size, const char *file)
{
    snprintf(buf, size, "%s/%s", getenv("QKV_EWT_DIR"), file);
    return buf;
}

static void test_ewt_counts(void **state)
{
    (void)state;
    char path[4096];
    qkv_corpus c = read_ok(ewt_path(path, sizeof path, "en_ewt-ud-train.conllu"), NULL);
    assert_counts(&c, 12544, 204577, 2614, 37);
    qkv_corpus_free(&c);
    c = read_ok(ewt_path(path, sizeof path, "en_ewt-ud-dev.conllu"), NULL);
    assert_counts(&c, 2001, 25147, 359, 4);
    qkv_corpus_free(&c);
}

/* en_ewt-ud-dev.conllu read and written back is the file byte for byte, compared with an
 * independent read of the file (not the corpus's own copy); so is a gzip-compressed copy of it
 * read through zlib. */
static void test_ewt_dev_round_trip(void **state)
{
    (void)state;
    char path[4096];
    ewt_path(path, sizeof path, "en_ewt-ud-dev.conllu");
    FILE *f = fopen(path, "rb");
    assert_non_null(f);
    fseek(f, 0, SEEK_END);
    long size = ftell(f);
    fseek(f, 0, SEEK_SET);
    char *want = malloc((size_t)size);
    assert_int_equal(fread(want, 1, (size_t)size, f), (size_t)size);
    fclose(f);
    assert_int_equal(size, 1805545);
    qkv_corpus c = read_ok(path, NULL);
    assert_round_trip_own_tags(&c, want, (size_t)size);
    qkv_corpus_free(&c);

    char dir[] = "/tmp/qkv-ewt-gz-XXXXXX", gz[4200], cmd[8400];
    assert_non_null(mkdtemp(dir));
    snprintf(gz, sizeof gz, "%s/dev.conllu.gz", dir);
    snprintf(cmd, sizeof cmd, "gzip -c '%s' >'%s'", path, gz);
    assert_int_equal(system(cmd), 0);
    c = read_ok(gz, NULL);
    assert_counts(&c, 2001, 25147, 359, 4);
    assert_round_trip_own_tags(&c, want, (size_t)size);
    qkv_corpus_free(&c);
    unlink(gz);
    rmdir(dir);
    free(want);
}

/* 12,544 sentences and 204,577 words, each exactly once per epoch. */
static void test_ewt_epoch(void **state)
{
    (void)state;
    char path[4096];
    check_epoch(ewt_path(path, sizeof path, "en_ewt-ud-train.conllu"), 12544, 204577);
}

static void test_ewt_featurizer(void **state)
{
    (void)state;
    char tpath[4096], dpath[4096];
    check_featurizer(ewt_path(tpath, sizeof tpath, "en_ewt-ud-train.conllu"),
                     ewt_path(dpath, sizeof dpath, "en_ewt-ud-dev.conllu"), 25147);
}

int main(void)
{
    const char *dir = getenv("QKV_EWT_DIR");
    if (!dir || !*dir) {
        printf("skipped: QKV_EWT_DIR is not set (the UD English-EWT folder; data/fetch-ud.sh "
               "UD_English-EWT DIR fetches it)\n");
        return 77;
    }
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_ewt_counts),
        cmocka_unit_test(test_ewt_dev_round_trip),
        cmocka_unit_test(test_ewt_epoch),
        cmocka_unit_test(test_ewt_featurizer),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
