"""symm.rfc: the HyperParallel symmetric-memory RFC's Python API, on symm.

Code written for the RFC (hyper_parallel.core.symmetric_memory, here also
importable under that name) runs unchanged once device='npu' reads 'cpu':
the same routine names, argument names, order, keyword forms and codes.

    import torch, torch.distributed as dist
    import hyper_parallel.core.symmetric_memory as symm_mem
    dist.init_process_group("gloo")                  # the RFC: "hccl"
    buf = symm_mem.empty((4, 8), dtype=torch.float32)  # starts symm (collective)
    sig = symm_mem.empty(1, dtype=torch.int32)
    ...
    symm_mem.shmem_put_with_signal(buf, 0, src, 0, 32, sig, 0, 1, 0, 1)
    symm_mem.shmem_wait_for_signal(buf, sig, 0, 1, 0)

Conventions (the RFC's; symm's own API differs, see python/README.md):
  - offsets and sizes count elements of the tensor (flattened, C order), as
    the RFC's kernels do; they, signal values and ranks are Python ints or
    1-element integer tensors;
  - signals are int32 symmetric tensors; signal_op 0 = SET, 1 = ADD;
    compare_op 0 = EQ, 1 = GT, 2 = LT (signal OP compare_value);
  - shmem_get(target, ..., src, ..., target_rank) reads target_rank's
    (symmetric) src into the local target.
The first call (normally empty()) starts symm collectively: under oshrun,
else from torch.distributed as the RFC's manager does (symm/_start.py).

Every routine is a thin layer over symm's own (put, put_signal, signal_op,
wait_signal, allgather, alltoall, the fused operations); nothing here moves
data by other means. Collectives (shmem_allgather, shmem_alltoall, the
fused operations, rendezvous) first agree over every rank that all
arguments are good and the same where they must be, so a mistake on one
rank raises on every rank instead of leaving the others waiting.

Errors are symm.SymmError that are also ValueError or TypeError, naming the
routine and the value: "symm.rfc.shmem_put: target_rank 9 outside [0,4)".
"""

from __future__ import annotations

import math
import numbers
from typing import TYPE_CHECKING, Any, Optional, Sequence, Tuple, Union

import numpy as np

from . import _arrays, _start, coll, fused, memory, rma, runtime
from ._lib import SymmError, fn, state
from ._lib import c_int, c_void_p

if TYPE_CHECKING:
    import torch

# A numpy array or a (CPU) torch tensor: what symm's routines take and return.
ArrayLike = Union[np.ndarray, "torch.Tensor"]

__all__ = [
    "is_shmem_available", "empty", "rendezvous", "set_signal_pad_size", "get_signal_pad_size",
    "barrier", "shmem_put", "shmem_get", "shmem_wait_for_signal", "shmem_put_with_signal",
    "shmem_signal_op", "shmem_allgather", "shmem_alltoall", "fused_all_gather_matmul",
    "fused_matmul_reduce_scatter",
]

# The RFC's codes.
SIGNAL_SET, SIGNAL_ADD = 0, 1
COMPARE_EQ, COMPARE_GT, COMPARE_LT = 0, 1, 2
_COMPARE = {COMPARE_EQ: (rma.CMP_EQ, "EQ"), COMPARE_GT: (rma.CMP_GT, "GT"),
            COMPARE_LT: (rma.CMP_LT, "LT")}
_INT32 = (-(1 << 31), (1 << 31) - 1)
_FLOATS = ("float16", "bfloat16", "float32", "float64")
_DEFAULT_SIGNAL_PAD = 2048  # bytes, as torch's symmetric memory


class RfcValueError(SymmError, ValueError):
    """A bad value given to a symm.rfc routine."""


class RfcTypeError(SymmError, TypeError):
    """An argument of the wrong type given to a symm.rfc routine."""


def _val(routine, msg):
    return RfcValueError("symm.rfc.%s: %s" % (routine, msg))


def _typ(routine, msg):
    return RfcTypeError("symm.rfc.%s: %s" % (routine, msg))


def _as_rfc(e):
    """e as an Rfc*Error (symm's checks raise plain TypeError/ValueError)."""
    if isinstance(e, (RfcValueError, RfcTypeError)):
        return e
    return (RfcTypeError if isinstance(e, TypeError) else RfcValueError)(str(e))


def _started(routine, **arrays):
    """Start symm on first use (collectively: see symm/_start.py)."""
    if not state.initialized:
        runtime.ensure("rfc." + routine, **arrays)


# ---- arguments ------------------------------------------------------------------
def _is_tensor(x):
    return _arrays.is_tensor(x)


def _dtype_name(x):
    """'float32', 'bfloat16', ...: the tensor's or array's element type."""
    if _is_tensor(x):
        return str(x.dtype).replace("torch.", "")
    return str(np.asarray(x).dtype) if not isinstance(x, np.ndarray) else str(x.dtype)


def _int(v, routine, name):
    """v (int, numpy integer, or a 1-element integer tensor/array) as int."""
    if isinstance(v, bool):
        raise _typ(routine, "%s must be an int or a 1-element integer tensor, not bool" % name)
    if isinstance(v, (numbers.Integral, np.integer)):
        return int(v)
    if _is_tensor(v) or isinstance(v, np.ndarray):
        count = v.numel() if _is_tensor(v) else v.size
        dt = _dtype_name(v)
        if count != 1:
            raise _val(routine, "%s is a tensor of %d elements (shape %s); give an int or a "
                       "1-element tensor" % (name, count, tuple(v.shape)))
        if not (dt.startswith("int") or dt.startswith("uint")):
            raise _typ(routine, "%s is a %s tensor; offsets, sizes, values and ranks are integers"
                       % (name, dt))
        return int(v.reshape(-1)[0].item())
    raise _typ(routine, "%s must be an int or a 1-element integer tensor, not %s"
               % (name, type(v).__name__))


def _int32(v, routine, name):
    x = _int(v, routine, name)
    if not _INT32[0] <= x <= _INT32[1]:
        raise _val(routine, "%s %d does not fit the int32 signal" % (name, x))
    return x


def _rank(v, routine, name="target_rank"):
    r = _int(v, routine, name)
    if not 0 <= r < state.n_pes:
        raise _val(routine, "%s %d outside [0,%d)" % (name, r, state.n_pes))
    return r


def _array(x, routine, name):
    """A numpy view of tensor/array x (bfloat16 as int16: bytes only)."""
    try:
        return _arrays.as_array(x, "rfc." + routine, name)
    except (TypeError, ValueError) as e:
        raise _as_rfc(e)


def _flat(a, routine, name):
    if not a.flags.c_contiguous:
        raise _val(routine, "%s must be contiguous for element offsets (shape %s, strides %s)"
                   % (name, a.shape, a.strides))
    return a.reshape(-1)


def _span(flat, off, size, routine, name, off_name):
    if off < 0:
        raise _val(routine, "%s %d is negative" % (off_name, off))
    if size < 0:
        raise _val(routine, "size %d is negative" % size)
    if off + size > flat.size:
        raise _val(routine, "%s %d + size %d runs past %s's %d elements"
                   % (off_name, off, size, name, flat.size))
    return flat[off:off + size]


def _symmetric(a, routine, name):
    try:
        _arrays.symmetric(a, "rfc." + routine, name)
    except ValueError as e:
        raise _as_rfc(e)


def _same_dtype(x, xname, y, yname, routine):
    dx, dy = _dtype_name(x), _dtype_name(y)
    if dx != dy:
        raise _typ(routine, "%s has dtype %s, %s has dtype %s" % (yname, dy, xname, dx))


def _writable(a, routine, name):
    if not a.flags.writeable:
        raise _val(routine, "%s is read-only" % name)


def _signal(sig, routine, name="signal"):
    s = _array(sig, routine, name)
    if _dtype_name(sig) != "int32":
        raise _typ(routine, "%s has dtype %s; signals are int32 symmetric tensors"
                   % (name, _dtype_name(sig)))
    _symmetric(s, routine, name)
    return s


def _signal_offset(s, off, routine):
    o = _int(off, routine, "signal_offset")
    if not 0 <= o < s.size:
        raise _val(routine, "signal_offset %d outside signal's %d elements" % (o, s.size))
    return o


def _signal_op(op, routine):
    o = _int(op, routine, "signal_op")
    if o not in (SIGNAL_SET, SIGNAL_ADD):
        raise _val(routine, "signal_op %d is not 0 (SET) or 1 (ADD)" % o)
    return o


# ---- agreement of a collective -----------------------------------------------------
_MAXV = 6
_cache = {}


def _cached(key, shape, dtype):
    """A cached symmetric scratch array (collective when made)."""
    a = _cache.get(key)
    if a is None or a.shape != shape:
        if a is not None:
            memory.free(a)
        a = memory.zeros(shape, dtype)
        _cache[key] = a
    return a


def _drop():
    _cache.clear()
    _pads.clear()


state.before_finalize.append(_drop)


def _agree(routine, problem, values=()):
    """Collective: every rank learns whether any rank's arguments were bad
    (problem: that rank's exception, else None) and whether values (name,
    int) are the same everywhere; raises on every rank if not."""
    n, me = state.n_pes, state.my_pe
    src = _cached("agree_src", (1 + 2 * _MAXV,), np.int64)
    dst = _cached("agree_dst", (1 + 2 * _MAXV,), np.int64)
    src[:] = 0
    src[0] = me if problem is not None else n
    for i, (_, v) in enumerate(values):
        src[1 + i], src[1 + _MAXV + i] = v, -v
    coll.allreduce(dst, src, "min")
    if problem is not None:
        raise problem
    if dst[0] < n:
        raise _val(routine, "rank %d rejected its arguments (its error says why); no rank moved "
                   "data" % dst[0])
    for i, (name, _) in enumerate(values):
        lo, hi = int(dst[1 + i]), -int(dst[1 + _MAXV + i])
        if lo != hi:
            raise _val(routine, "the ranks disagree on %s (%d on some, %d on others); every rank "
                       "calls %s with the same" % (name, lo, hi, routine))


# ---- basics ----------------------------------------------------------------------
def is_shmem_available() -> bool:
    """True: symm's symmetric memory is always available (host memory)."""
    return True


def empty(shape: Union[int, Sequence[int]], dtype: Any = None,
          device: Optional[Union[str, torch.device]] = None) -> torch.Tensor:
    """A torch tensor of shape and dtype on the symmetric heap (uninitialised).
    Collective: every rank allocates the same shapes in the same order. The
    first call starts symm (under oshrun, else from torch.distributed).
    device: None or 'cpu' (symmetric memory is host memory)."""
    routine = "empty"
    import torch
    if device is not None and str(device).split(":")[0] != "cpu":
        raise _val(routine, "device %r: symm's symmetric memory is host memory; use "
                   "device='cpu'" % (str(device),))
    if dtype is None:
        dtype = torch.get_default_dtype()
    if isinstance(shape, torch.Size):
        shape = tuple(shape)
    if isinstance(shape, (list, tuple)):
        shape = tuple(_int(d, routine, "shape") for d in shape)
    elif not isinstance(shape, (numbers.Integral, np.integer)) or isinstance(shape, bool):
        raise _typ(routine, "shape must be an int or a sequence of ints, not %s"
                   % type(shape).__name__)
    _started(routine)
    try:
        return memory.empty(shape, dtype, backend="torch")
    except (TypeError, ValueError) as e:
        raise _as_rfc(e)


def barrier() -> None:
    """Complete this rank's puts, then meet every rank (symm's barrier: a
    torch.distributed barrier would not complete one-sided puts)."""
    _started("barrier")
    coll.barrier_all()


# ---- one-sided communication -------------------------------------------------------
def _rma(routine, target, target_offset, src, src_offset, size, target_rank, remote):
    """(target view, src view, rank) of elements [offset, offset + size)."""
    pe = _rank(target_rank, routine)
    t = _array(target, routine, "target")
    s = _array(src, routine, "src")
    _same_dtype(target, "target", src, "src", routine)
    toff = _int(target_offset, routine, "target_offset")
    soff = _int(src_offset, routine, "src_offset")
    n = _int(size, routine, "size")
    tv = _span(_flat(t, routine, "target"), toff, n, routine, "target", "target_offset")
    sv = _span(_flat(s, routine, "src"), soff, n, routine, "src", "src_offset")
    if remote == "target":
        _symmetric(t, routine, "target")
    else:
        _symmetric(s, routine, "src")
        _writable(t, routine, "target")
    return tv, sv, pe


def shmem_put(target: ArrayLike, target_offset: int, src: ArrayLike, src_offset: int, size: int,
              target_rank: int) -> None:
    """Write size elements of the local src, from src_offset, into
    target_rank's symmetric target from target_offset. Returns when src may
    be reused; the data is visible to target_rank after a barrier or a
    signal (shmem_signal_op after it from this rank)."""
    routine = "shmem_put"
    _started(routine, target=target, src=src)
    tv, sv, pe = _rma(routine, target, target_offset, src, src_offset, size, target_rank,
                      "target")
    if tv.size:
        rma.put(tv, sv, pe)


def shmem_get(target: ArrayLike, target_offset: int, src: ArrayLike, src_offset: int, size: int,
              target_rank: int) -> None:
    """Read size elements of target_rank's symmetric src, from src_offset,
    into the local target from target_offset (the RFC's argument order).
    Returns when the data has arrived."""
    routine = "shmem_get"
    _started(routine, target=target, src=src)
    tv, sv, pe = _rma(routine, target, target_offset, src, src_offset, size, target_rank, "src")
    if tv.size:
        rma.get(tv, sv, pe)


def shmem_signal_op(signal: ArrayLike, signal_offset: int, signal_value: int,
                    signal_op: int = SIGNAL_SET, target_rank: int = 0) -> None:
    """Atomically set (signal_op 0) or add to (1) element signal_offset of
    target_rank's int32 signal."""
    routine = "shmem_signal_op"
    _started(routine, signal=signal)
    pe = _rank(target_rank, routine)
    s = _signal(signal, routine)
    off = _signal_offset(s, signal_offset, routine)
    v = _int32(signal_value, routine, "signal_value")
    op = _signal_op(signal_op, routine)
    rma.signal_op(s, off, v, op, pe)


def shmem_wait_for_signal(depend_tensor: Optional[ArrayLike], signal: ArrayLike,
                          signal_offset: int, compare_value: int,
                          compare_op: int = COMPARE_EQ) -> None:
    """Block until element signal_offset of this rank's int32 signal
    compares to compare_value: compare_op 0 EQ, 1 GT (signal >
    compare_value), 2 LT. A put-with-signal's data is visible once its
    signal is seen. depend_tensor: accepted for the RFC's stream ordering;
    on the CPU every call is already in program order."""
    routine = "shmem_wait_for_signal"
    _started(routine, signal=signal)
    if depend_tensor is not None and not (_is_tensor(depend_tensor) or
                                          isinstance(depend_tensor, np.ndarray)):
        raise _typ(routine, "depend_tensor must be a tensor (or None), not %s"
                   % type(depend_tensor).__name__)
    s = _signal(signal, routine)
    off = _signal_offset(s, signal_offset, routine)
    v = _int32(compare_value, routine, "compare_value")
    c = _int(compare_op, routine, "compare_op")
    if c not in _COMPARE:
        raise _val(routine, "compare_op %d is not 0 (EQ), 1 (GT) or 2 (LT)" % c)
    rma.wait_signal(s, off, _COMPARE[c][0], v)


def shmem_put_with_signal(target: ArrayLike, target_offset: int, src: ArrayLike,
                          src_offset: int, size: int, signal: ArrayLike, signal_offset: int,
                          signal_value: int, signal_op: int = SIGNAL_SET,
                          target_rank: int = 0) -> None:
    """shmem_put, then the signal update of shmem_signal_op on the same
    rank: a rank that sees the signal sees the data."""
    routine = "shmem_put_with_signal"
    _started(routine, target=target, src=src, signal=signal)
    tv, sv, pe = _rma(routine, target, target_offset, src, src_offset, size, target_rank,
                      "target")
    s = _signal(signal, routine)
    off = _signal_offset(s, signal_offset, routine)
    v = _int32(signal_value, routine, "signal_value")
    op = _signal_op(signal_op, routine)
    if tv.size:
        rma.put_signal(tv, sv, s, off, v, op, pe)
    else:
        rma.signal_op(s, off, v, op, pe)


# ---- collectives -----------------------------------------------------------------------
def _bytes(key, nbytes):
    """A cached symmetric byte buffer of at least nbytes (collective when it
    grows; every rank asks for the same sizes, agreed before)."""
    a = _cache.get(key)
    if a is None or a.size < nbytes:
        if a is not None:
            memory.free(a)
            del _cache[key]
        a = memory.empty((max(64, 1 << max(0, nbytes - 1).bit_length()),), np.uint8)
        _cache[key] = a
    return a[:nbytes]


def _as_bytes(a):
    return np.ascontiguousarray(a).reshape(-1).view(np.uint8)


def shmem_allgather(output_tensor: ArrayLike, input_tensor: ArrayLike) -> None:
    """output_tensor = every rank's input_tensor, concatenated in rank
    order (output_tensor: world_size times input_tensor's elements, same
    dtype). Collective; symm's fcollect underneath."""
    routine = "shmem_allgather"
    _started(routine, output_tensor=output_tensor, input_tensor=input_tensor)
    n = state.n_pes
    problem, values, out, inp = None, [], None, None
    try:
        out = _array(output_tensor, routine, "output_tensor")
        inp = _array(input_tensor, routine, "input_tensor")
        _same_dtype(output_tensor, "output_tensor", input_tensor, "input_tensor", routine)
        if out.size != n * inp.size:
            raise _val(routine, "output_tensor has %d elements, need world_size %d x "
                       "input_tensor's %d" % (out.size, n, inp.size))
        _writable(out, routine, "output_tensor")
        values = [("input_tensor's size", inp.size), ("the element size", inp.itemsize)]
    except (TypeError, ValueError) as e:
        problem = _as_rfc(e)
    _agree(routine, problem, values)
    nbytes = inp.nbytes
    if nbytes == 0:
        return
    src = _bytes("allgather_src", nbytes)
    np.copyto(src, _as_bytes(inp))
    direct = out.flags.c_contiguous and memory.is_symmetric(out)
    dst = out.reshape(-1).view(np.uint8) if direct else _bytes("allgather_dst", n * nbytes)
    coll.allgather(dst, src)
    if not direct:
        np.copyto(out, dst.view(out.dtype).reshape(out.shape))


def _counts(receive_list, n, routine):
    if _is_tensor(receive_list) or isinstance(receive_list, np.ndarray):
        if receive_list.ndim != 1:
            raise _val(routine, "receive_list must be 1-D, not of shape %s"
                       % (tuple(receive_list.shape),))
        items = [receive_list[i] for i in range(receive_list.shape[0])]
    elif isinstance(receive_list, (list, tuple)):
        items = list(receive_list)
    else:
        raise _typ(routine, "receive_list must be a list of ints or a 1-D integer tensor, not %s"
                   % type(receive_list).__name__)
    if len(items) != n:
        raise _val(routine, "receive_list has %d entries, world_size is %d" % (len(items), n))
    counts = [_int(c, routine, "receive_list[%d]" % i) for i, c in enumerate(items)]
    for i, c in enumerate(counts):
        if c < 0:
            raise _val(routine, "receive_list[%d] %d is negative" % (i, c))
    return counts


def shmem_alltoall(send_tensor_list: Sequence[ArrayLike], receive_tensor: ArrayLike,
                   receive_list: Union[Sequence[int], ArrayLike]) -> None:
    """Variable-size all-to-all: send_tensor_list[j] (any size, even empty)
    goes to rank j; receive_list[i] is how many elements this rank receives
    from rank i, placed in the symmetric receive_tensor in rank order (rank
    i's at sum(receive_list[:i])). Sizes count elements, as the RFC's
    implementation (its document's example counts bytes). Collective: the
    receivers' offsets are exchanged first; every rank then pushes its
    tensors with put-with-signal (ADD 1) and returns once its signal has
    reached world_size."""
    routine = "shmem_alltoall"
    _started(routine, receive_tensor=receive_tensor)
    n, me = state.n_pes, state.my_pe
    problem, values, recv, sends, counts = None, [], None, None, None
    try:
        recv = _flat(_array(receive_tensor, routine, "receive_tensor"), routine, "receive_tensor")
        _symmetric(recv, routine, "receive_tensor")
        counts = _counts(receive_list, n, routine)
        total = sum(counts)
        if total > recv.size:
            hint = (" (receive_list counts elements, not bytes: %d bytes is the tensor's size)"
                    % total) if total == recv.nbytes and recv.itemsize > 1 else ""
            raise _val(routine, "receive_list adds up to %d elements, receive_tensor has %d%s"
                       % (total, recv.size, hint))
        if not isinstance(send_tensor_list, (list, tuple)):
            raise _typ(routine, "send_tensor_list must be a list of tensors, not %s"
                       % type(send_tensor_list).__name__)
        if len(send_tensor_list) != n:
            raise _val(routine, "send_tensor_list has %d tensors, world_size is %d"
                       % (len(send_tensor_list), n))
        sends = []
        for j, t in enumerate(send_tensor_list):
            name = "send_tensor_list[%d]" % j
            a = _array(t, routine, name)
            _same_dtype(receive_tensor, "receive_tensor", t, name, routine)
            sends.append(a)
        values = [("receive_tensor's size", recv.size), ("the element size", recv.itemsize)]
    except (TypeError, ValueError) as e:
        problem = _as_rfc(e)
    sig = _cached("alltoall_sig", (1,), np.int32)
    sig[0] = 0  # no rank adds to it before every rank has passed _agree below
    # Where my tensor for each rank goes, and how much that rank expects.
    mine = _cached("alltoall_src", (n, 2), np.int64)
    theirs = _cached("alltoall_dst", (n, 2), np.int64)
    mine[:] = -1  # a rank with bad arguments: its peers leave the complaint to it
    if problem is None:
        mine[:, 0] = np.cumsum([0] + counts[:-1])
        mine[:, 1] = counts
    coll.alltoall(theirs, mine)
    if problem is None:
        for j in range(n):
            if theirs[j, 1] >= 0 and sends[j].size != theirs[j, 1]:
                problem = _val(routine, "send_tensor_list[%d] has %d elements, rank %d expects %d "
                               "(its receive_list[%d])" % (j, sends[j].size, j, theirs[j, 1], me))
                break
    _agree(routine, problem, values)
    for d in range(1, n + 1):  # rotated (me+1 first, myself last): no hot spot
        j = (me + d) % n
        off, cnt = int(theirs[j, 0]), int(theirs[j, 1])
        if cnt == 0:
            rma.signal_op(sig, 0, 1, SIGNAL_ADD, j)
        else:
            rma.put_signal(recv[off:off + cnt], np.ascontiguousarray(sends[j]).reshape(-1), sig,
                           0, 1, SIGNAL_ADD, j)
    rma.wait_signal(sig, 0, rma.CMP_EQ, n)


# ---- fused operations ---------------------------------------------------------------------
def _matrix(x, routine, name):
    a = _array(x, routine, name)
    if a.ndim != 2:
        raise _val(routine, "%s must be 2-D, not of shape %s" % (name, tuple(a.shape)))
    return a


def _float_dtype(x, routine, name):
    d = _dtype_name(x)
    if d not in _FLOATS:
        raise _typ(routine, "%s has dtype %s; this routine takes %s"
                   % (name, d, ", ".join(_FLOATS)))
    return d


def _compute(x, d):
    """x in the dtype the matmul runs in: float32 for 16-bit floats."""
    if d in ("float16", "bfloat16"):
        return x.float() if _is_tensor(x) else np.asarray(x, np.float32)
    return x


def _copy_into(dst, src):
    """dst[...] = src, cast to dst's dtype (tensor or array, either)."""
    if _is_tensor(dst):
        import torch
        dst.copy_(src if _is_tensor(src) else torch.from_numpy(np.asarray(src)))
    else:
        s = src.detach().numpy() if _is_tensor(src) else src
        np.copyto(dst, s, casting="unsafe")


_RS_OPS = ("sum", "avg", "max", "min")


def _view_like(t, a):
    """a (a numpy view of t's memory) as what t is: a tensor viewing it
    where t is a tensor (16-bit floats by their bits), else a itself."""
    if not _is_tensor(t):
        return a
    import torch
    if t.dtype in (torch.float16, torch.bfloat16):
        return torch.from_numpy(a.view(np.int16)).view(t.dtype)
    return torch.from_numpy(a)


def _signal_arg(signal, routine, n):
    s = _signal(signal, routine)
    if s.size < n:
        raise _val(routine, "signal has %d elements, need world_size %d" % (s.size, n))
    return s


def fused_all_gather_matmul(a: ArrayLike, b: ArrayLike, c: ArrayLike, gather_out: ArrayLike,
                            signal: ArrayLike,
                            block_size: Optional[int] = None) -> Tuple[ArrayLike, ArrayLike]:
    """gather_out = allgather(a) (rows of rank r at [r*m, (r+1)*m)) and
    c = gather_out @ b, each block of block_size rows multiplied as soon as
    it arrives. a: (m, k) on every rank; b: (k, n); c: (world_size*m, n);
    gather_out: (world_size*m, k); signal: int32 symmetric, world_size x
    blocks counters (the RFC's layout; world_size at least, the same size on
    every rank): rank r's block i arriving adds 1 at r * blocks + i, and
    this rank counts its own blocks, so after a call every counter has grown
    by one; reset it (signal.zero_()) or not between calls, either works.
    With fewer counters than world_size x blocks, fewer blocks are used.
    block_size: rows per block,
    default max(1, m // min(world_size, 4)) as in the RFC. float16 and
    bfloat16 are computed in float32 and stored in their own dtype.
    Returns (gather_out, c). Collective; symm.fused_all_gather_matmul
    underneath."""
    routine = "fused_all_gather_matmul"
    _started(routine, a=a, b=b, c=c, gather_out=gather_out)
    n = state.n_pes
    problem, values = None, []
    try:
        A, B = _matrix(a, routine, "a"), _matrix(b, routine, "b")
        C, G = _matrix(c, routine, "c"), _matrix(gather_out, routine, "gather_out")
        d = _float_dtype(a, routine, "a")
        for x, name in ((b, "b"), (c, "c"), (gather_out, "gather_out")):
            _same_dtype(a, "a", x, name, routine)
        m, k = A.shape
        if B.shape[0] != k:
            raise _val(routine, "a %s and b %s cannot be multiplied" % (A.shape, B.shape))
        N = B.shape[1]
        if G.shape != (n * m, k):
            raise _val(routine, "gather_out has shape %s, need (world_size*m, k) = %s"
                       % (G.shape, (n * m, k)))
        if C.shape != (n * m, N):
            raise _val(routine, "c has shape %s, need (world_size*m, n) = %s"
                       % (C.shape, (n * m, N)))
        _writable(C, routine, "c")
        _writable(G, routine, "gather_out")
        sig_arr = _signal_arg(signal, routine, n)
        if block_size is None:
            br = max(1, m // min(n, 4))
        else:
            br = _int(block_size, routine, "block_size")
            if br < 1:
                raise _val(routine, "block_size %d must be at least 1" % br)
        br = max(1, min(br, m))
        values = [("a's rows", m), ("a's columns", k), ("b's columns", N), ("block_size", br),
                  ("the dtype", _FLOATS.index(d)), ("signal's elements", sig_arr.size)]
    except (TypeError, ValueError) as e:
        problem = _as_rfc(e)
    _agree(routine, problem, values)
    if d in ("float32", "float64"):
        direct = G.flags.c_contiguous and memory.is_symmetric(G)
        g_all, _ = fused.fused_all_gather_matmul(a, b, gather_out=G if direct else None,
                                                 block_rows=br, out=C, signal=sig_arr)
        if not direct:
            _copy_into(gather_out, g_all)
    else:
        g_all, prod = fused.fused_all_gather_matmul(_compute(a, d), _compute(b, d), block_rows=br,
                                                    signal=sig_arr)
        _copy_into(gather_out, g_all)
        _copy_into(c, prod)
    return gather_out, c


def fused_matmul_reduce_scatter(x1: ArrayLike, x2: ArrayLike, symm_tensor: ArrayLike,
                                signal: ArrayLike, reduce_op: str = "sum") -> ArrayLike:
    """Rows [r*m/world_size, (r+1)*m/world_size) of the sum ('sum'), mean
    ('avg'), maximum ('max') or minimum ('min') over the ranks of x1 @ x2,
    on rank r. x1: (m, k), m a multiple of world_size; x2: (k, n);
    symm_tensor: symmetric (m, n) of x1's dtype, the receive buffer: rank
    p's block for this rank lands in its rows [p*m/world_size, ...), and the
    result is this rank's own rows of it. signal: int32 symmetric block
    counters, as for fused_all_gather_matmul. float16 and bfloat16 are
    computed in float32 (symm's buffers) and stored in symm_tensor in their
    own dtype. Returns the (m/world_size, n) view of symm_tensor holding the
    result. Collective; symm.fused_matmul_reduce_scatter underneath."""
    routine = "fused_matmul_reduce_scatter"
    _started(routine, x1=x1, x2=x2, symm_tensor=symm_tensor)
    n = state.n_pes
    problem, values = None, []
    try:
        X1, X2 = _matrix(x1, routine, "x1"), _matrix(x2, routine, "x2")
        d = _float_dtype(x1, routine, "x1")
        _same_dtype(x1, "x1", x2, "x2", routine)
        m, k = X1.shape
        if X2.shape[0] != k:
            raise _val(routine, "x1 %s and x2 %s cannot be multiplied" % (X1.shape, X2.shape))
        N = X2.shape[1]
        if m % n != 0:
            raise _val(routine, "x1 has %d rows, not a multiple of world_size %d" % (m, n))
        S = _array(symm_tensor, routine, "symm_tensor")
        _same_dtype(x1, "x1", symm_tensor, "symm_tensor", routine)
        if S.size != m * N:
            raise _val(routine, "symm_tensor has shape %s, need (m, n) = %s"
                       % (tuple(S.shape), (m, N)))
        _symmetric(S, routine, "symm_tensor")
        if not S.flags.c_contiguous:
            raise _val(routine, "symm_tensor is not contiguous")
        sig_arr = _signal_arg(signal, routine, n)
        if reduce_op not in _RS_OPS:
            raise _val(routine, "reduce_op %r is not one of %s" % (reduce_op, ", ".join(_RS_OPS)))
        values = [("x1's rows", m), ("x1's columns", k), ("x2's columns", N),
                  ("the dtype", _FLOATS.index(d)), ("reduce_op", _RS_OPS.index(reduce_op)),
                  ("signal's elements", sig_arr.size)]
    except (TypeError, ValueError) as e:
        problem = _as_rfc(e)
    _agree(routine, problem, values)
    op = "sum" if reduce_op == "avg" else reduce_op
    ml = m // n
    mine = S.reshape(n, ml, N)[state.my_pe]
    if d in ("float32", "float64"):
        fused.fused_matmul_reduce_scatter(x1, x2, op, recv=S, signal=sig_arr)
        if reduce_op == "avg":
            mine /= n
    else:  # computed in float32 in symm's buffers, stored in symm_tensor's dtype
        out = fused.fused_matmul_reduce_scatter(_compute(x1, d), _compute(x2, d), op,
                                                signal=sig_arr)
        if reduce_op == "avg":
            out /= n
        _copy_into(_view_like(symm_tensor, mine), out)
    return _view_like(symm_tensor, mine)


# ---- rendezvous ------------------------------------------------------------------------------
_pad_size = [_DEFAULT_SIGNAL_PAD]
_pads = {}  # (tensor's address, its allocation record's id) -> handle


def set_signal_pad_size(size: int) -> None:
    """Bytes of the int32 signal pad each later rendezvous() allocates
    (default 2048). The same on every rank."""
    s = _int(size, "set_signal_pad_size", "size")
    if s < 4 or s % 4:
        raise _val("set_signal_pad_size", "size %d is not a positive multiple of 4 bytes" % s)
    _pad_size[0] = s


def get_signal_pad_size() -> int:
    """Bytes of the signal pad rendezvous() allocates."""
    return _pad_size[0]


class SymmetricMemoryHandle:
    """What rendezvous() returns: how to reach every rank's copy of a
    symmetric tensor, and a signal pad coupled with it (int32, zeroed).

    rank, world_size; buffer_ptrs[r] / signal_pad_ptrs[r]: rank r's
    address of the tensor's first byte / of its signal pad, as mapped in
    this process (None where r's memory is not mapped here: another node;
    use shmem_put/shmem_get for those); buffer_size: bytes from the tensor's
    start to the end of its allocation; signal_pad_size: bytes.
    get_buffer(r, sizes, dtype, storage_offset=0) / get_signal_pad(r,
    sizes=None, dtype=torch.int32, storage_offset=0): a tensor viewing rank
    r's memory (loads and stores go straight to it; order them with
    barrier() or signals). barrier(): symm's barrier."""

    def __init__(self, tensor, base, pad):
        self.tensor = tensor
        self.rank = state.my_pe
        self.world_size = state.n_pes
        self._base = base    # uint8 view: the tensor's first byte to its allocation's end
        self._pad = pad      # the int32 signal pad (symmetric)
        self.buffer_size = base.size
        self.signal_pad_size = pad.nbytes
        self._views = {}
        self.buffer_ptrs = [self._ptr(base, r) for r in range(self.world_size)]
        self.signal_pad_ptrs = [self._ptr(pad, r) for r in range(self.world_size)]

    @staticmethod
    def _ptr(a, r):
        p = fn("shmem_ptr", c_void_p, [c_void_p, c_int])(_arrays.data_ptr(a), r)
        return p or None

    def _peer(self, a, key, r, routine):
        r = _rank(r, routine, "rank")
        v = self._views.get((key, r))
        if v is None:
            v = memory.peer_array(a.view(np.uint8).reshape(-1), r)
            if v is None:
                raise _val(routine, "rank %d's memory is not mapped in this process (another "
                           "node): reach it with shmem_put/shmem_get" % r)
            self._views[(key, r)] = v
        return v

    def _view(self, raw, sizes, dtype, storage_offset, routine):
        import torch
        if isinstance(sizes, (numbers.Integral, np.integer)):
            sizes = (int(sizes),)
        sizes = tuple(_int(s, routine, "sizes") for s in sizes)
        off = _int(storage_offset, routine, "storage_offset")
        item = torch.empty((), dtype=dtype).element_size()
        need = (off + math.prod(sizes)) * item
        if off < 0 or need > raw.size:
            raise _val(routine, "storage_offset %d + %d elements of %s (%d bytes) run past the "
                       "%d bytes there" % (off, math.prod(sizes), dtype, need, raw.size))
        b = torch.from_numpy(raw[off * item:need])
        return b.view(dtype).reshape(sizes)

    def get_buffer(self, rank: int, sizes: Union[int, Sequence[int]], dtype: torch.dtype,
                   storage_offset: int = 0) -> torch.Tensor:
        """A tensor on rank's copy, starting storage_offset elements (of
        dtype) after the rendezvoused tensor's first byte."""
        return self._view(self._peer(self._base, "buf", rank, "get_buffer"), sizes, dtype,
                          storage_offset, "get_buffer")

    def get_signal_pad(self, rank: int, sizes: Optional[Union[int, Sequence[int]]] = None,
                       dtype: Optional[torch.dtype] = None,
                       storage_offset: int = 0) -> torch.Tensor:
        """A tensor on rank's signal pad (default: all of it, int32)."""
        import torch
        dtype = torch.int32 if dtype is None else dtype
        raw = self._peer(self._pad, "pad", rank, "get_signal_pad")
        if sizes is None:
            item = torch.empty((), dtype=dtype).element_size()
            sizes = (raw.size // item - _int(storage_offset, "get_signal_pad", "storage_offset"),)
        return self._view(raw, sizes, dtype, storage_offset, "get_signal_pad")

    def barrier(self, channel: int = 0, timeout_ms: Optional[int] = None) -> None:
        """symm's barrier over every rank (channel, timeout_ms: accepted)."""
        coll.barrier_all()

    def __repr__(self):
        return "<symm.rfc.SymmetricMemoryHandle rank %d of %d, %d bytes, signal pad %d bytes>" % (
            self.rank, self.world_size, self.buffer_size, self.signal_pad_size)


def _whole_world(group, routine):
    """Check group names the whole world (None, a name or a process group)."""
    n = state.n_pes
    if group is None or isinstance(group, str):
        return
    dist = _start._dist()
    if dist is not None and dist.is_initialized():
        try:
            size = dist.get_world_size(group)
        except (RuntimeError, ValueError, TypeError) as e:
            raise _typ(routine, "group %r is not a process group: %s" % (group, e))
        if size != n:
            raise _val(routine, "group has %d ranks; symm's symmetric memory spans the whole "
                       "world (%d ranks)" % (size, n))
        return
    raise _typ(routine, "group must be None, a group name or a torch.distributed process group, "
               "not %s" % type(group).__name__)


def rendezvous(tensor: ArrayLike, group: Any = None) -> SymmetricMemoryHandle:
    """Make tensor (from empty(), the same on every rank) addressable on
    every rank: returns a SymmetricMemoryHandle with every rank's address
    of it, views of peers' copies (get_buffer) and a zeroed int32 signal
    pad coupled with it (get_signal_pad_size() bytes). Collective over the
    whole world (group: None, its name, or a process group covering every
    rank). A second rendezvous of the same allocation returns the same
    handle."""
    routine = "rendezvous"
    _started(routine, tensor=tensor)
    problem, values, key, base = None, [], None, None
    try:
        a = _array(tensor, routine, "tensor")
        rec = _arrays.symmetric(a, "rfc." + routine, "tensor") if a.size else None
        if rec is None:
            raise _val(routine, "tensor is empty or not from symm_mem.empty()")
        _whole_world(group, routine)
        start = _arrays.data_ptr(a)
        key = (start, id(rec))  # rec lives as long as the handle (base views its buffer)
        lo = start - rec.ptr
        base = np.frombuffer(rec.buffer, dtype=np.uint8)[lo:]
        values = [("the tensor's offset in its allocation", lo),
                  ("the allocation's size", rec.nbytes), ("the signal pad size", _pad_size[0])]
    except (TypeError, ValueError) as e:
        problem = _as_rfc(e)
    _agree(routine, problem, values)
    h = _pads.get(key)
    if h is None:
        pad = memory.zeros((_pad_size[0] // 4,), np.int32)
        h = SymmetricMemoryHandle(tensor, base, pad)
        _pads[key] = h
    coll.barrier_all()
    return h
