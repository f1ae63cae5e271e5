/* The probe tasks of synth_tasks.h: ends (tags by position from either end) and reach (a probe
 * tagged by a key d words away). */
#include "data/synth_tasks.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "data/synthetic.h"
#include "lib/rng.h"

const char *const QKV_SYNTH_TASK_NAMES[] = {"grammar", "ends", "reach", NULL};

enum { N_FILLERS = 50, N_KEYS = 4 };

static const char *const START_TAGS[QKV_SYNTH_ENDS_K] = {"S1", "S2", "S3", "S4"};
static const char *const END_TAGS[QKV_SYNTH_ENDS_K] = {"E1", "E2", "E3", "E4"};
static const char *const KEYS[N_KEYS] = {"K1", "K2", "K3", "K4"};
static const char *const CLASSES[N_KEYS] = {"A", "B", "C", "D"};

int qkv_synth_task_check(const qkv_synth_task_opts *o, qkv_error *err)
{
    if (o->task == QKV_SYNTH_GRAMMAR)
        return QKV_OK;
    if (o->task != QKV_SYNTH_ENDS && o->task != QKV_SYNTH_REACH)
        return qkv_fail(err, "synthetic task: unknown task %d", (int)o->task);
    const char *name = QKV_SYNTH_TASK_NAMES[o->task];
    int shortest = o->task == QKV_SYNTH_ENDS ? 2 * QKV_SYNTH_ENDS_K : 2;
    if (o->min_len < shortest)
        return qkv_fail(err, "synthetic task %s: min_len must be at least %d%s, got %d", name, shortest,
                        o->task == QKV_SYNTH_ENDS ? " (the words tagged from the start and from the end must not meet)"
                                                  : " (a key and a probe)",
                        o->min_len);
    if (o->max_len < o->min_len || o->max_len > QKV_SYNTH_TASK_MAX_LEN)
        return qkv_fail(err, "synthetic task %s: max_len must be between min_len %d and %d, got %d", name, o->min_len,
                        QKV_SYNTH_TASK_MAX_LEN, o->max_len);
    if (o->task == QKV_SYNTH_REACH) {
        if (o->min_dist < 1 || o->min_dist > o->max_dist)
            return qkv_fail(err, "synthetic task reach: min_dist must be between 1 and max_dist %d, got %d", o->max_dist,
                            o->min_dist);
        if (o->max_dist >= o->min_len)
            return qkv_fail(err,
                            "synthetic task reach: max_dist %d must be below min_len %d (a key and a probe max_dist "
                            "words apart must fit in every sentence)",
                            o->max_dist, o->min_len);
    }
    return QKV_OK;
}

/* Sentence s of the ends task: n words, tags by position from either end. */
static void ends_sentence(qkv_rng *rng, int n, const char **forms, const char **tags, const char (*fill)[4])
{
    for (int i = 0; i < n; i++) {
        forms[i] = fill[qkv_rng_below(rng, N_FILLERS)];
        tags[i] = i < QKV_SYNTH_ENDS_K ? START_TAGS[i] : n - 1 - i < QKV_SYNTH_ENDS_K ? END_TAGS[n - 1 - i] : "M";
    }
}

/* The reach task: fillers, a key and a probe d words apart (the probe left or right of it). */
static void reach_sentence(qkv_rng *rng, int n, int d, const char **forms, const char **tags, const char (*fill)[4])
{
    for (int i = 0; i < n; i++) {
        forms[i] = fill[qkv_rng_below(rng, N_FILLERS)];
        tags[i] = "_";
    }
    int left = (int)qkv_rng_below(rng, (uint64_t)(n - d)); /* the left one of the two: 0 .. n-1-d */
    int probe_right = (int)qkv_rng_below(rng, 2);
    int key = probe_right ? left : left + d, probe = probe_right ? left + d : left;
    int cls = (int)qkv_rng_below(rng, N_KEYS);
    forms[key] = KEYS[cls];
    forms[probe] = "q";
    tags[probe] = CLASSES[cls];
}

int qkv_synth_task_write(FILE *out, int n_sent, uint64_t seed, const qkv_synth_task_opts *o, qkv_error *err)
{
    if (o->task == QKV_SYNTH_GRAMMAR)
        return qkv_synth_write(out, n_sent, seed, err);
    if (qkv_synth_task_check(o, err))
        return QKV_ERR;
    if (n_sent < 0)
        return qkv_fail(err, "synthetic corpus: number of sentences must be >= 0, got %d", n_sent);
    const char **forms = malloc((size_t)o->max_len * sizeof *forms);
    const char **tags = malloc((size_t)o->max_len * sizeof *tags);
    if (!forms || !tags) {
        free(forms);
        free(tags);
        return qkv_fail(err, "synthetic corpus: out of memory for sentences of %d words", o->max_len);
    }
    char fill[N_FILLERS][4];
    for (int i = 0; i < N_FILLERS; i++)
        snprintf(fill[i], sizeof fill[i], "w%02d", i);
    qkv_rng rng;
    qkv_rng_seed(&rng, seed);
    const char *name = QKV_SYNTH_TASK_NAMES[o->task];
    for (int s = 0; s < n_sent; s++) {
        int n = o->min_len + (int)qkv_rng_below(&rng, (uint64_t)(o->max_len - o->min_len + 1));
        fprintf(out, "# sent_id = %s-%d\n", name, s + 1);
        if (o->task == QKV_SYNTH_ENDS) {
            ends_sentence(&rng, n, forms, tags, (const char(*)[4])fill);
        } else {
            int d = o->min_dist + s % (o->max_dist - o->min_dist + 1);
            fprintf(out, "# distance = %d\n", d);
            reach_sentence(&rng, n, d, forms, tags, (const char(*)[4])fill);
        }
        qkv_synth_print_words(out, forms, tags, n);
    }
    free(forms);
    free(tags);
    if (fflush(out) != 0 || ferror(out))
        return qkv_fail(err, "synthetic corpus: write error: %s", strerror(errno));
    return QKV_OK;
}
