"""A tagged text as Python objects: a Doc of Sentences of Tokens and Words, attributes named as the
CoNLL-U columns, built from the library's qkv_text (include/qkv/qkv.h) and written back as the
CoNLL-U `qkv tag` writes."""


def _col(v):
    return "_" if v is None else str(v)


# The characters that end a line (Unicode: LF, VT, FF, CR, NEL, U+2028, U+2029) and TAB, written
# as spaces in a # text line as qkv tag writes it (data/segment_decode.c): the line stays one line
# for every reader, str.splitlines() included. Sentence.text keeps them (the library's text).
_LINE_BREAKS = str.maketrans({c: " " for c in "\t\n\v\f\r\x85\u2028\u2029"})


class Word:
    """One word (a CoNLL-U word line): id (1-based in its sentence), form, lemma, upos, xpos,
    feats, head (0: the root, k: word k of the sentence), deprel, deps, misc. A column the model
    does not predict is None (written "_")."""

    __slots__ = ("id", "form", "lemma", "upos", "xpos", "feats", "head", "deprel", "deps", "misc", "tag")

    def __init__(self, id, form, lemma=None, upos=None, xpos=None, feats=None, head=None, deprel=None,
                 misc=None, tag=None):
        self.id, self.form, self.lemma, self.upos, self.xpos = id, form, lemma, upos, xpos
        self.feats, self.head, self.deprel, self.deps, self.misc = feats, head, deprel, None, misc
        self.tag = tag  # the model's first column (qkv_word.tag)

    @property
    def text(self):
        return self.form

    def to_conllu(self):
        return "\t".join(_col(v) for v in (self.id, self.form, self.lemma, self.upos, self.xpos, self.feats,
                                           self.head, self.deprel, self.deps, self.misc))

    def __repr__(self):
        return "Word(%s)" % ", ".join("%s=%r" % (k, getattr(self, k)) for k in self.__slots__
                                      if getattr(self, k) is not None)


class Token:
    """One token as it stands in the text: id (first, last) of its words, form, its words (more
    than one: a multiword token, "don't" = "do" "n't"), space_after, misc (None, "SpaceAfter=No"
    or "SpacesAfter=" and the whitespace after it, as `qkv tag` writes it)."""

    __slots__ = ("id", "form", "words", "space_after", "misc")

    def __init__(self, id, form, words, space_after, misc=None):
        self.id, self.form, self.words, self.space_after = id, form, words, space_after
        self.misc = misc if misc is not None else None if space_after else "SpaceAfter=No"

    @property
    def text(self):
        return self.form

    def to_conllu(self):
        lines = []
        if len(self.words) > 1:
            lines.append("%d-%d\t%s\t_\t_\t_\t_\t_\t_\t_\t%s" % (self.id[0], self.id[1], self.form, _col(self.misc)))
        lines.extend(w.to_conllu() for w in self.words)
        return "\n".join(lines)

    def __repr__(self):
        return "Token(id=%r, form=%r, words=%d, space_after=%r)" % (self.id, self.form, len(self.words),
                                                                     self.space_after)


class Sentence:
    """One sentence: sent_id (its number in the Doc, from 1, as a string), text, tokens, words,
    paragraph (the number of its paragraph in the Doc, from 0; None for pre-tokenised input) and
    newpar (whether it begins a paragraph: written "# newpar")."""

    __slots__ = ("sent_id", "text", "tokens", "words", "paragraph", "newpar")

    def __init__(self, sent_id, text, tokens, paragraph=None, newpar=False):
        self.sent_id, self.text, self.tokens = sent_id, text, tokens
        self.paragraph, self.newpar = paragraph, newpar
        self.words = [w for t in tokens for w in t.words]

    def to_conllu(self):
        head = "# newpar\n" if self.newpar else ""
        head += "# sent_id = %s\n# text = %s\n" % (self.sent_id, self.text.translate(_LINE_BREAKS))
        return head + "\n".join(t.to_conllu() for t in self.tokens) + "\n\n"

    def __iter__(self):
        return iter(self.words)

    def __len__(self):
        return len(self.words)

    def __repr__(self):
        return "Sentence(sent_id=%r, text=%r)" % (self.sent_id, self.text)


class Doc:
    """A tagged text: sentences (text: the raw text given, or None for pre-tokenised input).
    to_conllu() is what `qkv tag` writes for the same input."""

    __slots__ = ("text", "sentences")

    def __init__(self, text, sentences):
        self.text, self.sentences = text, sentences

    @property
    def tokens(self):
        return [t for s in self.sentences for t in s.tokens]

    @property
    def words(self):
        return [w for s in self.sentences for w in s.words]

    def to_conllu(self):
        return "".join(s.to_conllu() for s in self.sentences)

    def __iter__(self):
        return iter(self.sentences)

    def __len__(self):
        return len(self.sentences)

    def __repr__(self):
        return "Doc(%d sentences, %d words)" % (len(self.sentences), len(self.words))


def _s(p):
    return None if p is None else p.decode("utf-8")


def from_text(t, text):
    """The Doc of a qkv_text t (a ctypes _Text) of text (None: pre-tokenised input)."""
    sentences = []
    for s in range(t.n_sentences):
        q = t.sentences[s]
        tokens = []
        for k in range(q.token, q.token + q.n_tokens):
            tok = t.tokens[k]
            misc = _s(t.misc[k])
            misc = None if misc == "_" else misc
            words = []
            for w in range(tok.word, tok.word + tok.n_words):
                f = t.fields[w]
                words.append(Word(w - q.word + 1, _s(t.words[w].form), _s(f.lemma), _s(f.upos), _s(f.xpos),
                                  _s(f.feats), f.head if f.head >= 0 else None, _s(f.deprel),
                                  misc if tok.n_words == 1 else None, _s(t.words[w].tag)))
            tokens.append(Token((words[0].id, words[-1].id), _s(tok.form), words, bool(tok.space_after), misc))
        par = t.paragraph[s] if t.paragraph else None
        newpar = par is not None and (s == 0 or par != t.paragraph[s - 1])
        sentences.append(Sentence(str(s + 1), _s(q.text), tokens, par, newpar))
    return Doc(text, sentences)
