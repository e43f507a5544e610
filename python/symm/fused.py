"""Fused communication + computation: all-gather + matmul and matmul +
reduce-scatter, with the communication hidden behind the matmuls where the
machine lets it, and never slower than the plain pair by more than noise.

Each call runs one of three forms (symm._plan, the cost model, picks it
per call from what earlier calls of the shape measured; mode= and overlap=
can force it):
  unfused  the plain pair (symm.allgather then numpy's matmul, or matmul
           then symm.reduce_scatter);
  stream   the puts go on a CPU stream (symm.Stream), whose own thread
           copies the blocks into the peers' symmetric buffers and then
           sets each block's int32 signal to this call's epoch, while the
           calling thread runs numpy matmuls (which release the GIL);
  inline   the calling thread issues non-blocking puts with signals, then
           multiplies: over the network the transport moves the blocks
           meanwhile; to mapped peers each put is a memcpy first.
A PE waits for each incoming block's signal (shmem_int32_wait_until_any,
in arrival order) and computes with it at once. Epoch numbers grow with
every call, so signals never need resetting. symm.fused_plan() returns what
the last call ran and why; SYMM_FUSED_LOG=1 prints it on PE 0 per call.

Both routines are collective over TEAM_WORLD: every PE calls them in the same
order with the same shapes. They start with one small max-reduction (the
cost model's measurements; it also keeps any PE from writing into a buffer
a peer still reads from the previous call). Their scratch buffers
(symmetric) are cached per shape, a few at a time, and released at finalize;
making or evicting one is a collective allocation, which is safe because
every PE makes the same calls.
"""

from __future__ import annotations

import collections
import math
import os
import sys
import time
from typing import TYPE_CHECKING, Optional, Tuple, Union

import numpy as np

from . import _arrays, _plan, memory, runtime
from ._arrays import as_array, is_tensor
from ._lib import SymmError, c_int, c_int32, c_size_t, c_void_p, fn, state
from .coll import _UFUNC, _op_arg, reduce_scatter
from .stream import Stream
from .team import TEAM_SHARED, TEAM_WORLD

if TYPE_CHECKING:
    import torch

# A numpy array or a (CPU) torch tensor: what symm's routines take and return.
ArrayLike = Union[np.ndarray, "torch.Tensor"]

_FLOATS = [np.dtype(np.float32), np.dtype(np.float64)]
_CMP_EQ = 0
_CMP_GE = 5
_SIGNAL_SET = 0
_SIGNAL_ADD = 1
_MAX_CACHED = 8
MODES = ("auto", "fused", "unfused")

_cache = collections.OrderedDict()  # key -> symmetric array
_epochs = {}                         # signal key -> last epoch used
_local = {}                          # key -> private (non-symmetric) scratch
_stream = [None]
_last = [None]
_env = {}


def fused_plan() -> Optional[_plan.Plan]:
    """What the last fused call on this PE ran: a Plan (form, blocks,
    block_rows, reason, predicted), or None before the first."""
    return _last[0]


def _scratch(key, shape, dtype, zero=False):
    """A cached symmetric buffer (collective when made or evicted)."""
    a = _cache.get(key)
    if a is not None:
        _cache.move_to_end(key)
        return a
    while len(_cache) >= _MAX_CACHED:
        old_key, old = _cache.popitem(last=False)
        _epochs.pop(old_key, None)
        memory.free(old)
    a = memory.zeros(shape, dtype) if zero else memory.empty(shape, dtype)
    _cache[key] = a
    return a


def _signals(key, count):
    """(int32 symmetric signal array, this call's epoch)."""
    sig = _scratch(key, (count,), np.int32, zero=True)
    e = _epochs.get(key, 0) % 0x7FFFFFFE + 1
    _epochs[key] = e
    return sig, e


def _arrivals(sptr, n, nb, me, epoch):
    """(pe, block) of every other PE's block, in the order their signals
    (n*nb int32 words at sptr, one per (pe, block)) reach this call's epoch."""
    status = np.zeros(n * nb, dtype=np.intc)
    status[me * nb:(me + 1) * nb] = 1  # my own blocks need no wait
    wait_any = _wait_any()
    stp = _arrays.data_ptr(status)
    for _ in range((n - 1) * nb):
        i = wait_any(sptr, n * nb, stp, _CMP_EQ, epoch)
        status[i] = 1
        yield divmod(i, nb)


def _caller_signal(signal, n, routine):
    """The caller's block-arrival counters: an int32 symmetric array of at
    least n elements, flattened (a view: the caller reads and resets it)."""
    S = as_array(signal, routine, "signal", raw_ok=False)
    if S.dtype != np.int32:
        raise TypeError("symm.%s: signal has dtype %s, not int32" % (routine, S.dtype))
    _arrays.contiguous(S, routine, "signal")
    _arrays.symmetric(S, routine, "signal")
    if S.size < n:
        raise ValueError("symm.%s: signal has %d elements, need at least n_pes = %d"
                         % (routine, S.size, n))
    return S.reshape(-1)


def _arrivals_counted(S, base, n, nb, me):
    """(pe, block) of every other PE's block, in the order the caller's
    counters (S[pe * nb + block]) pass what they held when the call began."""
    status = np.zeros(n * nb, dtype=np.intc)
    status[me * nb:(me + 1) * nb] = 1
    want = (base[:n * nb].astype(np.int64) + 1).astype(np.int32)
    wait = fn("shmem_int32_wait_until_any_vector", c_size_t,
              [c_void_p, c_size_t, c_void_p, c_int, c_void_p])
    sp, stp, wp = _arrays.data_ptr(S), _arrays.data_ptr(status), _arrays.data_ptr(want)
    for _ in range((n - 1) * nb):
        i = wait(sp, n * nb, stp, _CMP_GE, wp)
        status[i] = 1
        yield divmod(i, nb)


def _count_own(S, n, nb, me, unfused, rows, br_user):
    """After a call, the counters show one arrival per block: the blocks
    this PE holds itself are counted here; unfused, all of them, in the
    caller's blocks (block_rows), one per PE without."""
    if unfused:
        nb = 1 if br_user is None else min(math.ceil(rows / br_user), S.size // n)
        S[:n * nb] += 1
    else:
        S[me * nb:(me + 1) * nb] += 1


def _capped(plan, rows, S, n):
    """The plan's block rows, fewer blocks where the caller's signal has no
    counter for more (S.size // n per PE)."""
    br = plan.block_rows
    if S is not None and math.ceil(rows / br) > S.size // n:
        br = math.ceil(rows / (S.size // n))
    return br


def _get_stream():
    s = _stream[0]
    if s is None or not s._alive:
        s = Stream()
        _stream[0] = s
    return s


def _drop():
    _cache.clear()
    _epochs.clear()
    _local.clear()
    _env.clear()
    _plan.forget()
    _stream[0] = None
    _last[0] = None


state.before_finalize.append(_drop)


def _private(key, shape, dtype):
    a = _local.get(key)
    if a is None or a.shape != shape or a.dtype != dtype:
        a = np.empty(shape, dtype)
        _local[key] = a
    return a


def _block_rows(block_rows, m, routine):
    if block_rows is None:
        return None
    b = _arrays.int_arg(block_rows, routine, "block_rows")
    if b < 1:
        raise ValueError("symm.%s: block_rows %d must be at least 1" % (routine, b))
    return min(b, max(1, m))


def _matrices(routine, a, b, aname, bname):
    A = as_array(a, routine, aname, raw_ok=False)
    B = as_array(b, routine, bname, raw_ok=False)
    if A.ndim != 2 or B.ndim != 2:
        raise ValueError("symm.%s: %s and %s must be 2-D (shapes %s and %s)"
                         % (routine, aname, bname, A.shape, B.shape))
    _arrays.dtype_in(A, _FLOATS, routine, aname, "this routine")
    if A.dtype != B.dtype:
        raise TypeError("symm.%s: %s has dtype %s, %s has dtype %s"
                        % (routine, aname, A.dtype, bname, B.dtype))
    if A.shape[1] != B.shape[0]:
        raise ValueError("symm.%s: %s %s and %s %s cannot be multiplied"
                         % (routine, aname, A.shape, bname, B.shape))
    return A, B


def _out_arg(out, shape, dtype, routine, name):
    if out is None:
        return None
    o = as_array(out, routine, name, raw_ok=False)
    if o.shape != shape or o.dtype != dtype:
        raise ValueError("symm.%s: %s must have shape %s and dtype %s, not %s %s"
                         % (routine, name, shape, dtype, o.shape, o.dtype))
    _arrays.writable(o, routine, name)
    return o


def _mode_args(mode, overlap, routine):
    if mode not in MODES:
        raise ValueError("symm.%s: mode must be 'auto', 'fused' or 'unfused', not %r"
                         % (routine, mode))
    if not (overlap is True or overlap is False or overlap == "auto"):
        raise ValueError("symm.%s: overlap must be True, False or 'auto', not %r"
                         % (routine, overlap))
    return MODES.index(mode) * 3 + (0 if overlap == "auto" else 1 if overlap else 2)


def _wait_any():
    return fn("shmem_int32_wait_until_any", c_size_t,
              [c_void_p, c_size_t, c_void_p, c_int, c_int32])


def _own(name, shape, dtype):
    """A symmetric buffer of this module's own, outside the scratch cache
    (whose evictions free buffers): made once, collectively, on the first
    fused call, and released with the heap at finalize."""
    a = _env.get(("own", name))
    if a is None:
        a = _env[("own", name)] = memory.zeros(shape, dtype)
    return a


def _layout():
    """(some peer is over the network, a spare core per PE on this node)."""
    lay = _env.get("layout")
    if lay is None:
        probe = _own("probe", (1,), np.int8)
        ptr = fn("shmem_ptr", c_void_p, [c_void_p, c_int])
        net = any(not ptr(_arrays.data_ptr(probe), pe) for pe in range(state.n_pes))
        lay = _env["layout"] = (net, _plan.spare_core(TEAM_SHARED.n_pes()))
    return lay


def _reducer():
    """v -> elementwise max of v over TEAM_WORLD (len(v) <= 32)."""
    r = _env.get("reduce")
    if r is None:
        buf = _own("plan", (2, 32), np.float64)
        red = fn("shmem_double_max_reduce", c_int, [c_void_p, c_void_p, c_void_p, c_size_t])
        dptr, sptr = _arrays.data_ptr(buf[1]), _arrays.data_ptr(buf[0])

        src, dst = buf[0], buf[1]

        def r(v):
            k = len(v)
            src[:k] = v
            if red(TEAM_WORLD.handle, dptr, sptr, k) != 0:
                raise SymmError("symm: fused call: the plan's reduction failed")
            return dst[:k].tolist()
        _env["reduce"] = r
    return r


def _plan_call(routine, key, mode, overlap, rows, block_rows, flops, dims):
    """The agreed plan of this call (collective: one max-reduction)."""
    sh = _plan.shape(key)
    net, spare = _layout()
    code = _mode_args(mode, overlap, routine)
    same, (net_any, busy_any) = _plan.agree(sh, _reducer(), [float(net), float(not spare)],
                                            [code, block_rows or 0] + list(dims))
    if not same:
        raise SymmError("symm.%s: PE %d: the PEs called it with different shapes, dtypes, "
                        "block_rows or modes (every PE must pass the same)"
                        % (routine, state.my_pe))
    plan = _plan.choose(sh, mode, overlap, rows, block_rows, flops, state.n_pes,
                        net_any > 0, busy_any == 0)
    _last[0] = plan
    log = _env.get("log")
    if log is None:
        log = _env["log"] = os.environ.get("SYMM_FUSED_LOG", "0") not in ("", "0")
    if log and state.my_pe == 0:
        sys.stderr.write("symm: %s: %s, %d block(s) of %d rows: %s\n"
                         % (routine, plan.form, plan.blocks, plan.block_rows, plan.reason))
    return sh, plan


class _Sender:
    """A fused call's puts in its form: send(dst, src, n, sig, epoch, pe)
    puts n bytes then sets the int32 signal at sig to epoch (on the stream,
    sig None sends no signal), on the stream or as non-blocking puts from
    this thread;
    finish() waits until the sources are the caller's again."""

    def __init__(self, form, routine, keep):
        self.stream = form == "stream"
        if self.stream:
            self.st = _get_stream()
            self.h = self.st._handle(routine)
            self.st._keep.append(keep)
            self.put = fn("aclshmemx_putmem_on_stream", None,
                          [c_void_p, c_void_p, c_size_t, c_int32, c_void_p])
            self.sigop = fn("aclshmemx_signal_op_on_stream", None,
                            [c_void_p, c_int32, c_int, c_int, c_void_p])
        else:
            self.putsig = fn("aclshmemx_putmem_signal_nbi", None,
                             [c_void_p, c_void_p, c_size_t, c_void_p, c_int32, c_int, c_int])

    def send(self, dst, src, n, sig, epoch, pe, op=_SIGNAL_SET):
        if self.stream:
            self.put(dst, src, n, pe, self.h)
            if sig is not None:
                self.sigop(sig, epoch, op, pe, self.h)
        else:
            self.putsig(dst, src, n, sig, epoch, op, pe)

    def finish(self):
        if self.stream:
            self.st.synchronize()
        else:
            fn("shmem_quiet", None, [])()


def _symmetric_source(A, key, routine):
    """A itself if it is contiguous symmetric memory, else a cached
    symmetric copy (the collective's source must be symmetric). The cached
    buffer is made either way: its allocation is collective, and another PE
    may need the copy."""
    S = _scratch(key, A.shape, A.dtype)
    if A.flags.c_contiguous and memory.is_symmetric(A):
        return A
    np.copyto(S, A)
    return S


def fused_all_gather_matmul(a: ArrayLike, b: ArrayLike, gather_out: Optional[ArrayLike] = None,
                            block_rows: Optional[int] = None, out: Optional[ArrayLike] = None,
                            overlap: Union[bool, str] = "auto", mode: str = "auto",
                            signal: Optional[ArrayLike] = None) -> Tuple[ArrayLike, ArrayLike]:
    """All-gather every PE's a (m_local x k, the same shape everywhere) and
    multiply by b (k x n): returns (A_all, A_all @ b), A_all being
    (n_pes*m_local) x k with PE p's rows at [p*m_local, (p+1)*m_local).

    mode="auto" (default): the cost model (symm._plan) picks per call the
    plain all-gather then matmul, or a fused form, and its block count;
    "fused" always fuses; "unfused" never does. Fused, each PE's rows travel
    in blocks of block_rows rows (default: the model's) by put-with-signal
    while this PE multiplies its own rows; each arriving block is multiplied
    as soon as its signal is seen. overlap=True puts on a stream's thread;
    False from the calling thread (non-blocking puts); "auto": the model's
    choice. gather_out: a symmetric array to gather into (returned as A_all,
    no copy); otherwise A_all is a new private array. out: where to write
    the product. float32/float64 numpy arrays or CPU tensors; tensors in,
    tensors out. signal: an int32 symmetric array of at least n_pes
    elements, the same size on every PE, to count block arrivals in (PE p's
    block i at p * blocks + i, one ADD per block and call, this PE's own
    blocks counted by itself; no more blocks than it has counters per PE):
    the caller may read it and reset it between calls. Without one, symm's
    own signals are used. symm.fused_plan() tells what ran and why.
    Collective over TEAM_WORLD."""
    routine = "fused_all_gather_matmul"
    runtime.ensure(routine, a=a, b=b, gather_out=gather_out, out=out)
    CS = None if signal is None else _caller_signal(signal, state.n_pes, routine)
    base = None if CS is None else CS.copy()  # before the call's opening reduction
    torch_in = is_tensor(a) or is_tensor(b)
    A, B = _matrices(routine, a, b, "a", "b")
    m, k = A.shape
    N = B.shape[1]
    n, me = state.n_pes, state.my_pe
    dt = A.dtype
    br_user = _block_rows(block_rows, m, routine)
    _mode_args(mode, overlap, routine)
    if gather_out is not None:
        G = as_array(gather_out, routine, "gather_out", raw_ok=False)
        if G.shape != (n * m, k) or G.dtype != dt:
            raise ValueError("symm.%s: gather_out must have shape %s and dtype %s, not %s %s"
                             % (routine, (n * m, k), dt, G.shape, G.dtype))
        _arrays.contiguous(G, routine, "gather_out")
        _arrays.symmetric(G, routine, "gather_out")
    C = _out_arg(out, (n * m, N), dt, routine, "out")
    if C is None:
        C = np.empty((n * m, N), dt)
    if gather_out is None:
        G = _scratch(("ag", n * m, k, dt.str), (n * m, k), dt)
    B = np.ascontiguousarray(B)
    flops = 2.0 * n * m * k * N
    sh, plan = _plan_call(routine, ("ag", m, k, N, dt.str), mode, overlap, m, br_user, flops,
                          (m, k, N))
    t0 = time.perf_counter()
    t_mm = t_comm = 0.0
    mm_flops = 0.0
    if plan.form == "unfused":
        if m > 0:
            S = _symmetric_source(A, ("ag_src", m, k, dt.str), routine)
            fcollect = fn("shmem_fcollectmem", c_int, [c_void_p, c_void_p, c_void_p, c_size_t])
            if fcollect(TEAM_WORLD.handle, _arrays.data_ptr(G), _arrays.data_ptr(S),
                        S.nbytes) != 0:
                raise SymmError("symm.%s: the all-gather failed" % routine)
            t1 = time.perf_counter()
            np.matmul(G, B, out=C)
            t_mm, mm_flops, t_comm = time.perf_counter() - t1, flops, t1 - t0
    elif m > 0:
        br = _capped(plan, m, CS, n)
        nb = max(1, math.ceil(m / br))
        if CS is None:
            sig, epoch, sop = _signals(("ag_sig", n * nb), n * nb) + (_SIGNAL_SET,)
        else:
            sig, epoch, sop = CS, 1, _SIGNAL_ADD
        Asrc = np.ascontiguousarray(A)
        gptr, sptr, row = _arrays.data_ptr(G), _arrays.data_ptr(sig), k * dt.itemsize
        aptr = _arrays.data_ptr(Asrc)
        blocks = [(bi * br, min(m, (bi + 1) * br)) for bi in range(nb)]
        tx = _Sender(plan.form, routine, Asrc)
        if tx.stream:  # my own rows, on the stream too; inline: copied after the puts
            tx.send(gptr + me * m * row, aptr, m * row, None, 0, me)
        for bi, (r0, r1) in enumerate(blocks):  # block-major: every peer gets block 0 first
            for d in range(1, n):
                tx.send(gptr + (me * m + r0) * row, aptr + r0 * row, (r1 - r0) * row,
                        sptr + 4 * (me * nb + bi), epoch, (me + d) % n, sop)
        if not tx.stream:
            np.copyto(G[me * m:(me + 1) * m], Asrc)
        # My own rows first: no waiting.
        t1 = time.perf_counter()
        np.matmul(Asrc, B, out=C[me * m:(me + 1) * m])
        t_mm, mm_flops = time.perf_counter() - t1, flops / n
        # Then every other block, in the order they arrive.
        arrived = (_arrivals(sptr, n, nb, me, epoch) if CS is None
                   else _arrivals_counted(CS, base, n, nb, me))
        for pe, bi in arrived:
            r0, r1 = blocks[bi]
            rows = slice(pe * m + r0, pe * m + r1)
            np.matmul(G[rows], B, out=C[rows])
        tx.finish()  # a is the caller's again
    if CS is not None and m > 0:
        _count_own(CS, n, 0 if plan.form == "unfused" else nb, me, plan.form == "unfused", m,
                   br_user)
    _plan.record(sh, plan, sh.calls, time.perf_counter() - t0, t_mm, mm_flops, t_comm)
    A_all = G.copy() if gather_out is None else gather_out
    Cres = out if out is not None else C
    if torch_in:
        import torch
        if not is_tensor(A_all):
            A_all = torch.from_numpy(A_all)
        if not is_tensor(Cres):
            Cres = torch.from_numpy(Cres)
    return A_all, Cres


def fused_matmul_reduce_scatter(x: ArrayLike, w: ArrayLike, op: str = "sum",
                                out: Optional[ArrayLike] = None, block_rows: Optional[int] = None,
                                overlap: Union[bool, str] = "auto", mode: str = "auto",
                                recv: Optional[ArrayLike] = None,
                                signal: Optional[ArrayLike] = None) -> ArrayLike:
    """Compute x @ w (x: M x k with M a multiple of n_pes, w: k x n) and
    reduce-scatter it over the PEs: PE p returns rows [p*M/n_pes,
    (p+1)*M/n_pes) of op over every PE's x @ w. op: sum, prod, min, max.

    mode, overlap: as for fused_all_gather_matmul (unfused: the whole
    matmul, then symm.reduce_scatter). Fused, the product is computed one
    target PE's rows at a time (in blocks of block_rows rows), target order
    rotated by PE (PE p serves p+1 first, so no PE is every PE's first
    target) and its own rows last; each finished block is put with a signal
    (on a stream, or non-blocking from this thread) while the next is
    computed, and arriving blocks are reduced in arrival order (so float
    sums may differ from a fixed-order sum in the last bits). out: where to
    write the result. recv: a symmetric array of M x n elements of x's
    dtype to receive the peers' blocks in (PE p's block for this PE at rows
    [p*M/n_pes, (p+1)*M/n_pes)) instead of symm's own; without out, the
    result is then its own rows' slot, a view of recv. signal: block-arrival
    counters, as for fused_all_gather_matmul. Tensors in, tensors out.
    Collective over TEAM_WORLD."""
    routine = "fused_matmul_reduce_scatter"
    runtime.ensure(routine, x=x, w=w, out=out, recv=recv)
    CS = None if signal is None else _caller_signal(signal, state.n_pes, routine)
    base = None if CS is None else CS.copy()  # before the call's opening reduction
    torch_in = is_tensor(x) or is_tensor(w)
    X, W = _matrices(routine, x, w, "x", "w")
    op = _op_arg(op, routine)
    if op not in ("sum", "prod", "min", "max"):
        raise ValueError("symm.%s: op %r is not sum, prod, min or max" % (routine, op))
    M, k = X.shape
    N = W.shape[1]
    n, me = state.n_pes, state.my_pe
    dt = X.dtype
    if M % n != 0:
        raise ValueError("symm.%s: x has %d rows, not a multiple of %d PEs" % (routine, M, n))
    ml = M // n
    br_user = _block_rows(block_rows, ml, routine)
    _mode_args(mode, overlap, routine)
    R = None
    if recv is not None:
        R = as_array(recv, routine, "recv", raw_ok=False)
        if R.size != M * N or R.dtype != dt:
            raise ValueError("symm.%s: recv must have %d elements of %s, not %d of %s"
                             % (routine, M * N, dt, R.size, R.dtype))
        _arrays.contiguous(R, routine, "recv")
        _arrays.symmetric(R, routine, "recv")
        R = R.reshape(n, ml, N)
    o = _out_arg(out, (ml, N), dt, routine, "out")
    if o is not None and o.flags.c_contiguous:
        acc = o
    else:
        acc = R[me] if R is not None and o is None else np.empty((ml, N), dt)
    X = np.ascontiguousarray(X)
    W = np.ascontiguousarray(W)
    ufunc = _UFUNC[op]
    flops = 2.0 * M * k * N
    sh, plan = _plan_call(routine, ("rs", M, k, N, dt.str, op), mode, overlap, ml, br_user,
                          flops, (M, k, N))
    t0 = time.perf_counter()
    t_mm = t_comm = 0.0
    mm_flops = 0.0
    if plan.form == "unfused":
        if ml > 0:
            P = R.reshape(M, N) if R is not None else _scratch(("rs_full", M, N, dt.str), (M, N), dt)
            np.matmul(X, W, out=P)
            t1 = time.perf_counter()
            reduce_scatter(acc, P, op)
            t_mm, mm_flops, t_comm = t1 - t0, flops, time.perf_counter() - t1
    elif ml > 0:
        br = _capped(plan, ml, CS, n)
        nb = max(1, math.ceil(ml / br))
        blocks = [(bi * br, min(ml, (bi + 1) * br)) for bi in range(nb)]
        rbuf = R if R is not None else _scratch(("rs", n, ml, N, dt.str), (n, ml, N), dt)
        if CS is None:
            sig, epoch, sop = _signals(("rs_sig", n * nb), n * nb) + (_SIGNAL_SET,)
        else:
            sig, epoch, sop = CS, 1, _SIGNAL_ADD
        P = _private(("rs_send", dt.str), (M, N), dt)
        rptr, sptr = _arrays.data_ptr(rbuf), _arrays.data_ptr(sig)
        row = N * dt.itemsize
        tx = _Sender(plan.form, routine, P)
        pptr = _arrays.data_ptr(P)
        t1 = time.perf_counter()
        for d in range(1, n):
            t = (me + d) % n
            for bi, (r0, r1) in enumerate(blocks):
                rows = slice(t * ml + r0, t * ml + r1)
                np.matmul(X[rows], W, out=P[rows])
                dst = rptr + (me * ml + r0) * row  # my slot in t's receive buffer
                src = pptr + (t * ml + r0) * row
                tx.send(dst, src, (r1 - r0) * row, sptr + 4 * (me * nb + bi), epoch, t, sop)
            if d == 1:
                t_mm, mm_flops = time.perf_counter() - t1, flops / n
        np.matmul(X[me * ml:(me + 1) * ml], W, out=acc)  # my own rows last
        arrived = (_arrivals(sptr, n, nb, me, epoch) if CS is None
                   else _arrivals_counted(CS, base, n, nb, me))
        for src_pe, bi in arrived:
            r0, r1 = blocks[bi]
            ufunc(acc[r0:r1], rbuf[src_pe, r0:r1], out=acc[r0:r1])
        tx.finish()  # P is ours to overwrite again
    if CS is not None and ml > 0:
        _count_own(CS, n, 0 if plan.form == "unfused" else nb, me, plan.form == "unfused", ml,
                   br_user)
    _plan.record(sh, plan, sh.calls, time.perf_counter() - t0, t_mm, mm_flops, t_comm)
    if o is not None and acc is not o:
        np.copyto(o, acc)
    res = out if out is not None else acc
    if torch_in and not is_tensor(res):
        import torch
        res = torch.from_numpy(res)
    return res
