/* qkv tag --format text --tokenizer SEG.h5 (tag_raw.h). */
#include "train/cli/tag_raw.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "api/segmenter.h"
#include "data/textfile.h"
#include "train/fail.h"

int qkv_tag_with_tokenizer(qkv_session *tagger, const char *tokenizer_path, const char *group, const char *file,
                           qkv_tag_scheme scheme, bool sentence_per_line)
{
    qkv_tokenizer tk;
    qkv_error err;
    if (qkv_tokenizer_load(&tk, tokenizer_path, group, &err)) {
        qkv_fail_report(&err);
        qkv_tokenizer_free(&tk);
        return 1;
    }
    tk.sentence_per_line = sentence_per_line;
    bool std_in = !strcmp(file, "-");
    /* typed or piped in: each paragraph is written as soon as it is read; from a file (also
       standard input redirected from one), paragraphs are tagged in groups, faster */
    struct stat sb;
    tk.stream = std_in && (fstat(STDIN_FILENO, &sb) || !S_ISREG(sb.st_mode));
    qkv_text_stream in;
    if (qkv_text_stream_open(&in, std_in ? NULL : file, std_in ? "<stdin>" : file, &err)) {
        qkv_fail_report(&err);
        qkv_tokenizer_free(&tk);
        return 1;
    }
    int status = qkv_tag_raw_text(tagger, &tk, in.file, in.name, scheme, stdout, &err);
    qkv_error read_err; /* a failed read's own message (truncated gzip, ...) before the reader's */
    if (qkv_text_stream_close(&in, &read_err))
        err = read_err, status = QKV_ERR;
    if (status)
        qkv_fail_report(&err);
    qkv_tokenizer_free(&tk);
    return status ? 1 : 0;
}
