/* libFuzzer target for the model file reader: checkpoints and exports through the public C API
 * (qkv_model_open, include/qkv/qkv.h; build and run: tests/data/fuzz.sh checkpoint). The input
 * is a model file as it is, or the items of one (tests/data/fuzz_store.h: the config text,
 * vocabularies, parameters, a bundled segmenter, of any type and shape) that HDF5 writes into a
 * sealed file. Properties: an error names the file; nothing is printed; an opened model tags a
 * sentence (every tag one of its tags, probabilities in [0, 1]), a parser's heads form one tree,
 * and a model with a segmenter segments and tags raw text. */
#include "fuzz_store.h"

#include "qkv/qkv.h"

static const char *const WORDS[] = {"The", "cat", "sat", "on", "the", "mat", "."};
#define N_WORDS ((int)(sizeof WORDS / sizeof WORDS[0]))
static const char TEXT[] = "I don't know, she said. It costs $1,234.50!\n\nCannot say.";

static void check_tags(qkv_model *m)
{
    const char *tags[N_WORDS], *best[N_WORDS];
    float probs[N_WORDS];
    char *error = NULL;
    int n_tags = qkv_model_n_tags(m);
    fuzz_check(n_tags >= 1, "a model has tags");
    if (qkv_model_tag(m, WORDS, N_WORDS, tags, &error)) {
        free(error); /* a model whose learned positions take fewer words, say */
        return;
    }
    for (int i = 0; i < N_WORDS; i++) {
        int known = 0;
        for (int t = 0; t < n_tags && !known; t++)
            known = !strcmp(tags[i], qkv_model_tag_name(m, t));
        fuzz_check(known, "every tag is one of the model's");
    }
    if (qkv_model_tag_probs(m, WORDS, N_WORDS, 1, best, probs, &error) == 0) {
        for (int i = 0; i < N_WORDS; i++)
            fuzz_check(probs[i] >= 0.0f && probs[i] <= 1.0f, "probabilities in [0, 1]");
    } else {
        free(error);
    }
    int heads[N_WORDS];
    if (qkv_model_parse(m, WORDS, N_WORDS, tags, heads, &error) == 0) {
        int roots = 0;
        for (int i = 0; i < N_WORDS; i++) {
            fuzz_check(heads[i] >= 0 && heads[i] <= N_WORDS && heads[i] != i + 1, "heads are other words or 0");
            roots += heads[i] == 0;
            int w = i + 1, steps = 0; /* following heads from any word reaches the root */
            while (w != 0 && steps++ <= N_WORDS)
                w = heads[w - 1];
            fuzz_check(w == 0, "no cycle");
        }
        fuzz_check(roots == 1, "one word on the root");
    } else {
        free(error);
    }
}

static void check_text(qkv_model *m)
{
    char *error = NULL;
    qkv_text *t = qkv_model_tag_text(m, TEXT, sizeof TEXT - 1, &error);
    if (!t) {
        fuzz_check(error != NULL, "an error says why");
        free(error);
        return;
    }
    for (int s = 0; s < t->n_sentences; s++)
        fuzz_check(t->sentences[s].token + t->sentences[s].n_tokens <= t->n_tokens &&
                   t->sentences[s].word + t->sentences[s].n_words <= t->n_words, "sentences within the text");
    const char *at = TEXT;
    for (int k = 0; k < t->n_tokens; k++) {
        const char *found = strstr(at, t->tokens[k].form);
        fuzz_check(found != NULL, "tokens are the text's, in order");
        at = found + strlen(t->tokens[k].form);
    }
    qkv_text_free(t);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const char *path = fuzz_store_file(data, size);
    if (!path)
        return 0;
    char *error = NULL;
    fuzz_output mark = fuzz_output_mark();
    qkv_model *m = qkv_model_open(path, &error);
    fuzz_output_check(mark);
    if (!m) {
        fuzz_check(error && strstr(error, path), "an error names the file");
        free(error);
        return 0;
    }
    check_tags(m);
    if (qkv_model_has_segmenter(m))
        check_text(m);
    fuzz_output_check(mark);
    qkv_model_free(m);
    return 0;
}
