/* TensorBoard event files (train/tfevents.h): CRC-32C against the published test vectors
 * (RFC 3720 appendix B.4, and the check value of "123456789"), TFRecord framing, a scalar and
 * an image Event's bytes written out by hand from the protobuf wire format, a PNG's size and
 * colorspace from its header (train/png_info.h), and a file as written. */
#define _GNU_SOURCE /* memmem */
#include "testutil.h"

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "train/crc32c.h"
#include "train/png_info.h"
#include "train/tfevents.h"

static void test_crc32c_published_vectors(void **state)
{
    (void)state;
    assert_int_equal(qkv_crc32c(0, "123456789", 9), 0xE3069283u);
    unsigned char buf[32];
    memset(buf, 0, sizeof buf); /* RFC 3720 B.4: 32 bytes of zeros */
    assert_int_equal(qkv_crc32c(0, buf, 32), 0x8A9136AAu);
    memset(buf, 0xff, sizeof buf); /* 32 bytes of ones */
    assert_int_equal(qkv_crc32c(0, buf, 32), 0x62A8AB43u);
    for (int i = 0; i < 32; i++) /* incrementing 0x00..0x1f */
        buf[i] = (unsigned char)i;
    assert_int_equal(qkv_crc32c(0, buf, 32), 0x46DD794Eu);
    for (int i = 0; i < 32; i++) /* decrementing 0x1f..0x00 */
        buf[i] = (unsigned char)(31 - i);
    assert_int_equal(qkv_crc32c(0, buf, 32), 0x113FDB5Cu);
    /* chained over pieces: the same as at once */
    assert_int_equal(qkv_crc32c(qkv_crc32c(0, "1234", 4), "56789", 5), 0xE3069283u);
    assert_int_equal(qkv_crc32c(0, "", 0), 0u);
}

static uint32_t mask(uint32_t crc) { return ((crc >> 15) | (crc << 17)) + 0xa282ead8u; }

static uint32_t le32(const unsigned char *p) { return p[0] | p[1] << 8 | p[2] << 16 | (uint32_t)p[3] << 24; }

static void test_masked_crc(void **state)
{
    (void)state;
    /* 0xE3069283: rotated right by 15 is 0x2507C60D, plus 0xa282ead8 */
    assert_int_equal(qkv_crc32c_masked("123456789", 9), 0xC78AB0E5u);
    assert_int_equal(qkv_crc32c_masked("abc", 3), mask(qkv_crc32c(0, "abc", 3)));
}

static void test_record_framing(void **state)
{
    (void)state;
    unsigned char out[64];
    memset(out, 0xAA, sizeof out);
    qkv_tfrecord_frame("hello", 5, out);
    static const unsigned char len[8] = {5, 0, 0, 0, 0, 0, 0, 0}; /* uint64 little-endian */
    assert_memory_equal(out, len, 8);
    assert_int_equal(le32(out + 8), mask(qkv_crc32c(0, len, 8)));
    assert_memory_equal(out + 12, "hello", 5);
    assert_int_equal(le32(out + 17), mask(qkv_crc32c(0, "hello", 5)));
    assert_int_equal(out[21], 0xAA); /* 5 + 16 bytes, nothing more */
}

static void test_scalar_event_bytes(void **state)
{
    (void)state;
    /* Event {wall_time: 1.5, step: 300, summary {value {tag: "a", simple_value: 0.25}}} */
    static const unsigned char want[] = {
        0x09, 0, 0, 0, 0, 0, 0, 0xF8, 0x3F, /* field 1, fixed64: 1.5 = 0x3FF8000000000000 */
        0x10, 0xAC, 0x02,                   /* field 2, varint: 300 */
        0x2A, 10,                           /* field 5 (summary), 10 bytes */
        0x0A, 8,                            /*   Summary.value (1), 8 bytes */
        0x0A, 1, 'a',                       /*     Value.tag (1) */
        0x15, 0, 0, 0x80, 0x3E,             /*     Value.simple_value (2), fixed32: 0.25 */
    };
    unsigned char out[64];
    size_t n = qkv_tfevents_encode_scalar(1.5, 300, "a", 0.25f, out, sizeof out);
    assert_int_equal(n, sizeof want);
    assert_memory_equal(out, want, sizeof want);
    assert_int_equal(qkv_tfevents_encode_scalar(1.5, 300, "a", 0.25f, out, 10), 0); /* too small */
}

static void test_image_event_bytes(void **state)
{
    (void)state;
    /* Event {wall_time: 1.5, step: 300, summary {value {tag: "a", image {height: 2, width: 3,
       colorspace: 3, encoded_image_string: "PNG"}}}} */
    static const unsigned char want[] = {
        0x09, 0, 0, 0, 0, 0, 0, 0xF8, 0x3F, /* field 1, fixed64: 1.5 */
        0x10, 0xAC, 0x02,                   /* field 2, varint: 300 */
        0x2A, 18,                           /* field 5 (summary), 18 bytes */
        0x0A, 16,                           /*   Summary.value (1), 16 bytes */
        0x0A, 1, 'a',                       /*     Value.tag (1) */
        0x22, 11,                           /*     Value.image (4), 11 bytes */
        0x08, 2,                            /*       Image.height (1), varint */
        0x10, 3,                            /*       Image.width (2) */
        0x18, 3,                            /*       Image.colorspace (3): RGB */
        0x22, 3, 'P', 'N', 'G',             /*       Image.encoded_image_string (4) */
    };
    unsigned char out[64];
    qkv_png_info info = {3, 2, 3};
    size_t n = qkv_tfevents_encode_image(1.5, 300, "a", &info, "PNG", 3, out, sizeof out);
    assert_int_equal(n, sizeof want);
    assert_memory_equal(out, want, sizeof want);
    assert_int_equal(qkv_tfevents_encode_image(1.5, 300, "a", &info, "PNG", 3, out, sizeof want - 1), 0);
    /* a PNG of 200 bytes: the image's and the enclosing lengths take two-byte varints */
    unsigned char png[200], big[300];
    memset(png, 7, sizeof png);
    n = qkv_tfevents_encode_image(1.5, 300, "a", &info, png, sizeof png, big, sizeof big);
    static const unsigned char len200[] = {0x22, 0xC8, 0x01}; /* field 4, 200 = 0xC8 0x01 */
    assert_int_equal(n, 12 + 3 + 3 + 3 + 3 + 6 + 3 + 200);
    assert_memory_equal(big + n - 203, len200, 3);
    assert_memory_equal(big + n - 200, png, 200);
}

/* A PNG of w x h pixels of colour type: signature, IHDR (its CRC not checked), then a chunk
 * of type extra (tRNS, or none: NULL) and IDAT; its length. */
static size_t fake_png(unsigned char *p, uint32_t w, uint32_t h, int type, const char *extra)
{
    static const unsigned char sig[8] = {0x89, 'P', 'N', 'G', '\r', '\n', 0x1a, '\n'};
    size_t n = 0;
    memcpy(p, sig, 8);
    n = 8;
    unsigned char ihdr[25] = {0, 0, 0, 13, 'I', 'H', 'D', 'R'};
    for (int k = 0; k < 4; k++)
        ihdr[8 + k] = (unsigned char)(w >> (24 - 8 * k)), ihdr[12 + k] = (unsigned char)(h >> (24 - 8 * k));
    ihdr[16] = 8;
    ihdr[17] = (unsigned char)type;
    memcpy(p + n, ihdr, 25);
    n += 25;
    if (extra) { /* a chunk of 2 data bytes */
        memcpy(p + n, "\0\0\0\2", 4);
        memcpy(p + n + 4, extra, 4);
        memset(p + n + 8, 0, 6);
        n += 14;
    }
    memcpy(p + n, "\0\0\0\0IDAT\0\0\0\0", 12);
    return n + 12;
}

static void test_png_info(void **state)
{
    (void)state;
    unsigned char p[128];
    qkv_png_info info;
    qkv_error err;
    static const struct { int type; const char *extra; int colorspace; } CASES[] = {
        {0, NULL, 1}, {0, "tRNS", 2}, {2, NULL, 3}, {2, "tRNS", 4}, {3, "PLTE", 3},
        {3, "tRNS", 4}, {4, NULL, 2}, {6, NULL, 4}, {6, "tEXt", 4},
    };
    for (size_t i = 0; i < sizeof CASES / sizeof CASES[0]; i++) {
        size_t n = fake_png(p, 918, 417, CASES[i].type, CASES[i].extra);
        assert_int_equal(qkv_png_info_read(p, n, "x.png", &info, &err), QKV_OK);
        assert_int_equal(info.width, 918);
        assert_int_equal(info.height, 417);
        assert_int_equal(info.colorspace, CASES[i].colorspace);
    }
    size_t n = fake_png(p, 918, 417, 5, NULL);
    assert_int_equal(qkv_png_info_read(p, n, "x.png", &info, &err), QKV_ERR);
    assert_string_equal(err.msg, "x.png: a PNG of the unknown colour type 5");
    n = fake_png(p, 0, 417, 2, NULL);
    assert_int_equal(qkv_png_info_read(p, n, "x.png", &info, &err), QKV_ERR);
    assert_string_equal(err.msg, "x.png: a PNG of 0 x 417 pixels");
    n = fake_png(p, 918, 417, 2, "tEXt");
    assert_int_equal(qkv_png_info_read(p, n - 12, "x.png", &info, &err), QKV_ERR); /* no IDAT */
    assert_string_equal(err.msg, "x.png: a PNG cut short before its image data");
    assert_int_equal(qkv_png_info_read((const unsigned char *)"GIF89a......", 12, "x.gif", &info, &err), QKV_ERR);
    assert_string_equal(err.msg, "x.gif: not a PNG image (no PNG signature)");
    memcpy(p + 12, "IDAT", 4);
    assert_int_equal(qkv_png_info_read(p, n, "x.png", &info, &err), QKV_ERR);
    assert_string_equal(err.msg, "x.png: a PNG without its IHDR chunk first");
}

/* The file: named events.out.tfevents.<seconds>.<host>, its records framed with valid CRCs,
 * the first one the file_version Event, then the scalars (a nan left out). */
static void test_file(void **state)
{
    (void)state;
    char dir[] = "/tmp/qkv_tfevents_XXXXXX";
    assert_non_null(mkdtemp(dir));
    qkv_tfevents tb;
    qkv_error err;
    assert_int_equal(qkv_tfevents_open(&tb, dir, -1, &err), QKV_OK);
    assert_non_null(strstr(tb.path, "/events.out.tfevents."));
    qkv_tfevents_scalar(&tb, "train/loss", 7, 2.5);
    qkv_tfevents_scalar(&tb, "dev/las", 7, 0.0 / 0.0);
    /* an image: the PNG's bytes; a file that is not a PNG, or none: an error, nothing written */
    char png_path[64], text_path[64];
    snprintf(png_path, sizeof png_path, "%s/a.png", dir);
    snprintf(text_path, sizeof text_path, "%s/a.txt", dir);
    unsigned char png[128];
    size_t png_n = fake_png(png, 5, 4, 6, NULL);
    FILE *f = fopen(png_path, "wb");
    assert_non_null(f);
    fwrite(png, 1, png_n, f);
    fclose(f);
    f = fopen(text_path, "wb");
    assert_non_null(f);
    fputs("not a picture", f);
    fclose(f);
    assert_int_equal(qkv_tfevents_image(&tb, "plots/attention", 7, png_path, &err), QKV_OK);
    assert_int_equal(qkv_tfevents_image(&tb, "plots/attention", 8, text_path, &err), QKV_ERR);
    assert_non_null(strstr(err.msg, "a.txt: not a PNG image"));
    assert_int_equal(qkv_tfevents_image(&tb, "plots/attention", 8, "/nonexistent/a.png", &err), QKV_ERR);
    assert_string_equal(err.msg, "/nonexistent/a.png: cannot read: No such file or directory");
    assert_int_equal(qkv_tfevents_close(&tb, &err), QKV_OK);
    f = fopen(tb.path, "rb");
    assert_non_null(f);
    unsigned char buf[512];
    size_t n = fread(buf, 1, sizeof buf, f);
    fclose(f);
    size_t at = 0;
    int records = 0;
    while (at + 12 <= n) {
        size_t len = le32(buf + at);
        assert_int_equal(le32(buf + at + 8), mask(qkv_crc32c(0, buf + at, 8)));
        assert_true(at + 16 + len <= n);
        assert_int_equal(le32(buf + at + 12 + len), mask(qkv_crc32c(0, buf + at + 12, len)));
        if (records == 0) /* ... field 3: "brain.Event:2" */
            assert_memory_equal(buf + at + 12 + len - 15, "\x1a\x0d" "brain.Event:2", 15);
        else if (records == 1)
            assert_non_null(memmem(buf + at + 12, len, "train/loss", 10));
        else /* the PNG's bytes end the Event */
            assert_memory_equal(buf + at + 12 + len - png_n, png, png_n);
        at += 16 + len;
        records++;
    }
    assert_int_equal(at, n);
    assert_int_equal(records, 3);
    unlink(png_path);
    unlink(text_path);
    unlink(tb.path);
    rmdir(dir);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_crc32c_published_vectors),
        cmocka_unit_test(test_masked_crc),
        cmocka_unit_test(test_record_framing),
        cmocka_unit_test(test_scalar_event_bytes),
        cmocka_unit_test(test_image_event_bytes),
        cmocka_unit_test(test_png_info),
        cmocka_unit_test(test_file),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
