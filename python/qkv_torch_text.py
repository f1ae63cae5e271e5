#!/usr/bin/python3
"""The PyTorch port's readers of text files, each reading a file as qkv does (Python 3 alone, no
third-party package):

- gunzip, open_text: a file, plain or gzip (data/textfile.h), as a file of lines ending at LF.
- conllu_lines: the lines of a CoNLL-U or column file (data/conllu.c).
- conllu_words: the fields of each word line of a CoNLL-U file, and the ends of its sentences.
- read_conllu: the words and tags of a CoNLL-U file (data/conllu.c).
- read_text: the sentences of words of `qkv tag --format text` (data/text.c).
- WHITE_SPACE, BLANKS: Unicode's White_Space, and the characters between the words of text.
"""
import io
import re
import sys
import zlib


def gunzip(raw, path):
    """The bytes of the gzip members of raw in a row, as qkv reads them (data/textfile.h): bytes
    after the last member that begin no other member, or a member cut short, are a ValueError
    naming path."""
    out = []
    while raw:
        if raw[:2] != b"\x1f\x8b":
            raise ValueError(f"{path}: bytes after the last gzip member are not gzip data")
        d = zlib.decompressobj(wbits=31)
        out.append(d.decompress(raw))
        if not d.eof:
            raise ValueError(f"{path}: truncated gzip stream")
        raw = d.unused_data
    return b"".join(out)


# Unicode's White_Space (PropList.txt), whitespace to qkv's readers (data/utf8.h
# qkv_utf8_is_space); str.isspace() differs (it also takes U+001C..U+001F).
WHITE_SPACE = frozenset("\t\n\v\f\r \x85\xa0\u1680\u2000\u2001\u2002\u2003\u2004\u2005\u2006\u2007\u2008\u2009"
                        "\u200a\u2028\u2029\u202f\u205f\u3000")
# The blanks between the words of a line of text (data/utf8.h qkv_utf8_blank_len): White_Space
# that is no control character, and TAB and CR; VT, FF and NEL are characters of a word.
BLANKS = re.compile("[ \t\r\xa0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000]+")


def open_text(path):
    """The text of path ("-": standard input; gzip when its name ends in .gz or it begins with
    1F 8B; a UTF-8 byte-order mark dropped) as a file of lines, their line ends kept, as qkv
    reads it: lines end at LF only (a CR, VT, FF, NEL, U+2028 or U+2029 is a character of its
    line, where Python's universal newlines and str.splitlines() would break some lines)."""
    if path == "-":
        raw, path = sys.stdin.buffer.read(), "<stdin>"
    else:
        with open(path, "rb") as f:
            raw = f.read()
    if path.endswith(".gz") or raw[:2] == b"\x1f\x8b":
        if raw[:2] != b"\x1f\x8b":
            raise ValueError(f"{path}: not a gzip stream")
        raw = gunzip(raw, path)
    return io.StringIO(raw.decode("utf-8-sig"), newline="\n")


def conllu_lines(path):
    """(number, line) of each line of a CoNLL-U or column file (open_text), without its line end
    (LF or CR LF). A CR inside a line is a ValueError naming the line, as in qkv (data/corpus.h:
    no field holds a CR)."""
    with open_text(path) as f:
        for k, line in enumerate(f, 1):
            line = line.removesuffix("\n").removesuffix("\r")
            cr = line.find("\r")
            if cr >= 0:
                raise ValueError(f"{path}:{k}: expected a line ending in LF or CR LF, found a CR inside the line at "
                                 f"byte {len(line[:cr].encode()) + 1} (no field holds a CR)")
            yield k, line


def conllu_words(path):
    """(number, fields) of each word line of a CoNLL-U file (conllu_lines), fields its 10 fields;
    None at the end of each sentence that has words (an empty line or the end of the file).
    Comment lines, multiword tokens (ID "1-2") and empty nodes (ID "1.1") are not words; a line
    that is no comment and not 10 fields is a ValueError naming the line, as in qkv."""
    words = False
    for k, line in conllu_lines(path):
        if not line:
            if words:
                yield None
            words = False
            continue
        if line.startswith("#"):
            continue
        fields = line.split("\t")
        if len(fields) != 10:
            raise ValueError(f"{path}:{k}: expected 10 fields, got {len(fields)}: {line!r}")
        if "-" in fields[0] or "." in fields[0]:
            continue
        words = True
        yield k, fields
    if words:
        yield None


def read_conllu(path, tag_field="upos"):
    """Sentences as lists of (form, tag), the words of conllu_words (plain or gzip, as qkv reads
    it); White_Space in UPOS or XPOS is a ValueError naming the line, as in qkv."""
    col = 3 if tag_field == "upos" else 4
    sents, cur = [], []
    for word in conllu_words(path):
        if word is None:
            sents.append(cur)
            cur = []
            continue
        k, fields = word
        for v in fields[3:5]:
            if WHITE_SPACE.intersection(v):
                raise ValueError(f"{path}:{k}: whitespace in the tag field {v!r}")
        cur.append((fields[1], fields[col]))
    return sents


def read_text(path):
    """The sentences (lists of words) of a text file (path, "-": standard input) as `qkv tag
    --format text` reads it: a sentence a line (LF), words between BLANKS."""
    with open_text(path) as f:
        sents = ([w for w in BLANKS.split(line.removesuffix("\n")) if w] for line in f)
        return [s for s in sents if s]
