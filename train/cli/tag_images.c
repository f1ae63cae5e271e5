/* qkv tag with an image model (train/cli/tag_images.h). */
#include "train/cli/tag_images.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "api/predict.h"
#include "data/textfile.h"
#include "train/fail.h"

static int read_images(const char *file, qkv_images *im, qkv_error *err)
{
    if (strcmp(file, "-"))
        return qkv_idx_read_images(im, file, err);
    char *bytes;
    size_t len;
    memset(im, 0, sizeof *im);
    if (qkv_text_read_fd(0, "<stdin>", &bytes, &len, err))
        return QKV_ERR;
    int status = qkv_idx_read_images_mem(im, (const uint8_t *)bytes, len, "<stdin>", err);
    free(bytes);
    return status;
}

int qkv_tag_images(qkv_session *s, const qkv_tag_request *r)
{
    const char *file = r->file;
    qkv_error err;
    qkv_images im;
    if (read_images(file, &im, &err))
        return qkv_fail_report(&err);
    int32_t *classes = malloc(((size_t)im.n + 1) * sizeof *classes);
    float *probs = malloc(((size_t)im.n + 1) * sizeof *probs);
    int status = 1;
    if (!classes || !probs)
        qkv_fail_reportf("out of memory for %d images", im.n);
    else if (qkv_session_classify(s, &im, s->cfg.data.batch_tokens, classes, probs, &err))
        qkv_fail_report(&err);
    else {
        for (int i = 0; i < im.n; i++)
            printf("%s\t%.6f\n", qkv_featurizer_tag(&s->fz, classes[i]), probs[i]);
        status = fflush(stdout) ? qkv_fail_reportf("writing the classes: %s", strerror(errno)) : 0;
    }
    free(classes);
    free(probs);
    qkv_images_free(&im);
    return status;
}
