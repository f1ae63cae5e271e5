/* UTF-8 validation as RFC 3629 defines it: no overlong forms, no surrogates (U+D800..U+DFFF),
 * nothing above U+10FFFF. One validator for the whole project: checkpoints (lib/io) and corpora
 * (data/) both use it. */
#ifndef QKV_IO_UTF8_H
#define QKV_IO_UTF8_H

#include <stddef.h>

/* Returns the byte offset of the first invalid sequence in s[0..len), or len when all of it is
 * valid UTF-8. A NUL byte counts as invalid (strings here are NUL-terminated). */
size_t qkv_utf8_check(const char *s, size_t len);

#endif
