/* The basic dependency trees of a CoNLL-U corpus: the HEAD column checked as UD's rules ask
 * (corpus.h, qkv_corpus_check_trees). */
#include "data/corpus.h"

#include <stdlib.h>

int qkv_corpus_n_heads(const qkv_corpus *c)
{
    int n = 0;
    for (int w = 0; c->heads && w < c->n_words; w++)
        n += c->heads[w] >= 0;
    return n;
}

/* Whether following heads from word k (1..n) of heads [n] reaches ROOT within n steps. */
static int reaches_root(const int32_t *heads, int n, int k)
{
    for (int steps = 0; steps <= n; steps++) {
        if (k == 0)
            return 1;
        k = heads[k - 1];
    }
    return 0;
}

static int check_sentence(const qkv_corpus *c, int s, qkv_error *err)
{
    const int w0 = c->sent_start[s], n = qkv_corpus_sent_len(c, s);
    const int32_t *heads = c->heads + w0;
    int roots = 0, second = -1;
    if (n == 0)
        return QKV_OK;
    if (heads[0] == -1) { /* no gold tree: then no word has a HEAD */
        for (int i = 1; i < n; i++)
            if (heads[i] != -1)
                return qkv_fail(err, "%.200s:%d: word %d has a HEAD but word 1 has _: a sentence's HEADs are all "
                                "word numbers (a tree) or all _", c->name, c->word_line[w0 + i], i + 1);
        return QKV_OK;
    }
    for (int i = 0; i < n; i++) {
        if (heads[i] == -1)
            return qkv_fail(err, "%.200s:%d: word %d has HEAD _ but word 1 has a HEAD: a sentence's HEADs are all "
                            "word numbers (a tree) or all _", c->name, c->word_line[w0 + i], i + 1);
        if (heads[i] == -2)
            return qkv_fail(err, "%.200s:%d: expected HEAD (field 7) to be a word number 0..%d or _", c->name,
                            c->word_line[w0 + i], n);
        if (heads[i] > n)
            return qkv_fail(err, "%.200s:%d: HEAD %d of word %d is out of range: the sentence has %d words",
                            c->name, c->word_line[w0 + i], heads[i], i + 1, n);
        if (heads[i] == i + 1)
            return qkv_fail(err, "%.200s:%d: word %d is its own HEAD", c->name, c->word_line[w0 + i], i + 1);
        if (heads[i] == 0 && ++roots == 2)
            second = i;
    }
    if (roots == 0)
        return qkv_fail(err, "%.200s:%d: no word of this sentence has HEAD 0 (the root)", c->name, c->word_line[w0]);
    if (roots > 1)
        return qkv_fail(err, "%.200s:%d: a second word with HEAD 0 (word %d): a tree has one root", c->name,
                        c->word_line[w0 + second], second + 1);
    for (int i = 0; i < n; i++)
        if (!reaches_root(heads, n, i + 1))
            return qkv_fail(err, "%.200s:%d: word %d is in a cycle of heads (HEAD never reaches 0)", c->name,
                            c->word_line[w0 + i], i + 1);
    return QKV_OK;
}

int qkv_corpus_check_trees(const qkv_corpus *c, qkv_error *err)
{
    for (int s = 0; c->heads && s < c->n_sent; s++)
        if (check_sentence(c, s, err))
            return QKV_ERR;
    return QKV_OK;
}
