#include "train/report.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "data/ud_tags.h"
#include "lib/threads.h"
#include "train/span_eval.h"
#include "train/task_report.h"

static const char *BUCKET_NAMES[QKV_N_LENGTH_BUCKETS] = {"1-10", "11-20", "21-40", "41+"};

static double ratio(long a, long b) { return b ? (double)a / (double)b : 0; }

typedef struct {
    long count;
    int gold, pred;
} confusion;

static int by_count_desc(const void *a, const void *b)
{
    const confusion *x = a, *y = b;
    if (x->count != y->count)
        return x->count < y->count ? 1 : -1;
    return x->gold != y->gold ? x->gold - y->gold : x->pred - y->pred;
}

/* The n most frequent (gold != predicted) pairs, into top; returns how many. */
static int top_confusions(const qkv_eval_result *res, confusion *top, int n)
{
    int k = res->n_tags, found = 0;
    confusion *all = malloc((size_t)k * (size_t)k * sizeof *all);
    if (!all)
        return 0;
    for (int g = 0; g < k; g++)
        for (int p = 0; p < k; p++)
            if (g != p && res->confusion[(size_t)g * k + p])
                all[found++] = (confusion){res->confusion[(size_t)g * k + p], g, p};
    qsort(all, (size_t)found, sizeof *all, by_count_desc);
    if (found > n)
        found = n;
    memcpy(top, all, (size_t)found * sizeof *all);
    free(all);
    return found;
}

/* The span types of e in name order (conlleval's), into order [n_types]. */
static const qkv_span_counts *sorted_types(const qkv_span_eval *e, int *order)
{
    const qkv_span_counts *c = &e->counts;
    for (int i = 0; i < c->n_types; i++) {
        int j = i;
        for (; j > 0 && strcmp(c->types[order[j - 1]], c->types[i]) > 0; j--)
            order[j] = order[j - 1];
        order[j] = i;
    }
    return c;
}

static const char NO_PRED_NOTE[] = "no span predicted: precision taken as 0";

/* The entity-level scores of res->spans, overall and per type. */
static void spans_text(FILE *out, const qkv_span_eval *e)
{
    const qkv_span_counts *c = &e->counts;
    fprintf(out, "  spans: precision %.2f%%, recall %.2f%%, F1 %.2f (%ld correct; %ld gold, %ld predicted)%s%s\n",
            100 * e->precision, 100 * e->recall, 100 * e->f1, c->correct, c->gold, c->pred, c->pred ? "" : "; ",
            c->pred ? "" : NO_PRED_NOTE);
    int *order = malloc((size_t)(c->n_types ? c->n_types : 1) * sizeof *order), width = 8;
    if (!order)
        return;
    sorted_types(e, order);
    for (int k = 0; k < c->n_types; k++)
        if ((int)strlen(c->types[k]) > width)
            width = (int)strlen(c->types[k]);
    fprintf(out, "  %-*s %9s %9s %9s %8s %9s\n", width, "type", "precision", "recall", "f1", "gold", "predicted");
    for (int i = 0; i < c->n_types; i++) {
        int k = order[i];
        double p, r, f;
        qkv_span_prf(c->type_correct[k], c->type_gold[k], c->type_pred[k], &p, &r, &f);
        fprintf(out, "  %-*s %9.4f %9.4f %9.4f %8ld %9ld\n", width, c->types[k], p, r, f, c->type_gold[k],
                c->type_pred[k]);
    }
    free(order);
}

/* The accuracy of every head, and the CoNLL 2018 scores of a model of several columns. */
/* A parser's CoNLL 2018 dependency scores (res->deps), with whether each is shown: UAS and LAS
 * always, MLAS and BLEX when the model predicts the columns they read. */
typedef struct dep_score {
    const char *name;
    const qkv_ud_score *score;
    bool shown;
} dep_score;

static int dep_scores(const qkv_session *s, const qkv_eval_result *res, dep_score d[4])
{
    if (!res->deps)
        return 0;
    d[0] = (dep_score){"UAS", &res->deps->uas, true};
    d[1] = (dep_score){"LAS", &res->deps->las, true};
    d[2] = (dep_score){"MLAS", &res->deps->mlas, qkv_eval_scores_mlas(s)};
    d[3] = (dep_score){"BLEX", &res->deps->blex, qkv_eval_scores_blex(s)};
    return 4;
}

static void ud_tags_text(FILE *out, const qkv_session *s, const qkv_eval_result *res)
{
    if (res->n_outputs > 1) {
        fprintf(out, "  heads:");
        for (int h = 0; h < res->n_outputs; h++)
            if (res->head_words[h])
                fprintf(out, " %s %.2f%%", QKV_TAG_FIELD_NAMES[s->fz.columns[h]], 100 * res->head_accuracy[h]);
            else /* every gold value of that column is "_" */
                fprintf(out, " %s n/a (no gold %s)", QKV_TAG_FIELD_NAMES[s->fz.columns[h]],
                        QKV_TAG_FIELD_NAMES[s->fz.columns[h]]);
        fprintf(out, "\n");
    }
    if (!res->ud)
        return;
    fprintf(out, "  CoNLL 2018 scores (gold tokenization):");
    for (int k = 0; k < QKV_UD_TAG_SCORES; k++)
        if (res->ud->has[k])
            fprintf(out, " %s %.2f%%", QKV_UD_TAG_SCORE_NAMES[k], 100 * res->ud->score[k].f1);
    dep_score d[4];
    for (int k = 0, n = dep_scores(s, res, d); k < n; k++)
        if (d[k].shown)
            fprintf(out, " %s %.2f%%", d[k].name, 100 * d[k].score->f1);
    fprintf(out, "\n");
    if (res->n_lemma_fallback)
        fprintf(out, "  %d words: the predicted lemma script does not apply to the form; the form is the lemma\n",
                res->n_lemma_fallback);
    if (res->n_outputs > 1)
        fprintf(out, "  (the table below is %s's)\n", QKV_TAG_FIELD_NAMES[s->fz.columns[0]]);
}

/* A segmenter's Tokens and Sentences scores, as qkv eval --raw prints them. */
static void segments_text(FILE *out, const qkv_eval_result *res)
{
    const qkv_ud_score *sc[2] = {&res->seg_tokens, &res->seg_sentences};
    const char *names[2] = {"Tokens", "Sentences"};
    fprintf(out, "  %-10s %9s %9s %9s   %6s %6s %6s\n", "segments", "gold", "system", "correct", "P", "R", "F1");
    for (int k = 0; k < 2; k++)
        fprintf(out, "  %-10s %9ld %9ld %9ld   %6.2f %6.2f %6.2f\n", names[k], sc[k]->gold, sc[k]->system,
                sc[k]->correct, 100 * sc[k]->precision, 100 * sc[k]->recall, 100 * sc[k]->f1);
}

/* The widest of the tag names (at least 8 bytes). */
static int tag_width(const qkv_session *s, int n_tags)
{
    int width = 8;
    for (int t = 0; t < n_tags; t++)
        if ((int)strlen(qkv_featurizer_tag(&s->fz, t)) > width)
            width = (int)strlen(qkv_featurizer_tag(&s->fz, t));
    return width;
}

/* The per-tag scores and the most frequent confusions, in columns as wide as the longest tag. */
static void tags_text(FILE *out, const qkv_session *s, const qkv_eval_result *res)
{
    int width = tag_width(s, res->n_tags);
    fprintf(out, "  %-*s %9s %9s %9s %8s\n", width, "tag", "precision", "recall", "f1", "support");
    for (int t = 0; t < res->n_tags; t++) {
        double p = ratio(res->correct[t], res->predicted[t]), r = ratio(res->correct[t], res->gold[t]);
        double f1 = p + r > 0 ? 2 * p * r / (p + r) : 0;
        fprintf(out, "  %-*s %9.4f %9.4f %9.4f %8ld\n", width, qkv_featurizer_tag(&s->fz, t), p, r, f1, res->gold[t]);
    }
    confusion top[10];
    int n = top_confusions(res, top, 10);
    if (n) {
        fprintf(out, "  most frequent confusions (gold -> predicted):\n");
        for (int i = 0; i < n; i++)
            fprintf(out, "    %-*s -> %-*s %6ld\n", width, qkv_featurizer_tag(&s->fz, top[i].gold), width,
                    qkv_featurizer_tag(&s->fz, top[i].pred), top[i].count);
    }
}

void qkv_report_text(FILE *out, const qkv_session *s, const char *what, const qkv_eval_result *res, bool by_length)
{
    if (qkv_task_report_of(s)->text) {
        qkv_task_report_of(s)->text(out, s, what, res);
        return;
    }
    const qkv_task_desc *task = qkv_session_task(s);
    const char *unit = task->word_unit;
    char lead[96] = "";
    if (res->spans)
        snprintf(lead, sizeof lead, "span F1 %.2f (P %.2f%%, R %.2f%%), ", 100 * res->spans->f1,
                 100 * res->spans->precision, 100 * res->spans->recall);
    if (res->pred_arcs)
        fprintf(out, "%s: UAS %.2f%% (%ld of %ld words), LAS %.2f%% (%ld; full DEPREL labels, punctuation included), "
                     "loss %.4f, %.0f words/s\n",
                what, 100 * res->uas, res->n_arc_correct, res->n_words, 100 * res->accuracy, res->n_correct, res->loss,
                res->tokens_per_sec);
    else
        fprintf(out, "%s: %saccuracy %.2f%% (%ld of %ld %s), loss %.4f, %.0f %s/s\n", what, lead, 100 * res->accuracy,
                res->n_correct, res->n_words, unit, res->loss, res->tokens_per_sec, unit);
    if (res->n_unknown_gold)
        fprintf(out, "  %ld %s have a gold tag unseen in training (counted as errors)\n", res->n_unknown_gold, unit);
    if (res->n_untagged)
        fprintf(out, "  %ld %s without a tag (%s) not scored\n", res->n_untagged, unit, QKV_NO_TAG);
    if (res->spans)
        spans_text(out, res->spans);
    ud_tags_text(out, s, res);
    if (res->has_segments)
        segments_text(out, res);
    tags_text(out, s, res);
    if (by_length) {
        fprintf(out, "  accuracy by %s length:\n", task->sentence_one);
        for (int b = 0; b < QKV_N_LENGTH_BUCKETS; b++)
            fprintf(out, "    %-6s %8ld %s  %6.2f%%\n", BUCKET_NAMES[b], res->bucket_words[b], unit,
                    100 * ratio(res->bucket_correct[b], res->bucket_words[b]));
    }
}

static void json_string(FILE *out, const char *s)
{
    fputc('"', out);
    for (; *s; s++) {
        unsigned char c = (unsigned char)*s;
        if (c == '"' || c == '\\')
            fprintf(out, "\\%c", c);
        else if (c < 0x20)
            fprintf(out, "\\u%04x", c);
        else
            fputc(c, out);
    }
    fputc('"', out);
}

/* A segmenter's Tokens and Sentences scores as the JSON member "segments". */
static void segments_json(FILE *out, const qkv_eval_result *res)
{
    const qkv_ud_score *sc[2] = {&res->seg_tokens, &res->seg_sentences};
    fprintf(out, ",\n \"segments\": {");
    for (int k = 0; k < 2; k++)
        fprintf(out, "%s\"%s\": {\"gold\": %ld, \"system\": %ld, \"correct\": %ld, \"precision\": %.6f, "
                     "\"recall\": %.6f, \"f1\": %.6f}", k ? ", " : "", k ? "sentences" : "tokens", sc[k]->gold,
                sc[k]->system, sc[k]->correct, sc[k]->precision, sc[k]->recall, sc[k]->f1);
    fprintf(out, "}");
}

/* The CoNLL 2018 scores (res->ud, res->deps) as the JSON member "conll18" and the lemma fallbacks. */
static void ud_json(FILE *out, const qkv_session *s, const qkv_eval_result *res)
{
    fprintf(out, ",\n \"conll18\": {");
    int n = 0;
    for (int k = 0; k < QKV_UD_TAG_SCORES; k++)
        if (res->ud->has[k])
            fprintf(out, "%s\"%s\": %.6f", n++ ? ", " : "", QKV_UD_TAG_SCORE_NAMES[k], res->ud->score[k].f1);
    dep_score d[4];
    for (int k = 0, nd = dep_scores(s, res, d); k < nd; k++)
        if (d[k].shown)
            fprintf(out, "%s\"%s\": %.6f", n++ ? ", " : "", d[k].name, d[k].score->f1);
    fprintf(out, "}, \"lemma_fallback\": %d", res->n_lemma_fallback);
}

void qkv_report_json(FILE *out, const qkv_session *s, const char *what, const qkv_eval_result *res, bool by_length)
{
    fprintf(out, "{\"file\": ");
    json_string(out, what);
    fprintf(out, ", \"words\": %ld, \"correct\": %ld, \"accuracy\": %.6f, \"loss\": ", res->n_words,
            res->n_correct, res->accuracy);
    if (isfinite(res->loss)) /* +inf when a constrained CRF decoded a sentence without its constraints */
        fprintf(out, "%.6f", res->loss);
    else
        fprintf(out, "null");
    fprintf(out, ", \"unknown_gold\": %ld, \"untagged\": %ld, \"seconds\": %.4f, \"tokens_per_sec\": %.1f, "
                 "\"threads\": %d,",
            res->n_unknown_gold, res->n_untagged, res->seconds, res->tokens_per_sec, qkv_threads());
    if (res->pred_arcs) /* a parser: accuracy is LAS */
        fprintf(out, " \"uas\": %.6f, \"las\": %.6f, \"head_correct\": %ld,", res->uas, res->accuracy,
                res->n_arc_correct);
    fprintf(out, "\n \"tags\": {");
    for (int t = 0; t < res->n_tags; t++) {
        double p = ratio(res->correct[t], res->predicted[t]), r = ratio(res->correct[t], res->gold[t]);
        double f1 = p + r > 0 ? 2 * p * r / (p + r) : 0;
        fprintf(out, "%s\n  ", t ? "," : "");
        json_string(out, qkv_featurizer_tag(&s->fz, t));
        fprintf(out, ": {\"precision\": %.6f, \"recall\": %.6f, \"f1\": %.6f, \"support\": %ld}", p, r, f1, res->gold[t]);
    }
    fprintf(out, "},\n \"confusions\": [");
    confusion top[10];
    int n = top_confusions(res, top, 10);
    for (int i = 0; i < n; i++) {
        fprintf(out, "%s{\"gold\": ", i ? ", " : "");
        json_string(out, qkv_featurizer_tag(&s->fz, top[i].gold));
        fprintf(out, ", \"predicted\": ");
        json_string(out, qkv_featurizer_tag(&s->fz, top[i].pred));
        fprintf(out, ", \"count\": %ld}", top[i].count);
    }
    fprintf(out, "]");
    if (res->spans) {
        const qkv_span_eval *e = res->spans;
        const qkv_span_counts *c = &e->counts;
        fprintf(out, ",\n \"spans\": {\"precision\": %.6f, \"recall\": %.6f, \"f1\": %.6f, \"gold\": %ld, "
                     "\"predicted\": %ld, \"correct\": %ld,%s%s%s \"types\": {",
                e->precision, e->recall, e->f1, c->gold, c->pred, c->correct, c->pred ? "" : " \"note\": \"",
                c->pred ? "" : NO_PRED_NOTE, c->pred ? "" : "\",");
        int *order = malloc((size_t)(c->n_types ? c->n_types : 1) * sizeof *order);
        for (int i = 0; order && i < c->n_types; i++) {
            if (i == 0)
                sorted_types(e, order);
            int k = order[i];
            double p, r, f;
            qkv_span_prf(c->type_correct[k], c->type_gold[k], c->type_pred[k], &p, &r, &f);
            fprintf(out, "%s\n  ", i ? "," : "");
            json_string(out, c->types[k]);
            fprintf(out, ": {\"precision\": %.6f, \"recall\": %.6f, \"f1\": %.6f, \"gold\": %ld, \"predicted\": %ld, "
                         "\"correct\": %ld}",
                    p, r, f, c->type_gold[k], c->type_pred[k], c->type_correct[k]);
        }
        free(order);
        fprintf(out, "}}");
    }
    if (res->has_segments)
        segments_json(out, res);
    if (res->ud)
        ud_json(out, s, res);
    if (res->n_outputs > 1) {
        fprintf(out, ",\n \"heads\": {");
        for (int h = 0; h < res->n_outputs; h++)
            fprintf(out, "%s\"%s\": %.6f", h ? ", " : "", QKV_TAG_FIELD_NAMES[s->fz.columns[h]], res->head_accuracy[h]);
        fprintf(out, "}");
    }
    if (by_length) {
        fprintf(out, ",\n \"by_length\": [");
        for (int b = 0; b < QKV_N_LENGTH_BUCKETS; b++)
            fprintf(out, "%s{\"bucket\": \"%s\", \"words\": %ld, \"correct\": %ld, \"accuracy\": %.6f}", b ? ", " : "",
                    BUCKET_NAMES[b], res->bucket_words[b], res->bucket_correct[b],
                    ratio(res->bucket_correct[b], res->bucket_words[b]));
        fprintf(out, "]");
    }
    if (qkv_task_report_of(s)->json_members)
        qkv_task_report_of(s)->json_members(out, res);
    fprintf(out, "}\n");
}

void qkv_report_warnings(qkv_session *s)
{
    for (int i = 0; i < s->warnings.n; i++)
        fprintf(stderr, "qkv: warning: %s\n", s->warnings.msgs[i]);
    qkv_warnings_free(&s->warnings);
}
