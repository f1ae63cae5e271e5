/* assert_feature: the feature string of one kind for a word, compared with the expected one
 * (shared by the feature tests; header only). */
#ifndef QKV_TESTS_FEATURE_CHECK_H
#define QKV_TESTS_FEATURE_CHECK_H

#include "testutil.h"

#include "data/features.h"

static inline void assert_feature(qkv_feature_type type, int length, const char *form, const char *expected)
{
    qkv_feature_kind k = {.type = type, .length = length};
    char out[256];
    size_t n = qkv_feature_string(&k, form, strlen(form), out);
    if (strcmp(out, expected) || n != strlen(expected))
        fail_msg("feature %d/%d of \"%s\": got \"%s\", expected \"%s\"", (int)type, length, form, out, expected);
}

#endif
