/* TensorBoard event files (train/tfevents.h): CRC-32C against the published test vectors
 * (RFC 3720 appendix B.4, and the check value of "123456789"), TFRecord framing, a scalar
 * Event's bytes written out by hand from the protobuf wire format, and a file as written. */
#define _GNU_SOURCE /* memmem */
#include "testutil.h"

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "train/crc32c.h"
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
    assert_int_equal(qkv_tfevents_close(&tb, &err), QKV_OK);
    FILE *f = fopen(tb.path, "rb");
    assert_non_null(f);
    unsigned char buf[256];
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
        else
            assert_non_null(memmem(buf + at + 12, len, "train/loss", 10));
        at += 16 + len;
        records++;
    }
    assert_int_equal(at, n);
    assert_int_equal(records, 2);
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
        cmocka_unit_test(test_file),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
