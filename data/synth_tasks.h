/* Synthetic probe tasks (qkv synth --task ends|reach): corpora built to test one ability of an
 * encoder each, deterministic from a seed, written as CoNLL-U like the grammar of synthetic.h.
 * Their words are fillers w00 .. w49 drawn uniformly, so a word's form never tells its tag.
 *
 * - ends (length extrapolation): the tag of a word is its position counted from the sentence
 *   start, S1 .. S4 for the first four words, or from its end, E1 .. E4 for the last four, and
 *   M for every word between. Sentences have at least 8 words, so the two never meet. Trained
 *   on short sentences and tested on longer ones, it asks whether a positional encoding still
 *   finds the first and the last words at lengths it never saw (E needs the sentence's length
 *   or a sense of its right end).
 * - reach (how far an encoder sees): one key word (K1 .. K4) and one probe word (q) at distance
 *   d from it, on either side; the probe's tag is the key's class (A .. D for K1 .. K4); every
 *   other word, the key included, has no tag ("_": neither learned nor scored), so the accuracy
 *   of a corpus is the accuracy on its probes. Sentence s (counted from 0) has
 *   d = min_dist + s mod (max_dist - min_dist + 1), so every distance has as many sentences;
 *   a comment "# distance = d" names it. An encoder that cannot see d words away is at chance
 *   (25%) for that d.
 * Lengths are drawn uniformly in [min_len, max_len]. */
#ifndef QKV_DATA_SYNTH_TASKS_H
#define QKV_DATA_SYNTH_TASKS_H

#include <stdint.h>
#include <stdio.h>

#include "lib/error.h"

typedef enum { QKV_SYNTH_GRAMMAR, QKV_SYNTH_ENDS, QKV_SYNTH_REACH, QKV_SYNTH_TASK_COUNT } qkv_synth_task;
extern const char *const QKV_SYNTH_TASK_NAMES[]; /* "grammar", "ends", "reach", NULL */

#define QKV_SYNTH_ENDS_K 4     /* words tagged from each end */
#define QKV_SYNTH_TASK_MAX_LEN 100000

typedef struct qkv_synth_task_opts {
    qkv_synth_task task;
    int min_len, max_len;   /* words per sentence (ends, reach) */
    int min_dist, max_dist; /* reach: key-probe distances */
} qkv_synth_task_opts;

/* Checks o against its task: ends needs 2·QKV_SYNTH_ENDS_K <= min_len <= max_len <=
 * QKV_SYNTH_TASK_MAX_LEN; reach needs 1 <= min_dist <= max_dist < min_len <= max_len <=
 * QKV_SYNTH_TASK_MAX_LEN (both words fit in the shortest sentence); grammar reads no lengths.
 * Errors name the option (min_len, max_len, min_dist, max_dist) and the reason. */
int qkv_synth_task_check(const qkv_synth_task_opts *o, qkv_error *err);

/* Writes n_sent sentences of o's task drawn from seed as CoNLL-U (grammar: qkv_synth_write).
 * The same arguments give the same bytes on every machine. Errors: a bad o (as
 * qkv_synth_task_check), out of memory, a write error. */
int qkv_synth_task_write(FILE *out, int n_sent, uint64_t seed, const qkv_synth_task_opts *o, qkv_error *err);

#endif
