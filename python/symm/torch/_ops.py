"""The collectives of symm.torch on CPU tensors. Each function checks its
arguments and runs the engine's handshake in the caller's thread (so bad
input raises from the call, on every rank), then returns the data phase
as a function for the engine's thread to run in order: all_reduce, broadcast, all_gather,
reduce_scatter, all_to_all, barrier, reduce, gather, scatter.

Every tensor is staged through the engine's symmetric buffer: copied in,
moved by symm's collective, copied out. all_reduce of a dtype and op symm
reduces natively (float32/64, integers, complex sums) is one symm
reduction; every other (float16, bfloat16, bool, and reduce_scatter of any
dtype) is a reduce-scatter made of one alltoall, a local reduction in rank
order (float16 and bfloat16 accumulate in float32), and for all_reduce one
allgather. Every rank gets the same bits: the order of the reduction is
fixed.
"""

import torch

from .. import coll
from . import _engine
from ._engine import (_DTYPE, _EXTRA, _NUMEL, _OP, _ROOT, DTYPE_CODE, NATIVE, np_view,
                      view)

# Op codes in descriptors, and each one's local form.
OPS = ["sum", "prod", "min", "max", "band", "bor", "bxor", "avg"]
_SYMM_OP = {"sum": "sum", "prod": "prod", "min": "min", "max": "max", "band": "and",
            "bor": "or", "bxor": "xor", "avg": "sum"}
_FLOAT = (torch.float32, torch.float64, torch.float16, torch.bfloat16)
_COMPLEX = (torch.complex64, torch.complex128)
_INT = (torch.int8, torch.uint8, torch.int16, torch.int32, torch.int64)
_ALIGN = 64


_OP_TABLE = None


def op_name(op):
    """ReduceOp (or a name) -> one of OPS; None for ops symm.torch lacks."""
    global _OP_TABLE
    if isinstance(op, str):
        return op.lower() if op.lower() in OPS else None
    if _OP_TABLE is None:
        import torch.distributed as dist
        table = {dist.ReduceOp.SUM: "sum", dist.ReduceOp.PRODUCT: "prod",
                 dist.ReduceOp.MIN: "min", dist.ReduceOp.MAX: "max", dist.ReduceOp.BAND: "band",
                 dist.ReduceOp.BOR: "bor", dist.ReduceOp.BXOR: "bxor"}
        if hasattr(dist.ReduceOp, "AVG"):
            table[dist.ReduceOp.AVG] = "avg"
        _OP_TABLE = list(table.items())
    for k, v in _OP_TABLE:
        if op == k:
            return v
    return None


def op_allowed(dtype, op):
    if op is None:
        return False
    if dtype in _COMPLEX:
        return op in ("sum", "prod", "avg")
    if dtype in _FLOAT:
        return op in ("sum", "prod", "min", "max", "avg")
    if dtype == torch.bool:
        return op != "avg"
    return op != "avg"  # integers: every op but the average


def tensor_err(t):
    """The error code (engine.ERRORS) of a tensor this rank passes, or 0."""
    if not isinstance(t, torch.Tensor):
        return 4
    if t.layout != torch.strided:
        return 4
    if t.device.type != "cpu":
        return 1
    if t.dtype not in DTYPE_CODE:
        return 2
    return 0


def _round(n):
    return (n + _ALIGN - 1) // _ALIGN * _ALIGN


def _flat(t):
    """A contiguous 1-D tensor with t's elements (t itself when it can)."""
    return t.view(-1) if t.is_contiguous() else t.contiguous().view(-1)


def _put_back(t, flat):
    if not t.is_contiguous() or flat.data_ptr() != t.data_ptr():
        t.copy_(flat.view(t.shape))


def _local_op(op, dtype):
    if dtype == torch.bool:
        return {"sum": torch.logical_or, "prod": torch.logical_and, "min": torch.logical_and,
                "max": torch.logical_or, "band": torch.logical_and, "bor": torch.logical_or,
                "bxor": torch.logical_xor}[op]
    return {"sum": torch.add, "avg": torch.add, "prod": torch.mul, "min": torch.minimum,
            "max": torch.maximum, "band": torch.bitwise_and, "bor": torch.bitwise_or,
            "bxor": torch.bitwise_xor}[op]


def _check(eng, kind, t, op=None, root=0, extra=0, err=0, same=None, counts=None):
    """The handshake of a collective on tensor t (engine.handshake); the
    leader's result."""
    err = err or tensor_err(t)
    if not err and op is not None and not op_allowed(t.dtype, op):
        err = 3
    if not err and not 0 <= root < eng.size:
        err = 5
    ok = not err
    return eng.handshake(kind, t.numel() if ok else 0, t.dtype if ok else None,
                         OPS.index(op) if op in OPS else -1, root, err, extra, same, counts)


# ---- reductions -------------------------------------------------------------
def _reduce_scatter_blocks(eng, flat, dtype, op, chunk):
    """Every rank's flat (the same number of elements everywhere) cut into
    size blocks of chunk elements (the last ones short or empty), block j
    reduced over the ranks on rank j, in rank order (float16 and bfloat16
    in float32), divided by size for avg. This rank's block is left at
    byte offset acc_off of the staging buffer, in a slot of cb bytes.
    Returns (buf, acc_off, cb)."""
    size, n = eng.size, flat.numel()
    es = flat.element_size()
    cb = _round(chunk * es)
    total = size * cb
    buf = eng.staging(2 * total + cb)
    send = torch.from_numpy(buf[:total]).view(size, cb)
    for j in range(size):
        lo, hi = j * chunk, min(n, (j + 1) * chunk)
        if hi > lo:
            send[j, :(hi - lo) * es].view(dtype).copy_(flat[lo:hi])
    coll.alltoall(buf[total:2 * total], buf[:total], team=eng.team)
    recv = torch.from_numpy(buf[total:2 * total]).view(size, cb)[:, :chunk * es].view(dtype)
    fn = _local_op(op, dtype)
    wide = dtype in (torch.float16, torch.bfloat16)
    acc = recv[0].float() if wide else recv[0].clone()
    for i in range(1, size):
        if wide:
            acc = fn(acc, recv[i].float())
        else:
            fn(acc, recv[i], out=acc)
    if op == "avg":
        acc = acc / size
    view(buf, 2 * total, chunk, dtype).copy_(acc)
    return buf, 2 * total, cb


def all_reduce(eng, t, op):
    _check(eng, "all_reduce", t, op,
           same=("the tensor's layout, number of elements, its dtype and the op",
                 (_NUMEL, _DTYPE, _OP, _EXTRA)))

    def run():
        allreduce_flat(eng, t, op)
        return t
    return run


def _step_elems(eng, es, factor):
    """Elements per step when a step stages factor x its bytes and the
    group's staging is bounded (a subgroup's window); None: no bound."""
    limit = eng.staging_limit()
    if limit is None:
        return None
    unit = _ALIGN * eng.size
    return max(unit, (limit // factor) // (es * unit) * unit)


def allreduce_flat(eng, t, op):
    """all_reduce after the handshake (the hooks' path too); in steps that
    fit a subgroup's staging window."""
    n = t.numel()
    if n == 0 or eng.size == 1:
        return t
    step = _step_elems(eng, t.element_size(), 3)
    if step is not None and step < n:
        flat = _flat(t)
        for lo in range(0, n, step):
            _allreduce_step(eng, flat[lo:lo + step], op)
        _put_back(t, flat)
        return t
    return _allreduce_step(eng, t, op)


def _native_plan(eng, n, dtype, op):
    """The staging views (source, dest: apart, as an in-place reduction
    copies the vector once more) and the bound C reduction of an all_reduce
    of n dtype elements, made once per shape and kept by the engine while
    its staging buffer stays (a DDP step repeats the same few shapes, and
    building them cost more than a small reduction)."""
    nb = n * torch.empty((), dtype=dtype).element_size()
    off = _round(nb)
    buf = eng.staging(off + nb)
    key = (buf.ctypes.data, n, dtype, op)
    plan = eng.plans.get(key)
    if plan is None:
        src, dst = view(buf, 0, n, dtype), view(buf, off, n, dtype)
        a_src, a_dst = np_view(buf, 0, n, dtype), np_view(buf, off, n, dtype)
        symm_op, team = _SYMM_OP[op], eng.team

        def reduce_fn():
            coll.reduce_raw(a_dst, a_src, symm_op, team)
        if len(eng.plans) >= 64:
            eng.plans.clear()
        plan = eng.plans[key] = (src, dst, reduce_fn)
    return plan


def _allreduce_step(eng, t, op):
    n = t.numel()
    flat = _flat(t)
    dtype = t.dtype
    if dtype in NATIVE and eng.private is not False:
        # In place on the tensor's own memory, no staging copies, where no
        # other rank of the group maps this one's memory (decided once).
        eng.private = coll.reduce_private(flat.data_ptr(), flat.data_ptr(), n, NATIVE[dtype],
                                          _SYMM_OP[op], eng.team)
        if eng.private:
            if op == "avg":
                flat.div_(eng.size)
            _put_back(t, flat)
            return t
    if dtype in NATIVE:  # every op _check let through has a symm reduction
        src, dst, reduce_fn = _native_plan(eng, n, dtype, op)
        src.copy_(flat)
        reduce_fn()
        flat.copy_(dst)
        if op == "avg":
            flat.div_(eng.size)
    else:  # reduce-scatter, then allgather of the reduced blocks
        es = flat.element_size()
        chunk = (n + eng.size - 1) // eng.size
        buf, acc_off, cb = _reduce_scatter_blocks(eng, flat, dtype, op, chunk)
        total = eng.size * cb
        coll.allgather(buf[:total], buf[acc_off:acc_off + cb], team=eng.team)
        blocks = torch.from_numpy(buf[:total]).view(eng.size, cb)[:, :chunk * es]
        flat.copy_(blocks.reshape(-1).view(dtype)[:n])
    _put_back(t, flat)
    return t


def reduce_scatter(eng, out, inputs, op):
    """out = block rank of the reduction of every rank's concatenated
    inputs (size blocks of out's number of elements)."""
    err = tensor_err(out) or next((tensor_err(x) for x in inputs if tensor_err(x)), 0)
    if not err and (len(inputs) != eng.size or any(x.numel() != out.numel() or
                                                   x.dtype != out.dtype for x in inputs)):
        err = 6
    _check(eng, "reduce_scatter", out, op, err=err,
           same=("the output's number of elements, its dtype and the op", (_NUMEL, _DTYPE, _OP)))

    def run():
        n = out.numel()
        if n == 0:
            return out
        if eng.size == 1:
            out.copy_(inputs[0])
            return out
        flat = torch.cat([_flat(x) for x in inputs])
        _reduce_scatter_flat(eng, out, flat, op, n)
        return out
    return run


def _reduce_scatter_flat(eng, out, flat, op, n):
    """out = this rank's block of n elements of flat (size blocks) reduced."""
    buf, off, _ = _reduce_scatter_blocks(eng, flat, out.dtype, op, n)
    out.copy_(view(buf, off, n, out.dtype).view(out.shape))


def reduce_scatter_base(eng, out, inp, op):
    err = tensor_err(out) or tensor_err(inp)
    if not err and (inp.numel() != eng.size * out.numel() or inp.dtype != out.dtype):
        err = 6
    _check(eng, "reduce_scatter", out, op, err=err,
           same=("the output's number of elements, its dtype and the op", (_NUMEL, _DTYPE, _OP)))

    def run():
        if out.numel() == 0:
            return out
        if eng.size == 1:
            out.copy_(inp.view(out.shape))
            return out
        _reduce_scatter_flat(eng, out, _flat(inp), op, out.numel())
        return out
    return run


def reduce(eng, t, root, op):
    _check(eng, "reduce", t, op, root=root,
           same=("the tensor's number of elements, its dtype, the op and the root", (_NUMEL, _DTYPE, _OP, _ROOT)))

    def run():
        tmp = t.clone() if eng.rank != root else t
        allreduce_flat(eng, tmp, op)
        return t
    return run


# ---- data movement ---------------------------------------------------------


def broadcast(eng, t, root):
    _check(eng, "broadcast", t, root=root,
           same=("the tensor's number of elements, its dtype and the root", (_NUMEL, _DTYPE, _ROOT)))

    def run():
        n = t.numel()
        if n == 0 or eng.size == 1:
            return t
        flat = _flat(t)
        step = _step_elems(eng, flat.element_size(), 2) or n
        for lo in range(0, n, step):
            _broadcast_step(eng, flat[lo:lo + step], root)
        if eng.rank != root:
            _put_back(t, flat)
        return t
    return run


def _broadcast_step(eng, flat, root):
    n = flat.numel()
    nb = n * flat.element_size()
    off = _round(nb)
    buf = eng.staging(2 * off)
    if eng.rank == root:
        view(buf, 0, n, flat.dtype).copy_(flat)
    coll.broadcast(buf[off:off + nb], buf[:nb], root=root, team=eng.team)
    if eng.rank != root:
        flat.copy_(view(buf, off, n, flat.dtype))


def _gather_to_staging(eng, t):
    """Every rank's t (n elements each) gathered in rank order; returns a
    (size, n) tensor viewing the staging buffer."""
    n = t.numel()
    es = t.element_size()
    nb = n * es
    off = _round(nb)
    buf = eng.staging(off + eng.size * nb)
    view(buf, 0, n, t.dtype).copy_(_flat(t))
    coll.allgather(buf[off:off + eng.size * nb], buf[:nb], team=eng.team)
    return view(buf, off, eng.size * n, t.dtype).view(eng.size, n)


def all_gather(eng, outs, t):
    err = tensor_err(t) or next((tensor_err(o) for o in outs if tensor_err(o)), 0)
    if not err and (len(outs) != eng.size or any(o.numel() != t.numel() or o.dtype != t.dtype
                                                 for o in outs)):
        err = 6
    _check(eng, "all_gather", t, err=err,
           same=("the tensor's number of elements and its dtype", (_NUMEL, _DTYPE)))

    def run():
        if t.numel() == 0:
            return outs
        if eng.size == 1:
            outs[0].copy_(t)
            return outs
        g = _gather_to_staging(eng, t)
        for i, o in enumerate(outs):
            o.copy_(g[i].view(o.shape))
        return outs
    return run


def all_gather_base(eng, out, t):
    err = tensor_err(t) or tensor_err(out)
    if not err and (out.numel() != eng.size * t.numel() or out.dtype != t.dtype):
        err = 6
    _check(eng, "all_gather", t, err=err,
           same=("the tensor's number of elements and its dtype", (_NUMEL, _DTYPE)))

    def run():
        if t.numel() == 0:
            return out
        if eng.size == 1:
            out.copy_(t.view(out.shape))
            return out
        g = _gather_to_staging(eng, t)
        out.copy_(g.view(out.shape))
        return out
    return run


def gather(eng, outs, t, root):
    err = tensor_err(t)
    if not err and eng.rank == root and (len(outs) != eng.size or any(
            o.numel() != t.numel() or o.dtype != t.dtype for o in outs)):
        err = 6
    _check(eng, "gather", t, root=root, err=err,
           same=("the tensor's number of elements, its dtype and the root", (_NUMEL, _DTYPE, _ROOT)))

    def run():
        if t.numel() == 0:
            return outs
        g = _gather_to_staging(eng, t) if eng.size > 1 else _flat(t).view(1, -1)
        if eng.rank == root:
            for i, o in enumerate(outs):
                o.copy_(g[i].view(o.shape))
        return outs
    return run


def scatter(eng, t, ins, root):
    err = tensor_err(t)
    if not err and eng.rank == root and (len(ins) != eng.size or any(
            x.numel() != t.numel() or x.dtype != t.dtype for x in ins)):
        err = 6
    _check(eng, "scatter", t, root=root, err=err,
           same=("the tensor's number of elements, its dtype and the root", (_NUMEL, _DTYPE, _ROOT)))

    def run():
        n = t.numel()
        if n == 0:
            return t
        if eng.size == 1:
            t.copy_(ins[0].view(t.shape))
            return t
        es = t.element_size()
        total = eng.size * n * es
        off = _round(total)
        buf = eng.staging(2 * off)
        if eng.rank == root:
            src = view(buf, 0, eng.size * n, t.dtype).view(eng.size, n)
            for i, x in enumerate(ins):
                src[i].copy_(_flat(x))
        coll.broadcast(buf[off:off + total], buf[:total], root=root, team=eng.team)
        t.copy_(view(buf, off, eng.size * n, t.dtype).view(eng.size, n)[eng.rank].view(t.shape))
        return t
    return run


def all_to_all(eng, out, inp, out_splits, in_splits):
    """all_to_all_single: inp's first dimension split by in_splits (equal
    blocks when empty) to the ranks; out's by out_splits from them."""
    size = eng.size
    err = tensor_err(out) or tensor_err(inp)
    if not err and out.dtype != inp.dtype:
        err = 6
    row = 0
    if not err:
        rows_in = inp.shape[0] if inp.dim() else 0
        rows_out = out.shape[0] if out.dim() else 0
        row = (inp.numel() // rows_in) if rows_in else 0
        if not in_splits:
            in_splits = [rows_in // size] * size if rows_in % size == 0 else None
        if not out_splits:
            out_splits = [rows_out // size] * size if rows_out % size == 0 else None
        if (in_splits is None or out_splits is None or len(in_splits) != size or
                len(out_splits) != size or sum(in_splits) != rows_in or
                sum(out_splits) != rows_out):
            err = 6
    ic = [s * row for s in in_splits] if not err else [0] * size
    oc = [s * row for s in out_splits] if not err else [0] * size
    block = _check(eng, "all_to_all", inp, err=err, same=("the tensors' dtype", (_DTYPE,)),
                   counts=ic + oc)
    return lambda: _alltoallv(eng, out, inp, ic, oc, block)


def _alltoallv(eng, out, inp, in_counts, out_counts, block):
    """One alltoall of blocks padded to the largest."""
    size = eng.size
    es = inp.element_size()
    dtype = inp.dtype
    if block == 0:
        return out
    cb = _round(block * es)
    total = size * cb
    buf = eng.staging(2 * total)
    send = torch.from_numpy(buf[:total]).view(size, cb)
    src = _flat(inp)
    pos = 0
    for j in range(size):
        c = int(in_counts[j])
        if c:
            send[j, :c * es].view(dtype).copy_(src[pos:pos + c])
        pos += c
    coll.alltoall(buf[total:2 * total], buf[:total], team=eng.team)
    recv = torch.from_numpy(buf[total:2 * total]).view(size, cb)
    dst = _flat(out)
    pos = 0
    for i in range(size):
        c = int(out_counts[i])
        if c:
            dst[pos:pos + c].copy_(recv[i, :c * es].view(dtype))
        pos += c
    _put_back(out, dst)
    return out


def all_to_all_list(eng, outs, ins):
    err = next((tensor_err(x) for x in list(outs) + list(ins) if tensor_err(x)), 0)
    if not err and (len(outs) != eng.size or len(ins) != eng.size or
                    len({x.dtype for x in list(outs) + list(ins)}) != 1):
        err = 6
    probe = ins[0] if ins else torch.empty(0)
    ic = [x.numel() for x in ins] if not err else [0] * eng.size
    oc = [o.numel() for o in outs] if not err else [0] * eng.size
    block = _check(eng, "all_to_all", probe, err=err, same=("the tensors' dtype", (_DTYPE,)),
                   counts=ic + oc)

    def run():
        inp = torch.cat([_flat(x) for x in ins])
        out = torch.empty(sum(oc), dtype=inp.dtype)
        _alltoallv(eng, out, inp, ic, oc, block)
        pos = 0
        for o in outs:
            o.copy_(out[pos:pos + o.numel()].view(o.shape))
            pos += o.numel()
        return outs
    return run


def all_reduce_sparse(eng, t, op):
    """all_reduce of a sparse COO tensor, as gloo does it: every rank's
    indices and values gathered (padded to the largest count), summed."""
    err = 0 if t.device.type == "cpu" else 1
    if not err and t.dtype not in DTYPE_CODE:
        err = 2
    if not err and op != "sum":
        err = 3
    eng.handshake("all_reduce", t.numel() if not err else 0, t.dtype if not err else None,
                  OPS.index(op) if op in OPS else -1, 0, err, 1,
                  ("the tensor's layout, number of elements, its dtype and the op",
                   (_NUMEL, _DTYPE, _OP, _EXTRA)))
    n = torch.tensor([t._nnz()], dtype=torch.int64)
    counts = [torch.zeros(1, dtype=torch.int64) for _ in range(eng.size)]
    all_gather(eng, counts, n)()  # in this call's turn: nothing else runs between
    c = t.coalesce()
    idx, val = c._indices(), c._values()
    m = max(int(x) for x in counts)
    pidx = torch.zeros((idx.shape[0], m), dtype=idx.dtype)
    pval = torch.zeros((m,) + tuple(val.shape[1:]), dtype=val.dtype)
    pidx[:, :idx.shape[1]] = idx
    pval[:val.shape[0]] = val
    gi = [torch.empty_like(pidx) for _ in range(eng.size)]
    gv = [torch.empty_like(pval) for _ in range(eng.size)]
    all_gather(eng, gi, pidx)()
    all_gather(eng, gv, pval)()
    k = [int(x) for x in counts]
    total = torch.sparse_coo_tensor(
        torch.cat([g[:, :k[r]] for r, g in enumerate(gi)], 1),
        torch.cat([g[:k[r]] for r, g in enumerate(gv)], 0), t.shape).coalesce()

    def run():
        t.copy_(total)
        return t
    return run


def barrier(eng, timeout=None):
    """Every rank arrived (the handshake), and every collective queued
    before it has run on the engine's thread. timeout: seconds (default
    the group's)."""
    eng.handshake("barrier", timeout=timeout)
    return lambda: coll.barrier(eng.team)


__all__ = ["OPS", "op_name", "all_reduce", "allreduce_flat", "broadcast", "all_gather",
           "all_gather_base", "reduce_scatter", "reduce_scatter_base", "reduce", "gather",
           "scatter", "all_to_all", "all_to_all_list", "barrier", "_engine"]
