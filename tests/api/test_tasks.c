/* The task table of api/task.h: every task has a case here (a task without one fails), its
 * name is its table name, its config chooses it (qkv_task_of), it reads training and dev data
 * of its own kind into sequences with positions, the model it sizes takes them (one forward of
 * a batch through the session's model), and a scored file reads as the dev set did. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "../frames/frames_fixture.h"
#include "api/run_iter.h"
#include "api/session.h"
#include "api/speech_store.h"
#include "api/task.h"

static char dir[64], cwd[4096];

/* Two paragraphs of one sentence each with # text and SpaceAfter=No, for the characters task. */
static const char SEG_CONLLU[] = "# newpar\n# text = Hi there.\n1\tHi\thi\tINTJ\t_\t_\t0\troot\t_\t_\n"
                                 "2\tthere\tthere\tADV\t_\t_\t1\tadvmod\t_\tSpaceAfter=No\n"
                                 "3\t.\t.\tPUNCT\t_\t_\t1\tpunct\t_\t_\n\n"
                                 "# newpar\n# text = Go now!\n1\tGo\tgo\tVERB\t_\t_\t0\troot\t_\t_\n"
                                 "2\tnow\tnow\tADV\t_\t_\t1\tadvmod\t_\tSpaceAfter=No\n"
                                 "3\t!\t!\tPUNCT\t_\t_\t1\tpunct\t_\t_\n\n";

static const char MODEL[] = "model: {d_model: 8, n_heads: 2, n_layers: 1, d_ff: 16%s}\n";

/* A task's case: its config's data section (%1$s: the scratch folder, %2$s: the source tree),
 * the model keys beyond MODEL's, the input kind its model gets and its dev file, and what its
 * reports count (NULL: not checked). */
typedef struct task_case {
    const char *name, *data, *model_keys;
    qkv_input_kind input;
    const char *dev; /* relative to the scratch folder (%s) or the source tree (%2$s) */
    const char *word_unit, *sentence_unit;
} task_case;

static const task_case CASES[] = {
    {"words",
     "data: {train: %2$s/data/ud_english_ewt_sample/en_ewt-sample-dev.conllu.gz, "
     "dev: %2$s/data/ud_english_ewt_sample/en_ewt-sample-dev.conllu.gz}\n",
     "", QKV_INPUT_WORDS, "%2$s/data/ud_english_ewt_sample/en_ewt-sample-dev.conllu.gz", "words", "sentences"},
    {"characters", "data: {task: segment, train: %1$s/seg.conllu, dev: %1$s/seg.conllu}\n", "", QKV_INPUT_WORDS,
     "%1$s/seg.conllu", "characters", "paragraphs"},
    {"frames", "data: {task: frames, frame_labels: phoneme, train: %1$s/frames.h5, dev: %1$s/frames.h5}\n", "",
     QKV_INPUT_FRAMES, "%1$s/frames.h5", "frames", "utterances"},
    {"images",
     "data: {train: %2$s/data/fashion_mnist_sample/t10k-images-idx3-ubyte.gz, "
     "dev: %2$s/data/fashion_mnist_sample/t10k-images-idx3-ubyte.gz, image_rows: 28, image_cols: 28, "
     "n_classes: 10}\n",
     ", input: patches, patch_size: 7, output: class, positional: learned2d", QKV_INPUT_PATCHES,
     "%2$s/data/fashion_mnist_sample/t10k-images-idx3-ubyte.gz", NULL, NULL},
};

static int setup(void **state)
{
    (void)state;
    snprintf(dir, sizeof dir, "/tmp/qkv-test-tasks-XXXXXX");
    if (!mkdtemp(dir) || !getcwd(cwd, sizeof cwd))
        return -1;
    char path[128];
    snprintf(path, sizeof path, "%s/seg.conllu", dir);
    FILE *f = fopen(path, "w");
    if (!f || fputs(SEG_CONLLU, f) < 0 || fclose(f))
        return -1;
    qkv_frame_corpus fc;
    fx_corpus(&fc);
    qkv_error err;
    snprintf(path, sizeof path, "%s/frames.h5", dir);
    int status = qkv_frame_corpus_save(&fc, path, &err);
    qkv_frame_corpus_free(&fc);
    return status;
}

static int teardown(void **state)
{
    (void)state;
    char path[128];
    snprintf(path, sizeof path, "%s/seg.conllu", dir);
    unlink(path);
    snprintf(path, sizeof path, "%s/frames.h5", dir);
    unlink(path);
    rmdir(dir);
    return 0;
}

static const task_case *case_of(const char *name)
{
    for (size_t i = 0; i < sizeof CASES / sizeof *CASES; i++)
        if (!strcmp(CASES[i].name, name))
            return &CASES[i];
    return NULL;
}

/* The first batch of the dev set through the session's model: logits of every position. */
static void forward_dev(qkv_session *s)
{
    qkv_error err;
    qkv_run_iter it;
    int n = qkv_dataset_n_words(&s->dev);
    assert_int_equal(qkv_run_iter_init(&it, &s->dev, n + 1, true, &err), QKV_OK);
    assert_int_equal(qkv_run_iter_plan(&it, NULL, &err), QKV_OK);
    assert_int_equal(qkv_run_iter_fill(&it, 0, &err), QKV_OK);
    qkv_tensor *logits = qkv_run_iter_logits(&it, &s->model, -1, NULL, &err);
    if (!logits)
        fail_msg("%s", err.msg);
    assert_int_equal(logits->shape[0], qkv_batch_n_tokens(&it.batch));
    assert_int_equal(logits->shape[1], s->model.cfg.n_tags);
    qkv_run_iter_free(&it);
}

/* The session's dev set read again as a scored file has as many positions. */
static void rescore(qkv_session *s, const task_case *c)
{
    qkv_error err;
    char dev[4200];
    snprintf(dev, sizeof dev, c->dev, dir, cwd);
    int n = qkv_dataset_n_words(&s->dev);
    qkv_dataset_free(&s->dev);
    qkv_corpus_free(&s->dev_c);
    qkv_dataset_free(&s->test);
    qkv_frame_refs_free(&s->dev_refs);
    qkv_frame_refs_free(&s->test_refs);
    memset(&s->dev, 0, sizeof s->dev);
    memset(&s->dev_c, 0, sizeof s->dev_c);
    memset(&s->test, 0, sizeof s->test);
    memset(&s->dev_refs, 0, sizeof s->dev_refs);
    memset(&s->test_refs, 0, sizeof s->test_refs);
    if (qkv_session_read_scored(s, dev, &err))
        fail_msg("%s: %s", c->name, err.msg);
    assert_int_equal(qkv_dataset_n_words(&s->dev), n);
}

static void one_task(qkv_task_kind k)
{
    const qkv_task_desc *t = QKV_TASK_DESCS[k];
    assert_non_null(t);
    const task_case *c = case_of(t->name);
    if (!c)
        fail_msg("task %s has no case in tests/api/test_tasks.c", t->name);
    assert_non_null(t->data);
    assert_non_null(t->read_scored);
    assert_non_null(t->word_unit);
    assert_non_null(t->sentence_unit);
    assert_non_null(t->sentence_one);
    assert_non_null(t->rate_unit);
    if (c->word_unit && (strcmp(t->word_unit, c->word_unit) || strcmp(t->sentence_unit, c->sentence_unit)))
        fail_msg("task %s counts %s and %s, not %s and %s", t->name, t->word_unit, t->sentence_unit, c->word_unit,
                 c->sentence_unit);
    char yaml[2048], model[512];
    snprintf(model, sizeof model, MODEL, c->model_keys);
    int n = snprintf(yaml, sizeof yaml, c->data, dir, cwd);
    snprintf(yaml + n, sizeof yaml - (size_t)n, "%s", model);
    qkv_session s;
    qkv_session_init(&s);
    qkv_error err;
    if (qkv_run_config_parse(yaml, t->name, &s.cfg, &err))
        fail_msg("%s: %s", t->name, err.msg);
    assert_int_equal(qkv_task_of(&s.cfg), k);
    assert_ptr_equal(qkv_session_task(&s), t);
    if (qkv_session_data(&s, true, &err) || qkv_session_model(&s, 1, &err))
        fail_msg("%s: %s", t->name, err.msg);
    assert_true(s.has_train && s.has_dev);
    assert_true(qkv_dataset_n_batchable(&s.train) > 0);
    assert_true(qkv_dataset_n_words(&s.dev) > qkv_dataset_n_batchable(&s.dev));
    assert_int_equal(s.model.cfg.input_kind, c->input);
    forward_dev(&s);
    rescore(&s, c);
    qkv_session_free(&s);
}

static void test_every_task(void **state)
{
    (void)state;
    for (int k = 0; k < QKV_TASK_KIND_COUNT; k++)
        one_task((qkv_task_kind)k);
}

/* Every case is a task of the table (no case outlives its task). */
static void test_every_case_is_a_task(void **state)
{
    (void)state;
    for (size_t i = 0; i < sizeof CASES / sizeof *CASES; i++) {
        bool found = false;
        for (int k = 0; k < QKV_TASK_KIND_COUNT; k++)
            found |= !strcmp(QKV_TASK_DESCS[k]->name, CASES[i].name);
        if (!found)
            fail_msg("case %s is no task of QKV_TASK_KINDS", CASES[i].name);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_every_task),
        cmocka_unit_test(test_every_case_is_a_task),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
