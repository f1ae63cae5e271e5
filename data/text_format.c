/* Raw text told from CoNLL-U and column files (text_format.h). */
#include "data/text_format.h"

#include <stdbool.h>

#include "data/utf8.h"

/* Whether line s[0..n) is a CoNLL-U word line: 10 TAB-separated fields, the first an ID. */
static bool conllu_word_line(const char *s, size_t n)
{
    size_t tabs = 0, id = 0;
    while (id < n && ((s[id] >= '0' && s[id] <= '9') || s[id] == '-' || s[id] == '.'))
        id++;
    if (id == 0 || id >= n || s[id] != '\t' || s[0] < '0' || s[0] > '9')
        return false;
    for (size_t i = 0; i < n; i++)
        tabs += s[i] == '\t';
    return tabs == 9;
}

/* The number of TAB-separated fields of line s[0..n) when it is a line of a column file: two or
 * more, none empty, none with a blank; else 0. */
static int column_fields(const char *s, size_t n)
{
    int fields = 1;
    for (size_t i = 0; i < n; i++) {
        if (s[i] == '\t') {
            if (i == 0 || i + 1 == n || s[i + 1] == '\t')
                return 0;
            fields++;
        } else if (qkv_utf8_blank_len(s + i, n - i) > 0) {
            return 0;
        }
    }
    return fields >= 2 ? fields : 0;
}

int qkv_text_other_format(const char *s, size_t n, const char *name, int line_no, qkv_text_format_run *run,
                          qkv_error *err)
{
    if (conllu_word_line(s, n))
        return qkv_fail(err, "%.200s:%d: this is a CoNLL-U word line (10 TAB-separated fields), not raw text: to "
                        "tag a CoNLL-U file, name the model before it and no --format text (qkv tag MODEL FILE)",
                        name, line_no);
    int fields = column_fields(s, n);
    if (fields && fields == run->fields)
        return qkv_fail(err, "%.200s:%d: these lines are %d TAB-separated fields without spaces (a column file, a "
                        "word and its tags a line), not raw text: to tag a column file, name the model before it "
                        "and no --format text (qkv tag MODEL FILE)", name, run->line, fields);
    *run = (qkv_text_format_run){fields, line_no};
    return QKV_OK;
}
