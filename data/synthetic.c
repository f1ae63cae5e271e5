/* The synthetic grammar (see synthetic.h):
 *   S      -> [MARKER:INTJ] CLAUSE (and|but|or CLAUSE)* PUNCT
 *   CLAUSE -> SUBJ VP        (verb agrees: 3rd person singular subjects take the -s form)
 *   SUBJ   -> DET_sg ADJ* N_sg | [DET_pl] ADJ* N_pl | PRON | PROPN
 *   VP     -> V_intr [PP | ADV] | V_tr OBJ [PP] [ADV]
 *   OBJ    -> DET_sg ADJ* N_sg | [DET_pl] ADJ* N_pl | PRON_obj | PROPN
 *   PP     -> ADP DET_sg ADJ* N_sg | ADP [DET_pl] ADJ* N_pl
 * Ambiguous forms are words whose singular noun is the verb's base form and whose plural noun
 * is the verb's -s form (duck/ducks). */
#include "data/synthetic.h"

#include <errno.h>
#include <string.h>

typedef struct {
    const char *base, *s; /* noun singular / plural, or verb base / 3rd singular */
} pair;

#define N(a) ((int)(sizeof(a) / sizeof((a)[0])))

static const pair AMBIG[] = {{"duck", "ducks"}, {"watch", "watches"}, {"book", "books"}, {"park", "parks"},
                             {"light", "lights"}, {"play", "plays"}, {"walk", "walks"}, {"run", "runs"},
                             {"cook", "cooks"}, {"drink", "drinks"}, {"paint", "paints"}, {"dance", "dances"}};
/* which AMBIG entries are transitive verbs */
static const int AMBIG_TR[] = {0, 1, 1, 1, 1, 1, 0, 0, 1, 1, 1, 0};
static const pair NOUNS[] = {{"dog", "dogs"},         {"cat", "cats"},     {"bird", "birds"},
                             {"teacher", "teachers"}, {"city", "cities"},  {"river", "rivers"},
                             {"garden", "gardens"},   {"child", "children"}, {"car", "cars"}};
static const pair V_TR[] = {{"see", "sees"}, {"like", "likes"}, {"find", "finds"}, {"know", "knows"}, {"want", "wants"}};
static const pair V_INTR[] = {{"sleep", "sleeps"}, {"arrive", "arrives"}, {"jump", "jumps"}, {"sing", "sings"},
                              {"laugh", "laughs"}};
static const char *const DET_SG[] = {"the", "a", "this", "that", "every"};
static const char *const DET_PL[] = {"the", "these", "some", "many"};
static const char *const ADJ[] = {"big", "small", "red", "old", "happy", "quiet", "green", "strange"};
static const char *const PRON_BASE[] = {"I", "you", "we", "they"};
static const char *const PRON_3SG[] = {"he", "she", "it"};
static const char *const PRON_OBJ[] = {"me", "him", "her", "us", "them"};
static const char *const PROPN[] = {"Alice", "Bob", "Paris", "Tokyo", "Maria"};
static const char *const ADP[] = {"in", "near", "with", "under", "behind"};
static const char *const ADV[] = {"quickly", "slowly", "often", "today", "now", "then", "well"};
static const char *const MARKERS[] = {"now", "then", "well"};
static const char *const CCONJ[] = {"and", "but", "or"};
static const char *const PUNCT[] = {".", ".", ".", "!", "?"};

typedef struct {
    qkv_rng *rng;
    const char **forms, **tags;
    int n, overflow;
} gen;

static int below(gen *g, int n) { return (int)qkv_rng_below(g->rng, (uint64_t)n); }
static int chance(gen *g, double p) { return qkv_rng_uniform(g->rng) < p; }

static void emit(gen *g, const char *form, const char *tag)
{
    if (g->n >= QKV_SYNTH_MAX_LEN) {
        g->overflow = 1;
        return;
    }
    g->forms[g->n] = form;
    g->tags[g->n] = tag;
    g->n++;
}

static const char *pick(gen *g, const char *const *list, int n) { return list[below(g, n)]; }

/* A noun: ambiguous with probability 0.4. */
static const char *noun(gen *g, int plural)
{
    const pair *p = chance(g, 0.4) ? &AMBIG[below(g, N(AMBIG))] : &NOUNS[below(g, N(NOUNS))];
    return plural ? p->s : p->base;
}

/* A noun phrase; returns 1 if it is 3rd person singular. */
static int noun_phrase(gen *g)
{
    int plural = chance(g, 0.45);
    if (!plural)
        emit(g, pick(g, DET_SG, N(DET_SG)), "DET");
    else if (chance(g, 0.6))
        emit(g, pick(g, DET_PL, N(DET_PL)), "DET");
    int n_adj = chance(g, 0.35) ? 1 + chance(g, 0.3) : 0;
    for (int i = 0; i < n_adj; i++)
        emit(g, pick(g, ADJ, N(ADJ)), "ADJ");
    emit(g, noun(g, plural), "NOUN");
    return !plural;
}

static void prep_phrase(gen *g)
{
    emit(g, pick(g, ADP, N(ADP)), "ADP");
    noun_phrase(g);
}

static int subject(gen *g)
{
    double r = qkv_rng_uniform(g->rng);
    if (r < 0.55)
        return noun_phrase(g);
    if (r < 0.75) {
        emit(g, pick(g, PRON_BASE, N(PRON_BASE)), "PRON");
        return 0;
    }
    if (r < 0.9) {
        emit(g, pick(g, PRON_3SG, N(PRON_3SG)), "PRON");
        return 1;
    }
    emit(g, pick(g, PROPN, N(PROPN)), "PROPN");
    return 1;
}

static void object(gen *g)
{
    double r = qkv_rng_uniform(g->rng);
    if (r < 0.7)
        noun_phrase(g);
    else if (r < 0.85)
        emit(g, pick(g, PRON_OBJ, N(PRON_OBJ)), "PRON");
    else
        emit(g, pick(g, PROPN, N(PROPN)), "PROPN");
}

static void verb_phrase(gen *g, int third_sg)
{
    int transitive = chance(g, 0.55);
    const pair *v;
    if (chance(g, 0.5)) { /* an ambiguous verb of the right kind */
        int i;
        do
            i = below(g, N(AMBIG));
        while (AMBIG_TR[i] != transitive);
        v = &AMBIG[i];
    } else {
        v = transitive ? &V_TR[below(g, N(V_TR))] : &V_INTR[below(g, N(V_INTR))];
    }
    emit(g, third_sg ? v->s : v->base, "VERB");
    if (transitive) {
        object(g);
        if (chance(g, 0.25))
            prep_phrase(g);
        if (chance(g, 0.2))
            emit(g, pick(g, ADV, N(ADV)), "ADV");
    } else {
        double r = qkv_rng_uniform(g->rng);
        if (r < 0.3)
            prep_phrase(g);
        else if (r < 0.6)
            emit(g, pick(g, ADV, N(ADV)), "ADV");
    }
}

int qkv_synth_sentence(qkv_rng *rng, const char **forms, const char **tags)
{
    for (;;) {
        gen g = {rng, forms, tags, 0, 0};
        if (chance(&g, 0.25))
            emit(&g, pick(&g, MARKERS, N(MARKERS)), "INTJ");
        verb_phrase(&g, subject(&g));
        while (chance(&g, 0.3)) {
            emit(&g, pick(&g, CCONJ, N(CCONJ)), "CCONJ");
            verb_phrase(&g, subject(&g));
        }
        emit(&g, pick(&g, PUNCT, N(PUNCT)), "PUNCT");
        if (!g.overflow && g.n >= QKV_SYNTH_MIN_LEN)
            return g.n;
    }
}

void qkv_synth_print_words(FILE *out, const char *const *forms, const char *const *tags, int n)
{
    fputs("# text =", out);
    for (int i = 0; i < n; i++)
        fprintf(out, " %s", forms[i]);
    fputc('\n', out);
    for (int i = 0; i < n; i++)
        fprintf(out, "%d\t%s\t_\t%s\t_\t_\t_\t_\t_\t_\n", i + 1, forms[i], tags[i]);
    fputc('\n', out);
}

int qkv_synth_write(FILE *out, int n_sent, uint64_t seed, qkv_error *err)
{
    if (n_sent < 0)
        return qkv_fail(err, "synthetic corpus: number of sentences must be >= 0, got %d", n_sent);
    qkv_rng rng;
    qkv_rng_seed(&rng, seed);
    const char *forms[QKV_SYNTH_MAX_LEN], *tags[QKV_SYNTH_MAX_LEN];
    for (int s = 0; s < n_sent; s++) {
        int n = qkv_synth_sentence(&rng, forms, tags);
        fprintf(out, "# sent_id = synth-%d\n", s + 1);
        qkv_synth_print_words(out, forms, tags, n);
    }
    if (fflush(out) != 0 || ferror(out))
        return qkv_fail(err, "synthetic corpus: write error: %s", strerror(errno));
    return QKV_OK;
}
