#include "data/stats.h"

#include <string.h>

int qkv_corpus_stats_compute(qkv_corpus_stats *st, const qkv_corpus *c, const qkv_corpus *train, qkv_error *err)
{
    memset(st, 0, sizeof *st);
    st->n_sent = c->n_sent;
    st->n_words = c->n_words;
    st->n_multiword = c->n_multiword;
    st->n_empty_nodes = c->n_empty_nodes;
    st->n_comments = c->n_comments;
    for (int s = 0; s < c->n_sent; s++) {
        int n = qkv_corpus_sent_len(c, s);
        st->n_sent_without_words += n == 0;
        if (n > st->longest) {
            st->longest = n;
            st->longest_line = c->sent_line[s];
        }
    }
    qkv_vocab forms, train_forms;
    memset(&train_forms, 0, sizeof train_forms);
    if (qkv_vocab_init(&st->tags, 0, err) != QKV_OK)
        return QKV_ERR;
    if (qkv_vocab_init(&forms, 0, err) != QKV_OK) {
        qkv_corpus_stats_free(st);
        return QKV_ERR;
    }
    int ok = QKV_OK;
    for (int w = 0; w < c->n_words && ok == QKV_OK; w++) {
        if (qkv_corpus_untagged(c, w))
            st->n_untagged++;
        else
            ok = qkv_vocab_add(&st->tags, c->text + c->tags[w].off, c->tags[w].len, NULL, err);
        if (ok == QKV_OK)
            ok = qkv_vocab_add(&forms, c->text + c->forms[w].off, c->forms[w].len, NULL, err);
    }
    if (ok == QKV_OK)
        ok = qkv_vocab_prune(&st->tags, 1, err);
    st->n_types = forms.size;
    if (ok == QKV_OK && train) {
        st->has_train = 1;
        ok = qkv_vocab_init(&train_forms, 0, err);
        for (int w = 0; w < train->n_words && ok == QKV_OK; w++)
            ok = qkv_vocab_add(&train_forms, train->text + train->forms[w].off, train->forms[w].len, NULL, err);
        for (int t = 0; t < forms.size && ok == QKV_OK; t++) {
            const char *s = qkv_vocab_string(&forms, t);
            if (qkv_vocab_lookup(&train_forms, s, strlen(s)) < 0) {
                st->unknown_types++;
                st->unknown_words += qkv_vocab_count(&forms, t);
            }
        }
    }
    qkv_vocab_free(&forms);
    qkv_vocab_free(&train_forms);
    if (ok != QKV_OK)
        qkv_corpus_stats_free(st);
    return ok;
}

void qkv_corpus_stats_free(qkv_corpus_stats *st)
{
    qkv_vocab_free(&st->tags);
    memset(st, 0, sizeof *st);
}
