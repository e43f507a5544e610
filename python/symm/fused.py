"""Fused communication + computation: all-gather + matmul and matmul +
reduce-scatter, with the communication hidden behind the matmuls.

How the overlap happens: the puts go on a CPU stream (symm.Stream), whose
own thread copies the blocks into the peers' symmetric buffers and then
sets each block's int32 signal to this call's epoch; meanwhile the calling
thread runs numpy matmuls (which release the GIL). A PE waits for each
incoming block's signal (shmem_int32_wait_until_any, in arrival order) and
computes with it at once. Epoch numbers grow with every call, so signals
never need resetting.

Both routines are collective over TEAM_WORLD: every PE calls them in the same
order with the same shapes. They start with a sync so that no PE writes into
a buffer a peer still reads from the previous call. Their scratch buffers
(symmetric) are cached per shape, a few at a time, and released at finalize;
making or evicting one is a collective allocation, which is safe because
every PE makes the same calls.
"""

import collections
import math

import numpy as np

from . import _arrays, memory, runtime
from ._arrays import as_array, is_tensor
from ._lib import c_int, c_int32, c_size_t, c_void_p, fn, state
from .coll import _UFUNC, _op_arg
from .stream import Stream

_FLOATS = [np.dtype(np.float32), np.dtype(np.float64)]
_CMP_EQ = 0
_SIGNAL_SET = 0
_MAX_CACHED = 8
# overlap="auto" puts on a stream only when a call sends at least this many
# bytes: waking the stream's thread costs tens of microseconds to a few
# milliseconds when every core is busy, more than copying a small message.
STREAM_MIN_BYTES = 1 << 20

_cache = collections.OrderedDict()  # key -> symmetric array
_epochs = {}                         # signal key -> last epoch used
_local = {}                          # key -> private (non-symmetric) scratch
_stream = [None]


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
    _stream[0] = None


state.before_finalize.append(_drop)


def _private(key, shape, dtype):
    a = _local.get(key)
    if a is None or a.shape != shape or a.dtype != dtype:
        a = np.empty(shape, dtype)
        _local[key] = a
    return a


def _block_rows(block_rows, m, routine):
    if block_rows is None:
        return max(1, m)
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


def _overlap_arg(overlap, nbytes, routine):
    if overlap == "auto":
        return state.n_pes > 1 and nbytes >= STREAM_MIN_BYTES
    if overlap is True or overlap is False:
        return overlap
    raise ValueError("symm.%s: overlap must be True, False or 'auto', not %r" % (routine, overlap))


def _wait_any():
    return fn("shmem_int32_wait_until_any", c_size_t,
              [c_void_p, c_size_t, c_void_p, c_int, c_int32])


def fused_all_gather_matmul(a, b, gather_out=None, block_rows=None, out=None, overlap="auto"):
    """All-gather every PE's a (m_local x k, the same shape everywhere) and
    multiply by b (k x n): returns (A_all, A_all @ b), A_all being
    (n_pes*m_local) x k with PE p's rows at [p*m_local, (p+1)*m_local).

    Each PE's rows travel in blocks of block_rows rows (default: one block)
    by put-with-signal on a stream while this PE multiplies its own rows;
    each arriving block is multiplied as soon as its signal is seen.
    gather_out: a symmetric array to gather into (returned as A_all, no
    copy); otherwise A_all is a new private array. out: where to write the
    product. overlap=True puts on the stream as above; False puts from
    the calling thread before it computes (peers still multiply each block
    as it arrives); "auto" (default) uses the stream when this PE sends at
    least STREAM_MIN_BYTES (1 MiB). float32/float64 numpy arrays or CPU tensors;
    tensors in, tensors out. Collective over TEAM_WORLD."""
    routine = "fused_all_gather_matmul"
    runtime.ensure(routine, a=a, b=b, gather_out=gather_out, out=out)
    torch_in = is_tensor(a) or is_tensor(b)
    A, B = _matrices(routine, a, b, "a", "b")
    m, k = A.shape
    N = B.shape[1]
    n, me = state.n_pes, state.my_pe
    dt = A.dtype
    br = _block_rows(block_rows, m, routine)
    nb = max(1, math.ceil(m / br))
    overlap = _overlap_arg(overlap, (n - 1) * A.nbytes, routine)
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
    sig, epoch = _signals(("ag_sig", n * nb), n * nb)
    Asrc = np.ascontiguousarray(A)
    B = np.ascontiguousarray(B)

    fn("shmem_sync_all", None, [])()  # peers are done with the last call's buffers
    gptr, sptr, row = _arrays.data_ptr(G), _arrays.data_ptr(sig), k * dt.itemsize
    aptr = _arrays.data_ptr(Asrc)
    blocks = [(bi * br, min(m, (bi + 1) * br)) for bi in range(nb)]
    if m > 0:
        if overlap:
            st = _get_stream()
            put = fn("aclshmemx_putmem_on_stream", None,
                     [c_void_p, c_void_p, c_size_t, c_int32, c_void_p])
            sigop = fn("aclshmemx_signal_op_on_stream", None,
                       [c_void_p, c_int32, c_int, c_int, c_void_p])
            h = st._handle(routine)
            st._keep.append(Asrc)
            put(gptr + me * m * row, aptr, m * row, me, h)  # my own rows, on the stream too
            for bi, (r0, r1) in enumerate(blocks):  # block-major: every peer gets block 0 first
                for d in range(1, n):
                    peer = (me + d) % n
                    put(gptr + (me * m + r0) * row, aptr + r0 * row, (r1 - r0) * row, peer, h)
                    sigop(sptr + 4 * (me * nb + bi), epoch, _SIGNAL_SET, peer, h)
        else:
            putsig = fn("aclshmemx_putmem_signal", None,
                        [c_void_p, c_void_p, c_size_t, c_void_p, c_int32, c_int, c_int])
            np.copyto(G[me * m:(me + 1) * m], Asrc)
            for bi, (r0, r1) in enumerate(blocks):
                for d in range(1, n):
                    peer = (me + d) % n
                    putsig(gptr + (me * m + r0) * row, aptr + r0 * row, (r1 - r0) * row,
                           sptr + 4 * (me * nb + bi), epoch, _SIGNAL_SET, peer)
        # My own rows first: no waiting.
        np.matmul(Asrc, B, out=C[me * m:(me + 1) * m])
        # Then every other block, in the order they arrive.
        for pe, bi in _arrivals(sptr, n, nb, me, epoch):
            r0, r1 = blocks[bi]
            rows = slice(pe * m + r0, pe * m + r1)
            np.matmul(G[rows], B, out=C[rows])
        if overlap:
            st.synchronize()
    if gather_out is None:
        A_all = G.copy()
    else:
        A_all = gather_out
    if out is not None:
        Cres = out
    else:
        Cres = C
    if torch_in:
        import torch
        if not is_tensor(A_all):
            A_all = torch.from_numpy(A_all)
        if not is_tensor(Cres):
            Cres = torch.from_numpy(Cres)
    return A_all, Cres


def fused_matmul_reduce_scatter(x, w, op="sum", out=None, block_rows=None, overlap="auto"):
    """Compute x @ w (x: M x k with M a multiple of n_pes, w: k x n) and
    reduce-scatter it over the PEs: PE p returns rows [p*M/n_pes,
    (p+1)*M/n_pes) of op over every PE's x @ w. op: sum, prod, min, max.

    The product is computed one target PE's rows at a time (in blocks of
    block_rows rows), target order rotated by PE (PE p serves p+1 first, so
    no PE is every PE's first target) and its own rows last; each finished
    block is put with a signal on a stream while the next is computed, and
    arriving blocks are reduced in arrival order (so float sums may differ
    from a fixed-order sum in the last bits). out: where to write the
    result. overlap: as for fused_all_gather_matmul (False: each block is
    put from the calling thread after its matmul). Tensors in, tensors out. Collective over TEAM_WORLD."""
    routine = "fused_matmul_reduce_scatter"
    runtime.ensure(routine, x=x, w=w, out=out)
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
    br = _block_rows(block_rows, ml, routine)
    nb = max(1, math.ceil(ml / br))
    blocks = [(bi * br, min(ml, (bi + 1) * br)) for bi in range(nb)]
    overlap = _overlap_arg(overlap, (n - 1) * ml * N * dt.itemsize, routine)
    o = _out_arg(out, (ml, N), dt, routine, "out")
    acc = np.empty((ml, N), dt) if o is None or not o.flags.c_contiguous else o
    recv = _scratch(("rs", n, ml, N, dt.str), (n, ml, N), dt)
    sig, epoch = _signals(("rs_sig", n * nb), n * nb)
    P = _private(("rs_send", dt.str), (M, N), dt)
    X = np.ascontiguousarray(X)
    W = np.ascontiguousarray(W)
    ufunc = _UFUNC[op]

    fn("shmem_sync_all", None, [])()  # peers are done with the last call's buffers
    rptr, sptr = _arrays.data_ptr(recv), _arrays.data_ptr(sig)
    row = N * dt.itemsize
    if ml > 0:
        if overlap:
            st = _get_stream()
            h = st._handle(routine)
            put = fn("aclshmemx_putmem_on_stream", None,
                     [c_void_p, c_void_p, c_size_t, c_int32, c_void_p])
            sigop = fn("aclshmemx_signal_op_on_stream", None,
                       [c_void_p, c_int32, c_int, c_int, c_void_p])
            st._keep.append(P)
        else:
            putsig = fn("aclshmemx_putmem_signal", None,
                        [c_void_p, c_void_p, c_size_t, c_void_p, c_int32, c_int, c_int])
        pptr = _arrays.data_ptr(P)
        for d in range(1, n):
            t = (me + d) % n
            for bi, (r0, r1) in enumerate(blocks):
                rows = slice(t * ml + r0, t * ml + r1)
                np.matmul(X[rows], W, out=P[rows])
                dst = rptr + (me * ml + r0) * row  # my slot in t's receive buffer
                src = pptr + (t * ml + r0) * row
                if overlap:
                    put(dst, src, (r1 - r0) * row, t, h)
                    sigop(sptr + 4 * (me * nb + bi), epoch, _SIGNAL_SET, t, h)
                else:
                    putsig(dst, src, (r1 - r0) * row, sptr + 4 * (me * nb + bi), epoch,
                           _SIGNAL_SET, t)
        np.matmul(X[me * ml:(me + 1) * ml], W, out=acc)  # my own rows last
        for src_pe, bi in _arrivals(sptr, n, nb, me, epoch):
            r0, r1 = blocks[bi]
            ufunc(acc[r0:r1], recv[src_pe, r0:r1], out=acc[r0:r1])
        if overlap:
            st.synchronize()
    if o is not None and acc is not o:
        np.copyto(o, acc)
    res = out if out is not None else acc
    if torch_in and not is_tensor(res):
        import torch
        res = torch.from_numpy(res)
    return res
