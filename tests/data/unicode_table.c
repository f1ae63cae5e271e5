/* A tool for tests/reference/test_unicode_port.sh: prints qkv's lowercase and word shape
 *   of every code point (U+0001..U+10FFFF without surrogates):  C <cp> <lowercase> <shape>
 *   and of each word given as an argument (context rules):     W <word> <lowercase> <shape>
 * with every string as its code points in hex joined by '.', one line each. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "data/features.h"
#include "data/utf8.h"

static void put_hex(const char *s, size_t len)
{
    for (size_t i = 0; i < len;) {
        int n;
        uint32_t cp = qkv_utf8_decode(s + i, len - i, &n);
        printf("%s%X", i ? "." : "", (unsigned)cp);
        i += (size_t)n;
    }
    if (!len)
        putchar('-');
}

static void line(char kind, const char *s, size_t len, char *buf)
{
    qkv_feature_kind lower = {.type = QKV_FEAT_LOWER}, shape = {.type = QKV_FEAT_SHAPE};
    printf("%c ", kind);
    put_hex(s, len);
    putchar(' ');
    put_hex(buf, qkv_feature_string(&lower, s, len, buf));
    putchar(' ');
    put_hex(buf, qkv_feature_string(&shape, s, len, buf));
    putchar('\n');
}

int main(int argc, char **argv)
{
    size_t room = 64;
    for (int i = 1; i < argc; i++)
        if (QKV_FEATURE_ROOM(strlen(argv[i])) > room)
            room = QKV_FEATURE_ROOM(strlen(argv[i]));
    char *buf = malloc(room), in[4];
    if (!buf)
        return 1;
    for (uint32_t cp = 1; cp <= 0x10FFFF; cp++)
        if (cp < 0xD800 || cp > 0xDFFF)
            line('C', in, (size_t)qkv_utf8_encode(cp, in), buf);
    for (int i = 1; i < argc; i++) {
        size_t len = strlen(argv[i]);
        if (qkv_utf8_check(argv[i], len) != len) {
            fprintf(stderr, "unicode_table: argument %d is not valid UTF-8\n", i);
            return 1;
        }
        line('W', argv[i], len, buf);
    }
    free(buf);
    return fflush(stdout) ? 1 : 0;
}
