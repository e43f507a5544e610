"""Loading libsymm, C prototypes, the log sink and the package's error type.

Owns: finding and loading the shared library (once, at first use: importing
the package loads nothing and changes no environment variable), declaring
each C routine's prototype the first time it is used, capturing the C
layer's log lines (so a failing C call becomes a Python exception carrying
the C message), and the init/finalize state of this process.

Must never: call a routine whose arguments have not been checked (the C
library ends the whole job on a bad PE number or address), or let the C
layer call back into Python after the interpreter has started to shut down.
"""

import atexit
import collections
import ctypes
import ctypes.util
import os
import sys
import threading

c_void_p = ctypes.c_void_p
c_int = ctypes.c_int
c_size_t = ctypes.c_size_t
c_char_p = ctypes.c_char_p
c_ptrdiff_t = ctypes.c_ssize_t
c_uint64 = ctypes.c_uint64
c_int32 = ctypes.c_int32
c_long = ctypes.c_long


class SymmError(RuntimeError):
    """A routine of the C library reported a failure; the message is the C
    layer's ("symm: ROUTINE: what (PE n)") where it gave one."""


def _candidates():
    """(origin, path) pairs to try, in order."""
    env = os.environ.get("SYMM_LIBRARY")
    if env:
        return [("SYMM_LIBRARY", env)]
    out = []
    try:
        from . import _config  # written by CMake (build tree, install) or setup.py
        for p in getattr(_config, "LIBRARIES", ()):
            out.append(("symm/_config.py", p))
    except ImportError:
        pass
    found = ctypes.util.find_library("symm")
    if found:
        out.append(("ctypes.util.find_library", found))
    return out


def _load():
    tried = []
    for origin, path in _candidates():
        if origin == "symm/_config.py" and not os.path.exists(path):
            tried.append("%s (%s: no such file)" % (path, origin))
            continue
        try:
            return ctypes.CDLL(path), path
        except OSError as e:
            tried.append("%s (%s: %s)" % (path, origin, e))
    raise ImportError(
        "symm: cannot load libsymm: set SYMM_LIBRARY=/path/to/libsymm.so, or install symm "
        "with CMake (which writes symm/_config.py with the library's path), or put "
        "libsymm.so on the loader's path; tried: %s" % ("; ".join(tried) if tried else "nothing"))


_loaded = []  # [(CDLL, path)] once loaded
_load_lock = threading.Lock()


def library():
    """(the loaded libsymm, its path), loading it on first use; ImportError
    naming what was tried when it cannot be loaded."""
    if not _loaded:
        with _load_lock:
            if not _loaded:
                _loaded.append(_load())
    return _loaded[0]


def library_path():
    """The path libsymm was (or is now) loaded from."""
    return library()[1]


def __getattr__(name):
    # PEP 562: _lib.lib and _lib.LIBRARY_PATH load the library when asked for.
    if name == "lib":
        return library()[0]
    if name == "LIBRARY_PATH":
        return library()[1]
    raise AttributeError("module %r has no attribute %r" % (__name__, name))


def before_init():
    """What every init path does first: the library's defaults for a Python
    program, then the log sink. The library otherwise remaps the
    executable's (python3's) global data at init, which is unsafe once
    threads exist (torch/OpenMP pools); Python programs only use the heap.
    An explicit SYMM_MAP_GLOBALS wins."""
    os.environ.setdefault("SYMM_MAP_GLOBALS", "0")
    install_sink()


# ---- prototypes -------------------------------------------------------------
_protos = {}


def fn(name, restype, argtypes):
    """The C routine `name` with its prototype (declared once, then cached)."""
    f = _protos.get(name)
    if f is None:
        lib, path = library()
        try:
            f = getattr(lib, name)
        except AttributeError:
            raise SymmError("symm: %s is not in %s (library too old?)" % (name, path))
        f.restype = restype
        f.argtypes = argtypes
        _protos[name] = f
    return f


def var_ptr(name):
    """The value of a pointer-typed global variable of the library."""
    return c_void_p.in_dll(library()[0], name).value


# ---- the log sink -----------------------------------------------------------
# Every C log line goes through our sink while the library is initialised: it
# is written to stderr as the library would, and remembered, so a C call
# that fails can raise with the lines it logged.
_LOGFN = ctypes.CFUNCTYPE(None, ctypes.c_int, ctypes.c_char_p)
_log_lock = threading.Lock()
_log_lines = collections.deque(maxlen=64)  # (seq, level, text)
_log_seq = [0]


def _sink(level, line):
    try:
        text = line.decode("utf-8", "replace") if line else ""
        with _log_lock:
            _log_seq[0] += 1
            _log_lines.append((_log_seq[0], level, text))
        os.write(2, (text + "\n").encode("utf-8", "replace"))
    except BaseException:  # never raise into C
        pass


_sink_c = _LOGFN(_sink)
_sink_installed = [False]


def install_sink():
    if not _sink_installed[0]:
        fn("aclshmemx_set_extern_logger", ctypes.c_int32, [_LOGFN])(_sink_c)
        _sink_installed[0] = True


def remove_sink():
    if _sink_installed[0]:
        fn("aclshmemx_set_extern_logger", ctypes.c_int32, [_LOGFN])(
            ctypes.cast(None, _LOGFN))
        _sink_installed[0] = False


def log_mark():
    with _log_lock:
        return _log_seq[0]


def log_since(mark):
    with _log_lock:
        return [t for (s, lvl, t) in _log_lines if s > mark]


def fail(routine, what, mark=None):
    """Raise SymmError for `routine`, with the C lines logged since `mark`."""
    lines = log_since(mark) if mark is not None else []
    if lines:
        raise SymmError("symm.%s: %s: %s" % (routine, what, " / ".join(lines)))
    raise SymmError("symm.%s: %s" % (routine, what))


# ---- process state ----------------------------------------------------------
class _State:
    initialized = False
    finalized = False
    my_pe = -1
    n_pes = 0
    via_uid = False
    lock = threading.RLock()
    # Called by finalize before the C finalize, in order (streams, caches...).
    before_finalize = []


state = _State()


def pe_prefix():
    return "PE %d" % state.my_pe if state.initialized else "PE ?"


_exit_hooks = []


def at_exit(hook):
    """Run hook (no arguments) at interpreter exit, before the log sink is
    removed: symm.runtime registers finalize here, so this module imports
    nothing of the package."""
    _exit_hooks.append(hook)


@atexit.register
def _at_exit():
    # Before the interpreter tears down: finalize (peers blocked in their own
    # finalize are released) and stop the C layer from calling into Python.
    try:
        for hook in _exit_hooks:
            hook()
    finally:
        remove_sink()
    sys.stdout.flush() if sys.stdout else None
