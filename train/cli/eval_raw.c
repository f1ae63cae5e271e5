/* qkv eval --raw (eval_raw.h). */
#include "train/cli/eval_raw.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "data/textfile.h"
#include "data/ud_eval.h"
#include "lib/threads.h"
#include "api/model_file.h"
#include "api/segmenter.h"
#include "train/evaluate.h"
#include "train/train_state.h"
#include "train/cli/command.h"

/* Every "# text = " line of gold as one line of text into *out (malloc'd, *len bytes). */
static int text_lines(const char *gold, size_t len, const char *name, char **out, size_t *out_len, qkv_error *err)
{
    FILE *mem = open_memstream(out, out_len);
    if (!mem)
        return qkv_fail(err, "out of memory");
    int n = 0;
    for (const char *p = gold, *end = gold + len; p < end;) {
        const char *nl = memchr(p, '\n', (size_t)(end - p));
        size_t k = nl ? (size_t)(nl - p) : (size_t)(end - p);
        if (k > 0 && p[k - 1] == '\r')
            k--;
        if (k >= 9 && !memcmp(p, "# text = ", 9)) {
            fwrite(p + 9, 1, k - 9, mem);
            fputc('\n', mem);
            n++;
        }
        p = nl ? nl + 1 : end;
    }
    if (fclose(mem))
        return qkv_fail(err, "out of memory");
    if (n == 0)
        return qkv_fail(err, "%s: no \"# text = \" line: no raw text to tag", name);
    return QKV_OK;
}

/* A file's bytes in memory and its name for messages. */
typedef struct text_file {
    const char *text;
    size_t len;
    const char *name;
} text_file;

/* The system's CoNLL-U for the raw text of the gold file g into *sys: with the segmenter of
 * tokenizer_path (under group: NULL for the file's own model), else whitespace tokens. */
static int system_output(qkv_session *tagger, const text_file *g, const char *tokenizer_path, const char *group,
                         char **sys, size_t *sys_len, qkv_error *err)
{
    const char *gold = g->text, *name = g->name;
    size_t len = g->len;
    FILE *mem = open_memstream(sys, sys_len);
    if (!mem)
        return qkv_fail(err, "out of memory");
    int status;
    if (tokenizer_path) {
        qkv_tokenizer tk;
        qkv_seg_text st;
        qkv_segmentation seg;
        memset(&seg, 0, sizeof seg);
        memset(&st, 0, sizeof st);
        long sent_id = 0;
        status = qkv_tokenizer_load(&tk, tokenizer_path, group, err);
        if (status == QKV_OK)
            status = qkv_seg_read_mem(&st, gold, len, name, err);
        if (status == QKV_OK)
            status = qkv_tokenizer_segment(&tk, &st, &seg, err);
        if (status == QKV_OK)
            status = qkv_tag_segmentation(tagger, &st, &seg, &sent_id, mem, err);
        qkv_segmentation_free(&seg);
        qkv_seg_free(&st);
        qkv_tokenizer_free(&tk);
    } else {
        char *text = NULL;
        size_t text_len = 0;
        qkv_corpus c;
        memset(&c, 0, sizeof c);
        status = text_lines(gold, len, name, &text, &text_len, err);
        if (status == QKV_OK)
            status = qkv_corpus_read_text(&c, text, text_len, name, err);
        if (status == QKV_OK)
            status = qkv_tag_corpus_write(tagger, &c, mem, err);
        qkv_corpus_free(&c);
        free(text);
    }
    if (fclose(mem) && status == QKV_OK)
        status = qkv_fail(err, "out of memory");
    return status;
}

static void print_json_score(const char *key, const qkv_ud_score *s, const char *sep)
{
    printf("\"%s\": {\"gold\": %ld, \"system\": %ld, \"correct\": %ld, \"precision\": %.6f, \"recall\": %.6f, "
           "\"f1\": %.6f}%s",
           key, s->gold, s->system, s->correct, s->precision, s->recall, s->f1, sep);
}

static void print_score(const char *name, const qkv_ud_score *s)
{
    printf("%-10s %9ld %9ld %9ld   %6.2f %6.2f %6.2f\n", name, s->gold, s->system, s->correct, 100 * s->precision,
           100 * s->recall, 100 * s->f1);
}

/* The scores beyond UPOS, shown for a model that predicts their columns: XPOS, UFeats, AllTags
 * (UPOS, XPOS and FEATS), Lemmas; a parser's UAS and LAS, and MLAS (UPOS and FEATS predicted
 * too) and BLEX (LEMMA predicted too). */
enum { N_EXTRA = 8 };
static const struct {
    const char *name, *json;
} EXTRA[N_EXTRA] = {{"XPOS", "xpos"}, {"UFeats", "ufeats"}, {"AllTags", "alltags"}, {"Lemmas", "lemmas"},
                    {"UAS", "uas"},   {"LAS", "las"},       {"MLAS", "mlas"},       {"BLEX", "blex"}};

static bool predicts(const qkv_session *s, int k)
{
    switch (k) {
    case 0: return qkv_eval_predicts_column(s, QKV_TAG_XPOS);
    case 1: return qkv_eval_predicts_column(s, QKV_TAG_FEATS);
    case 2:
        return qkv_eval_predicts_column(s, QKV_TAG_UPOS) && qkv_eval_predicts_column(s, QKV_TAG_XPOS) &&
               qkv_eval_predicts_column(s, QKV_TAG_FEATS);
    case 3: return qkv_eval_predicts_column(s, QKV_TAG_LEMMA);
    case 4:
    case 5: return qkv_network_scored_by(&s->model, QKV_SCORE_ATTACHMENT);
    case 6: return qkv_eval_scores_mlas(s);
    default: return qkv_eval_scores_blex(s);
    }
}

static const qkv_ud_score *extra_score(const qkv_ud_eval *r, int k)
{
    const qkv_ud_score *scores[N_EXTRA] = {&r->xpos, &r->ufeats, &r->alltags, &r->lemmas,
                                           &r->uas,  &r->las,    &r->mlas,    &r->blex};
    return scores[k];
}

/* The segmenter --raw uses: --tokenizer's ("whitespace": none), else the one ckpt bundles (its
 * group into *group); NULL after printing the error when there is none. */
static const char *raw_segmenter(const char *ckpt, const char *tokenizer_path, const char **group, bool *none)
{
    *group = NULL;
    *none = tokenizer_path && !strcmp(tokenizer_path, QKV_EVAL_WHITESPACE);
    if (tokenizer_path)
        return tokenizer_path;
    if (qkv_model_file_has(ckpt, QKV_SEGMENTER_GROUP)) {
        *group = QKV_SEGMENTER_GROUP;
        return ckpt;
    }
    qkv_fail_reportf("--raw: %s bundles no segmenter (data.segmenter, qkv export --tokenizer): give one "
                     "with --tokenizer SEG.h5, or --tokenizer " QKV_EVAL_WHITESPACE " for whitespace tokens and a # text "
                     "line a sentence", ckpt);
    return NULL;
}

int qkv_eval_raw(const char *ckpt, const char *gold_path, const char *tokenizer_path, bool json)
{
    qkv_session s;
    qkv_session_init(&s);
    qkv_error err;
    char *gold = NULL, *sys = NULL;
    size_t gold_len = 0, sys_len = 0;
    int status = 1;
    if (qkv_cmd_load_model(&s, ckpt))
        goto done;
    if (qkv_text_read(gold_path, &gold, &gold_len, &err)) {
        qkv_fail_report(&err);
        goto done;
    }
    if (qkv_cmd_refuse_segmenter(&s, ckpt))
        goto done;
    const char *group;
    bool whitespace;
    if (!(tokenizer_path = raw_segmenter(ckpt, tokenizer_path, &group, &whitespace)))
        goto done;
    if (whitespace)
        tokenizer_path = NULL;
    char shown[4200]; /* the segmenter, as output names it */
    snprintf(shown, sizeof shown, "%s%s", tokenizer_path ? tokenizer_path : "", group ? ":/segmenter" : "");
    qkv_ud_eval res;
    if (system_output(&s, &(text_file){gold, gold_len, gold_path}, tokenizer_path, group, &sys, &sys_len, &err) ||
        qkv_ud_evaluate(gold, gold_len, gold_path, sys ? sys : "", sys ? sys_len : 0, "the system output", &res,
                        &err)) {
        qkv_fail_report(&err);
        goto done;
    }
    if (res.gold_arcs == 0 && qkv_network_scored_by(&s.model, QKV_SCORE_ATTACHMENT)) {
        qkv_fail_reportf("%s: no word has a HEAD (field 7): nothing to score the parser on", gold_path);
        goto done;
    }
    if (json) {
        printf("{\"file\": \"%s\", \"tokenizer\": %s%s%s, ", gold_path, tokenizer_path ? "\"" : "",
               tokenizer_path ? shown : "null", tokenizer_path ? "\"" : "");
        print_json_score("tokens", &res.tokens, ", ");
        print_json_score("sentences", &res.sentences, ", ");
        print_json_score("words", &res.words, ", ");
        print_json_score("upos", &res.upos, "");
        for (int k = 0; k < N_EXTRA; k++)
            if (predicts(&s, k)) {
                printf(", ");
                print_json_score(EXTRA[k].json, extra_score(&res, k), "");
            }
        printf("}\n");
    } else {
        printf("%s from its raw text (%s), CoNLL 2018 shared task scores:\n", gold_path,
               tokenizer_path ? shown : "whitespace tokens, a # text line a sentence");
        printf("%-10s %9s %9s %9s   %6s %6s %6s\n", "metric", "gold", "system", "correct", "P", "R", "F1");
        print_score("Tokens", &res.tokens);
        print_score("Sentences", &res.sentences);
        print_score("Words", &res.words);
        print_score("UPOS", &res.upos);
        for (int k = 0; k < N_EXTRA; k++)
            if (predicts(&s, k))
                print_score(EXTRA[k].name, extra_score(&res, k));
    }
    status = 0;
done:
    free(gold);
    free(sys);
    qkv_session_free(&s);
    return status;
}
