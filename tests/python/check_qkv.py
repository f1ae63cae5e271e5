"""For tests/python/test_*.sh: the qkv package (python/qkv/, installed) used as a program would.

    check_qkv.py raw MODEL TEXT.txt OUT.conllu      nlp(text).to_conllu(), objects checked
    check_qkv.py words MODEL SENTS.tsv OUT.conllu   pre-tokenised (a sentence a line, words TAB-separated)
    (raw-parser, words-parser: the same, and every sentence a tree with one root)
    check_qkv.py errors MISSING.h5 MODEL LOOKED     errors raise qkv.QkvError with the library's message
                                                    (LOOKED: a place the error of an unknown name names),
                                                    a sentence over Pipeline.max_words among them
    check_qkv.py several MODEL... -- TEXT.txt       models open at once, each tags as it does alone
                                                    (in turn, and from threads at the same time)
    check_qkv.py library                            the path of the loaded libqkv.so
    check_qkv.py nolib PATH                         QKV_LIBRARY=PATH, no such file: qkv.load raises QkvError

MODEL is a name ("en") or a path, as qkv.load takes it; name@SEG gives a segmenter to qkv.load.
Prints "FAIL: ..." and exits 1 on a failed check.
"""

import gc
import signal
import sys

import qkv

COLUMNS = ("id", "form", "lemma", "upos", "xpos", "feats", "head", "deprel", "deps", "misc")


def fail(msg):
    print("FAIL: " + msg, file=sys.stderr)
    sys.exit(1)


def load(spec):
    name, _, seg = spec.partition("@")
    return qkv.load(name, segmenter=seg or None)


def check_doc(doc, parser):
    """Every word's attributes are what its CoNLL-U line says, of the right types; a parser's
    trees have one root a sentence."""
    if not doc.sentences:
        fail("no sentences")
    for s in doc.sentences:
        lines = [l for l in s.to_conllu().split("\n") if l and not l.startswith("#")]
        words = [l.split("\t") for l in lines if l.split("\t")[0].isdigit()]
        if len(words) != len(s.words):
            fail("sentence %s: %d words, %d word lines" % (s.sent_id, len(s.words), len(words)))
        for k, (w, cols) in enumerate(zip(s.words, words)):
            if w.id != k + 1 or not isinstance(w.form, str):
                fail("sentence %s: word %d: id %r form %r" % (s.sent_id, k + 1, w.id, w.form))
            for name, col in zip(COLUMNS, cols):
                v = getattr(w, name)
                if not (col == "_" if v is None else str(v) == col):
                    fail("sentence %s: word %d: %s is %r, its line says %r" % (s.sent_id, k + 1, name, v, col))
            if w.head is not None and not isinstance(w.head, int):
                fail("head is not an int: %r" % (w.head,))
        if parser:
            roots = [w for w in s.words if w.head == 0]
            if len(roots) != 1 or any(w.head is None or w.deprel is None for w in s.words):
                fail("sentence %s: not one tree with a root (%d roots)" % (s.sent_id, len(roots)))
            if roots[0].deprel != "root":
                fail("sentence %s: the root's label is %r" % (s.sent_id, roots[0].deprel))


def cmd_raw(model, text_path, out_path, parser=False):
    text = open(text_path, encoding="utf-8").read()
    with load(model) as nlp:
        if not nlp.has_segmenter:
            fail("%s has no segmenter" % model)
        doc = nlp(text)
    check_doc(doc, parser)
    if doc.text != text:
        fail("doc.text is not the text given")
    open(out_path, "w", encoding="utf-8").write(doc.to_conllu())
    print("%d sentences, %d tokens, %d words" % (len(doc.sentences), len(doc.tokens), len(doc.words)))


def cmd_words(model, sents_path, out_path, parser=False):
    sentences = [l.rstrip("\n").split("\t") for l in open(sents_path, encoding="utf-8") if l.strip()]
    with load(model) as nlp:
        doc = nlp(sentences)
        if nlp([]).sentences:
            fail("an empty list gave sentences")
    check_doc(doc, parser)
    if [[w.form for w in s.words] for s in doc.sentences] != sentences:
        fail("the words of the result are not the words given")
    if any(len(t.words) != 1 or not t.space_after for t in doc.tokens):
        fail("pre-tokenised: a token is not one word with a space after")
    open(out_path, "w", encoding="utf-8").write(doc.to_conllu())
    print("%d sentences, %d words" % (len(doc.sentences), len(doc.words)))


def expect(exc, part, fn, what):
    try:
        fn()
    except exc as e:
        if part not in str(e):
            fail("%s: expected %r in the message, got %r" % (what, part, str(e)))
        return
    fail("%s: no %s raised" % (what, exc.__name__))


def cmd_errors(missing, model, looked):
    expect(qkv.QkvError, missing, lambda: qkv.load(missing), "a missing model file")
    expect(qkv.QkvError, "no shipped model 'nosuch'", lambda: qkv.load("nosuch"), "an unknown model name")
    expect(qkv.QkvError, looked, lambda: qkv.load("nosuch"), "the places an unknown model name is looked for")
    expect(qkv.QkvError, missing, lambda: qkv.load(model, segmenter=missing), "a missing segmenter file")
    nlp = load(model)
    expect(qkv.QkvError, "sentence 2: word 2: ", lambda: nlp([["Fine", "."], ["a", "b\tc"]]), "a word with a TAB")
    expect(qkv.QkvError, "sentence 1: word 1: empty", lambda: nlp([[""]]), "an empty word")
    expect(qkv.QkvError, "text:2: invalid UTF-8", lambda: nlp(b"Fine.\nbad \xff here\n"), "invalid UTF-8")
    expect(TypeError, "not a list of words", lambda: nlp(["a", "b"]), "a list of strings")
    # the library's bound on a sentence's words: a longer sentence fails before any work
    bound = nlp.max_words
    if bound < 1:
        fail("max_words is %d" % bound)
    expect(qkv.QkvError, "sentence 2: %d words, more than the %d" % (bound + 1, bound),
           lambda: nlp([["Fine", "."], ["w"] * (bound + 1)]), "a sentence over the bound")
    expect(qkv.QkvError, "sentence 1: 100000 words, more than the %d" % bound, lambda: nlp([["w"] * 100000]),
           "a sentence of 100,000 words")
    nlp.max_words = 3
    expect(qkv.QkvError, "sentence 1: 4 words, more than the 3", lambda: nlp([["a", "b", "c", "d"]]), "max_words 3")
    if len(nlp([["a", "b", "c"]]).words) != 3 or nlp.max_words != 3:
        fail("max_words 3: a sentence of 3 words")
    expect(ValueError, "out of range", lambda: setattr(nlp, "max_words", 0), "max_words 0")
    nlp.max_words = bound
    if not nlp("It still works.").words:
        fail("no words after the errors")
    nlp.close()
    expect(ValueError, "closed", lambda: nlp("Closed."), "a closed model")
    nlp.close()  # again: nothing
    # garbage collection frees the model
    freed = []
    dropped = load(model)
    free = dropped._free
    dropped._free = lambda m: (freed.append(m), free(m))
    del dropped
    gc.collect()
    if len(freed) != 1:
        fail("a model no longer referenced was not freed")
    print("ok: errors")


def cmd_several(models, text_path):
    text = open(text_path, encoding="utf-8").read()
    alone = []
    for m in models:
        with load(m) as nlp:
            alone.append(nlp(text).to_conllu())
    opened = [load(m) for m in models]
    for round_ in range(2):
        for i, nlp in enumerate(opened):
            if nlp(text).to_conllu() != alone[i]:
                fail("%s tags differently with %d models open (round %d)" % (models[i], len(opened), round_ + 1))
    # each from a thread of its own, at the same time, and one of them from two threads (taking turns)
    import threading
    got = {}
    def run(i, key):
        got[key] = opened[i](text).to_conllu()
    threads = [threading.Thread(target=run, args=(i, i)) for i in range(len(opened))]
    threads.append(threading.Thread(target=run, args=(0, "again")))
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    for i in range(len(opened)):
        if got.get(i) != alone[i]:
            fail("%s tags differently from a thread" % models[i])
    if got.get("again") != alone[0]:
        fail("%s tags differently from two threads" % models[0])
    for nlp in opened:
        nlp.close()
    if len(set(alone)) < 2:
        fail("the models all tag alike: the check proves nothing")
    print("ok: %d models open at once" % len(opened))


def blocked_by_thread():
    """{thread id: whether SIGINT and SIGTERM are blocked in it} for this process's threads."""
    import os
    both = (1 << (signal.SIGINT - 1)) | (1 << (signal.SIGTERM - 1))
    out = {}
    for tid in os.listdir("/proc/self/task"):
        with open("/proc/self/task/%s/status" % tid) as f:
            mask = [int(l.split()[1], 16) for l in f if l.startswith("SigBlk:")][0]
        out[int(tid)] = mask & both == both
    return out


def cmd_signals(model, text_path):
    """After loading and tagging, every thread the library started blocks SIGINT and SIGTERM
    (none of Python's handlers runs on a thread computing in oneDNN) and this one does not."""
    import os, threading
    if not hasattr(signal, "pthread_sigmask"):
        print("ok: no pthread_sigmask here")
        return
    with load(model) as nlp:
        nlp(open(text_path, encoding="utf-8").read())
        seen = blocked_by_thread()
    main_tid = threading.get_native_id()
    if len(seen) < 2:
        fail("the library started no thread: the check proves nothing")
    if seen[main_tid]:
        fail("the calling thread still blocks SIGINT/SIGTERM after the call")
    open_ = [t for t, b in seen.items() if t != main_tid and not b]
    if open_:
        fail("%d of the library's %d threads take SIGINT/SIGTERM" % (len(open_), len(seen) - 1))
    print("ok: the library's %d threads block SIGINT and SIGTERM" % (len(seen) - 1))


def main(argv):
    cmd, args = argv[1], argv[2:]
    if cmd == "library":
        print(qkv.library_path())
    elif cmd == "nolib":
        import os
        os.environ["QKV_LIBRARY"] = args[0]
        expect(qkv.QkvError, "cannot load the qkv library: tried " + args[0], lambda: qkv.load("en"), "no library")
        print("ok: no library")
    elif cmd in ("raw", "words", "raw-parser", "words-parser"):
        (cmd_raw if cmd.startswith("raw") else cmd_words)(*args, parser=cmd.endswith("parser"))
    elif cmd == "errors":
        cmd_errors(*args)
    elif cmd == "signals":
        cmd_signals(*args)
    elif cmd == "several":
        cut = args.index("--")
        cmd_several(args[:cut], args[cut + 1])
    else:
        fail("unknown command " + cmd)


if __name__ == "__main__":
    main(sys.argv)
