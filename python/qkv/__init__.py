"""qkv from Python: tagging with a qkv model through the C library (libqkv.so, ctypes).

    import qkv
    nlp = qkv.load("en")                     # the shipped English model, or a model file
    doc = nlp("Some text. Another one.")     # raw text: sentences, tokens, words
    doc = nlp([["Some", "text", "."]])       # pre-tokenised: a list of lists of words
    for sentence in doc.sentences:
        for word in sentence.words:
            print(word.id, word.form, word.lemma, word.upos, word.xpos, word.feats, word.head, word.deprel)
    print(doc.to_conllu(), end="")           # what `qkv tag` writes for the same text

Every column comes from the library (qkv_model_tag_text, qkv_model_tag_words): the same code
as `qkv tag`. Errors of the library raise QkvError with its message. A Pipeline holds its
model until close() (or the end of a with block, or garbage collection).
"""

import ctypes
import os
import re
import threading

from . import _lib
from ._lib import QkvError
from .doc import Doc, Sentence, Token, Word, from_text

__all__ = ["load", "Pipeline", "QkvError", "Doc", "Sentence", "Token", "Word", "library_path"]

library_path = _lib.library_path

_NAME = re.compile(r"^[A-Za-z0-9_-]{1,64}$")


def load(name_or_path, segmenter=None):
    """A Pipeline of the model name_or_path: a shipped model's name ("en", found by the library:
    $QKV_MODEL_DIR, the install's share/qkv/models, ...) or a model file (a path: it names an
    existing file, holds a '/', ends in .h5, or is an os.PathLike). segmenter: a file whose
    segmenter replaces the one the model bundles (qkv_model_open_segmenter)."""
    return Pipeline(name_or_path, segmenter)


def _is_path(x):
    if isinstance(x, os.PathLike):
        return True
    return os.sep in x or x.endswith(".h5") or os.path.isfile(x) or not _NAME.match(x)


def _bytes(x):
    return os.fsencode(x)


class Pipeline:
    """An open model: call it on raw text (a str) or on pre-tokenised sentences (a list of
    lists of words) for a Doc. Calls on one Pipeline from several threads take turns."""

    def __init__(self, name_or_path, segmenter=None):
        lib = _lib.library()
        self._model = None
        self._lock = threading.Lock()
        error = _lib.error_out()
        if not isinstance(name_or_path, (str, bytes, os.PathLike)):
            raise TypeError("qkv.load: a model name or a path, not %s" % type(name_or_path).__name__)
        if isinstance(name_or_path, bytes):
            name_or_path = os.fsdecode(name_or_path)
        self.name = os.fspath(name_or_path)
        with _lib.held():
            if _is_path(name_or_path):
                m = lib.qkv_model_open(_bytes(name_or_path), ctypes.byref(error))
            else:
                m = lib.qkv_model_open_named(_bytes(name_or_path), ctypes.byref(error))
        if not m:
            _lib.raise_error(error, "cannot open the model %s" % self.name)
        self._model = m
        self._free = lib.qkv_model_free  # kept for __del__ at interpreter exit
        if segmenter is not None:
            with _lib.held():
                failed = lib.qkv_model_open_segmenter(m, _bytes(segmenter), ctypes.byref(error))
            if failed:
                self.close()
                _lib.raise_error(error, "cannot open the segmenter %s" % os.fspath(segmenter))

    def _handle(self):
        if not self._model:
            raise ValueError("qkv: the model %s is closed" % self.name)
        return self._model

    @property
    def has_segmenter(self):
        """Whether raw text can be tagged (the model bundles a segmenter, or was given one)."""
        return bool(_lib.library().qkv_model_has_segmenter(self._handle()))

    @property
    def tags(self):
        """The tags of the model's first column."""
        lib, m = _lib.library(), self._handle()
        return [lib.qkv_model_tag_name(m, t).decode("utf-8") for t in range(lib.qkv_model_n_tags(m))]

    @property
    def max_words(self):
        """The most words a sentence may have (qkv_model_max_words: QKV_MAX_WORDS of the library's
        include/qkv/qkv.h until set): a longer one, given as words or segmented from raw text,
        raises QkvError naming it, since a parser's memory grows with the square of a sentence's
        words. Settable: nlp.max_words = 5000."""
        return _lib.library().qkv_model_max_words(self._handle())

    @max_words.setter
    def max_words(self, n):
        if isinstance(n, bool) or not isinstance(n, int):
            raise TypeError("qkv: max_words is a whole number, not %s" % type(n).__name__)
        if not 1 <= n <= 2**31 - 1:
            raise ValueError("qkv: max_words %d is out of range (1 to 2147483647)" % n)
        lib, error = _lib.library(), _lib.error_out()
        with self._lock:
            failed = lib.qkv_model_set_max_words(self._handle(), n, ctypes.byref(error))
        if failed:
            _lib.raise_error(error, "qkv_model_set_max_words failed")

    def __call__(self, text):
        """A Doc of text: raw text (str or UTF-8 bytes) through the segmenter, or pre-tokenised
        sentences (a list or tuple of lists of words)."""
        if isinstance(text, (str, bytes)):
            return self.tag_text(text)
        if isinstance(text, (list, tuple)):
            return self.tag_words(text)
        raise TypeError("qkv: tag a str (raw text) or a list of lists of words, not %s" % type(text).__name__)

    def tag_text(self, text):
        """Raw text (paragraphs separated by blank lines) segmented and tagged: qkv_model_tag_text."""
        data = text.encode("utf-8") if isinstance(text, str) else bytes(text)
        lib, error = _lib.library(), _lib.error_out()
        with self._lock, _lib.held():
            t = lib.qkv_model_tag_text(self._handle(), data, len(data), ctypes.byref(error))
        if not t:
            _lib.raise_error(error, "qkv_model_tag_text failed")
        try:
            return _from_text(t, text if isinstance(text, str) else data.decode("utf-8"))
        finally:
            lib.qkv_text_free(t)

    def tag_words(self, sentences):
        """Pre-tokenised sentences tagged (each word its own token): qkv_model_tag_words."""
        rows = []
        for i, s in enumerate(sentences):
            if isinstance(s, (str, bytes)) or not isinstance(s, (list, tuple)):
                raise TypeError("qkv: sentence %d is not a list of words" % (i + 1))
            for j, w in enumerate(s):
                if not isinstance(w, str):
                    raise TypeError("qkv: sentence %d: word %d is not a str" % (i + 1, j + 1))
            rows.append([w.encode("utf-8") for w in s])
        arrays = [(ctypes.c_char_p * max(len(r), 1))(*r) for r in rows]
        ptrs = (ctypes.POINTER(ctypes.c_char_p) * max(len(rows), 1))(
            *[ctypes.cast(a, ctypes.POINTER(ctypes.c_char_p)) for a in arrays])
        counts = (ctypes.c_int * max(len(rows), 1))(*[len(r) for r in rows])
        lib, error = _lib.library(), _lib.error_out()
        with self._lock, _lib.held():
            t = lib.qkv_model_tag_words(self._handle(), ptrs, counts, len(rows), ctypes.byref(error))
        if not t:
            _lib.raise_error(error, "qkv_model_tag_words failed")
        try:
            return _from_text(t, None)
        finally:
            lib.qkv_text_free(t)

    def close(self):
        """Frees the model (again: nothing)."""
        lock = getattr(self, "_lock", None)
        if lock is None:
            return
        with lock:
            m, self._model = self._model, None
        if m:
            self._free(m)

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()
        return False

    def __del__(self):
        self.close()

    def __repr__(self):
        return "qkv.Pipeline(%r%s)" % (self.name, "" if self._model else ", closed")


def _from_text(t, text):
    return from_text(t.contents, text)
