"""The torch.distributed backend "symm": dist.init_process_group("symm").

A ProcessGroup (torch's pybind class, subclassed in Python: torch calls the
methods below from Python and from C++ alike, DDP included) whose
collectives run through symm on CPU tensors, each returning a Work made
from a torch future. A collective runs in the calling thread when nothing
is in flight (cheapest: no hop to another thread), else on the engine's
thread behind what is (the DDP hooks' reductions, which always run there
so that backward goes on meanwhile); async_op=True is then complete or
in flight when it returns.

symm starts from the process group's own store the way symm.rfc starts
(rank 0 makes a unique id with a fresh job secret and hands it over the
store; TLS kept), unless it runs already (under oshrun or mpirun, or
started by the program), in which case the group's rank and size must be
symm's.

Groups: the default group is symm's world. Every other group (new_group,
new_subgroups, ...) is a symm team its members make alone
(shmemx_team_create_group: torch calls a backend only on a group's
members), with its own engine, ordering and handshake, staged through its
window of a pool the default group set aside (SYMM_TORCH_GROUP_WINDOW
bytes each, SYMM_TORCH_GROUPS windows). Every handshake honours the
group's timeout; a group whose rank left or timed out is aborted and
raises on every rank (_engine.py).
"""

from __future__ import annotations

import atexit
import os
import sys
import weakref
from typing import TYPE_CHECKING, Any, List, Optional, Sequence

import torch.distributed as dist
import torch
from torch._C._distributed_c10d import ProcessGroup, Work, _create_work_from_future

import numpy as np

from .. import _start, coll, memory, runtime
from .. import team as team_mod
from .._lib import SymmError
from . import _engine, _ops, _p2p

if TYPE_CHECKING:
    from datetime import timedelta

    import torch._C._distributed_c10d as c10d

_world = {"engine": None, "pool": None}
_engines = weakref.WeakSet()


def _env_int(name, default):
    try:
        return int(os.environ.get(name, "") or default)
    except ValueError:
        raise SymmError("symm.torch: %s=%r is not a number" % (name, os.environ[name]))


def _window_bytes():
    return _env_int("SYMM_TORCH_GROUP_WINDOW", 8 << 20)


def world_engine(timeout: Optional[float] = None) -> _engine.Engine:
    """The engine of the world team (made on first use; symm must run)."""
    if _world["engine"] is None:
        _world["engine"] = _engine.Engine(timeout=timeout or 1800.0)
        _engines.add(_world["engine"])
    elif timeout:
        _world["engine"].timeout = timeout
    return _world["engine"]


def _make_pool():
    """The subgroups' windows (collective over the world, in the world
    engine's order): SYMM_TORCH_GROUPS windows of SYMM_TORCH_GROUP_WINDOW
    bytes, one per group team slot."""
    if _world["pool"] is None:
        n, w = _env_int("SYMM_TORCH_GROUPS", 16), _window_bytes()
        if n > 0 and w > 0:
            w = (w + 4095) // 4096 * 4096
            _world["pool"] = (memory.empty(n * w, np.uint8), n, w)


def _leave_all():
    """At exit: every group this process is in is left, so peers still
    waiting in one of its collectives raise now, naming this rank."""
    for eng in list(_engines):
        eng.leave("its process is exiting")


atexit.register(_leave_all)


def ensure_symm(rank: int, size: int, store: dist.Store) -> None:
    """Start symm for a torch job of size ranks (collective), or check the
    running job matches."""
    if not runtime.initialized():
        if _start.launched() or size == 1:
            runtime.init()
        else:
            _start.from_torch(rank, size, store, None, runtime.get_unique_id, runtime.init)
    if runtime.my_pe() != rank or runtime.n_pes() != size:
        raise SymmError("symm.torch: this process is PE %d of %d in symm but rank %d of %d in "
                        "torch.distributed: the symm backend needs the same numbering"
                        % (runtime.my_pe(), runtime.n_pes(), rank, size))


def _work(fut):
    return _create_work_from_future(fut)


def _seconds(timeout, default=1800.0):
    """A timedelta (or seconds) as seconds; default for none or unset."""
    if timeout is None:
        return default
    secs = timeout.total_seconds() if hasattr(timeout, "total_seconds") else float(timeout)
    return secs if secs > 0 else default


class _PyWork(Work):
    """The Work given to torch's Python API: wait() raises the operation's
    error (torch 1.13's Work made from a future drops it), and a receive
    from any source tells its source. Never handed to C++: torch 1.13 keeps
    no reference to a Python Work there, so its overrides would be lost."""

    def __init__(self, fut, source=-1):
        super().__init__()
        self._fut = fut
        self._source = source

    def wait(self, timeout: Optional[timedelta] = None) -> bool:
        """Wait for the operation (timeout: accepted, not used); raises its
        error. Returns True."""
        self._fut.wait()  # raises the error
        return True

    def is_completed(self) -> bool:
        """True once the operation has finished (with or without an error)."""
        return self._fut.done()

    def is_success(self) -> bool:
        """True once the operation has finished without an error."""
        if not self._fut.done():
            return False
        try:
            self._fut.value()
        except Exception:
            return False
        return True

    def get_future(self) -> torch.futures.Future:
        """The torch future the operation completes."""
        return self._fut

    def result(self) -> Any:
        """Wait for the operation and return its future's value (raises its
        error)."""
        return self._fut.wait()

    def _source_rank(self):
        self._fut.wait()
        return self._source[0] if isinstance(self._source, list) else self._source

    def source_rank(self) -> int:
        """Wait for the receive and return the rank it came from."""
        return self._source_rank()


def _max_teams():
    """The first group team slot (SYMM_MAX_TEAMS, as the C library reads it)."""
    return min(512, max(2, _env_int("SYMM_MAX_TEAMS", 64)))


def _group_engine(store, rank, ranks, timeout, name):
    """The engine of a group of world ranks `ranks` (sorted, this rank in
    them), made by its members alone."""
    if not runtime.initialized() or _world["engine"] is None:
        raise SymmError("symm.torch: new_group(ranks=%s) on the symm backend needs the default "
                        "group on symm (init_process_group('symm')), which sets aside the "
                        "groups' memory" % list(ranks))
    if _world["pool"] is None:
        raise SymmError("symm.torch: new_group(ranks=%s): SYMM_TORCH_GROUPS or "
                        "SYMM_TORCH_GROUP_WINDOW is 0: no group but the default one"
                        % list(ranks))
    from datetime import timedelta
    keys = ["symm_member/%d" % r for r in range(len(ranks))]
    store.set(keys[rank], "1")
    try:
        store.wait(keys, timedelta(seconds=timeout))
    except RuntimeError:
        missing = [ranks[i] for i, k in enumerate(keys) if not store.check([k])]
        raise SymmError("symm.torch: new_group(ranks=%s): rank%s %s did not make the group "
                        "within the timeout (%.1f s)" % (list(ranks), "s" if len(missing) != 1
                                                         else "", missing, timeout))
    team = team_mod.create_group(ranks, name=name)
    pool, n, w = _world["pool"]
    idx = team.index() - _max_teams()
    cbytes = (_engine.control_words(len(ranks)) * 8 + 4095) // 4096 * 4096
    if not 0 <= idx < n or cbytes + 4096 > w:
        team.destroy()
        raise SymmError("symm.torch: new_group(ranks=%s): %s" % (list(ranks), (
            "more than %d groups on symm at once in the job (SYMM_TORCH_GROUPS)" % n
            if not 0 <= idx < n else "a group of %d ranks needs a window over %d bytes "
            "(SYMM_TORCH_GROUP_WINDOW)" % (len(ranks), cbytes + 4096))))
    window = pool[idx * w:(idx + 1) * w]
    ctrl = window[:cbytes].view(np.int64)[:_engine.control_words(len(ranks))]
    ctrl[:] = 0
    coll.barrier(team)  # nobody writes into a member's control area before it is zero
    eng = _engine.Engine(team=team, pes=ranks, name=name, timeout=timeout, ctrl=ctrl,
                         window=window[cbytes:])
    _engines.add(eng)
    return eng


class ProcessGroupSymm(ProcessGroup):
    """torch.distributed's collectives over symm: the default group (symm's
    world) or a group of some ranks (a symm team they made alone)."""

    def __init__(self, store, rank, size, timeout, ranks=None, name=None):
        super().__init__(rank, size)
        secs = _seconds(timeout)
        self._timeout = timeout
        if ranks is None:
            ensure_symm(rank, size, store)
            self._eng = world_engine(secs)
            # Symmetric memory is allocated in the engine's order (collective).
            self._eng.submit(lambda: (_p2p.make(rank, size), _make_pool()), sync=True).wait()
        else:
            self._eng = _group_engine(store, rank, list(ranks), secs,
                                      name or "group %s" % list(ranks))

    def getBackendName(self) -> str:
        """The backend's name: "symm"."""
        return "symm"

    def name(self) -> str:
        """The backend's name: "symm"."""
        return "symm"

    def _go(self, make, result):
        """A collective: make() runs its handshake (raising on bad input,
        on every rank) and returns its data phase. With the engine idle,
        both run here (errors raise from the call; no hop to another
        thread: running DDP's buckets detached measured no faster on 2
        cores, docs/performance.md). Otherwise both are queued behind what
        is in flight (a hook's reductions), so handshakes run in the order
        of the calls on every rank, and the call returns at once. The
        Work's wait() raises a failure when torch's Python API asked; for a
        caller in C++ the future carries it and the group's next
        collective raises it too."""
        eng = self._eng
        py = _python_api()
        if eng.idle():
            run = make()
            fut = eng.submit(lambda: (run(), result)[1], True)
        else:
            fut = eng.submit(lambda: (make()(), result)[1], False, poison=not py)
        return _PyWork(fut) if py else _work(fut)

    @staticmethod
    def _one(tensors, what):
        if len(tensors) != 1:
            raise SymmError("symm.torch: %s takes one tensor per process, not %d"
                            % (what, len(tensors)))
        return tensors[0]

    # ---- collectives ---------------------------------------------------------
    def allreduce(self, tensors: List[torch.Tensor],
                  opts: Optional[c10d.AllreduceOptions] = None) -> Work:
        """all_reduce of the one tensor in tensors (dense or sparse COO), in
        place, with opts' reduce op (default SUM). Returns its Work."""
        t, op, eng = self._one(tensors, "all_reduce"), _reduce_op(opts), self._eng
        if t.layout == torch.sparse_coo:
            return self._go(lambda: _ops.all_reduce_sparse(eng, t, op), tensors)
        return self._go(lambda: _ops.all_reduce(eng, t, op), tensors)

    def allreduce_coalesced(self, tensors: List[torch.Tensor],
                            opts: Optional[c10d.AllreduceCoalescedOptions] = None) -> Work:
        """all_reduce_coalesced: each of tensors reduced in place, with opts'
        reduce op. Returns the Work of them all."""
        op, eng = _reduce_op(opts), self._eng

        def make():
            runs = [_ops.all_reduce(eng, t, op) for t in tensors]
            return lambda: [r() for r in runs]
        return self._go(make, tensors)

    def broadcast(self, tensors: List[torch.Tensor],
                  opts: Optional[c10d.BroadcastOptions] = None) -> Work:
        """broadcast of the one tensor in tensors from opts.rootRank (default
        0), in place. Returns its Work."""
        t, eng = self._one(tensors, "broadcast"), self._eng
        root = int(opts.rootRank) if opts is not None else 0
        return self._go(lambda: _ops.broadcast(eng, t, root), tensors)

    def reduce(self, tensors: List[torch.Tensor],
               opts: Optional[c10d.ReduceOptions] = None) -> Work:
        """reduce of the one tensor in tensors onto opts.rootRank, with opts'
        reduce op. Returns its Work."""
        t, eng = self._one(tensors, "reduce"), self._eng
        root, op = int(opts.rootRank), _reduce_op(opts)
        return self._go(lambda: _ops.reduce(eng, t, root, op), tensors)

    def allgather(self, output_lists: List[List[torch.Tensor]], input_tensors: List[torch.Tensor],
                  opts: Optional[c10d.AllgatherOptions] = None) -> Work:
        """all_gather: output_lists[0][r] receives rank r's one tensor of
        input_tensors. Returns its Work."""
        t = self._one(input_tensors, "all_gather")
        outs, eng = self._one(output_lists, "all_gather"), self._eng
        return self._go(lambda: _ops.all_gather(eng, outs, t), output_lists)

    def _allgather_base(self, output, input, opts=None):
        eng = self._eng
        return self._go(lambda: _ops.all_gather_base(eng, output, input), [output])

    def allgather_coalesced(self, output_lists: List[List[torch.Tensor]],
                            input_list: List[torch.Tensor],
                            opts: Optional[c10d.AllgatherOptions] = None) -> Work:
        """all_gather_coalesced: output_lists[r][k] receives rank r's
        input_list[k]. Returns the Work of them all."""
        # output_lists[r][k] receives rank r's input_list[k] (gloo's layout).
        eng = self._eng
        size = eng.size
        shaped = len(output_lists) == size and all(len(o) == len(input_list)
                                                   for o in output_lists)

        def make():
            runs = []
            for k, t in enumerate(input_list):
                outs = [output_lists[r][k] for r in range(size)] if shaped else []
                runs.append(_ops.all_gather(eng, outs, t))
            if not input_list or not shaped:
                # Every rank raises the same error in the handshake.
                _ops.all_gather(eng, [], input_list[0] if input_list else torch.empty(0))
            return lambda: [r() for r in runs]
        return self._go(make, output_lists)

    def gather(self, output_lists: List[List[torch.Tensor]], input_tensors: List[torch.Tensor],
               opts: Optional[c10d.GatherOptions] = None) -> Work:
        """gather: on opts.rootRank, output_lists[0][r] receives rank r's one
        tensor of input_tensors. Returns its Work."""
        t, eng = self._one(input_tensors, "gather"), self._eng
        outs = output_lists[0] if output_lists else []
        root = int(opts.rootRank)
        return self._go(lambda: _ops.gather(eng, outs, t, root), output_lists)

    def scatter(self, output_tensors: List[torch.Tensor], input_lists: List[List[torch.Tensor]],
                opts: Optional[c10d.ScatterOptions] = None) -> Work:
        """scatter: rank r's one tensor of output_tensors receives
        input_lists[0][r] of opts.rootRank. Returns its Work."""
        t, eng = self._one(output_tensors, "scatter"), self._eng
        ins = input_lists[0] if input_lists else []
        root = int(opts.rootRank)
        return self._go(lambda: _ops.scatter(eng, t, ins, root), output_tensors)

    def reduce_scatter(self, output_tensors: List[torch.Tensor],
                       input_lists: List[List[torch.Tensor]],
                       opts: Optional[c10d.ReduceScatterOptions] = None) -> Work:
        """reduce_scatter: rank r's one tensor of output_tensors receives the
        reduction over the ranks of their input_lists[0][r]. Returns its Work."""
        out = self._one(output_tensors, "reduce_scatter")
        ins, eng = self._one(input_lists, "reduce_scatter"), self._eng
        op = _reduce_op(opts)
        return self._go(lambda: _ops.reduce_scatter(eng, out, ins, op), output_tensors)

    def _reduce_scatter_base(self, output, input, opts=None):
        op, eng = _reduce_op(opts), self._eng
        return self._go(lambda: _ops.reduce_scatter_base(eng, output, input, op), [output])

    def alltoall_base(self, output: torch.Tensor, input: torch.Tensor,
                      output_split_sizes: Sequence[int], input_split_sizes: Sequence[int],
                      opts: Optional[c10d.AllToAllOptions] = None) -> Work:
        """all_to_all_single: input's first dimension split by
        input_split_sizes (equal blocks where empty) goes to the ranks in
        order; output's, split by output_split_sizes, comes from them. Returns
        its Work."""
        eng, osz, isz = self._eng, list(output_split_sizes), list(input_split_sizes)
        return self._go(lambda: _ops.all_to_all(eng, output, input, osz, isz), [output])

    def alltoall(self, output_tensors: List[torch.Tensor], input_tensors: List[torch.Tensor],
                 opts: Optional[c10d.AllToAllOptions] = None) -> Work:
        """all_to_all: input_tensors[r] goes to rank r, output_tensors[r] comes
        from rank r. Returns its Work."""
        eng = self._eng
        return self._go(lambda: _ops.all_to_all_list(eng, output_tensors, input_tensors),
                        output_tensors)

    def barrier(self, opts: Optional[c10d.BarrierOptions] = None) -> Work:
        """barrier of the group (within opts.timeout where set). Returns its
        Work."""
        eng, timeout = self._eng, _opt_timeout(opts)
        return self._go(lambda: _ops.barrier(eng, timeout), [])

    def monitored_barrier(self, opts: Optional[c10d.BarrierOptions] = None,
                          wait_all_ranks: bool = False) -> None:
        """monitored_barrier: a barrier of the group that returns once every
        rank has reached it, raising RuntimeError naming the failure where a rank
        left or it timed out (wait_all_ranks: accepted)."""
        eng, timeout = self._eng, _opt_timeout(opts)

        def run():
            try:
                _ops.barrier(eng, timeout)()
            except _engine.GroupAborted as e:
                raise RuntimeError("%s (monitored_barrier)" % e) from None
        eng.submit(run, True, poison=False).wait()

    # ---- point to point ------------------------------------------------------
    def _peer(self, rank, what):
        if not 0 <= rank < self._eng.size:
            raise SymmError("symm.torch: %s: rank %d outside the group of %d ranks on %s"
                            % (what, rank, self._eng.size, self._eng.describe()))
        return self._eng.pes[rank]

    def send(self, tensors: List[torch.Tensor], dst: int, tag: int = 0) -> Work:
        """send of the one tensor in tensors to group rank dst with tag.
        Returns its Work."""
        t = self._one(tensors, "send")
        return _PyWork(_p2p.channels().send(t, self._peer(int(dst), "send"), int(tag)))

    def recv(self, tensors: List[torch.Tensor], src: int, tag: int = 0) -> Work:
        """recv into the one tensor in tensors from group rank src with tag.
        Returns its Work."""
        t = self._one(tensors, "recv")
        src = int(src)
        return _PyWork(_p2p.channels().recv(t, self._peer(src, "recv"), int(tag)), src)

    def recv_anysource(self, tensors: List[torch.Tensor], tag: int = 0) -> Work:
        """recv from any rank of the group into the one tensor in tensors,
        with tag. Returns its Work, whose source_rank() tells the sender."""
        t = self._one(tensors, "recv")
        source = [-1]
        pes = self._eng.pes
        fut = _p2p.channels().recv_any(t, pes, int(tag), source)
        return _PyWork(fut, source)


def _python_api():
    """Whether the collective was called by torch's Python API
    (distributed_c10d, which waits on the Work in Python) rather than from
    C++ (DDP's reducer, _broadcast_coalesced) or other Python code."""
    f = sys._getframe(3)  # _python_api <- _go <- the collective <- its caller
    return f is not None and f.f_code.co_filename.endswith("distributed_c10d.py")


def _reduce_op(opts):
    return _ops.op_name(opts.reduceOp if opts is not None else dist.ReduceOp.SUM)


def _opt_timeout(opts):
    """A call's own timeout in seconds (BarrierOptions.timeout), or None."""
    t = getattr(opts, "timeout", None) if opts is not None else None
    if t is None:
        return None
    secs = t.total_seconds() if hasattr(t, "total_seconds") else float(t)
    return secs if secs > 0 else None


def _create(store, rank, size, timeout):
    return ProcessGroupSymm(store, rank, size, timeout)


def _create_extended(opts, pg_options=None):
    ranks = list(opts.global_ranks_in_group)
    if not ranks:  # the default group
        return ProcessGroupSymm(opts.store, opts.group_rank, opts.group_size, opts.timeout)
    name = getattr(opts, "group_id", None)
    return ProcessGroupSymm(opts.store, opts.group_rank, opts.group_size, opts.timeout,
                            ranks=ranks, name="group %s" % name if name else None)


def register() -> None:
    """Register "symm" with torch.distributed (once; importing symm.torch
    does it)."""
    if "SYMM" in getattr(dist.Backend, "_plugins", {}):
        return
    try:
        dist.Backend.register_backend("symm", _create_extended, extended_api=True)
    except TypeError:  # a torch without extended_api
        dist.Backend.register_backend("symm", _create)
