/* qkv tag --format text --tokenizer SEG.h5 (tag_raw.h). */
#include "train/cli/tag_raw.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "api/segmenter.h"
#include "train/fail.h"

int qkv_tag_with_tokenizer(qkv_session *tagger, const char *tokenizer_path, const char *group, const char *file)
{
    qkv_tokenizer tk;
    qkv_error err;
    if (qkv_tokenizer_load(&tk, tokenizer_path, group, &err)) {
        qkv_fail_report(&err);
        qkv_tokenizer_free(&tk);
        return 1;
    }
    bool std_in = !strcmp(file, "-");
    FILE *in = std_in ? stdin : fopen(file, "rb");
    if (!in) {
        fprintf(stderr, "qkv: %s: cannot open: %s\n", file, strerror(errno));
        qkv_tokenizer_free(&tk);
        return 1;
    }
    int status = qkv_tag_raw_text(tagger, &tk, in, std_in ? "<stdin>" : file, stdout, &err);
    if (status)
        qkv_fail_report(&err);
    if (!std_in)
        fclose(in);
    qkv_tokenizer_free(&tk);
    return status ? 1 : 0;
}
