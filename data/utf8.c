#include "data/utf8.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unicase.h>
#include <unictype.h>

uint32_t qkv_utf8_decode(const char *str, size_t len, int *n)
{
    const unsigned char *s = (const unsigned char *)str;
    unsigned c = s[0];
    int k = c < 0x80 ? 1 : c < 0xE0 ? 2 : c < 0xF0 ? 3 : 4;
    if ((size_t)k > len)
        k = (int)len;
    uint32_t cp = k == 1 ? c : k == 2 ? (c & 0x1F) : k == 3 ? (c & 0x0F) : (c & 0x07);
    for (int i = 1; i < k; i++)
        cp = (cp << 6) | (s[i] & 0x3F);
    *n = k;
    return cp;
}

int qkv_utf8_encode(uint32_t cp, char *out)
{
    unsigned char *o = (unsigned char *)out;
    if (cp < 0x80) {
        o[0] = (unsigned char)cp;
        return 1;
    }
    if (cp < 0x800) {
        o[0] = (unsigned char)(0xC0 | (cp >> 6));
        o[1] = (unsigned char)(0x80 | (cp & 0x3F));
        return 2;
    }
    if (cp < 0x10000) {
        o[0] = (unsigned char)(0xE0 | (cp >> 12));
        o[1] = (unsigned char)(0x80 | ((cp >> 6) & 0x3F));
        o[2] = (unsigned char)(0x80 | (cp & 0x3F));
        return 3;
    }
    o[0] = (unsigned char)(0xF0 | (cp >> 18));
    o[1] = (unsigned char)(0x80 | ((cp >> 12) & 0x3F));
    o[2] = (unsigned char)(0x80 | ((cp >> 6) & 0x3F));
    o[3] = (unsigned char)(0x80 | (cp & 0x3F));
    return 4;
}

static int is_cont(unsigned char c) { return (c & 0xC0) == 0x80; }

size_t qkv_utf8_length(const char *s, size_t len)
{
    size_t n = 0;
    for (size_t i = 0; i < len; i++)
        n += !is_cont((unsigned char)s[i]);
    return n;
}

size_t qkv_utf8_prefix_bytes(const char *s, size_t len, size_t k)
{
    size_t i = 0, chars = 0;
    while (i < len) {
        if (!is_cont((unsigned char)s[i])) {
            if (chars == k)
                return i;
            chars++;
        }
        i++;
    }
    return len;
}

size_t qkv_utf8_suffix_start(const char *s, size_t len, size_t k)
{
    size_t i = len, chars = 0;
    while (i > 0 && chars < k) {
        i--;
        if (!is_cont((unsigned char)s[i]))
            chars++;
    }
    return i;
}

size_t qkv_utf8_lower(const char *s, size_t len, char *out)
{
    size_t i = 0;
    while (i < len && (unsigned char)s[i] < 0x80) /* ASCII: A-Z -> a-z is the whole mapping */
        i++;
    if (i == len) {
        for (i = 0; i < len; i++)
            out[i] = (char)(s[i] >= 'A' && s[i] <= 'Z' ? s[i] + ('a' - 'A') : s[i]);
        out[len] = '\0';
        return len;
    }
    size_t room = QKV_UTF8_LOWER_ROOM(len) - 1, n = room;
    uint8_t *r = u8_tolower((const uint8_t *)s, len, NULL, NULL, (uint8_t *)out, &n);
    if (r != (uint8_t *)out || n > room) {
        /* Not reached with the Unicode data of libunistring 1.0 (tests/data/test_unicode_case.c
         * lowercases every code point within the room). Should a later table map past it, or the
         * library run out of memory, the word is kept as written rather than cut. */
        if (r && r != (uint8_t *)out)
            free(r);
        memcpy(out, s, len);
        n = len;
    }
    out[n] = '\0';
    return n;
}

char qkv_utf8_shape_class(uint32_t cp)
{
    if (cp < 0x80) /* the same classes, without the table lookups */
        return cp >= 'A' && cp <= 'Z' ? 'X' : cp >= 'a' && cp <= 'z' ? 'x' : cp >= '0' && cp <= '9' ? 'd' : 0;
    if (uc_tolower(cp) != cp)
        return 'X';
    if (uc_is_property_lowercase(cp) || uc_is_general_category(cp, UC_CATEGORY_L))
        return 'x';
    if (uc_is_general_category(cp, UC_CATEGORY_Nd))
        return 'd';
    return 0;
}

int qkv_utf8_is_space(uint32_t cp) { return uc_is_property_white_space(cp); }

size_t qkv_utf8_blank_len(const char *s, size_t len)
{
    if (len == 0)
        return 0;
    unsigned char b = (unsigned char)s[0];
    if (b < 0x80)
        return b == ' ' || b == '\t' || b == '\r';
    int n;
    uint32_t cp = qkv_utf8_decode(s, len, &n);
    return uc_is_property_white_space(cp) && !uc_is_general_category(cp, UC_CATEGORY_Cc) ? (size_t)n : 0;
}

const char *qkv_text_line_problem(const char *s, size_t len, char *buf, size_t buf_len)
{
    size_t bad = qkv_utf8_check(s, len);
    if (bad >= len)
        return NULL;
    if (s[bad] == '\0')
        snprintf(buf, buf_len, "expected text, found a NUL byte at byte %zu of the line", bad + 1);
    else
        snprintf(buf, buf_len, "invalid UTF-8 at byte %zu of the line (byte 0x%02X); expected UTF-8 text", bad + 1,
                 (unsigned char)s[bad]);
    return buf;
}
