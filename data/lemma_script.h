/* Lemmas as edit scripts (Straka 2018, UDPipe 2.0: "UDPipe 2.0 prototype at CoNLL 2018 UD Shared
 * Task"): a lemma is predicted as the class of the script that turns its form into it, so that an
 * unseen form gets its lemma from the script of seen forms like it ("walked" -> "walk" is
 * "strip 2 characters at the end" for "jumped" too).
 *
 * A script is two parts, "CASING;EDITS", computed on code points:
 *   CASING: the lemma's case as runs from a position, "L0" (all lower), "U0L1" (first upper, the
 *     rest lower), "U0" (all upper), ...; a character is upper when its lowercase differs from
 *     it (libunistring uc_tolower), and is written back with uc_toupper; a character without
 *     case continues the run it is in ("U.S." is "U0"). Applied to a form without lower case
 *     letters, no letter after an upper case letter and characters without case is lowered
 *     (an initialism stays one: "U.S.", never "U.s."). "K" instead: the edits
 *     work on the form as written and the case is the one they give.
 *   EDITS: on the lowercased form and lemma (as written, with K), the longest common substring
 *     is kept; "-P+A;-S+B" deletes P characters at the start and adds A, deletes S at the end and
 *     adds B ("flies" -> "fly": "L0;-0+;-3+y"). With no common substring, or with additions
 *     holding ';': "=LEMMA", the whole lemma ("L0;=be" for "was").
 * qkv_lemma_script chooses the lowercased edits when they give the lemma back, else K, else the
 * whole lemma as written ("K;=..."), so that applying a script to its own form always gives the
 * lemma back exactly. */
#ifndef QKV_DATA_LEMMA_SCRIPT_H
#define QKV_DATA_LEMMA_SCRIPT_H

#include <stddef.h>

/* Bytes of room for the script of a form of flen bytes and a lemma of llen bytes. */
#define QKV_LEMMA_SCRIPT_ROOM(flen, llen) (16 * ((size_t)(flen) + (size_t)(llen)) + 64)
/* Bytes of room for the lemma that a script of slen bytes gives for a form of flen bytes. */
#define QKV_LEMMA_ROOM(flen, slen) (8 * ((size_t)(flen) + (size_t)(slen)) + 16)

/* The script turning form[0..flen) into lemma[0..llen) (both valid UTF-8), written NUL-terminated
 * into out (QKV_LEMMA_SCRIPT_ROOM bytes); returns its length, or -1 when out of memory. */
long qkv_lemma_script(const char *form, size_t flen, const char *lemma, size_t llen, char *out);

/* The lemma that script[0..slen) gives for form[0..flen) (valid UTF-8), written NUL-terminated
 * into out (QKV_LEMMA_ROOM bytes); returns its length, or -1 when the script does not apply to
 * the form (it deletes more characters than the form has, it is not a script, or out of memory). */
long qkv_lemma_apply(const char *script, size_t slen, const char *form, size_t flen, char *out);

/* The fewest characters a form needs for script[0..slen) to give it a non-empty lemma: the
 * characters it deletes, one more when it adds none (0 for a whole lemma, "=..."); -1 when it is
 * not a script or gives only the empty lemma. A form of at least that many characters (as written
 * and lowercased) gets a lemma from it. */
long qkv_lemma_script_needs(const char *script, size_t slen);

#endif
