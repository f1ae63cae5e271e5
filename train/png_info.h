/* What a PNG file says of itself before its pixels (PNG specification, ISO/IEC 15948, 2003):
 * the 8-byte signature, then chunks (uint32 big-endian length, 4-byte type, data, CRC-32);
 * the first chunk is IHDR: width, height (uint32 big-endian, pixels), bit depth, colour type
 * (0 grey, 2 RGB, 3 palette, 4 grey + alpha, 6 RGBA), ...; a tRNS chunk before IDAT gives a
 * grey, RGB or palette image transparency. Used to describe an image summary of a TensorBoard
 * event file (train/tfevents.h), whose colorspace counts channels as TensorBoard decodes them. */
#ifndef QKV_PNG_INFO_H
#define QKV_PNG_INFO_H

#include <stddef.h>

#include "lib/error.h"

typedef struct qkv_png_info {
    int width, height; /* pixels, 1 .. 2^31 - 1 */
    int colorspace;    /* TensorBoard's Summary.Image: 1 grey, 2 grey + alpha, 3 RGB, 4 RGBA (a palette
                          is RGB, RGBA with a tRNS chunk; grey and RGB with tRNS gain an alpha) */
} qkv_png_info;

/* The size and colorspace of the PNG png[0..n) from its header chunks. Errors (err, naming
 * what): not a PNG (signature), no IHDR first, a width or height of 0 or over 2^31 - 1, an
 * unknown colour type, chunks cut short before IDAT. */
int qkv_png_info_read(const unsigned char *png, size_t n, const char *what, qkv_png_info *info, qkv_error *err);

#endif
