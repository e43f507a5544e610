"""Symmetric arrays: numpy arrays (and torch tensors) whose buffer is the
symmetric heap, with no copy between the Python object and the memory
peers read and write.

Allocation and free are collective: every PE makes the same calls with the
same shapes, in the same order (the heap's offsets then agree). free() is
explicit: garbage collection never frees (that would be a collective behind
the program's back); arrays still alive at finalize become invalid with the
heap.
"""

from __future__ import annotations

import ctypes
import math
from typing import TYPE_CHECKING, Any, Optional, Sequence, Union

import numpy as np

from . import _arrays, _lib, runtime
from ._lib import c_size_t, c_void_p, fn, state

if TYPE_CHECKING:
    import torch

# A numpy array or a (CPU) torch tensor: what symm's routines take and return.
ArrayLike = Union[np.ndarray, "torch.Tensor"]

_before_heap_change = []  # hooks run before malloc/free (streams synchronize)


def _heap_changing():
    for hook in list(_before_heap_change):
        hook()


def _shape(shape, routine):
    if isinstance(shape, (int, np.integer)) and not isinstance(shape, bool):
        shape = (int(shape),)
    try:
        shape = tuple(_arrays.int_arg(n, routine, "shape") for n in shape)
    except TypeError:
        if not isinstance(shape, tuple):
            raise TypeError("symm.%s: shape must be an int or a tuple of ints, not %s"
                            % (routine, type(shape).__name__))
        raise
    if any(n < 0 for n in shape):
        raise ValueError("symm.%s: negative dimension in shape %s" % (routine, shape))
    return shape


def _torch_dtype(dtype):
    """(numpy storage dtype, torch dtype or None) for a numpy or torch dtype."""
    torch = _arrays.torch_module()
    if torch is not None and isinstance(dtype, torch.dtype):
        if dtype == torch.bfloat16:
            return np.dtype(np.int16), dtype
        if dtype == torch.bool:
            return np.dtype(np.bool_), dtype
        name = str(dtype).replace("torch.", "")
        try:
            return np.dtype(name), dtype
        except TypeError:
            raise TypeError("symm: torch dtype %s has no symmetric-array support" % dtype)
    return np.dtype(dtype), None


def _finish(arr, backend, tdtype):
    if backend == "numpy":
        return arr
    t = to_torch(arr)
    if tdtype is not None and t.dtype != tdtype:
        t = t.view(tdtype)
    return t


def _alloc(shape, dtype, zero, routine, backend):
    runtime.ensure(routine)
    shape = _shape(shape, routine)
    if backend not in ("numpy", "torch"):
        raise ValueError("symm.%s: backend must be 'numpy' or 'torch', not %r"
                         % (routine, backend))
    if backend == "torch" and _arrays.torch_module() is None:
        __import__("torch")  # the caller asked for tensors
    np_dtype, tdtype = _torch_dtype(dtype)
    if backend == "numpy" and tdtype is not None and tdtype == _arrays.torch_module().bfloat16:
        raise TypeError("symm.%s: dtype %s needs backend='torch'" % (routine, tdtype))
    if np_dtype.hasobject:
        raise TypeError("symm.%s: dtype %s holds Python objects; symmetric memory holds "
                        "plain data" % (routine, np_dtype))
    count = math.prod(shape)
    nbytes = count * np_dtype.itemsize
    _heap_changing()
    mark = _lib.log_mark()
    size = max(nbytes, 1)  # every array gets its own address, even an empty one
    if zero:
        p = fn("shmem_calloc", c_void_p, [c_size_t, c_size_t])(1, size)
    else:
        p = fn("shmem_malloc", c_void_p, [c_size_t])(size)
    if not p:
        _lib.fail(routine, "cannot allocate %d bytes of symmetric memory" % nbytes, mark)
    buf = (ctypes.c_char * size).from_address(p)
    rec = _arrays.Allocation(p, size, buf)
    buf._symm_allocation = rec  # every view's .base chain keeps the record alive
    _arrays.register(rec)
    _arrays.expose("heap", p, p + size)
    arr = np.frombuffer(buf, dtype=np_dtype, count=count).reshape(shape)
    return arr, tdtype


def _sync_all():
    fn("shmem_sync_all", None, [])()


def empty(shape: Union[int, Sequence[int]], dtype: Any = np.float64,
          backend: str = "numpy") -> ArrayLike:
    """A symmetric array of `shape` and `dtype`, uninitialised. Collective.
    backend='torch' returns a torch tensor on the same memory (dtype may be a
    torch dtype then, bfloat16 included)."""
    arr, td = _alloc(shape, dtype, False, "empty", backend)
    return _finish(arr, backend, td)


def zeros(shape: Union[int, Sequence[int]], dtype: Any = np.float64,
          backend: str = "numpy") -> ArrayLike:
    """A symmetric array filled with zeros (on every PE before any PE
    returns). Collective."""
    arr, td = _alloc(shape, dtype, True, "zeros", backend)
    return _finish(arr, backend, td)


def full(shape: Union[int, Sequence[int]], fill_value: Any, dtype: Any = None,
         backend: str = "numpy") -> ArrayLike:
    """A symmetric array filled with fill_value; every PE has filled its copy
    before any PE returns, so peers may write into it at once. Collective."""
    if dtype is None:
        dtype = np.array(fill_value).dtype
    arr, td = _alloc(shape, dtype, False, "full", backend)
    out = _finish(arr, backend, td)
    if _arrays.is_tensor(out):
        out.fill_(fill_value)
    else:
        arr.fill(fill_value)
    _sync_all()
    return out


def ones(shape: Union[int, Sequence[int]], dtype: Any = np.float64,
         backend: str = "numpy") -> ArrayLike:
    """A symmetric array filled with ones. Collective."""
    return full(shape, 1, dtype=dtype, backend=backend)


def _like_backend(a, backend):
    if backend is None:
        return "torch" if _arrays.is_tensor(a) else "numpy"
    return backend


def empty_like(a: ArrayLike, dtype: Any = None, backend: Optional[str] = None) -> ArrayLike:
    """A symmetric array with a's shape and dtype (or `dtype`). Collective."""
    backend = _like_backend(a, backend)
    if dtype is None:
        dtype = a.dtype
    return empty(tuple(a.shape), dtype, backend)


def zeros_like(a: ArrayLike, dtype: Any = None, backend: Optional[str] = None) -> ArrayLike:
    """zeros() with a's shape and dtype. Collective."""
    backend = _like_backend(a, backend)
    if dtype is None:
        dtype = a.dtype
    return zeros(tuple(a.shape), dtype, backend)


def like(a: Any, backend: Optional[str] = None) -> ArrayLike:
    """A symmetric copy of a (numpy array, torch tensor or anything
    np.asarray takes): same shape, dtype and values; a tensor gives a tensor.
    Every PE has copied before any PE returns. Collective."""
    backend = _like_backend(a, backend)
    if _arrays.is_tensor(a):
        out = empty(tuple(a.shape), a.dtype, backend)
        if _arrays.is_tensor(out):
            out.copy_(a.detach())
        else:
            np.copyto(out, _arrays.as_array(a, "like", "a"))
    else:
        src = np.asarray(a)
        out = empty(src.shape, src.dtype, backend)
        if _arrays.is_tensor(out):
            np.copyto(_arrays.as_array(out, "like", "out"), src)
        else:
            np.copyto(out, src)
    _sync_all()
    return out


def free(a: ArrayLike) -> None:
    """Release the symmetric array a (collective: every PE frees the same
    array, in the same order). a must be the array an allocation returned
    (or a view starting at its first byte); views of it become invalid."""
    runtime.ensure("free", array=a)
    arr = _arrays.as_array(a, "free", "array")
    p = _arrays.data_ptr(arr)
    rec = _arrays._by_start.get(p)
    if getattr(rec, "check", None) is not None:
        raise ValueError("symm.free: array is a registered array (region %d), not a symmetric "
                         "allocation: release it with symm.deregister" % rec.id)
    if rec is None or not rec.live:
        inside = _arrays.find(p, p + 1)
        if inside is not None:
            raise ValueError("symm.free: array starts %d bytes into a symmetric allocation; "
                             "free the array the allocation returned" % (p - inside.ptr))
        raise ValueError("symm.free: array is not a live symmetric allocation "
                         "(freed already, or not allocated by symm)")
    _heap_changing()
    fn("shmem_free", None, [c_void_p])(rec.ptr)
    _arrays.unregister(rec)


def is_symmetric(a: Any) -> bool:
    """True if a (array or tensor) lies wholly inside live symmetric memory."""
    try:
        arr = _arrays.as_array(a, "is_symmetric", "a")
    except TypeError:
        return False
    lo, hi = _arrays.extent(arr)
    return _arrays.find(lo, hi if hi > lo else lo + 1) is not None


def to_torch(a: ArrayLike) -> torch.Tensor:
    """A torch tensor on the same memory as numpy array a (torch.from_numpy):
    writes through either are seen by the other, and by peers' gets."""
    import torch
    if isinstance(a, torch.Tensor):
        return a
    if not isinstance(a, np.ndarray):
        raise TypeError("symm.to_torch: need a numpy array, not %s" % type(a).__name__)
    return torch.from_numpy(a)


def peer_array(a: ArrayLike, pe: int) -> Optional[np.ndarray]:
    """A numpy view of PE pe's copy of symmetric array a, for direct loads and
    stores (the peer's memory is mapped here), or None where it is not
    mapped. Stores through it are not ordered by fence/quiet; use
    symm.barrier or signals to order them."""
    runtime.ensure("peer_array", a=a)
    arr = _arrays.as_array(a, "peer_array", "a")
    rec = _arrays.symmetric(arr, "peer_array", "a")
    pe = _arrays.pe_arg(pe, "peer_array", "PE")
    q = fn("shmem_ptr", c_void_p, [c_void_p, ctypes.c_int])(rec.ptr, pe)
    if not q:
        return None
    _arrays.expose(pe, q, q + rec.nbytes)
    buf = (ctypes.c_char * rec.nbytes).from_address(q)
    buf._symm_allocation = rec
    base = np.frombuffer(buf, dtype=np.uint8)
    off = _arrays.data_ptr(arr) - rec.ptr
    return np.ndarray(arr.shape, arr.dtype, buffer=base, offset=off, strides=arr.strides)


def _drop_all():
    _arrays.clear()


state.before_finalize.append(_drop_all)
