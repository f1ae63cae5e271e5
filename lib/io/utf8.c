/* UTF-8 validation (RFC 3629), shared by the checkpoint reader and writer and by data/. */
#include "lib/io/utf8.h"

#include <stdint.h>

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
