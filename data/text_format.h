/* Raw text told from the line formats of corpora: a file given as raw text (a sentence or a
 * paragraph of words between spaces) that is plainly a CoNLL-U file or a column file is an
 * error naming its line, for every reader of raw text (api/segmenter.c: paragraphs for a
 * segmenter; data/text.c: a sentence a line). The corpus reader refuses raw text the other way
 * ("this looks like plain text", data/conllu.c). */
#ifndef QKV_DATA_TEXT_FORMAT_H
#define QKV_DATA_TEXT_FORMAT_H

#include <stddef.h>

#include "lib/error.h"

/* What qkv_text_other_format remembers of the lines before: the number of fields of the
 * previous line when it is a column line (0 when not) and its line number. Start at {0, 0}. */
typedef struct qkv_text_format_run {
    int fields, line;
} qkv_text_format_run;

/* Checks line line_no (s[0..n), without its line end) of the raw text named name:
 * - a CoNLL-U word line (10 TAB-separated fields, the first an ID: digits, a range "1-2" or
 *   an empty node "1.1"): "NAME:LINE: this is a CoNLL-U word line (10 TAB-separated fields),
 *   not raw text: ...";
 * - the second of two lines in a row that each hold the same number (two or more) of
 *   TAB-separated fields, none empty and none with a space or another blank (a column file: a
 *   word and its tags a line, as WNUT 2017's files; columns separated by spaces, as the original
 *   CoNLL-2003 files, read as text): "NAME:LINE: these lines are N TAB-separated fields
 *   without spaces (a column file ...), not raw text: ...", LINE the first. Pretokenized text
 *   with TABs between its words, two lines of as many words, is refused the same way.
 * A single such line is text (a TAB between two words). run carries the previous line. */
int qkv_text_other_format(const char *s, size_t n, const char *name, int line_no, qkv_text_format_run *run,
                          qkv_error *err);

#endif
