#include "train/png_info.h"

#include <stdbool.h>
#include <stdint.h>
#include <string.h>

static uint32_t be32(const unsigned char *p)
{
    return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

/* Whether a tRNS chunk comes after IHDR (at byte at) and before IDAT. -1: chunks cut short. */
static int has_trns(const unsigned char *png, size_t n, size_t at)
{
    while (at + 8 <= n) {
        uint32_t len = be32(png + at);
        const unsigned char *type = png + at + 4;
        if (!memcmp(type, "tRNS", 4))
            return 1;
        if (!memcmp(type, "IDAT", 4) || !memcmp(type, "IEND", 4))
            return 0;
        if (len > n - at - 8 || n - at - 8 - len < 4)
            return -1;
        at += 12 + (size_t)len;
    }
    return -1;
}

int qkv_png_info_read(const unsigned char *png, size_t n, const char *what, qkv_png_info *info, qkv_error *err)
{
    static const unsigned char SIGNATURE[8] = {0x89, 'P', 'N', 'G', '\r', '\n', 0x1a, '\n'};
    if (n < 8 || memcmp(png, SIGNATURE, 8) != 0)
        return qkv_fail(err, "%s: not a PNG image (no PNG signature)", what);
    /* IHDR: length 13, then width, height, bit depth, colour type, ... and its CRC */
    if (n < 8 + 8 + 13 + 4 || be32(png + 8) != 13 || memcmp(png + 12, "IHDR", 4) != 0)
        return qkv_fail(err, "%s: a PNG without its IHDR chunk first", what);
    uint32_t w = be32(png + 16), h = be32(png + 20);
    if (w == 0 || h == 0 || w > INT32_MAX || h > INT32_MAX)
        return qkv_fail(err, "%s: a PNG of %u x %u pixels", what, (unsigned)w, (unsigned)h);
    int type = png[25];
    int trns = has_trns(png, n, 8 + 8 + 13 + 4);
    if (trns < 0)
        return qkv_fail(err, "%s: a PNG cut short before its image data", what);
    int colorspace;
    switch (type) {
    case 0: colorspace = trns ? 2 : 1; break; /* grey */
    case 2: colorspace = trns ? 4 : 3; break; /* RGB */
    case 3: colorspace = trns ? 4 : 3; break; /* palette of RGB entries */
    case 4: colorspace = 2; break;            /* grey + alpha */
    case 6: colorspace = 4; break;            /* RGBA */
    default: return qkv_fail(err, "%s: a PNG of the unknown colour type %d", what, type);
    }
    *info = (qkv_png_info){(int)w, (int)h, colorspace};
    return QKV_OK;
}
