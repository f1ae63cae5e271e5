"""libqkv.so through ctypes: finding it, and the declarations of include/qkv/qkv.h.

The library is the first of: the file $QKV_LIBRARY names; the libqkv.so of the install this
package belongs to (cmake --install puts the package in PREFIX/lib/python3/dist-packages/qkv and
the library in PREFIX/lib: _install.py, written at install time, says where it is relative to
the package); libqkv.so beside the package's files; libqkv.so.0 from the usual loader paths
(LD_LIBRARY_PATH, the ldconfig cache).
"""

import contextlib
import ctypes
import os
import signal

ENV = "QKV_LIBRARY"
SONAME = "libqkv.so.0"


class QkvError(Exception):
    """An error of the qkv library, with its message (one line)."""


class _Word(ctypes.Structure):
    _fields_ = [("form", ctypes.c_char_p), ("tag", ctypes.c_char_p)]


class _WordFields(ctypes.Structure):
    _fields_ = [("lemma", ctypes.c_char_p), ("upos", ctypes.c_char_p), ("xpos", ctypes.c_char_p),
                ("feats", ctypes.c_char_p), ("head", ctypes.c_int), ("deprel", ctypes.c_char_p)]


class _Token(ctypes.Structure):
    _fields_ = [("form", ctypes.c_char_p), ("word", ctypes.c_int), ("n_words", ctypes.c_int),
                ("space_after", ctypes.c_int)]


class _Sentence(ctypes.Structure):
    _fields_ = [("text", ctypes.c_char_p), ("token", ctypes.c_int), ("n_tokens", ctypes.c_int),
                ("word", ctypes.c_int), ("n_words", ctypes.c_int)]


class _Text(ctypes.Structure):
    _fields_ = [("n_sentences", ctypes.c_int), ("n_tokens", ctypes.c_int), ("n_words", ctypes.c_int),
                ("sentences", ctypes.POINTER(_Sentence)), ("tokens", ctypes.POINTER(_Token)),
                ("words", ctypes.POINTER(_Word)), ("fields", ctypes.POINTER(_WordFields)),
                ("misc", ctypes.POINTER(ctypes.c_char_p)), ("paragraph", ctypes.POINTER(ctypes.c_int))]


def _candidates():
    """The places to load the library from, in order, with what each one is."""
    env = os.environ.get(ENV)
    if env:
        return [(env, "$" + ENV)]
    here = os.path.dirname(os.path.abspath(__file__))
    places = []
    try:
        from . import _install
        places.append((os.path.normpath(os.path.join(here, _install.LIBDIR, SONAME)), "the install's library"))
    except ImportError:
        pass
    places.append((os.path.join(here, "libqkv.so"), "beside the package"))
    places.append((SONAME, "the loader's paths"))
    return places


def _declare(lib):
    """The argument and result types of the functions the package calls."""
    P = ctypes.c_void_p
    err = ctypes.POINTER(ctypes.c_void_p)
    words = ctypes.POINTER(ctypes.POINTER(ctypes.c_char_p))
    for name, res, args in [
        ("qkv_model_open", P, [ctypes.c_char_p, err]),
        ("qkv_model_open_named", P, [ctypes.c_char_p, err]),
        ("qkv_model_open_segmenter", ctypes.c_int, [P, ctypes.c_char_p, err]),
        ("qkv_model_has_segmenter", ctypes.c_int, [P]),
        ("qkv_model_n_tags", ctypes.c_int, [P]),
        ("qkv_model_tag_name", ctypes.c_char_p, [P, ctypes.c_int]),
        ("qkv_model_set_max_words", ctypes.c_int, [P, ctypes.c_int, err]),
        ("qkv_model_max_words", ctypes.c_int, [P]),
        ("qkv_model_tag_text", ctypes.POINTER(_Text), [P, ctypes.c_char_p, ctypes.c_size_t, err]),
        ("qkv_model_tag_words", ctypes.POINTER(_Text), [P, words, ctypes.POINTER(ctypes.c_int), ctypes.c_int, err]),
        ("qkv_text_free", None, [ctypes.POINTER(_Text)]),
        ("qkv_model_free", None, [P]),
    ]:
        f = getattr(lib, name)
        f.restype = res
        f.argtypes = args


_lib = None
_libc = None

# Python's handlers of these run on whatever thread the kernel picks; oneDNN 2.x's JIT sgemm
# kernels point the stack pointer into a heap workspace while they run, so a signal frame written
# there corrupts the heap.
_HELD = {signal.SIGINT, signal.SIGTERM}


@contextlib.contextmanager
def held():
    """SIGINT and SIGTERM wait while the library runs in this thread, and so do they forever in
    the threads it starts meanwhile (OpenBLAS's and OpenMP's inherit the mask): a Ctrl-C during
    a call raises KeyboardInterrupt when the call returns. No-op where there is no pthread_sigmask."""
    if not hasattr(signal, "pthread_sigmask"):
        yield
        return
    old = signal.pthread_sigmask(signal.SIG_BLOCK, _HELD)
    try:
        yield
    finally:
        signal.pthread_sigmask(signal.SIG_SETMASK, old)


def library():
    """The loaded libqkv (loaded at the first call); QkvError when it cannot be found."""
    global _lib, _libc
    if _lib is not None:
        return _lib
    tried = []
    for path, what in _candidates():
        if os.sep in path and not os.path.exists(path):
            tried.append("%s (%s): no such file" % (path, what))
            continue
        try:
            with held():
                lib = ctypes.CDLL(path)
            _declare(lib)
        except (OSError, AttributeError) as e:
            tried.append("%s (%s): %s" % (path, what, e))
            continue
        _libc = ctypes.CDLL(None)
        _libc.free.argtypes = [ctypes.c_void_p]
        _libc.free.restype = None
        _lib = lib
        return lib
    raise QkvError("cannot load the qkv library: tried " + "; ".join(tried) +
                   " (set %s to the path of libqkv.so)" % ENV)


def library_path():
    """The file the loaded library came from."""
    lib = library()
    info = _DlInfo()
    libdl = ctypes.CDLL(None)
    addr = ctypes.cast(lib.qkv_model_open, ctypes.c_void_p)
    if libdl.dladdr(addr, ctypes.byref(info)) and info.dli_fname:
        return os.path.realpath(info.dli_fname.decode())
    return lib._name


class _DlInfo(ctypes.Structure):
    _fields_ = [("dli_fname", ctypes.c_char_p), ("dli_fbase", ctypes.c_void_p),
                ("dli_sname", ctypes.c_char_p), ("dli_saddr", ctypes.c_void_p)]


def error_out():
    """A fresh char *error for a call."""
    return ctypes.c_void_p()


def raise_error(error, what):
    """Raises QkvError with the library's message in error (freeing it), else with what."""
    if error.value:
        msg = ctypes.string_at(error.value).decode("utf-8", "replace")
        _libc.free(error.value)
        error.value = None
        raise QkvError(msg)
    raise QkvError(what)
