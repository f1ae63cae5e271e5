/* Tag schemes of a corpus: its span tags rewritten in another scheme on reading, and tags in
 * that scheme written back in the file's own (corpus.h, data/spans.h). */
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "data/corpus.h"
#include "data/dataset.h"
#include "data/spans.h"

/* Sentence s's tags (as the corpus holds them) split into parts; "_" reads as O. */
static void sentence_parts(const qkv_corpus *c, int s, const char *const *tags, qkv_tag_part *parts)
{
    for (int w = c->sent_start[s]; w < c->sent_start[s + 1]; w++) {
        size_t len;
        const char *tag = tags ? tags[w] : qkv_corpus_tag(c, w, &len);
        if (tags)
            len = strlen(tag);
        parts[w - c->sent_start[s]] = (len == 1 && tag[0] == QKV_NO_TAG[0]) ? (qkv_tag_part){'O', "", 0}
                                                                              : qkv_tag_split(tag, len);
    }
}

/* An error naming the first chunk end of the fewer kind when v (the vote of c's own tags) mixes
 * BIOES's ends with BIO's and IOB1's (qkv_scheme_vote_mixed). */
static int check_vote(const qkv_corpus *c, const qkv_scheme_vote *v, qkv_error *err)
{
    long w;
    int bioes;
    if (!qkv_scheme_vote_mixed(v, &w, &bioes))
        return QKV_OK;
    size_t len;
    const char *tag = qkv_corpus_tag(c, (int)w, &len);
    long others = bioes ? v->n_end_bi : v->n_end_es;
    return qkv_fail(err,
                    "%.200s:%d: tag \"%.*s\" ends a chunk %s, but %ld chunk%s of this file end%s %s: a file's span "
                    "tags are in one scheme (BIO, IOB1 or BIOES), so this tag or those are wrong",
                    c->name, (int)c->word_line[w], len > 40 ? 40 : (int)len, tag,
                    bioes ? "as only BIOES ends one (E- or S-)" : "with B- or I- (BIO, IOB1), which BIOES forbids",
                    others, others == 1 ? "" : "s", others == 1 ? "s" : "",
                    bioes ? "with B- or I- (BIO, IOB1), which BIOES forbids" : "as only BIOES ends one (E- or S-)");
}

static int longest_sentence(const qkv_corpus *c)
{
    int m = 1;
    for (int s = 0; s < c->n_sent; s++)
        if (qkv_corpus_sent_len(c, s) > m)
            m = qkv_corpus_sent_len(c, s);
    return m;
}

/* Formats the converted parts of sentence s into buf at *pos, one NUL-terminated tag each,
 * keeping "_" where the corpus has it when keep_untagged; span[w] (may be NULL) and out[w] (may be NULL) receive
 * where each is. */
static void put_sentence(const qkv_corpus *c, int s, const qkv_tag_part *parts, bool keep_untagged, char *buf,
                         size_t *pos, qkv_span *span, const char **out)
{
    for (int w = c->sent_start[s]; w < c->sent_start[s + 1]; w++) {
        char *at = buf + *pos;
        size_t n;
        if (keep_untagged && qkv_corpus_untagged(c, w)) {
            strcpy(at, QKV_NO_TAG);
            n = 1;
        } else {
            n = qkv_tag_part_format(&parts[w - c->sent_start[s]], at, (size_t)-1 / 2);
        }
        if (span)
            span[w] = (qkv_span){(uint32_t)*pos, (uint32_t)n};
        if (out)
            out[w] = at;
        *pos += n + 1;
    }
}

int qkv_corpus_convert_scheme(qkv_corpus *c, qkv_tag_scheme scheme, qkv_error *err)
{
    if (scheme == QKV_TAG_SCHEME_NONE || c->n_words == 0)
        return QKV_OK;
    size_t size = 1;
    for (int w = 0; w < c->n_words; w++) {
        size_t len;
        const char *tag = qkv_corpus_tag(c, w, &len);
        if (!qkv_corpus_untagged(c, w) && !qkv_tag_is_span(tag, len))
            return qkv_fail(err, "%.200s:%d: data.tag_scheme %s needs span tags (O, B-, I-, E-, S- and a type), "
                                 "found \"%.*s\"",
                            c->name, (int)c->word_line[w], QKV_TAG_SCHEME_NAMES[scheme], len > 40 ? 40 : (int)len, tag);
        size += len + 1;
    }
    int m = longest_sentence(c);
    qkv_tag_part *parts = malloc((size_t)m * sizeof *parts);
    qkv_chunk *scratch = malloc((size_t)m * sizeof *scratch);
    char *text = malloc(size);
    qkv_span *spans = malloc((size_t)c->n_words * sizeof *spans);
    if (!parts || !scratch || !text || !spans) {
        free(parts);
        free(scratch);
        free(text);
        free(spans);
        return qkv_fail(err, "%.200s: out of memory converting the tags", c->name);
    }
    qkv_scheme_vote vote = QKV_SCHEME_VOTE_INIT;
    size_t pos = 0;
    for (int s = 0; s < c->n_sent; s++) {
        int n = qkv_corpus_sent_len(c, s);
        sentence_parts(c, s, NULL, parts);
        qkv_scheme_vote_add(&vote, parts, n, c->sent_start[s]);
        qkv_tags_convert(parts, n, scheme, scratch);
        put_sentence(c, s, parts, true, text, &pos, spans, NULL);
    }
    free(parts);
    free(scratch);
    if (check_vote(c, &vote, err)) {
        free(text);
        free(spans);
        return QKV_ERR;
    }
    c->file_scheme = qkv_scheme_vote_result(&vote);
    c->conv_text = text;
    c->conv_tags = spans;
    return QKV_OK;
}

int qkv_corpus_tags_as_file(const qkv_corpus *c, const char *const *tags, char **buf, const char ***out,
                            qkv_error *err)
{
    *buf = NULL;
    *out = NULL;
    return c->conv_tags ? qkv_corpus_tags_in_scheme(c, tags, c->file_scheme, buf, out, err) : QKV_OK;
}

/* How many of c's words are tagged, how many with a prefixed span tag (B-, I-, E-, S- and a
   type) and how many with a tag that is no span tag (the first of these at *first). */
typedef struct span_count {
    long tagged, prefixed, stray;
    int first;
} span_count;

static span_count count_span_tags(const qkv_corpus *c)
{
    span_count n = {0, 0, 0, -1};
    for (int w = 0; w < c->n_words; w++) {
        if (qkv_corpus_untagged(c, w))
            continue;
        size_t len;
        const char *tag = qkv_corpus_tag(c, w, &len);
        n.tagged++;
        if (!qkv_tag_is_span(tag, len)) {
            if (n.stray++ == 0)
                n.first = w;
        } else if (len > 1) {
            n.prefixed++;
        }
    }
    return n;
}

/* Whether c's tags are span tags: some prefixed, and at most 1 in 20 tagged words without one
   (a column of other values, such as lemmas with "E-Mail", is not read as chunks). */
static bool has_span_tags(span_count n) { return n.prefixed > 0 && n.stray * 20 < n.tagged; }

int qkv_corpus_own_scheme(const qkv_corpus *c, qkv_tag_scheme *scheme, qkv_error *err)
{
    if (c->conv_tags) { /* checked when converted */
        *scheme = c->file_scheme;
        return QKV_OK;
    }
    int m = longest_sentence(c);
    qkv_tag_part *parts = malloc((size_t)m * sizeof *parts);
    if (!parts)
        return qkv_fail(err, "%.200s: out of memory reading the tag scheme", c->name);
    qkv_scheme_vote vote = QKV_SCHEME_VOTE_INIT;
    for (int s = 0; s < c->n_sent; s++) {
        sentence_parts(c, s, NULL, parts);
        qkv_scheme_vote_add(&vote, parts, qkv_corpus_sent_len(c, s), c->sent_start[s]);
    }
    free(parts);
    *scheme = qkv_scheme_vote_result(&vote);
    return has_span_tags(count_span_tags(c)) ? check_vote(c, &vote, err) : QKV_OK;
}

int qkv_corpus_tags_in_scheme(const qkv_corpus *c, const char *const *tags, qkv_tag_scheme scheme, char **buf,
                              const char ***out, qkv_error *err)
{
    *buf = NULL;
    *out = NULL;
    if (scheme == QKV_TAG_SCHEME_NONE)
        return QKV_OK;
    size_t size = 1;
    for (int w = 0; w < c->n_words; w++)
        size += strlen(tags[w]) + 2;
    int m = longest_sentence(c);
    qkv_tag_part *parts = malloc((size_t)m * sizeof *parts);
    qkv_chunk *scratch = malloc((size_t)m * sizeof *scratch);
    *buf = malloc(size);
    *out = malloc((size_t)c->n_words * sizeof **out);
    if (!parts || !scratch || !*buf || !*out) {
        free(parts);
        free(scratch);
        free(*buf);
        free(*out);
        *buf = NULL;
        *out = NULL;
        return qkv_fail(err, "out of memory converting %d tags", c->n_words);
    }
    size_t pos = 0;
    for (int s = 0; s < c->n_sent; s++) {
        sentence_parts(c, s, tags, parts);
        qkv_tags_convert(parts, qkv_corpus_sent_len(c, s), scheme, scratch);
        put_sentence(c, s, parts, false, *buf, &pos, NULL, *out);
    }
    free(parts);
    free(scratch);
    return QKV_OK;
}

int qkv_corpus_warn_stray_tags(const qkv_corpus *c, qkv_warnings *warnings, qkv_error *err)
{
    span_count n = count_span_tags(c);
    long tagged = n.tagged, stray = n.stray;
    int first = n.first;
    if (!stray || !has_span_tags(n))
        return QKV_OK;
    size_t len;
    const char *tag = qkv_corpus_tag(c, first, &len);
    return qkv_warnings_add(warnings, err,
                            "%.200s:%d: tag \"%.*s\" is not a span tag (O, or B-, I-, E-, S- and a type), and %ld "
                            "word%s such a tag, the first here, among %ld with span tags: the span scores (precision, "
                            "recall, F1) are off, and train.select_by auto follows accuracy",
                            c->name, (int)c->word_line[first], len > 40 ? 40 : (int)len, tag, stray,
                            stray == 1 ? " has" : "s have", tagged - stray);
}
