/* libFuzzer target for the parsers of what HTTP clients send qkv serve (train/http/http_form.h:
 * urlencoded query strings and bodies, multipart/form-data; build and run: tests/data/fuzz.sh
 * http_form). The input's first line is a Content-Type, the rest a body of that type; the whole
 * input is also parsed as a query string. Properties: the answer is 0 or one of the statuses the
 * header names, with a message; every name and value is NUL-terminated after its length; a
 * name is given once; a query string is refused exactly when a '%' is not followed by two hex
 * digits. The parsers see exactly the bytes given (no NUL after them). */
#include "fuzz_common.h"

#include <ctype.h>

#include "train/http/http_form.h"

static void check_params(const qkv_http_params *p)
{
    for (int i = 0; i < p->n; i++) {
        const qkv_http_param *q = &p->items[i];
        fuzz_check(q->name[q->name_len] == '\0' && q->value[q->value_len] == '\0', "NUL-terminated after the lengths");
        for (int j = 0; j < i; j++)
            fuzz_check(q->name_len != p->items[j].name_len || memcmp(q->name, p->items[j].name, q->name_len),
                       "each name once");
    }
}

static void check_status(int status, const char *msg, int allowed_415)
{
    fuzz_check(status == 0 || status == 400 || status == 500 || (allowed_415 && status == 415), "a known status");
    fuzz_check(status == 0 || msg[0], "a refusal says why");
}

static int bad_escape(const uint8_t *s, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (s[i] == '%') {
            /* the escape must lie within its pair: no '&' among its hex digits */
            if (i + 2 >= n || !isxdigit(s[i + 1]) || !isxdigit(s[i + 2]))
                return 1;
            i += 2;
        }
    return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    /* exactly size bytes, so that a read past them is an error of ASan */
    char *s = malloc(size ? size : 1), msg[256];
    fuzz_check(s != NULL, "malloc");
    memcpy(s, data, size);
    qkv_http_params p = {0};
    msg[0] = '\0';
    int status = qkv_http_parse_urlencoded(&p, s, size, msg, sizeof msg);
    check_status(status, msg, 0);
    fuzz_check(status == 500 || (status == 400) == bad_escape(data, size), "a query refused for a bad escape only");
    check_params(&p);
    qkv_http_params_free(&p);

    const char *nl = memchr(s, '\n', size);
    size_t type_len = nl ? (size_t)(nl - s) : size, at = nl ? type_len + 1 : size;
    char *type = malloc(type_len + 1);
    fuzz_check(type != NULL, "malloc");
    memcpy(type, s, type_len);
    type[type_len] = '\0';
    msg[0] = '\0';
    status = qkv_http_parse_body(&p, type, s + at, size - at, msg, sizeof msg);
    check_status(status, msg, 1);
    check_params(&p);
    qkv_http_params_free(&p);
    free(type);
    free(s);
    return 0;
}
