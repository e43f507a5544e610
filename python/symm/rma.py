"""One-sided communication: put/get (blocking and _nbi), p/g, fence/quiet,
atomics on one element, put-with-signal, signals, and point-to-point waits.

The remote side of every operation is a symmetric array (or a view of one):
the same offset inside the same allocation on the target PE. The local
side of a put/get may be any array. Sizes come from the arrays, or from
explicit element offsets and a size (the RFC form
put(target, target_offset, src, src_offset, size, target_rank)).
"""

from __future__ import annotations

import ctypes
from typing import TYPE_CHECKING, Any, List, Optional, Tuple, Union

import numpy as np

from . import _arrays, runtime
from ._arrays import as_array, int_arg, pe_arg, symmetric
from ._lib import c_int, c_int32, c_size_t, c_uint64, c_void_p, fn, state

if TYPE_CHECKING:
    import torch

# A numpy array or a (CPU) torch tensor: what symm's routines take and return.
ArrayLike = Union[np.ndarray, "torch.Tensor"]

# Comparison operators (OpenSHMEM's values).
CMP_EQ, CMP_NE, CMP_GT, CMP_LE, CMP_LT, CMP_GE = 0, 1, 2, 3, 4, 5
_CMP_NAMES = {"eq": 0, "==": 0, "ne": 1, "!=": 1, "gt": 2, ">": 2, "le": 3, "<=": 3,
              "lt": 4, "<": 4, "ge": 5, ">=": 5}
# Signal operators.
SIGNAL_SET, SIGNAL_ADD = 0, 1
_SIG_NAMES = {"set": 0, "add": 1}

_CTYPE = {"int8": ctypes.c_int8, "int16": ctypes.c_int16, "int32": ctypes.c_int32,
          "int64": ctypes.c_int64, "uint8": ctypes.c_uint8, "uint16": ctypes.c_uint16,
          "uint32": ctypes.c_uint32, "uint64": ctypes.c_uint64, "float": ctypes.c_float,
          "double": ctypes.c_double, "short": ctypes.c_int16, "ushort": ctypes.c_uint16,
          "longdouble": ctypes.c_longdouble}

# Temporaries (contiguous copies of sources) of _nbi puts: alive until quiet.
_nbi_keep = []


def cmp_arg(cmp: Union[int, str], routine: str) -> int:
    """cmp (a CMP_* value, or a name: 'eq', '==', 'ge', '>=', ...) as the
    OpenSHMEM comparison value; ValueError naming routine otherwise."""
    if isinstance(cmp, str):
        c = _CMP_NAMES.get(cmp.lower())
        if c is None:
            raise ValueError("symm.%s: comparison %r is not one of %s"
                             % (routine, cmp, ", ".join(sorted(_CMP_NAMES))))
        return c
    c = int_arg(cmp, routine, "cmp")
    if not 0 <= c <= 5:
        raise ValueError("symm.%s: comparison %d is not a symm.CMP_* value" % (routine, c))
    return c


def sig_op_arg(op: Union[int, str], routine: str) -> int:
    """op (SIGNAL_SET, SIGNAL_ADD, 'set' or 'add') as the OpenSHMEM signal
    operator value; ValueError naming routine otherwise."""
    if isinstance(op, str):
        o = _SIG_NAMES.get(op.lower())
        if o is None:
            raise ValueError("symm.%s: signal operator %r is not 'set' or 'add'" % (routine, op))
        return o
    o = int_arg(op, routine, "op")
    if o not in (SIGNAL_SET, SIGNAL_ADD):
        raise ValueError("symm.%s: signal operator %d is not SIGNAL_SET (0) or SIGNAL_ADD (1)"
                         % (routine, o))
    return o


def value_arg(v: Any, dt: np.dtype, routine: str, name: str = "value") -> Union[int, float]:
    """v as a C value of numpy dtype dt, range-checked for integers."""
    if dt.kind in "iu":
        if isinstance(v, (float, np.floating)) and float(v) != int(v):
            raise TypeError("symm.%s: %s %r is not an integer (dtype %s)" % (routine, name, v, dt))
        try:
            iv = int(v)
        except (TypeError, ValueError):
            raise TypeError("symm.%s: %s must be an integer, not %s"
                            % (routine, name, type(v).__name__))
        info = np.iinfo(dt)
        if not info.min <= iv <= info.max:
            raise ValueError("symm.%s: %s %d does not fit in %s" % (routine, name, iv, dt))
        return iv
    try:
        return float(v)
    except (TypeError, ValueError):
        raise TypeError("symm.%s: %s must be a number, not %s" % (routine, name, type(v).__name__))


# ---- put / get ----------------------------------------------------------------
def _sized(a, off, size, routine, name):
    """Elements [off, off+size) of a's flattened (contiguous) view."""
    off = int_arg(off, routine, name + "_offset")
    size = int_arg(size, routine, "size")
    if off < 0 or size < 0 or off + size > a.size:
        raise ValueError("symm.%s: %s_offset %d + size %d outside %s of %d elements"
                         % (routine, name, off, size, name, a.size))
    if not a.flags.c_contiguous:
        raise ValueError("symm.%s: offsets need a contiguous %s" % (routine, name))
    return a.reshape(-1)[off:off + size]


def _args(routine, target, args, kwargs):
    """(target, source, pe) from either call form, as numpy arrays."""
    if kwargs:
        raise TypeError("symm.%s: unexpected keyword %s" % (routine, ", ".join(kwargs)))
    if len(args) == 2:
        source, pe = args
        return target, source, pe, None
    if len(args) == 5:
        toff, source, soff, size, pe = args
        return target, source, pe, (toff, soff, size)
    raise TypeError("symm.%s takes (target, source, pe) or (target, target_offset, source, "
                    "source_offset, size, pe); got %d arguments" % (routine, 1 + len(args)))


def _prepare(routine, target, source, pe, sized, remote_is_target):
    runtime.ensure(routine, target=target, source=source)
    t = as_array(target, routine, "target")
    if remote_is_target and not isinstance(source, np.ndarray) and not _arrays.is_tensor(source):
        source = np.asarray(source, dtype=t.dtype)  # lists, scalars
    s = as_array(source, routine, "source")
    pe = pe_arg(pe, routine)
    if t.dtype != s.dtype:
        raise TypeError("symm.%s: source has dtype %s, target has dtype %s"
                        % (routine, s.dtype, t.dtype))
    if sized is not None:
        toff, soff, size = sized
        t = _sized(t, toff, size, routine, "target")
        s = _sized(s, soff, size, routine, "source")
    elif t.size != s.size:
        raise ValueError("symm.%s: source has %d elements, target has %d (shapes %s and %s)"
                         % (routine, s.size, t.size, s.shape, t.shape))
    if remote_is_target:
        symmetric(t, routine, "target", "w")
    else:
        symmetric(s, routine, "source", "r")
        _arrays.writable(t, routine, "target")
    return t, s, pe


def _strided_fn(kind, itemsize, routine, name, a):
    bits = itemsize * 8
    if bits not in (8, 16, 32, 64, 128):
        raise ValueError("symm.%s: %s is not contiguous and its %d-byte elements have no "
                         "strided transfer" % (routine, name, itemsize))
    return fn("shmem_%s%d" % (kind, bits), None,
              [c_void_p, c_void_p, ctypes.c_ssize_t, ctypes.c_ssize_t, c_size_t, c_int])


def _put(routine, nbi, target, args, kwargs):
    target, source, pe, sized = _args(routine, target, args, kwargs)
    t, s, pe = _prepare(routine, target, source, pe, sized, True)
    if t.size == 0:
        return
    if t.flags.c_contiguous:
        sc = np.ascontiguousarray(s)
        f = fn("shmem_putmem_nbi" if nbi else "shmem_putmem", None,
               [c_void_p, c_void_p, c_size_t, c_int])
        f(_arrays.data_ptr(t), _arrays.data_ptr(sc), t.nbytes, pe)
        if nbi and sc is not s:
            _nbi_keep.append(sc)
        return
    st = _arrays.single_stride(t)
    if st is None:
        raise ValueError("symm.%s: target is not contiguous and has no single stride "
                         "(shape %s, strides %s); put each contiguous part" %
                         (routine, t.shape, t.strides))
    sc = np.ascontiguousarray(s).reshape(-1)
    # A strided put is blocking (OpenSHMEM has no iput_nbi): complete at
    # return, which also satisfies the _nbi contract.
    _strided_fn("iput", t.itemsize, routine, "target", t)(
        _arrays.data_ptr(t), _arrays.data_ptr(sc), st[0], 1, st[1], pe)


def _get(routine, nbi, target, args, kwargs):
    target, source, pe, sized = _args(routine, target, args, kwargs)
    t, s, pe = _prepare(routine, target, source, pe, sized, False)
    if t.size == 0:
        return
    local = t if t.flags.c_contiguous else np.empty(t.shape, t.dtype)
    if s.flags.c_contiguous:
        blocking = nbi and local is not t
        f = fn("shmem_getmem_nbi" if nbi and not blocking else "shmem_getmem", None,
               [c_void_p, c_void_p, c_size_t, c_int])
        f(_arrays.data_ptr(local), _arrays.data_ptr(s), s.nbytes, pe)
    else:
        st = _arrays.single_stride(s)
        if st is None:
            raise ValueError("symm.%s: source is not contiguous and has no single stride "
                             "(shape %s, strides %s)" % (routine, s.shape, s.strides))
        _strided_fn("iget", s.itemsize, routine, "source", s)(
            _arrays.data_ptr(local), _arrays.data_ptr(s), 1, st[0], st[1], pe)
    if local is not t:
        np.copyto(t, local)


def put(target: ArrayLike, *args: Any, **kwargs: Any) -> None:
    """put(target, source, pe) or put(target, target_offset, source,
    source_offset, size, pe): copy source (local) into PE pe's copy of the
    symmetric target. Offsets and size count elements of the flattened
    arrays. Returns when source may be reused."""
    _put("put", False, target, args, kwargs)


def put_nbi(target: ArrayLike, *args: Any, **kwargs: Any) -> None:
    """put without waiting: complete after quiet() (or a barrier)."""
    _put("put_nbi", True, target, args, kwargs)


def get(target: ArrayLike, *args: Any, **kwargs: Any) -> None:
    """get(target, source, pe) or get(target, target_offset, source,
    source_offset, size, pe): copy PE pe's copy of the symmetric source into
    the local target. Returns when the data has arrived."""
    _get("get", False, target, args, kwargs)


def get_nbi(target: ArrayLike, *args: Any, **kwargs: Any) -> None:
    """get without waiting: the data has arrived after quiet()."""
    _get("get_nbi", True, target, args, kwargs)


def p(target: ArrayLike, value: Any, pe: int, index: Union[int, Tuple[int, ...]] = 0) -> None:
    """Store one value into element `index` of PE pe's copy of target."""
    runtime.ensure("p", target=target)
    t = as_array(target, "p", "target")
    pe = pe_arg(pe, "p")
    symmetric(t, "p", "target", "w")
    addr = _arrays.index_arg(t, index, "p", "target")
    v = np.array(value, dtype=t.dtype)
    fn("shmem_putmem", None, [c_void_p, c_void_p, c_size_t, c_int])(
        addr, _arrays.data_ptr(v), t.itemsize, pe)


def g(source: ArrayLike, pe: int, index: Union[int, Tuple[int, ...]] = 0) -> Any:
    """Element `index` of PE pe's copy of source."""
    runtime.ensure("g", source=source)
    s = as_array(source, "g", "source")
    pe = pe_arg(pe, "g")
    symmetric(s, "g", "source", "r")
    addr = _arrays.index_arg(s, index, "g", "source")
    v = np.empty(1, dtype=s.dtype)
    fn("shmem_getmem", None, [c_void_p, c_void_p, c_size_t, c_int])(
        _arrays.data_ptr(v), addr, s.itemsize, pe)
    return v[0]


def quiet() -> None:
    """Complete every put, get, atomic and signal this PE issued."""
    runtime.ensure("quiet")
    fn("shmem_quiet", None, [])()
    del _nbi_keep[:]


def fence() -> None:
    """Order this PE's puts to each PE: earlier ones land before later ones."""
    runtime.ensure("fence")
    fn("shmem_fence", None, [])()


# ---- atomics -----------------------------------------------------------------
def _amo(routine, target, pe, index, allowed):
    runtime.ensure(routine, target=target)
    a = as_array(target, routine, "target", raw_ok=False)
    dt = _arrays.dtype_in(a, allowed, routine, "target", "this atomic")
    pe = pe_arg(pe, routine)
    symmetric(a, routine, "target", "a")
    addr = _arrays.index_arg(a, index, routine, "target")
    cname = _arrays.C_NAME[dt]
    return addr, dt, cname, _CTYPE[cname], pe


def _amo_call(op, restype_is_value, extra, routine, target, pe, index, allowed, values=()):
    addr, dt, cname, ct, pe = _amo(routine, target, pe, index, allowed)
    vals = [value_arg(v, dt, routine, n) for v, n in values]
    f = fn("shmem_%s_atomic_%s" % (cname, op), ct if restype_is_value else None,
           [c_void_p] + [ct] * extra + [c_int])
    r = f(addr, *vals, pe)
    return dt.type(r) if restype_is_value else None


def atomic_fetch(source: ArrayLike, pe: int, index: Union[int, Tuple[int, ...]] = 0) -> Any:
    """Atomically read element `index` of PE pe's copy of source."""
    return _amo_call("fetch", True, 0, "atomic_fetch", source, pe, index, _arrays.AMO_EXT)


def atomic_set(target: ArrayLike, value: Any, pe: int,
               index: Union[int, Tuple[int, ...]] = 0) -> None:
    """Atomically write value into element `index` of PE pe's copy."""
    _amo_call("set", False, 1, "atomic_set", target, pe, index, _arrays.AMO_EXT,
              [(value, "value")])


def atomic_swap(target: ArrayLike, value: Any, pe: int,
                index: Union[int, Tuple[int, ...]] = 0) -> Any:
    """Atomically write value; returns the old value."""
    return _amo_call("swap", True, 1, "atomic_swap", target, pe, index, _arrays.AMO_EXT,
                     [(value, "value")])


def atomic_compare_swap(target: ArrayLike, cond: Any, value: Any, pe: int,
                        index: Union[int, Tuple[int, ...]] = 0) -> Any:
    """Write value if the element equals cond; returns the old value."""
    return _amo_call("compare_swap", True, 2, "atomic_compare_swap", target, pe, index,
                     _arrays.AMO_STD, [(cond, "cond"), (value, "value")])


def atomic_fetch_inc(target: ArrayLike, pe: int, index: Union[int, Tuple[int, ...]] = 0) -> Any:
    """Add 1; returns the old value."""
    return _amo_call("fetch_inc", True, 0, "atomic_fetch_inc", target, pe, index,
                     _arrays.AMO_STD)


def atomic_inc(target: ArrayLike, pe: int, index: Union[int, Tuple[int, ...]] = 0) -> None:
    """Add 1."""
    _amo_call("inc", False, 0, "atomic_inc", target, pe, index, _arrays.AMO_STD)


def atomic_fetch_add(target: ArrayLike, value: Any, pe: int,
                     index: Union[int, Tuple[int, ...]] = 0) -> Any:
    """Add value; returns the old value."""
    return _amo_call("fetch_add", True, 1, "atomic_fetch_add", target, pe, index,
                     _arrays.AMO_STD, [(value, "value")])


def atomic_add(target: ArrayLike, value: Any, pe: int,
               index: Union[int, Tuple[int, ...]] = 0) -> None:
    """Add value."""
    _amo_call("add", False, 1, "atomic_add", target, pe, index, _arrays.AMO_STD,
              [(value, "value")])


def _bitwise(op):
    def fetch_op(target: ArrayLike, value: Any, pe: int,
                 index: Union[int, Tuple[int, ...]] = 0) -> Any:
        return _amo_call("fetch_" + op, True, 1, "atomic_fetch_" + op, target, pe, index,
                         _arrays.AMO_BIT, [(value, "value")])

    def plain_op(target: ArrayLike, value: Any, pe: int,
                 index: Union[int, Tuple[int, ...]] = 0) -> None:
        _amo_call(op, False, 1, "atomic_" + op, target, pe, index, _arrays.AMO_BIT,
                  [(value, "value")])
    fetch_op.__name__ = "atomic_fetch_" + op
    fetch_op.__doc__ = "Bitwise %s with value; returns the old value." % op
    plain_op.__name__ = "atomic_" + op
    plain_op.__doc__ = "Bitwise %s with value." % op
    return fetch_op, plain_op


atomic_fetch_and, atomic_and = _bitwise("and")
atomic_fetch_or, atomic_or = _bitwise("or")
atomic_fetch_xor, atomic_xor = _bitwise("xor")


# ---- signals -----------------------------------------------------------------
_SIGNAL_DTYPES = [np.dtype(np.uint64), np.dtype(np.int32)]


def _signal(signal, offset, routine, need="a"):
    sg = as_array(signal, routine, "signal", raw_ok=False)
    dt = _arrays.dtype_in(sg, _SIGNAL_DTYPES, routine, "signal",
                          "a signal (uint64: OpenSHMEM, int32: aclshmem)")
    symmetric(sg, routine, "signal", need)
    addr = _arrays.index_arg(sg, offset, routine, "signal")
    return sg, dt, addr


def put_signal(target: ArrayLike, source: ArrayLike, signal: ArrayLike,
               signal_offset: Union[int, Tuple[int, ...]], value: int, op: Union[int, str],
               pe: int, nbi: bool = False) -> None:
    """Put source into PE pe's target, then update element signal_offset of
    its signal array (SIGNAL_SET or SIGNAL_ADD value): a PE that sees the
    signal sees the data. signal: a symmetric uint64 array (or int32, the
    aclshmem signal word)."""
    routine = "put_signal_nbi" if nbi else "put_signal"
    t, s, pe = _prepare(routine, target, source, pe, None, True)
    sg, dt, saddr = _signal(signal, signal_offset, routine)
    op = sig_op_arg(op, routine)
    v = value_arg(value, dt, routine)
    _arrays.contiguous(t, routine, "target")
    sc = np.ascontiguousarray(s)
    if dt == np.uint64:
        f = fn("shmem_putmem_signal_nbi" if nbi else "shmem_putmem_signal", None,
               [c_void_p, c_void_p, c_size_t, c_void_p, c_uint64, c_int, c_int])
    else:
        f = fn("aclshmemx_putmem_signal_nbi" if nbi else "aclshmemx_putmem_signal", None,
               [c_void_p, c_void_p, c_size_t, c_void_p, c_int32, c_int, c_int])
    f(_arrays.data_ptr(t), _arrays.data_ptr(sc), t.nbytes, saddr, v, op, pe)
    if nbi and sc is not s:
        _nbi_keep.append(sc)


def put_signal_nbi(target: ArrayLike, source: ArrayLike, signal: ArrayLike,
                   signal_offset: Union[int, Tuple[int, ...]], value: int, op: Union[int, str],
                   pe: int) -> None:
    """put_signal without waiting for completion (complete after quiet)."""
    put_signal(target, source, signal, signal_offset, value, op, pe, nbi=True)


def signal_op(signal: ArrayLike, offset: Union[int, Tuple[int, ...]], value: int,
              op: Union[int, str], pe: int) -> None:
    """Set (SIGNAL_SET) or add to (SIGNAL_ADD) element offset of PE pe's
    signal array, atomically."""
    runtime.ensure("signal_op", signal=signal)
    pe = pe_arg(pe, "signal_op")
    sg, dt, saddr = _signal(signal, offset, "signal_op")
    op = sig_op_arg(op, "signal_op")
    v = value_arg(value, dt, "signal_op")
    if dt == np.uint64:
        name = "shmem_signal_set" if op == SIGNAL_SET else "shmem_signal_add"
        fn(name, None, [c_void_p, c_uint64, c_int])(saddr, v, pe)
    else:
        name = "shmem_int32_atomic_set" if op == SIGNAL_SET else "shmem_int32_atomic_add"
        fn(name, None, [c_void_p, c_int32, c_int])(saddr, v, pe)


def signal_fetch(signal: ArrayLike, offset: Union[int, Tuple[int, ...]] = 0) -> int:
    """The current value of element offset of this PE's signal array."""
    runtime.ensure("signal_fetch", signal=signal)
    sg, dt, saddr = _signal(signal, offset, "signal_fetch", "local")
    if dt == np.uint64:
        return int(fn("shmem_signal_fetch", c_uint64, [c_void_p])(saddr))
    return int(fn("shmem_int32_atomic_fetch", c_int32, [c_void_p, c_int])(saddr, state.my_pe))


def wait_signal(signal: ArrayLike, offset: Union[int, Tuple[int, ...]], cmp: Union[int, str],
                value: int) -> int:
    """Block until element offset of this PE's signal array compares to
    value as cmp says (CMP_GE, '>=', ...); returns the signal's value."""
    runtime.ensure("wait_signal", signal=signal)
    sg, dt, saddr = _signal(signal, offset, "wait_signal", "local")
    c = cmp_arg(cmp, "wait_signal")
    v = value_arg(value, dt, "wait_signal")
    if dt == np.uint64:
        return int(fn("shmem_signal_wait_until", c_uint64, [c_void_p, c_int, c_uint64])(
            saddr, c, v))
    fn("shmem_int32_wait_until", None, [c_void_p, c_int, c_int32])(saddr, c, v)
    return int(fn("shmem_int32_atomic_fetch", c_int32, [c_void_p, c_int])(saddr, state.my_pe))


# ---- point-to-point waits ------------------------------------------------------
def _p2p(routine, ivars, cmp, index=None):
    runtime.ensure(routine, ivars=ivars)
    a = as_array(ivars, routine, "ivars", raw_ok=False)
    dt = _arrays.dtype_in(a, list(_arrays.P2P), routine, "ivars", "wait/test")
    symmetric(a, routine, "ivars", "local")
    c = cmp_arg(cmp, routine)
    cname = _arrays.P2P[dt]
    return a, dt, cname, _CTYPE[cname], c


def wait_until(ivar: ArrayLike, cmp: Union[int, str], value: int,
               index: Union[int, Tuple[int, ...]] = 0) -> None:
    """Block until element index of this PE's symmetric ivar compares to
    value as cmp says. Integer dtypes: int16/32/64, uint16/32/64."""
    a, dt, cname, ct, c = _p2p("wait_until", ivar, cmp)
    addr = _arrays.index_arg(a, index, "wait_until", "ivar")
    v = value_arg(value, dt, "wait_until")
    fn("shmem_%s_wait_until" % cname, None, [c_void_p, c_int, ct])(addr, c, v)


def test(ivar: ArrayLike, cmp: Union[int, str], value: int,
         index: Union[int, Tuple[int, ...]] = 0) -> bool:
    """True if element index of this PE's ivar compares to value as cmp says."""
    a, dt, cname, ct, c = _p2p("test", ivar, cmp)
    addr = _arrays.index_arg(a, index, "test", "ivar")
    v = value_arg(value, dt, "test")
    return bool(fn("shmem_%s_test" % cname, c_int, [c_void_p, c_int, ct])(addr, c, v))


def _multi(routine, ivars, cmp, value, status):
    a, dt, cname, ct, c = _p2p(routine, ivars, cmp)
    _arrays.contiguous(a, routine, "ivars")
    n = a.size
    st = None
    if status is not None:
        st = np.ascontiguousarray(np.asarray(status), dtype=np.intc)
        if st.size != n:
            raise ValueError("symm.%s: status has %d elements, ivars %d" % (routine, st.size, n))
    vec = np.ndim(value) > 0
    if vec:
        vals = np.ascontiguousarray(np.asarray(value), dtype=dt)
        if vals.size != n:
            raise ValueError("symm.%s: %d comparison values for %d ivars"
                             % (routine, vals.size, n))
        for x in vals.reshape(-1):
            value_arg(x, dt, routine)
        v = _arrays.data_ptr(vals)
        keep = vals
    else:
        v = value_arg(value, dt, routine)
        keep = None
    sptr = _arrays.data_ptr(st) if st is not None else None
    return a, cname, ct, c, n, sptr, v, vec, (st, keep)


_NONE = ctypes.c_size_t(-1).value


def _call_multi(kind, routine, ivars, cmp, value, status, restype, indices=False):
    a, cname, ct, c, n, sptr, v, vec, keep = _multi(routine, ivars, cmp, value, status)
    suffix = "_vector" if vec else ""
    args = [c_void_p, c_size_t] + ([c_void_p] if indices else []) + \
        [c_void_p, c_int, c_void_p if vec else ct]
    f = fn("shmem_%s_%s%s" % (cname, kind, suffix), restype, args)
    if indices:
        idx = np.zeros(max(n, 1), dtype=np.uintp)
        k = f(_arrays.data_ptr(a), n, _arrays.data_ptr(idx), sptr, c, v)
        return [int(i) for i in idx[:k]]
    return f(_arrays.data_ptr(a), n, sptr, c, v)


def wait_until_all(ivars: ArrayLike, cmp: Union[int, str], value: Any, status: Any = None) -> None:
    """Block until every element of ivars (not excluded by a non-zero
    status entry) compares to value (a scalar, or one value per element)."""
    _call_multi("wait_until_all", "wait_until_all", ivars, cmp, value, status, None)


def wait_until_any(ivars: ArrayLike, cmp: Union[int, str], value: Any,
                   status: Any = None) -> Optional[int]:
    """Block until some element compares; returns its index (None if every
    element is excluded by status)."""
    r = _call_multi("wait_until_any", "wait_until_any", ivars, cmp, value, status, c_size_t)
    return None if r == _NONE else int(r)


def wait_until_some(ivars: ArrayLike, cmp: Union[int, str], value: Any,
                    status: Any = None) -> List[int]:
    """Block until at least one element compares; returns every index that
    does."""
    return _call_multi("wait_until_some", "wait_until_some", ivars, cmp, value, status,
                       c_size_t, indices=True)


def test_all(ivars: ArrayLike, cmp: Union[int, str], value: Any, status: Any = None) -> bool:
    """True if every (non-excluded) element compares."""
    return bool(_call_multi("test_all", "test_all", ivars, cmp, value, status, c_int))


def test_any(ivars: ArrayLike, cmp: Union[int, str], value: Any,
             status: Any = None) -> Optional[int]:
    """The index of an element that compares, or None."""
    r = _call_multi("test_any", "test_any", ivars, cmp, value, status, c_size_t)
    return None if r == _NONE else int(r)


def test_some(ivars: ArrayLike, cmp: Union[int, str], value: Any, status: Any = None) -> List[int]:
    """Every index whose element compares (possibly none)."""
    return _call_multi("test_some", "test_some", ivars, cmp, value, status, c_size_t,
                       indices=True)
