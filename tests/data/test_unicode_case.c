/* Lowercasing and word shapes of every script (data/utf8.c through libunistring): one
 * upper/lower pair per script for the "lower" feature, the affixes and the shape; the special
 * mappings (ẞ, İ, final sigma, title-case digraphs); and, for every code point, that the
 * lowercase fits the room the callers give it and is what libunistring's u8_tolower gives. */
#include "feature_check.h"

#include <unicase.h>

#include "data/features.h"
#include "data/utf8.h"

/* One pair per script of the requirements, and a few more cased scripts. */
static const char *const PAIRS[][2] = {
    {"Ș", "ș"}, {"Ț", "ț"}, /* Romanian: Latin with comma below */
    {"Ґ", "ґ"},             /* Ukrainian: Cyrillic */
    {"Έ", "έ"}, {"Ό", "ό"}, /* Greek with tonos */
    {"Ệ", "ệ"}, {"Ư", "ư"}, {"Ờ", "ờ"}, /* Vietnamese */
    {"ẞ", "ß"},             /* German capital sharp s */
    {"Ǆ", "ǆ"},             /* Latin digraph (upper case) */
    {"Ա", "ա"},             /* Armenian */
    {"Ა", "ა"},             /* Georgian Mtavruli */
    {"Ꭰ", "ꭰ"},             /* Cherokee */
    {"𐐀", "𐐨"},            /* Deseret: 4 bytes */
    {"Ⱥ", "ⱥ"},             /* 2 bytes whose lowercase takes 3 */
};

static void test_one_pair_per_script(void **state)
{
    (void)state;
    for (size_t i = 0; i < sizeof PAIRS / sizeof PAIRS[0]; i++) {
        const char *up = PAIRS[i][0], *lo = PAIRS[i][1];
        assert_feature(QKV_FEAT_LOWER, 0, up, lo);
        assert_feature(QKV_FEAT_LOWER, 0, lo, lo);
        assert_feature(QKV_FEAT_PREFIX, 1, up, lo);
        assert_feature(QKV_FEAT_SUFFIX, 1, up, lo);
        assert_feature(QKV_FEAT_SHAPE, 0, up, "X");
        assert_feature(QKV_FEAT_SHAPE, 0, lo, "x");
    }
}

static void test_words(void **state)
{
    (void)state;
    assert_feature(QKV_FEAT_LOWER, 0, "ȘTEFAN", "ștefan");
    assert_feature(QKV_FEAT_LOWER, 0, "ҐАНОК", "ґанок");
    assert_feature(QKV_FEAT_LOWER, 0, "ΈΛΑ", "έλα");
    assert_feature(QKV_FEAT_LOWER, 0, "ΟΔΟΣ", "οδος");  /* final sigma at the end of a word */
    assert_feature(QKV_FEAT_LOWER, 0, "ΣΟΦΟΣ", "σοφος"); /* and not elsewhere */
    assert_feature(QKV_FEAT_LOWER, 0, "VIỆT", "việt");
    assert_feature(QKV_FEAT_LOWER, 0, "STRAẞE", "straße");
    assert_feature(QKV_FEAT_LOWER, 0, "ǅUNGLA", "ǆungla"); /* title case maps to lower case too */
    assert_feature(QKV_FEAT_LOWER, 0, "İSTANBUL", "i̇stanbul"); /* i + U+0307, no Turkish tailoring */
    assert_feature(QKV_FEAT_LOWER, 0, "ՀԱՅԵՐԵՆ", "հայերեն");
    assert_feature(QKV_FEAT_SUFFIX, 2, "ȘTEFAN", "an");
    assert_feature(QKV_FEAT_PREFIX, 2, "ΈΛΑ", "έλ");
    assert_feature(QKV_FEAT_PREFIX, 2, "İS", "i̇"); /* two code points: i and the dot */
    const char *shapes[][2] = {
        {"Ștefan", "Xxxxx"}, {"ŢARĂ", "XXXX"},   {"Ґрунт", "Xxxxx"}, {"Έλα", "Xxx"},
        {"Việt", "Xxxx"},    {"ǅungla", "Xxxxx"}, {"Ǆ", "X"},        {"ǅ", "X"},
        {"ǆ", "x"},          {"Հայ", "Xxx"},     {"ẞ", "X"},         {"ß", "x"},
        /* letters without case are x; decimal digits of every script are d */
        {"日本", "xx"},      {"שלום", "xxxx"},   {"٣٤", "dd"},       {"१९४७", "dddd"},
        {"Ⅻ", "X"},          {"ⅻ", "x"},         {"²", "²"},         {"—", "—"},
    };
    for (size_t i = 0; i < sizeof shapes / sizeof shapes[0]; i++)
        assert_feature(QKV_FEAT_SHAPE, 0, shapes[i][0], shapes[i][1]);
}

/* Every code point: qkv_utf8_lower gives libunistring's full lowercase (not the fallback that
 * keeps a word that would not fit) within QKV_UTF8_LOWER_ROOM, and the shape class says X
 * exactly when the lowercase differs. */
static void test_every_code_point(void **state)
{
    (void)state;
    int grow = 0;
    for (uint32_t cp = 1; cp <= 0x10FFFF; cp++) {
        if (cp >= 0xD800 && cp <= 0xDFFF)
            continue;
        char in[4], out[QKV_UTF8_LOWER_ROOM(4)];
        uint8_t ref[32];
        int n = qkv_utf8_encode(cp, in);
        size_t got = qkv_utf8_lower(in, (size_t)n, out);
        size_t ref_len = sizeof ref;
        uint8_t *r = u8_tolower((const uint8_t *)in, (size_t)n, NULL, NULL, ref, &ref_len);
        assert_ptr_equal(r, ref);
        if (ref_len > QKV_UTF8_LOWER_ROOM(n) - 1)
            fail_msg("U+%04X lowercases to %zu bytes, more than the room of %zu", (unsigned)cp, ref_len,
                     QKV_UTF8_LOWER_ROOM(n) - 1);
        if (got != ref_len || memcmp(out, ref, got) != 0 || out[got] != '\0')
            fail_msg("U+%04X: qkv_utf8_lower differs from u8_tolower", (unsigned)cp);
        grow += got > (size_t)n;
        int changes = got != (size_t)n || memcmp(out, in, got) != 0;
        if (changes != (qkv_utf8_shape_class(cp) == 'X'))
            fail_msg("U+%04X: lowercase %s, shape class '%c'", (unsigned)cp, changes ? "differs" : "is the same",
                     qkv_utf8_shape_class(cp) ? qkv_utf8_shape_class(cp) : '0');
    }
    print_message("    %d code points have a longer lowercase (bytes)\n", grow);
    assert_true(grow >= 3); /* U+0130, U+023A, U+023E */
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_one_pair_per_script),
        cmocka_unit_test(test_words),
        cmocka_unit_test(test_every_code_point),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
