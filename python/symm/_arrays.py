"""Arrays and their checks: the registry of live symmetric allocations, numpy
views of torch tensors, dtype tables, and the argument checks every entry
point runs before it calls C.

A symmetric array is a numpy array (or a torch tensor on it) whose bytes lie
inside one live allocation made by symm.empty & co. Any view of it (a slice,
a reshape, a transposed view) is a valid target: its address inside the
allocation is the same offset on every PE. Checks raise TypeError or
ValueError naming the routine and the argument, on the PE that made the
mistake, before any communication, so peers are never left half-way in a
collective by a bad call.
"""

import bisect
import numbers
import sys

import numpy as np

from ._lib import SymmError, state

try:
    _byte_bounds = np.byte_bounds
except AttributeError:  # numpy 2
    from numpy.lib.array_utils import byte_bounds as _byte_bounds


# ---- the registry of live allocations ---------------------------------------
class Allocation:
    """One block of the symmetric heap: [ptr, ptr + nbytes)."""
    __slots__ = ("ptr", "nbytes", "live", "buffer", "__weakref__")

    def __init__(self, ptr, nbytes, buffer):
        self.ptr = ptr
        self.nbytes = nbytes
        self.live = True
        self.buffer = buffer

    def __repr__(self):
        return "<symm allocation 0x%x+%d%s>" % (self.ptr, self.nbytes,
                                                "" if self.live else " (freed)")


_starts = []   # sorted start addresses of live allocations
_by_start = {}  # start -> Allocation


def register(rec):
    bisect.insort(_starts, rec.ptr)
    _by_start[rec.ptr] = rec


def unregister(rec):
    i = bisect.bisect_left(_starts, rec.ptr)
    if i < len(_starts) and _starts[i] == rec.ptr:
        del _starts[i]
    _by_start.pop(rec.ptr, None)
    rec.live = False


def live_allocations():
    return [_by_start[s] for s in _starts]


def find(lo, hi):
    """The live allocation holding [lo, hi), or None."""
    i = bisect.bisect_right(_starts, lo) - 1
    if i < 0:
        return None
    rec = _by_start[_starts[i]]
    if lo >= rec.ptr and hi <= rec.ptr + rec.nbytes:
        return rec
    return None


def clear():
    """Every allocation becomes invalid (finalize released the heap)."""
    for s in list(_starts):
        unregister(_by_start[s])


# ---- memory after finalize --------------------------------------------------
# finalize unmaps the heap, so a numpy array still viewing it would fault
# (SIGSEGV) on its next access; PROT_NONE in its place would fault the same.
# Instead finalize maps fresh private zero pages over every address range a
# symm array could view (MAP_FIXED_NOREPLACE: never over a mapping someone
# made there since), so stale arrays read zeros and their writes land
# nowhere, and symm's routines recognise those ranges and raise. The spans
# are widened at allocation and at peer_array, never on a put or get.
_exposed = {}  # "heap" or a peer's PE -> [lo, hi): addresses handed out
_retired = []  # [(lo, hi)] remapped by finalize


def expose(key, lo, hi):
    span = _exposed.get(key)
    if span is None:
        _exposed[key] = [lo, hi]
    else:
        span[0] = min(span[0], lo)
        span[1] = max(span[1], hi)


def exposed_spans():
    return [tuple(v) for v in _exposed.values()]


def retire(spans):
    """After the C finalize: zero pages over spans (taken before it)."""
    import ctypes
    import mmap
    libc = ctypes.CDLL(None, use_errno=True)
    libc.mmap.restype = ctypes.c_void_p
    libc.mmap.argtypes = [ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int, ctypes.c_int,
                          ctypes.c_int, ctypes.c_long]
    libc.munmap.argtypes = [ctypes.c_void_p, ctypes.c_size_t]
    MAP_FIXED_NOREPLACE = 0x100000  # Linux 4.17; older kernels treat it as a hint
    page = mmap.PAGESIZE
    for lo, hi in spans:
        lo, hi = lo - lo % page, (hi + page - 1) // page * page
        p = libc.mmap(lo, hi - lo, mmap.PROT_READ | mmap.PROT_WRITE,
                      mmap.MAP_PRIVATE | mmap.MAP_ANONYMOUS | MAP_FIXED_NOREPLACE, -1, 0)
        if p is not None and p != lo and p != ctypes.c_void_p(-1).value:
            libc.munmap(p, hi - lo)  # placed elsewhere (an old kernel): not ours to keep
        _retired.append((lo, hi))
    _exposed.clear()


def check_not_retired(routine, arrays):
    """Raise SymmError naming the first of arrays (name -> array or tensor)
    whose memory finalize released."""
    for name, x in arrays.items():
        try:
            lo, hi = extent(as_array(x, routine, name))
        except (TypeError, ValueError, AttributeError):
            continue
        for rlo, rhi in _retired:
            if rlo <= lo < rhi:
                raise SymmError("symm.%s: %s is an array used after symm.finalize() "
                                "(address 0x%x, %d bytes): its symmetric memory was released "
                                "(it now reads zeros)" % (routine, name, lo, hi - lo))


# ---- torch ------------------------------------------------------------------
def torch_module():
    """torch if the program imported it (symm never imports it itself)."""
    return sys.modules.get("torch")


def is_tensor(x):
    t = torch_module()
    return t is not None and isinstance(x, t.Tensor)


# Torch dtypes numpy has no type for: moved as raw bytes of this size.
_RAW_INT = {1: np.int8, 2: np.int16, 4: np.int32, 8: np.int64}


def as_array(x, routine, name, raw_ok=True):
    """A numpy array sharing x's memory (x: numpy array or CPU torch tensor).
    raw_ok: a torch dtype numpy lacks (bfloat16) is viewed as same-size ints,
    fine for moving bytes; False raises TypeError (for arithmetic)."""
    if isinstance(x, np.ndarray):
        return x
    if is_tensor(x):
        torch = torch_module()
        if x.device.type != "cpu":
            raise TypeError("symm.%s: %s is a tensor on %s; symm arrays live in host memory"
                            % (routine, name, x.device))
        t = x.detach()
        if t.dtype in (torch.bfloat16,) or (hasattr(torch, "float8_e4m3fn") and t.dtype in (
                getattr(torch, "float8_e4m3fn"), getattr(torch, "float8_e5m2"))):
            if not raw_ok:
                raise TypeError("symm.%s: %s has dtype %s, which symm cannot compute with"
                                % (routine, name, t.dtype))
            t = t.view(getattr(torch, np.dtype(_RAW_INT[t.element_size()]).name))
        try:
            return t.numpy()
        except (RuntimeError, TypeError) as e:
            raise TypeError("symm.%s: %s: cannot view this tensor as an array: %s"
                            % (routine, name, e))
    raise TypeError("symm.%s: %s must be a numpy array or a torch tensor, not %s"
                    % (routine, name, type(x).__name__))


# ---- address and extent -----------------------------------------------------
def extent(a):
    """[lo, hi) of the bytes a view touches."""
    if a.size == 0:
        p = a.__array_interface__["data"][0]
        return p, p
    lo, hi = _byte_bounds(a)
    return lo, hi


def data_ptr(a):
    return a.__array_interface__["data"][0]


def symmetric(a, routine, name, need=None):
    """Check that array a lies inside one live symmetric allocation. need:
    what the caller does to the remote copy ("r" get, "w" put, "a" atomic or
    signal, "local": only this PE's copy); a registered array (register.py)
    is accepted only where need says what, and its access allows it."""
    lo, hi = extent(a)
    rec = find(lo, hi if hi > lo else lo + 1)
    if rec is None:
        if not state.initialized:
            why = "symm is not initialised"
        else:
            near = find(lo, lo + 1)
            why = ("it runs past the end of its allocation" if near is not None else
                   "allocate it with symm.empty/zeros/ones/full/like, or use a view of such an "
                   "array")
        raise ValueError("symm.%s: %s is not in symmetric memory (address 0x%x, %d bytes): %s"
                         % (routine, name, lo, hi - lo, why))
    check = getattr(rec, "check", None)
    if check is not None:
        check(routine, name, need)
    return rec


def contiguous(a, routine, name):
    if not a.flags.c_contiguous:
        raise ValueError("symm.%s: %s must be C-contiguous (shape %s, strides %s)"
                         % (routine, name, a.shape, a.strides))


def single_stride(a):
    """(stride in elements, count) if a's elements are evenly spaced, else None."""
    if a.flags.c_contiguous:
        return 1, a.size
    dims = [(n, s) for n, s in zip(a.shape, a.strides) if n != 1]
    if len(dims) == 1:
        n, s = dims[0]
        if s > 0 and s % a.itemsize == 0:
            return s // a.itemsize, n
    return None


def writable(a, routine, name):
    if not a.flags.writeable:
        raise ValueError("symm.%s: %s is read-only" % (routine, name))


# ---- scalars and PE numbers -------------------------------------------------
def int_arg(v, routine, name):
    if isinstance(v, bool) or not isinstance(v, (numbers.Integral, np.integer)):
        raise TypeError("symm.%s: %s must be an int, not %s" % (routine, name, type(v).__name__))
    return int(v)


def pe_arg(pe, routine, what="target PE", n=None):
    pe = int_arg(pe, routine, what)
    n = state.n_pes if n is None else n
    if not 0 <= pe < n:
        raise ValueError("symm.%s: %s %d outside [0,%d)" % (routine, what, pe, n))
    return pe


def index_arg(a, index, routine, name):
    """Byte address of element `index` (flat C-order int, or a tuple) of a."""
    if isinstance(index, tuple):
        idx = tuple(int_arg(i, routine, "index") for i in index)
        if len(idx) != a.ndim or any(not 0 <= i < n for i, n in zip(idx, a.shape)):
            raise ValueError("symm.%s: index %s outside %s of shape %s"
                             % (routine, idx, name, a.shape))
    else:
        i = int_arg(index, routine, "index")
        if not 0 <= i < a.size:
            raise ValueError("symm.%s: index %d outside %s of %d elements"
                             % (routine, i, name, a.size))
        idx = np.unravel_index(i, a.shape) if a.ndim else ()
    return data_ptr(a) + sum(int(i) * s for i, s in zip(idx, a.strides))


# ---- dtypes -----------------------------------------------------------------
def _d(*names):
    return [np.dtype(n) for n in names]


C_NAME = {
    np.dtype(np.int8): "int8", np.dtype(np.int16): "int16", np.dtype(np.int32): "int32",
    np.dtype(np.int64): "int64", np.dtype(np.uint8): "uint8", np.dtype(np.uint16): "uint16",
    np.dtype(np.uint32): "uint32", np.dtype(np.uint64): "uint64",
    np.dtype(np.float32): "float", np.dtype(np.float64): "double",
    np.dtype(np.longdouble): "longdouble",
    np.dtype(np.complex64): "complexf", np.dtype(np.complex128): "complexd",
}
AMO_STD = _d("int32", "int64", "uint32", "uint64")
AMO_EXT = AMO_STD + _d("float32", "float64")
AMO_BIT = AMO_STD
P2P = {np.dtype("int16"): "short", np.dtype("uint16"): "ushort", np.dtype("int32"): "int32",
       np.dtype("int64"): "int64", np.dtype("uint32"): "uint32", np.dtype("uint64"): "uint64"}
REDUCE_BIT = _d("int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64")
REDUCE_MINMAX = REDUCE_BIT + _d("float32", "float64", "longdouble")
REDUCE_ARITH = REDUCE_MINMAX + _d("complex64", "complex128")
REDUCE_TYPES = {"sum": REDUCE_ARITH, "prod": REDUCE_ARITH, "min": REDUCE_MINMAX,
                "max": REDUCE_MINMAX, "and": REDUCE_BIT, "or": REDUCE_BIT, "xor": REDUCE_BIT}


def dtype_in(a, allowed, routine, name, what):
    if not a.dtype.isnative:
        raise TypeError("symm.%s: %s has non-native byte order (%s)" % (routine, name, a.dtype))
    if a.dtype not in allowed:
        raise TypeError("symm.%s: %s has dtype %s; %s takes %s" % (
            routine, name, a.dtype, what, ", ".join(str(d) for d in allowed)))
    return a.dtype
