/* Building a qkv_text (include/qkv/qkv.h) of raw text or of pre-tokenised sentences
 * (text_builder.h). */
#include "api/text_builder.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "data/line_fields.h"

/* Appends s[0..n) and a NUL to b->chars, each TAB, CR or LF as a space (as CoNLL-U writes
 * them: qkv_seg_write_sentence); *off gets its offset (never 0). */
static bool add_string(text_builder *b, const char *s, size_t n, const char **off)
{
    size_t at = b->n_chars ? b->n_chars : 1;
    if (at + n + 1 > b->cap_chars) {
        size_t c = b->cap_chars ? b->cap_chars : 1024;
        while (c < at + n + 1)
            c *= 2;
        char *q = realloc(b->chars, c);
        if (!q)
            return false;
        b->chars = q;
        b->cap_chars = c;
    }
    b->chars[0] = '\0';
    b->n_chars = at;
    *off = (const char *)(uintptr_t)b->n_chars;
    for (size_t i = 0; i < n; i++)
        b->chars[b->n_chars++] = s[i] == '\t' || s[i] == '\r' || s[i] == '\n' ? ' ' : s[i];
    b->chars[b->n_chars++] = '\0';
    return true;
}

/* Characters b .. e-1 of st as a string of the builder. */
static bool add_chars(text_builder *b, const qkv_seg_text *st, int from, int to, const char **off)
{
    return add_string(b, st->text + st->char_off[from], st->char_off[to] - st->char_off[from], off);
}

/* Word w of paragraph p's columns into f (strings as offsets of b; 0 for a column the model
 * does not predict): every column of a model of several (or of a parser), else its one tag
 * in the column it tags. */
static bool add_fields(text_builder *b, const qkv_tagged_paragraph *p, int w, qkv_word_fields *f)
{
    const char **to[QKV_TAG_FIELD_COUNT] = {[QKV_TAG_LEMMA] = &f->lemma, [QKV_TAG_UPOS] = &f->upos,
                                            [QKV_TAG_XPOS] = &f->xpos, [QKV_TAG_FEATS] = &f->feats,
                                            [QKV_TAG_DEPREL] = &f->deprel};
    memset(f, 0, sizeof *f);
    f->head = p->arcs && p->arcs[w] >= 0 ? (int)p->arcs[w] : -1;
    for (int k = 0; k < QKV_TAG_FIELD_COUNT; k++) {
        const char *v = p->values ? (p->values[k] ? p->values[k][w] : NULL)
                                  : (k == (int)p->c->tag_field && p->tags ? p->tags[w] : NULL);
        if (v && !add_string(b, v, strlen(v), to[k]))
            return false;
    }
    return true;
}

/* Sentence s of p's segmentation: its indices, text and paragraph (a new one after the previous
 * paragraph's, as qkv_seg_write_sentence writes "# newpar"). */
static bool add_sentence(text_builder *b, const qkv_tagged_paragraph *p, int s, int t_base, int w_base)
{
    const qkv_segmentation *seg = p->seg;
    int t0 = seg->sent_start[s], t1 = seg->sent_start[s + 1], n = b->t.n_sentences++;
    qkv_sentence *q = &b->sents[n];
    q->token = t_base + t0;
    q->n_tokens = t1 - t0;
    q->word = w_base + seg->tok_word[t0];
    q->n_words = seg->tok_word[t1] - seg->tok_word[t0];
    bool new_par = n == 0 || s == 0 || seg->sent_par[s] != seg->sent_par[s - 1];
    b->paragraph[n] = n == 0 ? 0 : b->paragraph[n - 1] + new_par;
    return add_chars(b, p->st, seg->tok_start[t0], seg->tok_end[t1 - 1], &q->text);
}

/* Token t of sentence s of p's segmentation: its words, form and MISC. */
static bool add_token(text_builder *b, const qkv_tagged_paragraph *p, int s, int t, int w_base)
{
    const qkv_segmentation *seg = p->seg;
    int k = b->t.n_tokens++;
    qkv_token *q = &b->toks[k];
    q->word = w_base + seg->tok_word[t];
    q->n_words = seg->tok_word[t + 1] - seg->tok_word[t];
    q->space_after = seg->space_after[t] != 0;
    char buf[160];
    const char *misc = qkv_seg_token_misc(p->st, seg, s, t, buf, sizeof buf);
    return add_chars(b, p->st, seg->tok_start[t], seg->tok_end[t], &q->form) &&
           add_string(b, misc, strlen(misc), &b->misc[k]);
}

int qkv_text_builder_paragraph(void *ctx, const qkv_tagged_paragraph *p, qkv_error *err)
{
    text_builder *b = ctx;
    const qkv_segmentation *seg = p->seg;
    int w_base = b->t.n_words, t_base = b->t.n_tokens;
    if (!qkv_array_grow((void **)&b->sents, &b->cap_s, b->t.n_sentences + seg->n_sent, sizeof *b->sents) ||
        !qkv_array_grow((void **)&b->paragraph, &b->cap_p, b->t.n_sentences + seg->n_sent, sizeof *b->paragraph) ||
        !qkv_array_grow((void **)&b->toks, &b->cap_t, t_base + seg->n_tokens, sizeof *b->toks) ||
        !qkv_array_grow((void **)&b->misc, &b->cap_m, t_base + seg->n_tokens, sizeof *b->misc) ||
        !qkv_array_grow((void **)&b->words, &b->cap_w, w_base + seg->n_words, sizeof *b->words) ||
        !qkv_array_grow((void **)&b->fields, &b->cap_f, w_base + seg->n_words, sizeof *b->fields))
        return qkv_fail(err, "out of memory");
    for (int s = 0; s < seg->n_sent; s++) {
        if (!add_sentence(b, p, s, t_base, w_base))
            return qkv_fail(err, "out of memory");
        for (int t = seg->sent_start[s]; t < seg->sent_start[s + 1]; t++)
            if (!add_token(b, p, s, t, w_base))
                return qkv_fail(err, "out of memory");
    }
    if (p->c->n_words != seg->n_words)
        return qkv_fail(err, "%s: %d words segmented, %d tagged", p->st->name, seg->n_words, p->c->n_words);
    for (int w = 0; w < seg->n_words; w++) {
        qkv_word_fields *f = &b->fields[b->t.n_words];
        qkv_word *q = &b->words[b->t.n_words++];
        size_t n;
        const char *form = qkv_corpus_form(p->c, w, &n);
        q->tag = NULL; /* segmented only: no tag */
        if (!add_string(b, form, n, &q->form) || (p->tags && !add_string(b, p->tags[w], strlen(p->tags[w]), &q->tag)) ||
            !add_fields(b, p, w, f))
            return qkv_fail(err, "out of memory");
    }
    return QKV_OK;
}

qkv_text *qkv_text_builder_finish(text_builder *b)
{
    size_t ns = (size_t)b->t.n_sentences * sizeof *b->sents, nt = (size_t)b->t.n_tokens * sizeof *b->toks,
           nw = (size_t)b->t.n_words * sizeof *b->words, nf = (size_t)b->t.n_words * sizeof *b->fields,
           nm = (size_t)b->t.n_tokens * sizeof *b->misc,
           np = b->has_paragraphs ? (size_t)b->t.n_sentences * sizeof *b->paragraph : 0;
    char *block = malloc(sizeof(qkv_text) + ns + nt + nw + nf + nm + np + b->n_chars + 1);
    if (!block)
        return NULL;
    qkv_sentence *sents = (qkv_sentence *)(block + sizeof(qkv_text));
    qkv_token *toks = (qkv_token *)((char *)sents + ns);
    qkv_word *words = (qkv_word *)((char *)toks + nt);
    qkv_word_fields *fields = (qkv_word_fields *)((char *)words + nw);
    const char **misc = (const char **)((char *)fields + nf);
    int *paragraph = (int *)((char *)misc + nm);
    char *chars = (char *)paragraph + np;
    if (b->n_chars)
        memcpy(chars, b->chars, b->n_chars);
    if (np)
        memcpy(paragraph, b->paragraph, np);
#define AT(off) ((uintptr_t)(off) ? chars + (uintptr_t)(off) : NULL)
    for (int s = 0; s < b->t.n_sentences; s++) {
        sents[s] = b->sents[s];
        sents[s].text = AT(sents[s].text);
    }
    for (int t = 0; t < b->t.n_tokens; t++) {
        toks[t] = b->toks[t];
        toks[t].form = AT(toks[t].form);
        misc[t] = AT(b->misc[t]);
    }
    for (int w = 0; w < b->t.n_words; w++) {
        const qkv_word_fields *f = &b->fields[w];
        words[w].form = AT(b->words[w].form);
        words[w].tag = AT(b->words[w].tag);
        fields[w] = (qkv_word_fields){AT(f->lemma), AT(f->upos), AT(f->xpos), AT(f->feats), f->head, AT(f->deprel)};
    }
#undef AT
    qkv_text *t = (qkv_text *)block;
    *t = b->t;
    t->sentences = sents;
    t->tokens = toks;
    t->words = words;
    t->fields = fields;
    t->misc = misc;
    t->paragraph = b->has_paragraphs ? paragraph : NULL;
    return t;
}

void qkv_text_builder_free(text_builder *b)
{
    free(b->sents);
    free(b->paragraph);
    free(b->toks);
    free(b->misc);
    free(b->words);
    free(b->fields);
    free(b->chars);
    memset(b, 0, sizeof *b);
}

int qkv_text_builder_words(text_builder *b, const char *const *const *sentences, const int *n_words, int n_sentences,
                     const qkv_tagged_paragraph *p, qkv_error *err)
{
    int n = p->c->n_words, total = 0;
    for (int s = 0; s < n_sentences; s++)
        total += n_words[s];
    if (total != n)
        return qkv_fail(err, "qkv_model_tag_words: %d words read back, %d given", n, total);
    if (!qkv_array_grow((void **)&b->sents, &b->cap_s, n_sentences, sizeof *b->sents) ||
        !qkv_array_grow((void **)&b->toks, &b->cap_t, n, sizeof *b->toks) ||
        !qkv_array_grow((void **)&b->misc, &b->cap_m, n, sizeof *b->misc) ||
        !qkv_array_grow((void **)&b->words, &b->cap_w, n, sizeof *b->words) ||
        !qkv_array_grow((void **)&b->fields, &b->cap_f, n, sizeof *b->fields))
        return qkv_fail(err, "out of memory");
    for (int s = 0; s < n_sentences; s++) {
        if (n_words[s] == 0)
            continue;
        qkv_sentence *q = &b->sents[b->t.n_sentences++];
        *q = (qkv_sentence){NULL, b->t.n_tokens, n_words[s], b->t.n_words, n_words[s]};
        size_t len = 0;
        for (int i = 0; i < n_words[s]; i++)
            len += strlen(sentences[s][i]) + 1;
        char *joined = malloc(len);
        if (!joined)
            return qkv_fail(err, "out of memory");
        for (int i = 0, at = 0; i < n_words[s]; i++)
            at += sprintf(joined + at, "%s%s", i ? " " : "", sentences[s][i]);
        bool ok = add_string(b, joined, len - 1, &q->text);
        free(joined);
        for (int i = 0; ok && i < n_words[s]; i++) {
            int w = b->t.n_words, k = b->t.n_tokens++;
            b->toks[k] = (qkv_token){NULL, w, 1, 1};
            ok = add_string(b, sentences[s][i], strlen(sentences[s][i]), &b->toks[k].form) &&
                 add_string(b, "_", 1, &b->misc[k]) &&
                 add_string(b, sentences[s][i], strlen(sentences[s][i]), &b->words[w].form) &&
                 add_string(b, p->tags[w], strlen(p->tags[w]), &b->words[w].tag) && add_fields(b, p, w, &b->fields[w]);
            b->t.n_words++;
        }
        if (!ok)
            return qkv_fail(err, "out of memory");
    }
    return QKV_OK;
}

