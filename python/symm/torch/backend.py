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
symm's. Serves the default group (every rank of the job); a subgroup
(new_group with a subset of the ranks) is refused with a clear error,
since symm's teams are made collectively by every rank and torch calls a
backend only on a subgroup's members.
"""

import torch.distributed as dist
from torch._C._distributed_c10d import ProcessGroup, _create_work_from_future

from .. import _start, runtime
from .._lib import SymmError
from . import _engine, _ops

_world = {"engine": None}


def world_engine():
    """The engine of the world team (made on first use; symm must run)."""
    if _world["engine"] is None:
        _world["engine"] = _engine.Engine()
    return _world["engine"]


def ensure_symm(rank, size, store):
    """Start symm for a torch job of size ranks (collective), or check the
    running job matches."""
    if not runtime.initialized():
        if _start.launched() or size == 1:
            runtime.init()
        else:
            _start.from_torch(rank, size, store, None)
    if runtime.my_pe() != rank or runtime.n_pes() != size:
        raise SymmError("symm.torch: this process is PE %d of %d in symm but rank %d of %d in "
                        "torch.distributed: the symm backend needs the same numbering"
                        % (runtime.my_pe(), runtime.n_pes(), rank, size))


def _work(fut):
    return _create_work_from_future(fut)


class ProcessGroupSymm(ProcessGroup):
    """torch.distributed's collectives over symm (the default group)."""

    def __init__(self, store, rank, size, timeout):
        super().__init__(rank, size)
        ensure_symm(rank, size, store)
        self._eng = world_engine()
        self._timeout = timeout
        from . import _p2p
        # Symmetric memory is allocated in the engine's order (collective).
        self._eng.submit(lambda: _p2p.make(rank, size), sync=True).wait()

    def getBackendName(self):
        return "symm"

    def name(self):
        return "symm"

    def _go(self, run, result):
        """Run a checked collective's data phase: here when the engine is
        idle (a hop to its thread costs more than a small all_reduce), else
        queued behind what is in flight (a hook's reductions); its Work."""
        return _work(self._eng.submit(lambda: (run(), result)[1], True))

    @staticmethod
    def _one(tensors, what):
        if len(tensors) != 1:
            raise SymmError("symm.torch: %s takes one tensor per process, not %d"
                            % (what, len(tensors)))
        return tensors[0]

    # ---- collectives ---------------------------------------------------------
    def allreduce(self, tensors, opts=None):
        t = self._one(tensors, "all_reduce")
        op = _ops.op_name(opts.reduceOp if opts is not None else dist.ReduceOp.SUM)
        return self._go(_ops.all_reduce(self._eng, t, op), tensors)

    def allreduce_coalesced(self, tensors, opts=None):
        op = _ops.op_name(opts.reduceOp if opts is not None else dist.ReduceOp.SUM)

        runs = [_ops.all_reduce(self._eng, t, op) for t in tensors]
        return self._go(lambda: [r() for r in runs], tensors)

    def broadcast(self, tensors, opts=None):
        t = self._one(tensors, "broadcast")
        root = int(opts.rootRank) if opts is not None else 0
        return self._go(_ops.broadcast(self._eng, t, root), tensors)

    def reduce(self, tensors, opts=None):
        t = self._one(tensors, "reduce")
        op = _ops.op_name(opts.reduceOp)
        return self._go(_ops.reduce(self._eng, t, int(opts.rootRank), op), tensors)

    def allgather(self, output_lists, input_tensors, opts=None):
        t = self._one(input_tensors, "all_gather")
        outs = self._one(output_lists, "all_gather")
        return self._go(_ops.all_gather(self._eng, outs, t), output_lists)

    def _allgather_base(self, output, input, opts=None):
        return self._go(_ops.all_gather_base(self._eng, output, input), [output])

    def allgather_coalesced(self, output_lists, input_list, opts=None):
        runs = [_ops.all_gather(self._eng, outs, t) for outs, t in zip(output_lists, input_list)]
        return self._go(lambda: [r() for r in runs], output_lists)

    def gather(self, output_lists, input_tensors, opts=None):
        t = self._one(input_tensors, "gather")
        outs = output_lists[0] if output_lists else []
        root = int(opts.rootRank)
        return self._go(_ops.gather(self._eng, outs, t, root), output_lists)

    def scatter(self, output_tensors, input_lists, opts=None):
        t = self._one(output_tensors, "scatter")
        ins = input_lists[0] if input_lists else []
        root = int(opts.rootRank)
        return self._go(_ops.scatter(self._eng, t, ins, root), output_tensors)

    def reduce_scatter(self, output_tensors, input_lists, opts=None):
        out = self._one(output_tensors, "reduce_scatter")
        ins = self._one(input_lists, "reduce_scatter")
        op = _ops.op_name(opts.reduceOp if opts is not None else dist.ReduceOp.SUM)
        return self._go(_ops.reduce_scatter(self._eng, out, ins, op), output_tensors)

    def _reduce_scatter_base(self, output, input, opts=None):
        op = _ops.op_name(opts.reduceOp if opts is not None else dist.ReduceOp.SUM)
        return self._go(_ops.reduce_scatter_base(self._eng, output, input, op), [output])

    def alltoall_base(self, output, input, output_split_sizes, input_split_sizes, opts=None):
        return self._go(_ops.all_to_all(self._eng, output, input,
                                                list(output_split_sizes),
                                                list(input_split_sizes)), [output])

    def alltoall(self, output_tensors, input_tensors, opts=None):
        return self._go(_ops.all_to_all_list(self._eng, output_tensors, input_tensors),
                        output_tensors)

    def barrier(self, opts=None):
        return self._go(_ops.barrier(self._eng), [])

    def monitored_barrier(self, opts=None, wait_all_ranks=False):
        self._eng.submit(_ops.barrier(self._eng), False).wait()

    # ---- point to point ------------------------------------------------------
    def send(self, tensors, dst, tag=0):
        from . import _p2p
        t = self._one(tensors, "send")
        return _work(_p2p.channels().send(t, int(dst), int(tag)))

    def recv(self, tensors, src, tag=0):
        from . import _p2p
        t = self._one(tensors, "recv")
        return _work(_p2p.channels().recv(t, int(src), int(tag)))

    def recv_anysource(self, tensors, tag=0):
        raise SymmError("symm.torch: recv from any source is not supported by the symm backend; "
                        "name the source rank")


def _create(store, rank, size, timeout):
    return ProcessGroupSymm(store, rank, size, timeout)


def _create_extended(opts, pg_options=None):
    world = dist.get_world_size() if dist.is_initialized() else None
    ranks = list(opts.global_ranks_in_group)
    if ranks and world is not None and sorted(ranks) != list(range(world)):
        raise SymmError("symm.torch: new_group(ranks=%s): the symm backend serves the default "
                        "group (every rank) only; give the subgroup backend='gloo'" % ranks)
    return ProcessGroupSymm(opts.store, opts.group_rank, opts.group_size, opts.timeout)


def register():
    """Register "symm" with torch.distributed (once; importing symm.torch
    does it)."""
    if "SYMM" in getattr(dist.Backend, "_plugins", {}):
        return
    try:
        dist.Backend.register_backend("symm", _create_extended, extended_api=True)
    except TypeError:  # a torch without extended_api
        dist.Backend.register_backend("symm", _create)
