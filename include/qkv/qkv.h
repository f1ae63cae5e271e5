/* qkv: tagging with a model trained by qkv, from a C (or C++) program.
 *
 *     #include <qkv/qkv.h>        cc prog.c $(pkg-config --cflags --libs qkv)
 *
 * A model file is a training checkpoint (RUN/checkpoints/best.h5 or last.h5) or an exported
 * model (`qkv export CHECKPOINT --out model.h5`: the weights, vocabularies and config only).
 * Open it once, then tag one pre-tokenised sentence at a time (qkv_model_tag), pre-tokenised
 * sentences with every column the model predicts (qkv_model_tag_words), or raw text a
 * paragraph at a time through a segmenter (qkv_model_tag_text), as many as you like: the
 * model stays loaded between calls. Each word gets one tag from the model's own tag set (UPOS or XPOS
 * tags for a CoNLL-U tagger, the span tags of an NER model in its data.tag_scheme), exactly the
 * tag `qkv tag` writes for the same words.
 *
 * Errors: functions that can fail take `char **error`. On failure they return NULL or a
 * non-zero int and, when error is not NULL, set *error to a message (one line, malloc'd: the
 * caller frees it with free()); on success *error is left alone. The library never prints and
 * never exits.
 *
 * NULL: every function takes NULL for any of its pointer arguments without crashing. Where a
 * NULL stands for nothing (error: no message wanted; qkv_text_free and qkv_model_free: nothing
 * to free; text with len 0) it is fine; anywhere else (no model, path, words, tags or text) a
 * function that can fail fails with its error, and the others answer for no model:
 * qkv_model_n_tags 0, qkv_model_tag_name NULL, qkv_model_has_segmenter 0, qkv_model_max_words 0.
 *
 * Threads: a qkv_model is not safe for concurrent calls. Calls on one model must not overlap
 * (each call reuses the model's own working memory); guard it with a mutex, or open one
 * qkv_model per thread: separate models can open and tag at the same time from separate
 * threads (tests/api/api_threads.c checks this with two). The matrix products and attention of
 * one call run on OpenMP threads themselves (OMP_NUM_THREADS sets how many). A sentence is a
 * small piece of work: with libgomp's default spin-waiting on a busy machine, threads can cost
 * more than they save (the qkv command sets GOMP_SPINCOUNT=1000 for itself); OMP_NUM_THREADS=1
 * was fastest for one sentence at a time in docs/results/2026-12-01-c-api-speed.md.
 *
 * Signals: in a build with oneDNN 2.x (Debian 12's), a signal handler that runs on a thread while
 * it computes a product can corrupt the heap (the JIT sgemm kernels point the stack pointer into
 * a heap workspace). A program that installs handlers (SIGINT, a profiler's SIGPROF) should block
 * those signals with pthread_sigmask in the threads that call qkv, from before the first call
 * (the threads the library starts, OpenBLAS's and OpenMP's, inherit the mask) until after the
 * call; the Python package does so for SIGINT and SIGTERM, and the qkv command takes them in a
 * thread of its own.
 */
#ifndef QKV_QKV_H
#define QKV_QKV_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/* The version of this API: it changes when a declaration here changes meaning or is added
 * (2: qkv_text's fields, every column a model predicts for raw text; 3: qkv_model_tag_words,
 * every column for pre-tokenised sentences; 4: qkv_model_segment_text, raw text segmented only; 5:
 * the bound on a sentence's words, qkv_model_set_max_words). */
#define QKV_API_VERSION 5

/* A loaded model: its config, vocabularies and weights (opaque). */
typedef struct qkv_model qkv_model;

/* Opens the model file at path (a checkpoint or an export; with the segmenter an export
 * bundles, if any). Returns the model, or NULL with *error saying why: the file cannot be
 * read, is not a qkv model, is a segmenter (open a tagger; give the segmenter to
 * qkv_model_open_segmenter), or was written with a config this qkv does not accept ("path:
 * ...") or whose model needs more parameter values than the file stores (refused before the
 * model is allocated). Free the model with qkv_model_free. */
qkv_model *qkv_model_open(const char *path, char **error);

/* Opens a model shipped with qkv by its name: "en" is the English model (UD English-EWT:
 * segmenter, UPOS, XPOS, FEATS, LEMMA, HEAD and DEPREL; CC BY-SA 4.0, see data/models/README.md). It is the
 * file NAME.h5 in the first of: $QKV_MODEL_DIR, ../share/qkv/models and ../data/models beside
 * the running executable (an install's bin/, a build folder in the source tree), the
 * share/qkv/models of the install this libqkv.so belongs to (LIBDIR/../share/qkv/models, for
 * any --prefix), the install's share/qkv/models as configured at build time.
 * Returns the model as qkv_model_open does, or NULL with *error: a name that is not letters,
 * digits, '_' and '-'; no such file ("no shipped model 'en': looked for ..." naming each
 * place); qkv_model_open's errors. */
qkv_model *qkv_model_open_named(const char *name, char **error);

/* The most words a sentence may have by default, in every function that tags words (a
 * sentence given as words, and raw text's sentences as segmented): a parser's memory and time
 * grow with the square of a sentence's words (one of 1,200 words took 190 MB and 6 s with the
 * shipped model, one of 4,000 words 810 MB and 4 minutes), so a longer sentence is an error
 * rather than an unbounded allocation. The segmenter ends raw text's sentences at 250 words.
 * qkv_model_set_max_words sets another bound; `qkv tag --max-words` is the same bound. */
#define QKV_MAX_WORDS 1000

/* Sets the most words a sentence tagged with model may have (1 <= max_words; a model opens
 * with QKV_MAX_WORDS). Returns 0, or non-zero with *error: no model, max_words out of range.
 * Not while another call uses model. */
int qkv_model_set_max_words(qkv_model *model, int max_words, char **error);

/* The bound of qkv_model_set_max_words (0 for no model). */
int qkv_model_max_words(const qkv_model *model);

/* Tags one sentence of n_words words (UTF-8 strings; each non-empty, without TAB, CR, LF or NUL
 * bytes; spaces inside a word are fine). Sets tags[i] (the caller's array of n_words pointers)
 * to word i's tag: a string owned by the model, valid until qkv_model_free. n_words 0 is an
 * empty sentence (nothing to do). Returns 0, or non-zero with *error: a word that breaks the
 * rules above or is not valid UTF-8 ("word 3: ..."), more words than qkv_model_max_words
 * ("sentence 1: 1001 words, more than the 1000 ..."), a sentence longer than the model takes
 * (learned positions with model.pos_overflow: error), out of memory. */
int qkv_model_tag(qkv_model *model, const char *const *words, int n_words, const char **tags, char **error);

/* Tags n_sentences sentences in one call, in batches as `qkv tag` does (faster than one call a
 * sentence): sentence s is n_words[s] words sentences[s][0 ..], each as for qkv_model_tag (a
 * sentence of 0 words is fine). tags, the caller's array of n_words[0] + ... + n_words[n-1]
 * pointers, receives the tags of all words in order (sentence 0's words, then sentence 1's,
 * ...), strings owned by the model; they are the tags qkv_model_tag gives each sentence alone.
 * Returns 0, or non-zero with *error ("sentence 2: word 3: ...", "sentence 2: 1001 words, ..."),
 * as qkv_model_tag. */
int qkv_model_tag_sentences(qkv_model *model, const char *const *const *sentences, const int *n_words,
                            int n_sentences, const char **tags, char **error);

/* One sentence as for qkv_model_tag, with each word's k most probable tags (1 <= k <=
 * qkv_model_n_tags) and their probabilities, best first: tags and probs, the caller's arrays
 * of n_words * k, receive word i's j-th tag and probability at i * k + j (ties go to the lower
 * tag index). A softmax model's probabilities are the softmax of the word's logits, and
 * tags[i * k] is the tag qkv_model_tag gives. A crf model's (model.output crf) are the
 * marginals p(tag of word i | the sentence) by the forward-backward algorithm, under
 * model.crf_constrained's rules (without them for a sentence they allow no sequence for, as
 * qkv_model_tag decodes it); tags[i * k] is then the tag of highest marginal, which may differ
 * from qkv_model_tag's, the best whole sequence (Viterbi). Returns 0, or non-zero with *error:
 * those of qkv_model_tag, k out of range. */
int qkv_model_tag_probs(qkv_model *model, const char *const *words, int n_words, int k, const char **tags,
                        float *probs, char **error);

/* A parser (a model trained with model.output: biaffine): one sentence as for qkv_model_tag,
 * with each word's head into heads (the caller's array of n_words ints: 0 for the root, k for
 * word k, 1-based, as CoNLL-U's HEAD; one tree: no cycle, exactly one word on the root) and
 * the label of its arc (DEPREL, a string owned by the model) into labels. They are what
 * `qkv tag` writes in HEAD and DEPREL for the same words. Returns 0, or non-zero with *error:
 * those of qkv_model_tag, a model that is not a parser. */
int qkv_model_parse(qkv_model *model, const char *const *words, int n_words, const char **labels, int *heads,
                    char **error);

/* The number of tags the model predicts, and tag t's name (0 <= t < qkv_model_n_tags; owned
 * by the model). */
int qkv_model_n_tags(const qkv_model *model);
const char *qkv_model_tag_name(const qkv_model *model, int t);

/* Raw text: a segmenter (a model trained with data.task: segment, e.g. with
 * configs/ud_ewt_tokenize.yaml) splits it into sentences, tokens and the words of multiword
 * tokens ("don't" = "do" "n't"); the model tags the words. An export made with
 * `qkv export CHECKPOINT --out model.h5 --tokenizer SEG.h5` carries its segmenter, which
 * qkv_model_open loads with the tagger; qkv_model_open_segmenter gives one from its own file
 * instead. */

/* Loads the segmenter at path (a checkpoint or export of data.task: segment, or a model file
 * that bundles one, such as the shipped data/models/en.h5: its segmenter) into model, in
 * place of the one it has (if any). Returns 0, or non-zero with *error: the file cannot be read
 * or is not a segmenter ("path: not a segmenter ..."; a tagger without a bundled one is not
 * one), a config this qkv does not accept; model keeps its segmenter then. Not while another
 * call uses model. */
int qkv_model_open_segmenter(qkv_model *model, const char *path, char **error);

/* 1 when model has a segmenter (bundled or opened), else 0. */
int qkv_model_has_segmenter(const qkv_model *model);

/* Raw text tagged: sentences of tokens, tokens of words. Indices run over the whole text:
 * sentence s is tokens sentences[s].token .. + n_tokens - 1 and words sentences[s].word .. +
 * n_words - 1; token t is words tokens[t].word .. + n_words - 1 (n_words > 1: a multiword
 * token). Every string is NUL-terminated UTF-8 owned by the qkv_text (freed with it). These
 * are the CoNLL-U lines `qkv tag MODEL --format text --tokenizer SEG.h5` writes for the same
 * text: "# newpar" before the first sentence of each paragraph (paragraph), a sentence's
 * "# text", a multiword token's line, a word's FORM and every column the model predicts (fields;
 * tag: the first of them), and each token's MISC (misc; SpaceAfter=No also as space_after 0). */
typedef struct qkv_word {
    const char *form;    /* the word (CoNLL-U FORM) */
    const char *tag;     /* its tag, as qkv tag writes it: the model's first column (data.tags' first;
                            DEPREL for a parser, whose tree is in fields) */
} qkv_word;

/* Every column the model predicts for one word, as qkv tag writes it in the CoNLL-U column of
 * the same name; NULL (head: -1) for a column the model does not predict. A tagger of one
 * column fills that one (upos for a UPOS or NER tagger: its tag); the joint parser of
 * configs/ud_ewt_joint.yaml (data.tags: [deprel, upos, xpos, feats, lemma]) fills them all. */
typedef struct qkv_word_fields {
    const char *lemma, *upos, *xpos, *feats; /* LEMMA, UPOS, XPOS, FEATS */
    int head;            /* a parser's HEAD: 0 for the root, k for word k of the word's own sentence
                            (1-based: words[sentences[s].word + k - 1]); one tree a sentence */
    const char *deprel;  /* DEPREL: the label of the arc from head */
} qkv_word_fields;

typedef struct qkv_token {
    const char *form;    /* the token as in the text (a TAB, CR or LF inside as a space) */
    int word, n_words;   /* its words */
    int space_after;     /* 0: the next token follows without whitespace (SpaceAfter=No) */
} qkv_token;

typedef struct qkv_sentence {
    const char *text;    /* from its first token to its last (TAB, CR, LF as spaces) */
    int token, n_tokens; /* its tokens */
    int word, n_words;   /* its words */
} qkv_sentence;

typedef struct qkv_text {
    int n_sentences, n_tokens, n_words;
    const qkv_sentence *sentences; /* [n_sentences] */
    const qkv_token *tokens;       /* [n_tokens] */
    const qkv_word *words;         /* [n_words] */
    const qkv_word_fields *fields; /* [n_words]: fields[w] are words[w]'s columns */
    const char *const *misc;       /* [n_tokens]: token t's MISC as qkv tag writes it (on its multiword
                                      line, else on its word): "SpaceAfter=No" (space_after 0), "_"
                                      (one space after it, or the paragraph's end), or "SpacesAfter="
                                      and the whitespace after it, \s \t \n \r for space, TAB, LF, CR,
                                      \u and four hex digits for VT, FF, NEL, U+2028, U+2029 (\u000C),
                                      other whitespace as it is */
    const int *paragraph;          /* [n_sentences]: the paragraph of sentence s, 0, 1, ... in the text's
                                      order; qkv tag writes "# newpar" before sentence 0 and each sentence
                                      whose paragraph is not the previous one's. NULL from
                                      qkv_model_tag_words (no paragraphs, no "# newpar") */
} qkv_text;

/* Segments and tags len bytes of raw UTF-8 text with model's segmenter and tagger: a
 * paragraph, or several separated by blank lines (lines of only spaces, TABs, CRs or other
 * Unicode White_Space but control characters), exactly
 * as qkv tag --tokenizer reads a file holding text (a paragraph is segmented on its own; one
 * of more than 64 KiB is cut at a line end; a byte-order mark at the start is skipped, a CR
 * before an LF dropped). Returns the result (free it with qkv_text_free; it does not depend
 * on model staying open), or NULL with *error: no segmenter, text that is not valid UTF-8 or
 * holds a NUL byte ("text:LINE: invalid UTF-8 at byte 5 of the line"), a sentence longer than
 * a model takes or than qkv_model_max_words ("text:LINE: ..."), out of memory. len 0: a
 * qkv_text without sentences. Threads: as qkv_model_tag (calls on one model must not overlap). */
qkv_text *qkv_model_tag_text(qkv_model *model, const char *text, size_t len, char **error);

/* Raw text segmented only, without tagging: the sentences, tokens and words qkv_model_tag_text
 * gives for the same text (the same errors, but those of the tagger), each word's tag NULL and
 * its fields NULL (head -1). Faster when only the tokens are wanted, and a way to look at the
 * sentences before tagging them with qkv_model_tag_words (which then gives each word the
 * columns qkv_model_tag_text gives it). Free it with qkv_text_free. */
qkv_text *qkv_model_segment_text(qkv_model *model, const char *text, size_t len, char **error);

/* Pre-tokenised sentences tagged with every column the model predicts, as a qkv_text (no
 * segmenter needed): sentence s is n_words[s] words sentences[s][0 ..], each as for
 * qkv_model_tag; each word is a token of its own (space_after 1, misc "_"), a sentence's text its words
 * joined by single spaces, and a sentence of 0 words is left out. fields hold what
 * `qkv tag MODEL --format conllu` writes into the columns of these words given as CoNLL-U
 * (ID and FORM, "_" elsewhere); a word's tag is the model's first column, as for
 * qkv_model_tag_text. Returns the result (free it with qkv_text_free), or NULL with *error:
 * those of qkv_model_tag_sentences ("sentence 2: word 3: ..."). n_sentences 0: a qkv_text
 * without sentences. Threads: as qkv_model_tag. */
qkv_text *qkv_model_tag_words(qkv_model *model, const char *const *const *sentences, const int *n_words,
                              int n_sentences, char **error);

/* Frees a result of qkv_model_tag_text, qkv_model_segment_text or qkv_model_tag_words (NULL:
 * nothing). */
void qkv_text_free(qkv_text *text);

/* Frees the model (NULL: nothing). The tag strings it gave out go with it. */
void qkv_model_free(qkv_model *model);

#ifdef __cplusplus
}
#endif

#endif
