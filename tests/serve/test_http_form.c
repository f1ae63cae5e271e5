/* The HTTP layer's parsing without a server (train/http/http_form.h, http_buf.h): query and
 * urlencoded pairs, multipart/form-data bodies as curl and Python's email package write them,
 * the malformed ones refused with 400 or 415, and JSON strings. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <string.h>

#include "train/http/http_buf.h"
#include "train/http/http_form.h"

static void assert_param(const qkv_http_params *p, const char *name, const char *value, size_t len)
{
    const qkv_http_param *q = qkv_http_param_get(p, name);
    assert_non_null(q);
    assert_int_equal(q->value_len, len);
    assert_memory_equal(q->value, value, len);
}

static void test_urlencoded(void **state)
{
    (void)state;
    qkv_http_params p = {0};
    char msg[256];
    const char *s = "data=a+b%21%0Ac&tagger=&model=en&&flag&data2=%00x";
    assert_int_equal(qkv_http_parse_urlencoded(&p, s, strlen(s), msg, sizeof msg), 0);
    assert_param(&p, "data", "a b!\nc", 6);
    assert_param(&p, "tagger", "", 0);
    assert_param(&p, "flag", "", 0);
    assert_param(&p, "data2", "\0x", 2); /* a NUL byte is kept, for the caller to refuse */
    assert_int_equal(p.n, 5);
    /* a later value replaces an earlier one */
    assert_int_equal(qkv_http_parse_urlencoded(&p, "model=de", 8, msg, sizeof msg), 0);
    assert_param(&p, "model", "de", 2);
    assert_int_equal(qkv_http_parse_urlencoded(&p, "data=%2", 7, msg, sizeof msg), 400);
    assert_int_equal(qkv_http_parse_urlencoded(&p, "data=%zz", 8, msg, sizeof msg), 400);
    assert_non_null(strstr(msg, "two hex digits"));
    /* the message shows the pair, and no byte after the n given (none of them a NUL) */
    assert_int_equal(qkv_http_parse_urlencoded(&p, "a=1&data=%2&rest", 11, msg, sizeof msg), 400);
    assert_non_null(strstr(msg, "in \"data=%2\""));
    assert_int_equal(qkv_http_parse_urlencoded(&p, "data=%2rest", 7, msg, sizeof msg), 400);
    assert_non_null(strstr(msg, "in \"data=%2\""));
    qkv_http_params_free(&p);
}

/* A body as Python's email package (UDPipe's client) writes it: MIME-Version and Content-Type
 * headers in each part, Content-Transfer-Encoding 8bit, CRLF lines. */
static void test_multipart(void **state)
{
    (void)state;
    qkv_http_params p = {0};
    char msg[256];
    const char *ct = "multipart/form-data; boundary=\"===============123==\"";
    const char *body = "--===============123==\r\n"
                       "MIME-Version: 1.0\r\n"
                       "Content-Disposition: form-data; name=\"data\"\r\n"
                       "Content-Transfer-Encoding: 8bit\r\n"
                       "Content-Type: text/plain; charset=\"utf-8\"\r\n\r\n"
                       "caf\xc3\xa9\r\n--x\r\n\r\n"
                       "--===============123==\r\n"
                       "content-disposition: form-data; name=tagger\r\n\r\n"
                       "\r\n"
                       "--===============123==--\r\n";
    assert_int_equal(qkv_http_parse_body(&p, ct, body, strlen(body), msg, sizeof msg), 0);
    assert_param(&p, "data", "caf\xc3\xa9\r\n--x\r\n", 12);
    assert_param(&p, "tagger", "", 0);
    qkv_http_params_free(&p);
}

static void test_multipart_malformed(void **state)
{
    (void)state;
    char msg[256];
    struct {
        const char *ct, *body;
        int status;
    } bad[] = {
        {"multipart/form-data", "--b\r\n\r\nx\r\n--b--", 400},                                        /* no boundary */
        {"multipart/form-data; boundary=b", "nothing here", 400},                                    /* no delimiter */
        {"multipart/form-data; boundary=b", "--b\r\nContent-Disposition: form-data; name=\"a\"\r\n\r\nx", 400}, /* no end */
        {"multipart/form-data; boundary=b", "--b\r\nContent-Disposition: form-data; name=\"a\"", 400}, /* headers */
        {"multipart/form-data; boundary=b", "--b\r\nContent-Type: text/plain\r\n\r\nx\r\n--b--", 400}, /* no name */
        {"multipart/form-data; boundary=b", "--b\r\nno colon\r\n\r\nx\r\n--b--", 400},
        {"multipart/form-data; boundary=b",
         "--b\r\nContent-Disposition: form-data; name=\"a\"\r\nContent-Transfer-Encoding: base64\r\n\r\neA==\r\n--b--",
         415},
        {"text/plain", "hello", 415},
        {NULL, "hello", 415},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        qkv_http_params p = {0};
        msg[0] = '\0';
        assert_int_equal(qkv_http_parse_body(&p, bad[i].ct, bad[i].body, strlen(bad[i].body), msg, sizeof msg),
                         bad[i].status);
        assert_true(msg[0] != '\0');
        qkv_http_params_free(&p);
    }
    qkv_http_params p = {0};
    assert_int_equal(qkv_http_parse_body(&p, "text/plain", "", 0, msg, sizeof msg), 0); /* no body: nothing */
    assert_int_equal(p.n, 0);
}

static void test_json_string(void **state)
{
    (void)state;
    qkv_buf b = {0};
    qkv_buf_json_string(&b, "a\"b\\c\n\t\x01\xc3\xa9", 10);
    assert_false(b.failed);
    assert_string_equal(b.data, "\"a\\\"b\\\\c\\n\\t\\u0001\xc3\xa9\"");
    qkv_buf_addf(&b, " %d", 42);
    assert_string_equal(b.data + b.len - 3, " 42");
    qkv_buf_free(&b);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_urlencoded),
        cmocka_unit_test(test_multipart),
        cmocka_unit_test(test_multipart_malformed),
        cmocka_unit_test(test_json_string),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
