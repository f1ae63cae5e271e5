#include "data/utf8.h"

size_t qkv_utf8_check(const char *str, size_t len)
{
    const unsigned char *s = (const unsigned char *)str;
    size_t i = 0;
    while (i < len) {
        unsigned c = s[i];
        if (c >= 0x01 && c < 0x80) {
            i++;
            continue;
        }
        int n;
        uint32_t cp, min;
        if (c >= 0xC2 && c <= 0xDF) {
            n = 2; cp = c & 0x1F; min = 0x80;
        } else if (c >= 0xE0 && c <= 0xEF) {
            n = 3; cp = c & 0x0F; min = 0x800;
        } else if (c >= 0xF0 && c <= 0xF4) {
            n = 4; cp = c & 0x07; min = 0x10000;
        } else {
            return i; /* NUL, continuation byte, 0xC0/0xC1 or 0xF5..0xFF */
        }
        if (len - i < (size_t)n)
            return i;
        for (int k = 1; k < n; k++) {
            if ((s[i + k] & 0xC0) != 0x80)
                return i;
            cp = (cp << 6) | (s[i + k] & 0x3F);
        }
        if (cp < min || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF))
            return i;
        i += (size_t)n;
    }
    return len;
}

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

/* Every mapping below keeps the UTF-8 byte length or shortens it: ASCII -> ASCII, U+00C0..
 * U+017F -> U+00E0..U+017F (2 bytes), Greek and Cyrillic capitals -> their small letters
 * (2 bytes). */
uint32_t qkv_utf8_to_lower(uint32_t cp)
{
    if (cp >= 'A' && cp <= 'Z')
        return cp + 32;
    if (cp < 0xC0)
        return cp;
    if (cp <= 0xDE)
        return cp == 0xD7 ? cp : cp + 32;
    if (cp >= 0x100 && cp <= 0x137) /* Latin Extended-A, even = capital (except U+0130) */
        return (cp % 2 == 0 && cp != 0x130) ? cp + 1 : cp;
    if (cp >= 0x139 && cp <= 0x148)
        return cp % 2 == 1 ? cp + 1 : cp;
    if (cp >= 0x14A && cp <= 0x177)
        return cp % 2 == 0 ? cp + 1 : cp;
    if (cp == 0x178)
        return 0xFF;
    if (cp >= 0x179 && cp <= 0x17E)
        return cp % 2 == 1 ? cp + 1 : cp;
    if (cp >= 0x391 && cp <= 0x3AB && cp != 0x3A2)
        return cp + 32;
    if (cp >= 0x410 && cp <= 0x42F)
        return cp + 32;
    if (cp >= 0x400 && cp <= 0x40F)
        return cp + 80;
    return cp;
}

int qkv_utf8_is_lower(uint32_t cp)
{
    if (cp >= 'a' && cp <= 'z')
        return 1;
    if (cp >= 0xDF && cp <= 0xFF && cp != 0xF7)
        return 1;
    if (cp >= 0x100 && cp <= 0x17F)
        return qkv_utf8_to_lower(cp) == cp && cp != 0x130;
    if (cp >= 0x3AC && cp <= 0x3CE)
        return 1;
    if (cp >= 0x430 && cp <= 0x45F)
        return 1;
    return 0;
}

size_t qkv_utf8_lower(const char *s, size_t len, char *out)
{
    size_t i = 0, o = 0;
    while (i < len) {
        int n;
        uint32_t cp = qkv_utf8_decode(s + i, len - i, &n);
        uint32_t lo = qkv_utf8_to_lower(cp);
        if (lo == cp) {
            for (int k = 0; k < n; k++)
                out[o++] = s[i + k];
        } else {
            o += (size_t)qkv_utf8_encode(lo, out + o);
        }
        i += (size_t)n;
    }
    out[o] = '\0';
    return o;
}
