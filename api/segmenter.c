/* The segmenter's pipeline: raw text -> paragraphs -> labels -> CoNLL-U -> tags (segmenter.h). */
#include "api/segmenter.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "api/model_file.h"
#include "api/predict.h"
#include "api/task.h"
#include "data/line_fields.h"
#include "data/text_format.h"
#include "data/textfile.h"
#include "data/seg_rules.h"
#include "data/utf8.h"

#define PARAGRAPH_MAX (64 * 1024)
/* Paragraphs are tagged in groups of this many bytes or more (batches of many sentences), unless
 * the input streams (qkv_tokenizer.stream: each paragraph as soon as it is read). */
#define GROUP_BYTES (16 * 1024)
#define LINE_MAX_BYTES (1 << 20) /* a longer line of raw text is an error */
/* The segmenter reads a paragraph longer than SEG_PIECE + 2 context characters in pieces of
 * SEG_PIECE (data/segment.h: qkv_seg_corpus_pieces): its memory stays bounded and its batches
 * full whatever the text's layout. The context is what the model sees on either side (layers ×
 * window of local self-attention), else SEG_CONTEXT. */
#define SEG_PIECE 1024
#define SEG_CONTEXT 128

/* How far the segmenter m sees on either side of a character, in characters. */
static int seg_context(const qkv_network_config *m)
{
    if (m->encoder_kind == QKV_ENCODER_TRANSFORMER && m->encoder.attn.window > 0 &&
        m->n_layers * m->encoder.attn.window <= SEG_CONTEXT)
        return m->n_layers * m->encoder.attn.window;
    return SEG_CONTEXT;
}

int qkv_tokenizer_load(qkv_tokenizer *tk, const char *path, const char *group, qkv_error *err)
{
    memset(tk, 0, sizeof *tk);
    qkv_session_init(&tk->s);
    /* a model file that bundles a segmenter (a pipeline: qkv export --tokenizer, data.segmenter)
       is its segmenter: its root is then a tagger, never a segmenter */
    if ((!group || !group[0]) && qkv_model_file_has(path, QKV_SEGMENTER_GROUP))
        group = QKV_SEGMENTER_GROUP;
    if (qkv_model_file_load(path, group, &tk->s, err))
        return QKV_ERR;
    int n_tags = qkv_featurizer_n_tags(&tk->s.fz);
    const char *sep = group && group[0] ? ":" : "";
    if (!group)
        group = "";
    if (!qkv_session_task(&tk->s)->segments || n_tags > (int)sizeof tk->label)
        return qkv_fail(err, "%s%s%s: not a segmenter (a model of data.task: segment, e.g. trained with "
                             "configs/ud_ewt_tokenize.yaml, or a model file that bundles one)", path, sep, group);
    for (int t = 0; t < n_tags; t++) {
        const char *name = qkv_featurizer_tag(&tk->s.fz, t);
        int l = 0;
        while (l < QKV_SEG_COUNT && strcmp(name, QKV_SEG_LABEL_NAMES[l]))
            l++;
        if (l == QKV_SEG_COUNT)
            return qkv_fail(err, "%s%s%s: not a segmenter: its tag \"%.40s\" is no segment label", path, sep,
                            group, name);
        tk->label[t] = (uint8_t)l;
    }
    return QKV_OK;
}

void qkv_tokenizer_free(qkv_tokenizer *tk) { qkv_session_free(&tk->s); }

int qkv_tokenizer_segment(qkv_tokenizer *tk, const qkv_seg_text *st, qkv_segmentation *seg, qkv_error *err)
{
    qkv_corpus c;
    qkv_dataset ds;
    memset(&ds, 0, sizeof ds);
    int32_t *pred = NULL, *src = NULL;
    uint8_t *labels = NULL;
    if (qkv_seg_corpus(&c, st, false, err))
        return QKV_ERR;
    int status = qkv_seg_corpus_pieces(&c, tk->piece > 0 ? tk->piece : SEG_PIECE, seg_context(&tk->s.cfg.model),
                                       &src, err);
    size_t n = (size_t)(c.n_words > st->n_chars ? c.n_words : st->n_chars) + 1;
    if (status == QKV_OK && (!(pred = malloc(n * sizeof *pred)) || !(labels = malloc(n))))
        status = qkv_fail(err, "out of memory");
    if (status == QKV_OK && (qkv_dataset_encode(&ds, &tk->s.fz, &c, NULL, err) ||
                             qkv_session_check_lengths(&tk->s, &c, &ds, false, err) ||
                             qkv_predict(&tk->s.model, &ds, tk->s.cfg.data.batch_tokens, pred, NULL, NULL, err)))
        status = QKV_ERR;
    for (int i = 0; status == QKV_OK && i < c.n_words; i++)
        if (src[i] >= 0)
            labels[src[i]] = pred[i] >= 0 ? tk->label[pred[i]] : QKV_SEG_OUTSIDE;
    if (status == QKV_OK) {
        qkv_seg_lexicon_apply(&tk->s.seg_lexicon, st, labels);
        qkv_seg_rules_apply(&tk->s.seg_lexicon, st, labels);
        if (tk->sentence_per_line)
            qkv_seg_lines_as_sentences(st, labels);
    }
    for (int p = 0; status == QKV_OK && p < st->n_par; p++)
        status = qkv_seg_decode(st, p, labels, seg, err);
    free(labels);
    free(pred);
    free(src);
    qkv_dataset_free(&ds);
    qkv_corpus_free(&c);
    return status;
}

int qkv_tag_corpus(qkv_session *tagger, const qkv_corpus *c, const char ***tags_out, char **buf, qkv_error *err)
{
    const char **tags = malloc((size_t)(c->n_words ? c->n_words : 1) * sizeof *tags), **file_tags = NULL;
    *tags_out = NULL;
    *buf = NULL;
    if (!tags)
        return qkv_fail(err, "out of memory");
    if (qkv_session_tag(tagger, c, tagger->cfg.data.batch_tokens, tags, err) ||
        qkv_corpus_tags_as_file(c, tags, buf, &file_tags, err)) {
        free(tags);
        return QKV_ERR;
    }
    if (file_tags) {
        free(tags);
        tags = file_tags;
    }
    *tags_out = tags;
    return QKV_OK;
}

int qkv_tag_corpus_write(qkv_session *tagger, const qkv_corpus *c, FILE *out, qkv_error *err)
{
    const char **tags = NULL;
    char *buf = NULL;
    if (qkv_session_predicts_columns(tagger)) { /* every column the model predicts */
        qkv_tagged t;
        int st = qkv_session_tag_fields(tagger, c, tagger->cfg.data.batch_tokens, &t, err);
        if (st == QKV_OK)
            st = qkv_corpus_write_fields_parsed(c, out, (const char *const *const *)t.values, t.arcs, err);
        qkv_tagged_free(&t);
        if (st == QKV_OK && fflush(out))
            st = qkv_fail(err, "writing the tagged output: %s", strerror(errno));
        return st;
    }
    int status = qkv_tag_corpus(tagger, c, &tags, &buf, err);
    if (status == QKV_OK)
        status = qkv_corpus_write(c, out, tags, err);
    if (status == QKV_OK && fflush(out))
        status = qkv_fail(err, "writing the tagged output: %s", strerror(errno));
    free(tags);
    free(buf);
    return status;
}

int qkv_segmentation_corpus(const qkv_session *tagger, const qkv_seg_text *st, const qkv_segmentation *seg,
                        long *sent_id, qkv_corpus *c, qkv_error *err)
{
    memset(c, 0, sizeof *c);
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
    qkv_read_opts opts = tagger->cfg.data.read;
    opts.format = QKV_FORMAT_CONLLU;
    if (status == QKV_OK)
        status = qkv_corpus_read_mem(c, text ? text : "", text ? len : 0, st->name, &opts, err);
    if (status == QKV_OK) {
        /* the input's lines, not those of the CoNLL-U made here */
        for (int w = 0; w < c->n_words && w < seg->n_words; w++)
            c->word_line[w] = st->char_line[seg->word_start[w]];
        for (int s = 0; s < c->n_sent && s < seg->n_sent; s++)
            c->sent_line[s] = st->char_line[seg->tok_start[seg->sent_start[s]]];
    }
    free(text);
    return status;
}

int qkv_tag_segmentation(qkv_session *tagger, const qkv_seg_text *st, const qkv_segmentation *seg, long *sent_id,
                     FILE *out, qkv_error *err)
{
    qkv_corpus c;
    int status = qkv_segmentation_corpus(tagger, st, seg, sent_id, &c, err);
    if (status == QKV_OK)
        status = qkv_tag_corpus_write(tagger, &c, out, err);
    qkv_corpus_free(&c);
    return status;
}

/* Paragraphs read and not yet tagged: their text one after the other in buf. */
typedef struct paragraph_group {
    char *buf;
    size_t len, cap;
    int n;
    size_t *start;   /* [n] where paragraph k begins in buf (it ends where k + 1 begins, or at len) */
    int *first_line; /* [n] its first line in the input */
    size_t cap_start, cap_lines;
} paragraph_group;

typedef struct paragraph_reader {
    qkv_session *tagger;
    qkv_tokenizer *tk;
    const char *name;
    long sent_id;
    qkv_paragraph_fn fn;
    void *ctx;
    bool tag; /* false: segmented only (qkv_segment_raw_paragraphs) */
    paragraph_group group;
} paragraph_reader;

/* Appends the paragraph s[0..n) that begins on line first_line to the group; false: out of memory. */
static bool group_add(paragraph_group *g, const char *s, size_t n, int first_line)
{
    if (!qkv_array_grow((void **)&g->start, &g->cap_start, (size_t)g->n + 1, sizeof *g->start) ||
        !qkv_array_grow((void **)&g->first_line, &g->cap_lines, (size_t)g->n + 1, sizeof *g->first_line))
        return false;
    if (g->len + n > g->cap) {
        size_t cap = g->cap ? g->cap : 4096;
        while (cap < g->len + n)
            cap *= 2;
        char *p = realloc(g->buf, cap);
        if (!p)
            return false;
        g->buf = p;
        g->cap = cap;
    }
    memcpy(g->buf + g->len, s, n);
    g->start[g->n] = g->len;
    g->first_line[g->n++] = first_line;
    g->len += n;
    return true;
}

/* Segments and tags the paragraphs of the reader's group, hands them to its fn in one call, and
 * empties the group. */
static int flush_group(paragraph_reader *pr, qkv_error *err)
{
    paragraph_group *g = &pr->group;
    if (g->n == 0)
        return QKV_OK;
    qkv_seg_text st;
    qkv_segmentation seg;
    qkv_corpus c;
    memset(&seg, 0, sizeof seg);
    memset(&c, 0, sizeof c);
    const char **tags = NULL;
    char *tags_buf = NULL;
    if (qkv_seg_init(&st, pr->name, err))
        return QKV_ERR;
    int status = QKV_OK;
    for (int k = 0; k < g->n && status == QKV_OK; k++) {
        size_t end = k + 1 < g->n ? g->start[k + 1] : g->len;
        status = qkv_seg_add_raw(&st, g->buf + g->start[k], end - g->start[k], g->first_line[k], err);
    }
    g->n = 0;
    g->len = 0;
    if (status == QKV_OK)
        status = qkv_tokenizer_segment(pr->tk, &st, &seg, err);
    if (status == QKV_OK)
        status = qkv_segmentation_corpus(pr->tagger, &st, &seg, &pr->sent_id, &c, err);
    qkv_tagged t = {0};
    bool columns = qkv_session_predicts_columns(pr->tagger);
    if (status == QKV_OK && pr->tag)
        status = columns ? qkv_session_tag_fields(pr->tagger, &c, pr->tagger->cfg.data.batch_tokens, &t, err)
                         : qkv_tag_corpus(pr->tagger, &c, &tags, &tags_buf, err);
    if (status == QKV_OK && !pr->tag) {
        qkv_tagged_paragraph p = {&st, &seg, &c, NULL, NULL, NULL};
        status = pr->fn(pr->ctx, &p, err);
    } else if (status == QKV_OK) {
        qkv_tagged_paragraph p = {&st, &seg, &c, columns ? t.values[pr->tagger->fz.columns[0]] : tags,
                                  columns ? (const char *const *const *)t.values : NULL, t.arcs};
        status = pr->fn(pr->ctx, &p, err);
    }
    qkv_tagged_free(&t);
    free(tags);
    free(tags_buf);
    qkv_corpus_free(&c);
    qkv_segmentation_free(&seg);
    qkv_seg_free(&st);
    return status;
}

static bool blank_line(const char *s, size_t n)
{
    for (size_t i = 0, sp; i < n; i += sp)
        if (!(sp = qkv_utf8_blank_len(s + i, n - i)))
            return false;
    return true;
}

static int read_paragraphs(paragraph_reader pr, FILE *in, qkv_error *err);

/* The paragraph par[0..len) from line first_line is complete: into the group, which is tagged
 * when the input streams (tk->stream) or when it holds GROUP_BYTES. */
static int end_paragraph(paragraph_reader *pr, const char *par, size_t len, int first_line, qkv_error *err)
{
    if (len > 0 && !group_add(&pr->group, par, len, first_line))
        return qkv_fail(err, "%.200s:%d: out of memory", pr->name, first_line);
    return pr->tk->stream || pr->group.len >= GROUP_BYTES ? flush_group(pr, err) : QKV_OK;
}

int qkv_tag_raw_paragraphs(qkv_session *tagger, qkv_tokenizer *tk, FILE *in, const char *name, qkv_paragraph_fn fn,
                           void *ctx, qkv_error *err)
{
    return read_paragraphs((paragraph_reader){tagger, tk, name, 0, fn, ctx, true, {0}}, in, err);
}

int qkv_segment_raw_paragraphs(qkv_session *tagger, qkv_tokenizer *tk, FILE *in, const char *name, qkv_paragraph_fn fn,
                               void *ctx, qkv_error *err)
{
    return read_paragraphs((paragraph_reader){tagger, tk, name, 0, fn, ctx, false, {0}}, in, err);
}

/* The paragraphs of in, each segmented (and tagged when pr.tag) and handed to pr.fn. */
static int read_paragraphs(paragraph_reader pr, FILE *in, qkv_error *err)
{
    const char *name = pr.name;
    char *line = NULL, *par = NULL;
    size_t line_cap = 0, par_len = 0, par_cap = 0;
    int status = QKV_OK, par_line = 0;
    long got = 0;
    int line_no = 1;
    qkv_text_format_run run = {0, 0};
    for (; status == QKV_OK && (got = qkv_text_getline(&line, &line_cap, in, LINE_MAX_BYTES)) >= 0; line_no++) {
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
        if ((status = qkv_text_other_format(s, n, name, line_no, &run, err)) != QKV_OK)
            break;
        if (blank_line(s, n)) {
            status = end_paragraph(&pr, par, par_len, par_line, err);
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
            status = end_paragraph(&pr, par, par_len, par_line, err);
            par_len = 0;
        }
    }
    if (status == QKV_OK && got == -2)
        status = qkv_fail(err, "%.200s:%d: a line longer than %d bytes: raw text is read in lines of at most "
                          "1 MiB (its memory is bounded so); break the text into lines", name, line_no, LINE_MAX_BYTES);
    if (status == QKV_OK && got == -3)
        status = qkv_fail(err, "%.200s:%d: out of memory", name, line_no);
    if (status == QKV_OK && ferror(in))
        status = qkv_fail(err, "%.200s: read error: %s", name, strerror(errno));
    if (status == QKV_OK && (status = end_paragraph(&pr, par, par_len, par_line, err)) == QKV_OK)
        status = flush_group(&pr, err);
    else if (pr.group.n > 0) { /* the paragraphs before a bad line are written all the same */
        qkv_error later;
        flush_group(&pr, &later);
    }
    free(line);
    free(par);
    free(pr.group.buf);
    free(pr.group.start);
    free(pr.group.first_line);
    return status;
}

/* What write_paragraph writes to. */
typedef struct raw_out {
    FILE *file;
    qkv_tag_scheme scheme;
} raw_out;

/* qkv_paragraph_fn of qkv_tag_raw_text: the paragraph as CoNLL-U on the raw_out ctx. */
static int write_paragraph(void *ctx, const qkv_tagged_paragraph *p, qkv_error *err)
{
    raw_out *o = ctx;
    char *buf = NULL;
    const char **converted = NULL;
    int status = p->values ? qkv_corpus_write_fields_parsed(p->c, o->file, p->values, p->arcs, err)
                           : qkv_corpus_tags_in_scheme(p->c, p->tags, o->scheme, &buf, &converted, err);
    if (status == QKV_OK && !p->values)
        status = qkv_corpus_write(p->c, o->file, converted ? (const char *const *)converted : p->tags, err);
    free(buf);
    free(converted);
    if (status == QKV_OK && fflush(o->file))
        status = qkv_fail(err, "writing the tagged output: %s", strerror(errno));
    return status;
}

int qkv_tag_raw_text(qkv_session *tagger, qkv_tokenizer *tk, FILE *in, const char *name, qkv_tag_scheme scheme,
                     FILE *out, qkv_error *err)
{
    raw_out o = {out, scheme};
    return qkv_tag_raw_paragraphs(tagger, tk, in, name, write_paragraph, &o, err);
}
