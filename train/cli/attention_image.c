/* qkv attention on an image model: one image of an IDX file (--image, --index; default the
 * first image of the model's own data), one query token (--query ROW,COL of the grid, or cls),
 * its attention weights over the grid drawn on the image (train/plot/plot_attention_image.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "api/run_iter.h"
#include "data/idx.h"
#include "train/cli/attention.h"
#include "train/fail.h"
#include "train/plot/plot_attention_image.h"

/* The image file: --image, else the model's data.dev, else its data.train. */
static const char *image_file(const qkv_session *s, const attention_args *a)
{
    if (a->image)
        return a->image;
    return s->cfg.data.dev[0] ? s->cfg.data.dev : s->cfg.data.train;
}

/* --query as a token of the image's sequence into *token: "cls" the prefix token, "ROW,COL" a
 * grid cell; the default the prefix token when there is one, else the grid's centre. */
static int query_token(const qkv_session *s, const attention_args *a, int *token)
{
    qkv_grid g = s->model.cfg.grid;
    int r = g.rows / 2, c = g.cols / 2;
    if (!a->query) {
        *token = g.n_prefix > 0 ? 0 : g.n_prefix + r * g.cols + c;
        return 0;
    }
    if (!strcmp(a->query, "cls")) {
        if (g.n_prefix == 0) {
            fprintf(stderr, "qkv attention: --query cls: the model has no [CLS] token (model.cls_token false)\n");
            return 1;
        }
        *token = 0;
        return 0;
    }
    if (a->query_rc[0] < 0 || a->query_rc[1] < 0 || a->query_rc[0] >= g.rows || a->query_rc[1] >= g.cols) {
        fprintf(stderr, "qkv attention: --query %ld,%ld is outside the model's grid of %d x %d tokens (rows 0..%d, "
                "columns 0..%d)\n", a->query_rc[0], a->query_rc[1], g.rows, g.cols, g.rows - 1, g.cols - 1);
        return 1;
    }
    *token = g.n_prefix + (int)a->query_rc[0] * g.cols + (int)a->query_rc[1];
    return 0;
}

static int check(const qkv_session *s, const attention_args *a)
{
    int token;
    if (a->sentence) {
        fprintf(stderr, "qkv attention: --sentence is for a model of words; %s reads images (model.input %s): give "
                "--image FILE (IDX images) and --index N, or neither for the first image of its data\n", a->ckpt,
                QKV_INPUT_KIND_NAMES[s->model.cfg.input_kind]);
        return 1;
    }
    const char *file = image_file(s, a);
    if (!file[0] || (!a->image && access(file, R_OK) != 0)) { /* an export names its files, not their folders */
        fprintf(stderr, "qkv attention: %s names no image file %s: give --image FILE (IDX images)\n", a->ckpt,
                file[0] ? "that can be read here" : "of its own");
        return 1;
    }
    return query_token(s, a, &token);
}

/* Reads image a->index of the file into *one (a copy) and its label (-1 without a label file). */
static int read_image(const qkv_session *s, const attention_args *a, qkv_images *one, int *label, qkv_error *err)
{
    const char *file = image_file(s, a);
    qkv_images all;
    char lpath[QKV_CFG_STR_MAX + 16];
    bool labels = !qkv_idx_labels_path(file, lpath, sizeof lpath, err) && access(lpath, R_OK) == 0;
    if (qkv_session_read_images(s, file, labels, &all, err))
        return QKV_ERR;
    long i = a->index < 0 ? 0 : a->index;
    int status = QKV_OK;
    if (i >= all.n)
        status = qkv_fail(err, "--index %ld: %s has images 0..%d", i, file, all.n - 1);
    size_t bytes = (size_t)all.rows * all.cols * all.channels;
    *one = (qkv_images){.n = 1, .rows = all.rows, .cols = all.cols, .channels = all.channels};
    if (status == QKV_OK && (!(one->name = strdup(file)) || !(one->pixels = malloc(bytes))))
        status = qkv_fail(err, "out of memory");
    if (status == QKV_OK)
        memcpy(one->pixels, all.pixels + (size_t)i * bytes, bytes);
    *label = status == QKV_OK && all.labels ? all.labels[i] : -1;
    qkv_images_free(&all);
    return status;
}

/* Runs the model on the image (s->dev) keeping layer a->layer's weights, and draws them. */
static int run_and_draw(qkv_session *s, const attention_args *a, const qkv_images *im, int label, qkv_error *err)
{
    qkv_grid g = s->model.cfg.grid;
    int n = qkv_grid_len(g), query = 0;
    query_token(s, a, &query);
    qkv_run_iter it;
    int status = qkv_run_iter_init(&it, &s->dev, n, true, err);
    if (status == QKV_OK)
        status = qkv_run_iter_plan(&it, NULL, err);
    if (status == QKV_OK)
        status = qkv_run_iter_fill(&it, 0, err);
    qkv_attention_weights keep;
    memset(&keep, 0, sizeof keep);
    qkv_tensor *logits = status == QKV_OK ? qkv_run_iter_logits(&it, &s->model, a->layer, &keep, err) : NULL;
    int32_t *pred = logits ? qkv_tape_alloc(&it.tp, (size_t)n * sizeof *pred) : NULL;
    double loss_unused = 0;
    if (status == QKV_OK && !pred)
        status = logits ? qkv_fail(err, "out of memory") : QKV_ERR;
    if (status == QKV_OK)
        status = qkv_network_predict(&it.tp, &s->model, logits, it.in.sentences, NULL, pred, &loss_unused, err);
    if (status == QKV_OK) {
        char caption[512];
        const char *base = strrchr(im->name, '/');
        int at = snprintf(caption, sizeof caption, "%s, image %ld: predicted %s", base ? base + 1 : im->name,
                          a->index < 0 ? 0 : a->index, qkv_featurizer_tag(&s->fz, pred[0]));
        if (label >= 0)
            snprintf(caption + at, sizeof caption - (size_t)at, " (gold %s)", qkv_featurizer_tag(&s->fz, label));
        const qkv_network_config *m = &s->model.cfg;
        qkv_attention_image_plot ap = {&keep, g, QKV_INPUT_DESCS[m->input_kind]->patch(m), im->rows, im->cols,
                                       im->channels, im->pixels, query, a->layer, a->head, caption, a->width, a->height};
        status = qkv_plot_attention_image(&ap, a->out, err);
    }
    qkv_run_iter_free(&it);
    return status;
}

static int draw(qkv_session *s, const attention_args *a)
{
    qkv_error err;
    qkv_images im = {0};
    int label = -1;
    int status = read_image(s, a, &im, &label, &err);
    if (status == QKV_OK)
        status = qkv_session_image_dataset(s, &im, &s->dev, &s->dev_c, &err);
    if (status == QKV_OK)
        status = run_and_draw(s, a, &im, label, &err);
    qkv_images_free(&im);
    return status ? qkv_fail_report(&err) : 0;
}

const attention_source qkv_attention_images = {"images", check, draw};
