/* The task images (api/task.h; model.input pixels, patches or conv_patches, an input kind with a patch
 * hook): IDX images and labels (data/idx.h) as datasets of token vectors, one class per image,
 * the class names as the tag set, the validation split, and the augmentation of training
 * batches (data/image_augment.h). */
#include "api/session.h"
#include "api/task.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "data/idx.h"

int qkv_session_read_images(const qkv_session *s, const char *path, bool labels, qkv_images *im, qkv_error *err)
{
    const qkv_data_section *d = &s->cfg.data;
    if (qkv_idx_read_images(im, path, err))
        return QKV_ERR;
    if (im->rows != d->image_rows || im->cols != d->image_cols || im->channels != d->image_channels) {
        qkv_fail(err, "%.300s: images of %d x %d pixels x %d channels, the model's (data.image_rows, image_cols, "
                 "image_channels) are %d x %d x %d", path, im->rows, im->cols, im->channels, d->image_rows,
                 d->image_cols, d->image_channels);
        qkv_images_free(im);
        return QKV_ERR;
    }
    char lpath[QKV_CFG_STR_MAX + 16];
    if (labels && (qkv_idx_labels_path(path, lpath, sizeof lpath, err) ||
                   qkv_idx_read_labels(im, lpath, d->n_classes, err))) {
        qkv_images_free(im);
        return QKV_ERR;
    }
    return QKV_OK;
}

int qkv_session_image_dataset(const qkv_session *s, const qkv_images *im, qkv_dataset *ds, qkv_corpus *c,
                              qkv_error *err)
{
    const qkv_network_config *m = &s->cfg.model;
    int patch = QKV_INPUT_DESCS[m->input_kind]->patch(m);
    if (qkv_dataset_from_images(ds, im, patch, m->cls_token ? 1 : 0, err))
        return QKV_ERR;
    memset(c, 0, sizeof *c);
    if (!(c->name = strdup(im->name)))
        return qkv_fail(err, "out of memory");
    return QKV_OK;
}

qkv_image_layout qkv_session_image_layout(const qkv_session *s)
{
    const qkv_network_config *m = &s->cfg.model;
    const qkv_data_section *d = &s->cfg.data;
    qkv_image_layout l = {d->image_rows, d->image_cols, d->image_channels, QKV_INPUT_DESCS[m->input_kind]->patch(m),
                          m->cls_token ? 1 : 0};
    return l;
}

/* The tag set: data.class_names split at commas, or "0", "1", ...; n_classes of them. */
static int class_tags(qkv_session *s, qkv_error *err)
{
    const qkv_data_section *d = &s->cfg.data;
    int n = d->n_classes;
    char *buf = malloc((size_t)n * 12 + strlen(d->class_names) + 1);
    const char **names = malloc((size_t)n * sizeof *names);
    int status = buf && names ? QKV_OK : qkv_fail(err, "out of memory for %d class names", n);
    if (status == QKV_OK && d->class_names[0]) {
        strcpy(buf, d->class_names);
        int k = 0;
        for (char *at = buf, *comma; k < n && at; at = comma ? comma + 1 : NULL, k++) {
            if ((comma = strchr(at, ',')))
                *comma = 0;
            names[k] = at;
        }
        size_t commas = 0;
        for (const char *p = d->class_names; *p; p++)
            commas += *p == ',';
        if (k != n || commas + 1 != (size_t)n)
            status = qkv_fail(err, "data.class_names: %zu names for data.n_classes = %d", commas + 1, n);
    } else if (status == QKV_OK) {
        for (int k = 0; k < n; k++) {
            snprintf(buf + 12 * k, 12, "%d", k);
            names[k] = buf + 12 * k;
        }
    }
    if (status == QKV_OK && qkv_featurizer_set_tags(&s->fz, names, n, err))
        status = qkv_fail_prefix(err, "data.class_names");
    free(buf);
    free(names);
    return status;
}

/* The training images, and the dev set: data.dev, or data.valid_fraction of the training images. */
static int read_train(qkv_session *s, qkv_images *train, qkv_images *valid, qkv_error *err)
{
    const qkv_data_section *d = &s->cfg.data;
    if (qkv_session_read_images(s, d->train, true, train, err))
        return QKV_ERR;
    if (d->valid_fraction <= 0)
        return QKV_OK;
    int n_valid = (int)lround(d->valid_fraction * train->n);
    if (n_valid < 1)
        n_valid = 1;
    qkv_images all = *train;
    int status = qkv_images_split(&all, n_valid, (uint64_t)d->valid_seed, train, valid, err);
    qkv_images_free(&all);
    return status;
}

/* The featurizer (unless set) with the class names as its tags; the training images
 * (load_train) and the dev set: data.dev, or with data.valid_fraction that part of the training
 * images drawn with data.valid_seed (qkv_images_split). */
static int images_data(qkv_session *s, bool load_train, qkv_error *err)
{
    const qkv_data_section *d = &s->cfg.data;
    qkv_images train = {0}, dev = {0};
    int status = QKV_OK;
    if (!s->fz_ready) {
        if (qkv_featurizer_init(&s->fz, &d->features, err))
            return QKV_ERR;
        s->fz_ready = true;
        if (class_tags(s, err))
            return QKV_ERR;
    }
    if (load_train) {
        status = read_train(s, &train, &dev, err);
        if (status == QKV_OK)
            status = qkv_session_image_dataset(s, &train, &s->train, &s->train_c, err);
        if (status == QKV_OK && train.n == 0)
            status = qkv_fail(err, "%.300s: no images to train on", train.name);
        s->has_train = status == QKV_OK;
    }
    if (status == QKV_OK && !dev.pixels && d->dev[0])
        status = qkv_session_read_images(s, d->dev, true, &dev, err);
    if (status == QKV_OK && dev.pixels) {
        status = qkv_session_image_dataset(s, &dev, &s->dev, &s->dev_c, err);
        if (status == QKV_OK && dev.n == 0)
            status = qkv_fail(err, "%.300s: no images to evaluate on", dev.name);
        s->has_dev = status == QKV_OK;
    }
    qkv_images_free(&train);
    qkv_images_free(&dev);
    return status;
}

/* A scored file: IDX images and the labels beside them. */
static int images_scored(qkv_session *s, const char *path, qkv_error *err)
{
    qkv_images im;
    int failed = qkv_session_read_images(s, path, true, &im, err) ||
                 qkv_session_image_dataset(s, &im, &s->dev, &s->dev_c, err);
    qkv_images_free(&im);
    return failed ? QKV_ERR : QKV_OK;
}

/* The grid of the images in the input's patches and the width of a token (models/network.h:
 * qkv_network_image_grid). */
static int images_model_sizes(const qkv_session *s, qkv_network_config *tc, qkv_error *err)
{
    const qkv_data_section *d = &s->cfg.data;
    return qkv_network_image_grid(tc, d->image_rows, d->image_cols, d->image_channels, err);
}

/* Random crops and flips of the training images (data.augment, data.augment_pad). */
static int images_augment(const qkv_session *s, qkv_batch *b, uint64_t key, qkv_error *err)
{
    if (s->cfg.data.augment == QKV_AUGMENT_NONE)
        return QKV_OK;
    qkv_image_layout l = qkv_session_image_layout(s);
    return qkv_batch_augment_images(b, &l, s->cfg.data.augment, s->cfg.data.augment_pad, key, err);
}

const qkv_task_desc qkv_task_images = {
    .name = "images",
    .word_unit = "words",
    .sentence_unit = "sentences",
    .sentence_one = "sentence",
    .rate_unit = "tok",
    .data = images_data,
    .read_scored = images_scored,
    .model_sizes = images_model_sizes,
    .augment = images_augment,
};
