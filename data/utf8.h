/* UTF-8 helpers for data/: validation, decoding, character counting and a small case mapping.
 * Follows RFC 3629 (UTF-8): no overlong forms, no surrogates (U+D800..U+DFFF), nothing above
 * U+10FFFF. */
#ifndef QKV_DATA_UTF8_H
#define QKV_DATA_UTF8_H

#include <stddef.h>
#include <stdint.h>

/* Returns the byte offset of the first invalid sequence in s[0..len), or len when all of it is
 * valid UTF-8. A NUL byte counts as invalid (data/ keeps strings NUL-terminated). */
size_t qkv_utf8_check(const char *s, size_t len);

/* Decodes the character at s (of at most len bytes, assumed valid UTF-8); stores its length in
 * bytes in *n (1..4) and returns its code point. */
uint32_t qkv_utf8_decode(const char *s, size_t len, int *n);

/* Encodes code point cp into out (room for 4 bytes); returns the number of bytes. */
int qkv_utf8_encode(uint32_t cp, char *out);

/* Number of characters (code points) in valid UTF-8 s[0..len). */
size_t qkv_utf8_length(const char *s, size_t len);

/* Byte length of the first k characters of s (all of s when it has fewer). */
size_t qkv_utf8_prefix_bytes(const char *s, size_t len, size_t k);
/* Byte offset where the last k characters of s begin (0 when s has fewer). */
size_t qkv_utf8_suffix_start(const char *s, size_t len, size_t k);

/* Simple case mapping, one code point to one code point: ASCII, Latin-1 Supplement, Latin
 * Extended-A, Greek and Cyrillic capitals (the scripts of most UD treebanks); other code
 * points map to themselves. qkv_utf8_upper_to_lower(cp) != cp means cp is an upper-case
 * letter; qkv_utf8_is_lower(cp) says whether cp is a lower-case letter of those ranges. */
uint32_t qkv_utf8_to_lower(uint32_t cp);
int qkv_utf8_is_lower(uint32_t cp);

/* Lowercases valid UTF-8 s[0..len) into out (room for len + 1 bytes: every mapping keeps the
 * byte length within len, see utf8.c), NUL-terminated; returns the output length. */
size_t qkv_utf8_lower(const char *s, size_t len, char *out);

#endif
