/* qkv stats FILE [--train TRAIN]: counts of a tagged corpus (data/ computes, this prints). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "data/batch.h"
#include "data/stats.h"
#include "train/cli/cli.h"
#include "train/cli/commands.h"

static const char ABOUT[] =
    "Prints the sentences, words, multiword tokens, empty nodes, the longest sentence and\n"
    "the words per tag of FILE (CoNLL-U, or columns: FORM first, the tag last or in --tag-column,\n"
    "TAB- or space-separated, blank or whitespace-only lines between sentences, -DOCSTART- lines\n"
    "between documents). A tag _ means no tag: such words are counted apart.\n";

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static double pct(double a, double b) { return b > 0 ? 100.0 * a / b : 0.0; }

/* Reads, indexes and batches one epoch of the file as training data; prints the times. */
static int run_timing(const char *path, const qkv_read_opts *opts, int budget)
{
    qkv_error err;
    qkv_corpus c;
    qkv_featurizer fz;
    qkv_dataset ds;
    qkv_batch_plan plan;
    qkv_batch b;
    qkv_feature_config cfg = QKV_FEATURE_DEFAULTS;
    clock_t cpu0 = clock();
    double t0 = now_s();
    if (qkv_corpus_read(&c, path, opts, &err) != QKV_OK) {
        fprintf(stderr, "qkv stats: %s\n", err.msg);
        return 1;
    }
    double t1 = now_s();
    int st = qkv_featurizer_build(&fz, &cfg, &c, &err);
    if (st == QKV_OK) {
        st = qkv_dataset_encode(&ds, &fz, &c, NULL, &err);
        if (st != QKV_OK)
            qkv_featurizer_free(&fz);
    }
    if (st != QKV_OK) {
        qkv_corpus_free(&c);
        fprintf(stderr, "qkv stats: %s\n", err.msg);
        return 1;
    }
    double t2 = now_s();
    qkv_rng rng;
    qkv_rng_seed(&rng, 1);
    int64_t filled = 0;
    st = qkv_batch_plan_make(&plan, &ds, budget, &rng, &err);
    if (st == QKV_OK) {
        int ms, mt;
        qkv_batch_max_size(&ds, budget, &ms, &mt);
        st = qkv_batch_alloc(&b, qkv_dataset_n_features(&ds), qkv_dataset_has_chars(&ds), ms, mt, &err);
        for (int i = 0; st == QKV_OK && i < qkv_batch_plan_n_batches(&plan); i++) {
            st = qkv_batch_fill(&b, &ds, &plan, i, &err);
            filled += qkv_batch_n_tokens(&b);
        }
        qkv_batch_free(&b);
    }
    double t3 = now_s();
    double cpu = (double)(clock() - cpu0) / CLOCKS_PER_SEC;
    if (st == QKV_OK)
        printf("time: read %.3f s, index %.3f s (%d feature kinds), batch %.3f s (%d batches, %lld words), "
               "total %.3f s wall, %.3f s CPU\n",
               t1 - t0, t2 - t1, qkv_dataset_n_features(&ds), t3 - t2, qkv_batch_plan_n_batches(&plan),
               (long long)filled, t3 - t0, cpu);
    else
        fprintf(stderr, "qkv stats: %s\n", err.msg);
    qkv_batch_plan_free(&plan);
    qkv_dataset_free(&ds);
    qkv_featurizer_free(&fz);
    qkv_corpus_free(&c);
    return st == QKV_OK ? 0 : 1;
}

/* The statistics of FILE (read as c with opts) on stdout; with train_path, the words unknown to it. */
static void print_stats(const char *file, const qkv_corpus *c, const qkv_read_opts *opts, const qkv_corpus_stats *st,
                        const char *train_path)
{
    const char *fmt = qkv_corpus_format(c) != QKV_FORMAT_CONLLU ? "columns, FORM first"
                      : opts->tag_field == QKV_TAG_XPOS            ? "CoNLL-U, tags from XPOS"
                                                                   : "CoNLL-U, tags from UPOS";
    printf("file: %s (%s)\n", file, fmt);
    printf("sentences: %d\n", st->n_sent);
    if (st->n_sent_without_words)
        printf("sentences without words: %d\n", st->n_sent_without_words);
    printf("words: %d\n", st->n_words);
    printf("multiword tokens: %d\n", st->n_multiword);
    printf("empty nodes: %d\n", st->n_empty_nodes);
    if (c->n_docstart)
        printf("documents (-DOCSTART- lines): %d\n", c->n_docstart);
    if (st->longest_line)
        printf("longest sentence: %d words (line %d)\n", st->longest, st->longest_line);
    else
        printf("longest sentence: 0 words\n");
    printf("word types: %d\n", st->n_types);
    printf("tags: %d\n", qkv_vocab_size(&st->tags));
    if (st->n_untagged)
        printf("words without a tag (%s): %d\n", QKV_NO_TAG, st->n_untagged);
    int width = 12;
    for (int t = 0; t < qkv_vocab_size(&st->tags); t++)
        if ((int)strlen(qkv_vocab_string(&st->tags, t)) > width)
            width = (int)strlen(qkv_vocab_string(&st->tags, t));
    for (int t = 0; t < qkv_vocab_size(&st->tags); t++) {
        int64_t n = qkv_vocab_count(&st->tags, t);
        printf("  %-*s %8lld  %6.2f%%\n", width, qkv_vocab_string(&st->tags, t), (long long)n, pct((double)n, st->n_words));
    }
    if (st->has_train)
        printf("unknown to %s: %lld of %d words (%.2f%%), %d of %d word types (%.2f%%)\n", train_path,
               (long long)st->unknown_words, st->n_words, pct((double)st->unknown_words, st->n_words), st->unknown_types,
               st->n_types, pct(st->unknown_types, st->n_types));
}

int qkv_cmd_stats(int argc, char **argv)
{
    const char *file = NULL, *train_path = NULL;
    qkv_read_opts opts = QKV_READ_DEFAULTS;
    bool xpos = false, timing = false;
    int format = QKV_FORMAT_AUTO;
    long tag_column = 0, budget = 2000;
    const qkv_cli_opt rows[] = {
        {"FILE", QKV_CLI_STRING, &file, .required = true},
        {"--train", QKV_CLI_STRING, &train_path, "TRAIN",
         "also the share of words and of word types (distinct FORMs) of FILE\nthat never occur in TRAIN"},
        {"--xpos", QKV_CLI_FLAG, &xpos, NULL, "CoNLL-U: count the XPOS column instead of UPOS"},
        {"--format", QKV_CLI_CHOICE, &format, "F",
         "auto (default: CoNLL-U for *.conllu or 10 fields), conllu, columns", .choices = QKV_FORMAT_NAMES},
        {"--tag-column", QKV_CLI_INT, &tag_column, "N", "columns format: the tag is column N (FORM is 1; default: the last)",
         .lo = 1, .hi = 1000000000},
        {"--time", QKV_CLI_FLAG, &timing, NULL,
         "time reading, indexing (vocabularies and feature ids with the default\n"
         "features) and batching (plan and fill every batch) of FILE"},
        {"--budget", QKV_CLI_INT, &budget, "TOKENS", "token budget per batch for --time (default 2000)", .lo = 1,
         .hi = 1000000000},
    };
    const qkv_cli_spec spec = {"stats", ABOUT, NULL, rows, QKV_CLI_N(rows)};
    int usage = qkv_cli_parse(&spec, argc, argv);
    if (usage >= 0)
        return usage;
    opts.format = (qkv_format)format;
    opts.tag_field = xpos ? QKV_TAG_XPOS : QKV_TAG_UPOS;
    opts.tag_column = (int)tag_column;
    qkv_error err;
    qkv_corpus c, train;
    if (qkv_corpus_read(&c, file, &opts, &err) != QKV_OK) {
        fprintf(stderr, "qkv stats: %s\n", err.msg);
        return 1;
    }
    if (train_path && qkv_corpus_read(&train, train_path, &opts, &err) != QKV_OK) {
        fprintf(stderr, "qkv stats: %s\n", err.msg);
        qkv_corpus_free(&c);
        return 1;
    }
    qkv_corpus_stats st;
    if (qkv_corpus_stats_compute(&st, &c, train_path ? &train : NULL, &err) != QKV_OK) {
        fprintf(stderr, "qkv stats: %s\n", err.msg);
        qkv_corpus_free(&c);
        if (train_path)
            qkv_corpus_free(&train);
        return 1;
    }
    print_stats(file, &c, &opts, &st, train_path);
    qkv_corpus_stats_free(&st);
    qkv_corpus_free(&c);
    if (train_path)
        qkv_corpus_free(&train);
    return timing ? run_timing(file, &opts, (int)budget) : 0;
}
