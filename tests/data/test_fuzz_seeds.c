/* Runs the fuzz target's properties (fuzz_conllu.c) over every file of the seed corpus and over
 * every prefix of a few of them, with the ordinary compiler: the harness stays correct and the
 * seeds stay valid inputs even where clang and libFuzzer are missing. */
#include "testutil.h"

#include <dirent.h>

#include "fuzz_conllu.c"

static void run_file(const char *path, int prefixes)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        fail_msg("cannot open %s", path);
    uint8_t buf[1 << 16];
    size_t n = fread(buf, 1, sizeof buf, f);
    fclose(f);
    LLVMFuzzerTestOneInput(buf, n);
    for (size_t len = 0; prefixes && len < n; len++)
        LLVMFuzzerTestOneInput(buf, len);
}

static void test_seeds(void **state)
{
    (void)state;
    DIR *d = opendir("tests/data/fuzz_seeds");
    assert_non_null(d);
    int n = 0;
    struct dirent *e;
    while ((e = readdir(d))) {
        if (e->d_name[0] == '.')
            continue;
        char path[512];
        snprintf(path, sizeof path, "tests/data/fuzz_seeds/%s", e->d_name);
        run_file(path, n < 6);
        n++;
    }
    closedir(d);
    assert_true(n >= 10);
}

int main(void)
{
    const struct CMUnitTest tests[] = {cmocka_unit_test(test_seeds)};
    return cmocka_run_group_tests(tests, NULL, NULL);
}
