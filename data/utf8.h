/* UTF-8 helpers for data/: validation, decoding, character counting, Unicode case mapping and
 * character classes.
 * Follows RFC 3629 (UTF-8): no overlong forms, no surrogates (U+D800..U+DFFF), nothing above
 * U+10FFFF. */
#ifndef QKV_DATA_UTF8_H
#define QKV_DATA_UTF8_H

#include <stddef.h>
#include <stdint.h>

#include "lib/io/utf8.h" /* qkv_utf8_check */


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

/* Case and character classes come from the Unicode Character Database through libunistring
 * (no table of our own).
 *
 * Lowercases valid UTF-8 s[0..len) by Unicode's full case mapping without language tailoring
 * (libunistring u8_tolower: every cased letter of every script; SpecialCasing's unconditional
 * mappings and the final-sigma rule, e.g. "ẞ" -> "ß", "İ" -> "i̇" (i + U+0307), "ǄA" -> "ǆa",
 * "ΟΔΟΣ" -> "οδος"; what Python's str.lower() gives). The lowercase can be longer than the
 * input (U+0130, U+023A and U+023E take 2 bytes, their lowercase 3): out needs
 * QKV_UTF8_LOWER_ROOM(len) bytes. Writes a NUL after the result and returns its length. */
#define QKV_UTF8_LOWER_ROOM(len) (2 * (size_t)(len) + 1)
size_t qkv_utf8_lower(const char *s, size_t len, char *out);

/* The word-shape class of code point cp: 'X' for a letter that changes when lowercased
 * (upper case and title case, e.g. "Ґ", "ǅ"), 'x' for a lower-case character (Unicode's
 * Lowercase property) and for a letter without case (CJK, Hebrew, Arabic, ...: general category
 * L), 'd' for a decimal digit of any script (general category Nd), 0 for anything else (the
 * shape keeps such a character as it is). */
char qkv_utf8_shape_class(uint32_t cp);

/* True when cp has Unicode's White_Space property (space, TAB, NBSP, U+2003, ...). */
int qkv_utf8_is_space(uint32_t cp);
/* The byte length of the character at s (valid UTF-8, len bytes) when it separates the tokens
 * of plain text: Unicode White_Space (UCD PropList) that is not a control character, and TAB
 * and CR (space, U+00A0 no-break space, U+2003 em space, U+3000 ideographic space, ...); else
 * 0. The other control characters of White_Space (VT, FF, NEL) stay in tokens, as every
 * control character does. */
size_t qkv_utf8_blank_len(const char *s, size_t len);

/* NULL when the len bytes of one line at s are valid UTF-8 without NUL bytes; else buf,
 * filled with what is wrong ("expected text, found a NUL byte at byte 3 of the line"). */
const char *qkv_text_line_problem(const char *s, size_t len, char *buf, size_t buf_len);

#endif
