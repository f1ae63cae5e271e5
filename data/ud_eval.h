/* Scoring a system's CoNLL-U against gold CoNLL-U of the same text, with its own tokens and
 * sentences, as the CoNLL 2018 shared task's evaluation (conll18_ud_eval.py) does:
 *
 * - both files must spell the same characters once whitespace inside FORMs is dropped; a
 *   token's span is the range of those characters it covers, a sentence's from its first
 *   token's start to its last token's end;
 * - Tokens and Sentences: a system span is correct when a gold one has the same start and end;
 * - Words: a word outside multiword tokens has its token's span and aligns with a gold word of
 *   the same span; the words of multiword tokens are aligned inside each stretch of text that
 *   overlapping multiword tokens cover, by a longest common subsequence of their lowercased
 *   FORMs (in order);
 * - UPOS: an aligned word whose UPOS equals the gold one is correct; XPOS, UFeats (the universal
 *   features below), AllTags (UPOS, XPOS and UFeats) and Lemmas (a gold "_" matches any) the
 *   same way (data/ud_tags.h);
 * - UAS: an aligned word whose HEAD is the word aligned with its gold HEAD (or both ROOT);
 *   LAS: and the same DEPREL, universal part only (before a ':'); every word counts,
 *   punctuation included (the shared task's rule);
 * - MLAS and BLEX over content words only (DEPREL not aux, cop, mark, det, clf, case, cc nor
 *   punct and the other non-content relations): LAS's conditions, and for MLAS the same UPOS,
 *   the same universal FEATS (PronType, Number, Tense, ... in their order) and functional
 *   children (aux, cop, mark, det, clf, case, cc) that align one to one with the same DEPREL,
 *   UPOS and universal FEATS; for BLEX the same LEMMA (not compared when the gold's is "_").
 * Precision = correct / system count, recall = correct / gold count, F1 their harmonic mean
 * (2 correct / (gold + system)). */
#ifndef QKV_DATA_UD_EVAL_H
#define QKV_DATA_UD_EVAL_H

#include <stddef.h>

#include "lib/error.h"

typedef struct qkv_ud_score {
    long gold, system, correct;
    double precision, recall, f1; /* 0 when their denominator is 0 */
} qkv_ud_score;

typedef struct qkv_ud_eval {
    qkv_ud_score tokens, sentences, words, upos, uas, las, mlas, blex;
    qkv_ud_score xpos, ufeats, alltags, lemmas;
    long gold_arcs; /* gold words whose HEAD is a number: 0 (no tree at all) or every word */
} qkv_ud_eval;

/* sc from the three counts: precision correct / system, recall correct / gold, F1 2 correct /
 * (gold + system), each 0 when its denominator is. */
void qkv_ud_score_set(qkv_ud_score *sc, long gold, long system, long correct);

/* Scores system (sys[0..sys_len), named sys_name) against gold (named gold_name). Errors
 * "NAME:LINE: ..." for a line that is no CoNLL-U word line (fewer than 10 TAB-separated fields,
 * a bad ID, an empty FORM, a multiword token not followed by its words), invalid UTF-8, a file
 * where some words have a HEAD and others none ("_": UAS and LAS count every word, and the
 * CoNLL 2018 scorer refuses a HEAD that is no number; a file without any HEAD is scored with
 * res->gold_arcs 0, its UAS and LAS meaningless), and
 * "SYSTEM: its text differs from GOLD's at character N: ..." when the characters differ;
 * out of memory. */
int qkv_ud_evaluate(const char *gold, size_t gold_len, const char *gold_name, const char *sys, size_t sys_len,
                    const char *sys_name, qkv_ud_eval *res, qkv_error *err);

#endif
