/* The segmenter's pipeline: raw text -> paragraphs -> labels -> CoNLL-U -> tags (tokenize.h). */
#include "train/tokenize.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "train/evaluate.h"
#include "train/train_state.h"

#define PARAGRAPH_MAX (64 * 1024)

int qkv_tokenizer_load(qkv_tokenizer *tk, const char *path, qkv_error *err)
{
    memset(tk, 0, sizeof *tk);
    qkv_session_init(&tk->s);
    if (qkv_checkpoint_load_model(path, &tk->s, err))
        return QKV_ERR;
    int n_tags = qkv_featurizer_n_tags(&tk->s.fz);
    if (tk->s.cfg.data.task != QKV_TASK_SEGMENT || n_tags > (int)sizeof tk->label)
        return qkv_fail(err, "%s: not a segmenter (a model of data.task: segment, e.g. trained with "
                             "configs/ud_ewt_tokenize.yaml)", path);
    for (int t = 0; t < n_tags; t++) {
        const char *name = qkv_featurizer_tag(&tk->s.fz, t);
        int l = 0;
        while (l < QKV_SEG_COUNT && strcmp(name, QKV_SEG_LABEL_NAMES[l]))
            l++;
        if (l == QKV_SEG_COUNT)
            return qkv_fail(err, "%s: not a segmenter: its tag \"%.40s\" is no segment label", path, name);
        tk->label[t] = (uint8_t)l;
    }
    return QKV_OK;
}

void qkv_tokenizer_free(qkv_tokenizer *tk) { qkv_session_free(&tk->s); }

int qkv_tokenizer_segment(qkv_tokenizer *tk, const qkv_seg_text *st, qkv_segmentation *seg, qkv_error *err)
{
    qkv_corpus c;
    qkv_dataset ds;
    qkv_eval_result res;
    memset(&ds, 0, sizeof ds);
    memset(&res, 0, sizeof res);
    uint8_t *labels = NULL;
    int status = QKV_ERR;
    if (qkv_seg_corpus(&c, st, false, err))
        return QKV_ERR;
    if (qkv_dataset_encode(&ds, &tk->s.fz, &c, NULL, err) ||
        qkv_session_check_lengths(&tk->s, &c, &ds, false, err) ||
        qkv_evaluate(&tk->s, &ds, tk->s.cfg.data.batch_tokens, &res, err))
        goto done;
    labels = malloc((size_t)(st->n_chars ? st->n_chars : 1));
    if (!labels) {
        qkv_fail(err, "out of memory");
        goto done;
    }
    for (int i = 0; i < st->n_chars; i++)
        labels[i] = res.pred[i] >= 0 ? tk->label[res.pred[i]] : QKV_SEG_OUTSIDE;
    for (int p = 0; p < st->n_par; p++)
        if (qkv_seg_decode(st, p, labels, seg, err))
            goto done;
    status = QKV_OK;
done:
    free(labels);
    qkv_eval_result_free(&res);
    qkv_dataset_free(&ds);
    qkv_corpus_free(&c);
    return status;
}

int qkv_tag_corpus_write(qkv_session *tagger, const qkv_corpus *c, FILE *out, qkv_error *err)
{
    qkv_dataset ds;
    qkv_eval_result res;
    memset(&ds, 0, sizeof ds);
    memset(&res, 0, sizeof res);
    const char **tags = NULL, **file_tags = NULL;
    char *file_tags_buf = NULL;
    int status = QKV_ERR;
    if (qkv_dataset_encode(&ds, &tagger->fz, c, NULL, err) || qkv_session_check_lengths(tagger, c, &ds, false, err) ||
        qkv_evaluate(tagger, &ds, tagger->cfg.data.batch_tokens, &res, err))
        goto done;
    tags = malloc((size_t)(c->n_words ? c->n_words : 1) * sizeof *tags);
    if (!tags) {
        qkv_fail(err, "out of memory");
        goto done;
    }
    for (int w = 0; w < c->n_words; w++)
        tags[w] = qkv_featurizer_tag(&tagger->fz, res.pred[w]);
    if (qkv_corpus_tags_as_file(c, tags, &file_tags_buf, &file_tags, err) ||
        qkv_corpus_write(c, out, file_tags ? file_tags : tags, err))
        goto done;
    if (fflush(out)) {
        qkv_fail(err, "writing the tagged output: %s", strerror(errno));
        goto done;
    }
    status = QKV_OK;
done:
    free(tags);
    free(file_tags);
    free(file_tags_buf);
    qkv_eval_result_free(&res);
    qkv_dataset_free(&ds);
    return status;
}

int qkv_tag_segments(qkv_session *tagger, const qkv_seg_text *st, const qkv_segmentation *seg, long *sent_id,
                     FILE *out, qkv_error *err)
{
    char *text = NULL;
    size_t len = 0;
    FILE *mem = open_memstream(&text, &len);
    if (!mem)
        return qkv_fail(err, "out of memory");
    int status = QKV_OK;
    for (int s = 0; s < seg->n_sent && status == QKV_OK; s++) {
        char id[32];
        snprintf(id, sizeof id, "%ld", ++*sent_id);
        status = qkv_seg_write_sentence(mem, st, seg, s, id, err);
    }
    if (fclose(mem) && status == QKV_OK)
        status = qkv_fail(err, "out of memory");
    qkv_corpus c;
    memset(&c, 0, sizeof c);
    qkv_read_opts opts = tagger->cfg.data.read;
    opts.format = QKV_FORMAT_CONLLU;
    if (status == QKV_OK)
        status = qkv_corpus_read_mem(&c, text ? text : "", text ? len : 0, st->name, &opts, err);
    if (status == QKV_OK) {
        /* the input's lines, not those of the CoNLL-U made here */
        for (int w = 0; w < c.n_words && w < seg->n_words; w++)
            c.word_line[w] = st->char_line[seg->word_start[w]];
        for (int s = 0; s < c.n_sent && s < seg->n_sent; s++)
            c.sent_line[s] = st->char_line[seg->tok_start[seg->sent_start[s]]];
        status = qkv_tag_corpus_write(tagger, &c, out, err);
    }
    qkv_corpus_free(&c);
    free(text);
    return status;
}

/* Segments, tags and writes the paragraph buf[0..len) that begins on line first_line. */
static int flush_paragraph(qkv_session *tagger, qkv_tokenizer *tk, const char *name, const char *buf, size_t len,
                           int first_line, long *sent_id, FILE *out, qkv_error *err)
{
    if (len == 0)
        return QKV_OK;
    qkv_seg_text st;
    qkv_segmentation seg;
    memset(&seg, 0, sizeof seg);
    if (qkv_seg_init(&st, name, err))
        return QKV_ERR;
    int status = qkv_seg_add_raw(&st, buf, len, first_line, err);
    if (status == QKV_OK)
        status = qkv_tokenizer_segment(tk, &st, &seg, err);
    if (status == QKV_OK)
        status = qkv_tag_segments(tagger, &st, &seg, sent_id, out, err);
    qkv_segmentation_free(&seg);
    qkv_seg_free(&st);
    return status;
}

static bool blank_line(const char *s, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (s[i] != ' ' && s[i] != '\t' && s[i] != '\r')
            return false;
    return true;
}

int qkv_tag_raw_text(qkv_session *tagger, qkv_tokenizer *tk, FILE *in, const char *name, FILE *out, qkv_error *err)
{
    char *line = NULL, *par = NULL;
    size_t line_cap = 0, par_len = 0, par_cap = 0;
    long sent_id = 0;
    int status = QKV_OK, par_line = 0;
    ssize_t got;
    for (int line_no = 1; status == QKV_OK && (got = getline(&line, &line_cap, in)) >= 0; line_no++) {
        char *s = line;
        size_t n = (size_t)got;
        if (n > 0 && s[n - 1] == '\n')
            n--;
        if (n > 0 && s[n - 1] == '\r')
            n--;
        if (line_no == 1 && n >= 3 && !memcmp(s, "\xEF\xBB\xBF", 3)) {
            s += 3;
            n -= 3;
        }
        char problem[160];
        if (qkv_text_line_problem(s, n, problem, sizeof problem)) {
            status = qkv_fail(err, "%.200s:%d: %s", name, line_no, problem);
            break;
        }
        if (blank_line(s, n)) {
            status = flush_paragraph(tagger, tk, name, par, par_len, par_line, &sent_id, out, err);
            par_len = 0;
            continue;
        }
        if (par_len + n + 2 > par_cap) {
            size_t cap = par_cap ? par_cap : 4096;
            while (cap < par_len + n + 2)
                cap *= 2;
            char *p = realloc(par, cap);
            if (!p) {
                status = qkv_fail(err, "%.200s:%d: out of memory", name, line_no);
                break;
            }
            par = p;
            par_cap = cap;
        }
        if (par_len == 0)
            par_line = line_no;
        else
            par[par_len++] = '\n';
        memcpy(par + par_len, s, n);
        par_len += n;
        if (par_len > PARAGRAPH_MAX) {
            status = flush_paragraph(tagger, tk, name, par, par_len, par_line, &sent_id, out, err);
            par_len = 0;
        }
    }
    if (status == QKV_OK && ferror(in))
        status = qkv_fail(err, "%.200s: read error: %s", name, strerror(errno));
    if (status == QKV_OK)
        status = flush_paragraph(tagger, tk, name, par, par_len, par_line, &sent_id, out, err);
    free(line);
    free(par);
    return status;
}
